#!/usr/bin/env bash
# The one command that installs and runs the service: `npm run up`.
# Installs dependencies, builds, migrates, seeds a demo program on first run, prints its API key and a
# ready-to-paste curl for each of the specification's ten operations and the demo staff passwords, then serves on
# $HOST:$PORT (default 127.0.0.1:3000: only this machine can reach it, since it prints passwords; HOST=0.0.0.0 to
# listen on every interface). Embedded PGlite in $PGLITE_DIR (default .data/pglite) unless DATABASE_URL names a
# PostgreSQL server.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NEXT_TELEMETRY_DISABLED=1
PORT="${PORT:-3000}"
HOST="${HOST:-127.0.0.1}"

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
const A = `${base}/v1/programs/${d.programId}`;
const C = `${A}/customers/${encodeURIComponent(d.sampleEmail)}`;
const key = `-H "api-key: ${d.apiKey}"`;
const json = (body) => `-H "content-type: application/json" \\\n    -d '"'"'${JSON.stringify(body)}'"'"'`;
const missing = (what) => `  (re-seed for this one: this demo was seeded before it had ${what})`;
console.log(`
Demo program: ${d.programId}
Demo API key: ${d.apiKey}
Reward: ${d.rewardId ?? "-"}   Coupon pool: ${d.couponPoolId ?? "-"}   Earning flow: ${d.earningFlowKey ?? "-"}

The ten operations of the specification:
# 1. Get customer details by email
  curl -s ${C} ${key}
# 2. Create/Update resources
  curl -si -X POST ${A}/integrations/api ${key} \\
    ${json([{ email: "new.member@example.com", feature: "user", payload: { firstName: "New", lastName: "Member", language: "en" } }])}
# 3. Delete resources (erases the customer)
  curl -si -X DELETE ${A}/integrations/api ${key} \\
    ${json([{ email: "new.member@example.com", feature: "user" }])}
# 4. Get a customer token
  curl -s ${C}/token ${key}
# 5. Redeem a reward
${d.rewardId ? `  curl -s -X POST ${C}/rewards/${d.rewardId}/redeem ${key}` : missing("a reward id")}
# 6. Send a push notification
  curl -s -X POST ${C}/notifications ${key} \\
    ${json({ title: "Hello", body: "Your points are waiting.", category: "marketing" })}
# 7. Assign a coupon
${d.couponPoolId ? `  curl -s -X POST ${C}/coupons ${key} \\\n    ${json({ couponPoolId: d.couponPoolId })}` : missing("a coupon pool id")}
# 8. Increase balance
  curl -s -X POST ${C}/balance/increase ${key} \\
    ${json({ points: 100, reason: "welcome bonus" })}
# 9. Decrease balance
  curl -s -X POST ${C}/balance/decrease ${key} \\
    ${json({ points: 50, reason: "correction" })}
# 10. Execute a custom earning flow for a customer
${d.earningFlowKey ? `  curl -s -X POST ${C}/earning-flows/${d.earningFlowKey} ${key}` : missing("an earning flow")}

API reference: ${base}/docs (OpenAPI: ${base}/v1/openapi.json)

Staff dashboard: ${base}/signin
${(d.staff ?? []).map((s) => `  ${s.role.padEnd(8)} ${s.email}  password: ${s.password}`).join("\n")}
`);' "$demo_file" "$PORT"

echo "==> serving on http://$HOST:$PORT (HOST=0.0.0.0 npm run up to listen on every interface)"
# The production server (what `npm start` runs: server/main.ts); migrations were applied above.
HOST="$HOST" PORT="$PORT" exec node --max-semi-space-size=32 dist/main.mjs
