/**
 * 1 vs 2 workers of the production server: the 401 path (no database: the server's own cost) and GET customer,
 * alternating between a one-worker and a two-worker instance. Each row notes how many processes each instance ran,
 * so a server that ignores the worker setting shows as such.
 */
import { CONNECTIONS, SECONDS, WARMUP } from "../config";
import { clean, type Context } from "../context";
import { alternate, ratioOf } from "../load";
import { serverRss } from "../servers";

export async function workerRows(ctx: Context) {
  const two = await ctx.another(2, {}, undefined, "ours, 2 workers");
  try {
    const [p1, p2] = [serverRss(ctx.ours).processes, serverRss(two).processes];
    const processes =
      p2 > p1
        ? `processes: 1 worker ${p1}, 2 workers ${p2}`
        : `the server ran ${p2} process(es) either way: it has no workers setting, so this compares two equal servers`;
    for (const [name, request, expectNon2xx] of [
      ["401 without api-key (no database)", ctx.work.unauthorized(), true],
      ["GET /customers/{email}", ctx.work.getCustomer(), false],
    ] as const) {
      const [o2, o1] = await alternate(
        `${name}, 2 vs 1 workers`,
        [two, ctx.ours],
        request,
        CONNECTIONS,
        SECONDS,
        WARMUP,
      );
      ctx.add({
        family: "workers",
        name: `${name}: 2 workers`,
        load: String(CONNECTIONS),
        ours: o2!,
        refs: [{ label: "1 worker", figures: o1! }],
        ratio: ratioOf(o2!, o1!),
        ratioOf: "1 worker",
        target: "reference (no errors)",
        pass: clean(o2!, expectNon2xx),
        note: processes,
      });
    }
  } finally {
    await two.child.stop();
  }
}
