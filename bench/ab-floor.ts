/**
 * `node --import tsx bench/ab-floor.ts <appDir>...`: the floor request (GET /customers/{email} without an api-key: a
 * 401 that touches no database) against several builds of the app at once, in short alternating slices, so that
 * a noisy shared machine slows all of them alike. Prints each build's median req/s and p50/p99 over the slices and
 * the median of its per-round ratios to the first. For A/B checks of edge changes (e.g. main's build against a branch's); each appDir must
 * hold a `next build`. Env: AB_ROUNDS=10, AB_SECONDS=2, AB_CONNECTIONS=32, AB_DATABASE_URL (never queried).
 */
import path from "node:path";
import autocannon from "autocannon";
import { installGuards, spawnChild, teardown } from "./lifecycle";
import { freePort } from "./postgres";

const ROUNDS = Number(process.env.AB_ROUNDS ?? 10);
const SECONDS = Number(process.env.AB_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.AB_CONNECTIONS ?? 32);
const PATH = "/v1/programs/0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a/customers/x%40example.com";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  installGuards(600);
  const dirs = process.argv.slice(2).map((d) => path.resolve(d));
  if (dirs.length === 0) throw new Error("usage: bench/ab-floor.ts <appDir>...");
  const apps = [];
  for (const dir of dirs) {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      LOYALTY_JOBS: "off",
      DATABASE_URL: process.env.AB_DATABASE_URL ?? "postgres://postgres@127.0.0.1:1/none",
    };
    delete env.NODE_OPTIONS;
    spawnChild(
      `next start ${dir}`,
      path.join(dir, "node_modules/.bin/next"),
      ["start", "-p", String(port), "-H", "127.0.0.1"],
      { cwd: dir, env },
    );
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        const res = await fetch(url + PATH);
        await res.arrayBuffer();
        if (res.status !== 401) throw new Error(`${dir}: expected 401, got ${res.status}`);
        break;
      } catch (err) {
        if (i > 300) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    apps.push({ dir, url, rps: [] as number[], p50: [] as number[], p99: [] as number[] });
  }
  for (const app of apps) await autocannon({ url: app.url + PATH, connections: CONNECTIONS, duration: 2 }); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round so no build always runs first after a pause.
    for (let k = 0; k < apps.length; k++) {
      const app = apps[(round + k) % apps.length]!;
      const r = await autocannon({ url: app.url + PATH, connections: CONNECTIONS, duration: SECONDS });
      app.rps.push(r.requests.average);
      app.p50.push(r.latency.p50);
      app.p99.push(r.latency.p99);
    }
  }
  // The median of the per-round ratios to the first build: each pair ran seconds apart, under the same load.
  const base = apps[0]!.rps;
  for (const app of apps) {
    const paired = median(app.rps.map((r, i) => r / base[i]!));
    console.log(
      `${app.dir.padEnd(28)} median ${Math.round(median(app.rps))} req/s (slices ${app.rps.map(Math.round).join(" ")}), p50 ${median(app.p50)} ms, p99 ${median(app.p99)} ms, paired ratio ${paired.toFixed(2)}`,
    );
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await teardown();
    process.exit();
  });
