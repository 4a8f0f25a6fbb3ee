#!/usr/bin/env bash
# The one command that installs and runs the service: `npm run up`.
# Installs dependencies, builds, migrates, seeds a demo program on first run, prints its API key and a
# ready-to-paste curl, then serves on $PORT (default 3000). Embedded PGlite in $PGLITE_DIR (default
# .data/pglite) unless DATABASE_URL names a PostgreSQL server.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NEXT_TELEMETRY_DISABLED=1
PORT="${PORT:-3000}"

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "==> installing dependencies"
  # npm install, not npm ci: the registry mirror lacks other platforms' optional builds, which npm ci rejects.
  npm install --no-audit --no-fund
fi

echo "==> building"
npm run --silent build

echo "==> migrating"
npm run --silent db:migrate

# The demo key's secret is shown once at creation, so it is kept (outside git) to print again on later runs.
target="${DATABASE_URL:-pglite:${PGLITE_DIR:-.data/pglite}}"
mkdir -p .data
demo_file=".data/demo-$(printf '%s' "$target" | sha256sum | cut -c1-12).json"
# The file outlives the database when the database is reset (rm -rf .data/pglite, a dropped PostgreSQL
# database): keep it only while its program still exists there, else seed again.
if [ -s "$demo_file" ]; then
  demo_program=$(node -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).programId ?? "") } catch { console.log("") }' "$demo_file")
  if check=$(npm run --silent loyalty -- program show --id "$demo_program" 2>/dev/null | tail -n 1); then
    :
  elif printf '%s' "$check" | grep -Eq '"code":"(not_found|invalid_flags)"'; then
    echo "==> the demo program is gone from the database (reset?)"
    rm -f "$demo_file"
  else
    echo "error: could not check the demo program: $check" >&2
    exit 1
  fi
fi
if [ ! -s "$demo_file" ]; then
  echo "==> seeding the demo program (first run)"
  npm run --silent loyalty -- seed demo | tail -n 1 > "$demo_file.tmp"
  mv "$demo_file.tmp" "$demo_file"
fi

node -e '
const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const base = `http://localhost:${process.argv[2]}`;
console.log(`
Demo program: ${d.programId}
Demo API key: ${d.apiKey}

Try it:
  curl -s ${base}/v1/programs/${d.programId}/customers/${encodeURIComponent(d.sampleEmail)} -H "api-key: ${d.apiKey}"

  curl -si -X POST ${base}/v1/programs/${d.programId}/integrations/api -H "api-key: ${d.apiKey}" \\
    -H "content-type: application/json" \\
    -d '"'"'[{"email":"new.member@example.com","feature":"user","payload":{"firstName":"New","lastName":"Member"}}]'"'"'

API reference: ${base}/docs (OpenAPI: ${base}/v1/openapi.json)

Staff dashboard: ${base}/signin
${(d.staff ?? []).map((s) => `  ${s.role.padEnd(8)} ${s.email}  password: ${s.password}`).join("\n")}
`);' "$demo_file" "$PORT"

echo "==> serving on http://localhost:$PORT"
# The production server (what `npm start` runs: server/main.ts); migrations were applied above.
PORT="$PORT" exec node --max-semi-space-size=32 dist/main.mjs
