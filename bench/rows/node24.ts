/**
 * Node 24 against the Node running the bench: a second one-worker production server under the Node 24 binary
 * (BENCH_NODE24, or /tmp/node24/node_modules/node/bin/node from `npm install --no-save --prefix /tmp/node24 node@24`),
 * alternating with ours on GET customer and POST increase with an Idempotency-Key, and with the bare server under
 * the same Node 24 (running the app's own statement for the increase, as the increase row's target reference). The
 * rows carry the GET and increase targets on the runtime the README recommends and the image runs; the speed-up over
 * the bench's Node is in the note.
 */
import { CONNECTIONS, SECONDS, TARGETS, WARMUP, node24 } from "../config";
import { clean, type Context } from "../context";
import { log } from "../lifecycle";
import { alternate, ratioOf } from "../load";
import { startBaseline } from "../servers";

export async function node24Rows(ctx: Context) {
  const found = node24();
  if (!found) {
    ctx.results.notes.push(
      "node24: no Node 24 binary (set BENCH_NODE24, or `npm install --no-save --prefix /tmp/node24 node@24`): not run",
    );
    log("node24: no Node 24 binary found; skipped");
    return;
  }
  const { binary, version } = found;
  ctx.results.node24 = found;
  const on24 = await ctx.another(1, {}, binary, `ours on Node ${version}`);
  const bare24 = await startBaseline(
    { ...ctx.dbEnv, BASELINE_INCREASE: "app" },
    binary,
    `bare node:http + pg on Node ${version}`,
  );
  try {
    for (const [name, request, target] of [
      ["GET /customers/{email}", ctx.work.getCustomer(), TARGETS.getRatio],
      ["POST …/balance/increase, Idempotency-Key", ctx.work.increase(true), TARGETS.increaseRatio],
    ] as const) {
      const [o24, o20, b24] = await alternate(
        `${name}, Node 24 vs ${process.version}`,
        [on24, ctx.ours, bare24],
        request,
        CONNECTIONS,
        SECONDS,
        WARMUP,
      );
      const ratio = ratioOf(o24!, b24!);
      ctx.add({
        family: "node24",
        name: `${name} on Node ${version}`,
        load: String(CONNECTIONS),
        ours: o24!,
        refs: [
          { label: `bare node:http + pg on Node ${version}`, figures: b24! },
          { label: `ours on Node ${process.version}`, figures: o20! },
        ],
        ratio,
        ratioOf: `bare${name.startsWith("POST") ? ", same statement" : ""}, Node ${version}`,
        note: `ours on Node ${version} ÷ ours on Node ${process.version}: ${ratioOf(o24!, o20!)?.toFixed(2) ?? "n/a"}`,
        target: `ours ÷ bare ≥ ${target}`,
        pass: (ratio ?? 0) >= target && clean(o24!),
      });
    }
  } finally {
    await on24.child.stop();
    await bare24.child.stop();
  }
}
