/**
 * `EXPLAIN (ANALYZE, BUFFERS)` of every statement the dashboard search runs for each kind of search text, on the
 * program `bench/dashboard.ts` loaded (`BENCH_DASHBOARD_REUSE=1` keeps it):
 * `node --no-warnings --import tsx bench/search-explain.ts postgres://…/db [text …]`. Each statement is explained as
 * the search sends it (the unnamed statement of a `customPlan`, planned for its bound values), then run as usual.
 */
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { searchCustomers } from "@/lib/staff/queries/customers/search";

type Raw = (text: string, ...values: unknown[]) => Promise<unknown>;

/** `db` whose raw reads are explained first (writes and `SET`s pass through). */
function explaining<T extends object>(db: T, print: (text: string) => void): T {
  return new Proxy(db, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === "$transaction")
        return (fn: (tx: unknown) => Promise<unknown>) =>
          (value as (f: (tx: unknown) => Promise<unknown>) => Promise<unknown>).call(target, (tx) =>
            fn(explaining(tx as object, print)),
          );
      if (key === "$queryRawUnsafe")
        return async (text: string, ...values: unknown[]) => {
          const plan = (await (value as Raw).call(target, `EXPLAIN (ANALYZE, BUFFERS) ${text}`, ...values)) as {
            "QUERY PLAN": string;
          }[];
          print(`${text}\n-- values: ${JSON.stringify(values)}\n${plan.map((r) => r["QUERY PLAN"]).join("\n")}\n`);
          return (value as Raw).call(target, text, ...values);
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** One search of each kind, as the bench times them (bench/dashboard.ts), plus the list's short e-mail prefixes. */
const KINDS: [string, string, number][] = [
  ["name, full", "olivia smith", 8],
  ["name, last", "smith", 8],
  ["name, prefix", "smi", 8],
  ["phone, national part", "555-123-4567", 8],
  ["phone, as stored", "+1 555 1234567", 8],
  ["e-mail substring", "smith.12345", 8],
  ["external id", "EXT-12345", 8],
  ["common: example", "example", 8],
  ["common: son.", "son.", 8],
  ["common: mar", "mar", 8],
  ["list: prefix o", "o", 50],
  ["list: prefix ol", "ol", 50],
  ["list: prefix oli", "oli", 50],
  ["list: prefix olivia.sm", "olivia.sm", 50],
];

if (process.argv[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  const url = process.argv[2];
  if (!url?.startsWith("postgres")) throw new Error("usage: bench/search-explain.ts <postgres url> [text …]");
  const { PrismaClient } = await import("@/lib/generated/prisma/client");
  const { openAdapter } = await import("@/lib/db/adapter");
  const opened = await openAdapter({ kind: "postgres", url });
  const prisma = new PrismaClient({ adapter: opened.factory });
  try {
    const [program] = await prisma.$queryRawUnsafe<{ id: string }[]>(
      `SELECT id FROM "Program" WHERE name = 'Dashboard bench' ORDER BY "createdAt" DESC LIMIT 1`,
    );
    if (!program) throw new Error("no 'Dashboard bench' program: load one with bench/dashboard.ts first");
    const asked = process.argv.slice(3);
    const kinds: [string, string, number][] = asked.length ? asked.map((q) => [q, q, 8]) : KINDS;
    for (const [label, q, limit] of kinds) {
      console.log(`\n==== ${label}: ${JSON.stringify(q)}, limit ${limit}`);
      const db = explaining(prisma as PrismaClient, (text) => console.log(text));
      const t0 = performance.now();
      const { rows } = await searchCustomers(db, program.id, { q, limit });
      console.log(
        `-- ${rows.length} rows in ${(performance.now() - t0).toFixed(1)} ms (with the EXPLAINs): ${rows
          .slice(0, 4)
          .map((r) => `${r.email} (${r.match})`)
          .join(", ")}`,
      );
    }
  } finally {
    await prisma.$disconnect();
    await opened.close();
  }
}
