#!/usr/bin/env bash
# The Playwright web server: a fresh embedded database, migrated and seeded with the demo program (its API
# key and staff credentials written to $PGLITE_DIR/seed.json for the tests), then `next start`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${PGLITE_DIR:?PGLITE_DIR must name the database directory of this run}"
npm run --silent db:migrate >&2
npm run --silent loyalty -- seed demo --customers 300 | tail -n 1 > "$PGLITE_DIR/seed.json"
exec node_modules/.bin/next start -p "${PORT:-3100}"
