#!/usr/bin/env bash
# The Playwright web server: a fresh embedded database, migrated and seeded with the demo program (its API
# key and staff credentials written to $PGLITE_DIR/seed.json for the tests) and a second program in which the
# demo owner is a viewer, then the production server (`npm start`'s front, dist/main.mjs). All of it before the
# server starts: one process per PGlite dir.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${PGLITE_DIR:?PGLITE_DIR must name the database directory of this run}"
cli() { npm run --silent loyalty -- "$@" | tail -n 1; }
npm run --silent db:migrate >&2
seed=$(cli seed demo --customers 300)
json() { node -e 'const o = JSON.parse(process.argv[1]); console.log(process.argv[2].split(".").reduce((v, k) => v[k], o))' "$1" "$2"; }
second=$(json "$(cli program create --name "Demo Tea House")" programId)
cli staff create --email "$(json "$seed" staff.0.email)" --password "$(json "$seed" staff.0.password)" --program "$second" --role viewer >/dev/null
node -e 'const o = JSON.parse(process.argv[1]); o.secondProgram = { programId: process.argv[2], name: "Demo Tea House" }; console.log(JSON.stringify(o))' \
  "$seed" "$second" > "$PGLITE_DIR/seed.json"
PORT="${PORT:-3100}" exec node dist/main.mjs
