/**
 * A segment filter's two compiled forms (lib/domain/segments/filter.ts) select the customers the filter's semantics
 * say, on a real PostgreSQL (in-memory PGlite, every migration applied): random customers (tiers, none, a numeric
 * or mistyped attribute, deleted ones), random purchase histories (inside, outside and after the window) and random
 * filter trees over the leaves the compiler rewrites (`customer.tier` eq / in by tier id, an event count or lastAt
 * that only asks for an event in the window as a semi-join) and their neighbours. For each tree: the WHERE form
 * (`filterQuery`: preview, members, a customer's segments) and the column form (`filterEvaluation`: the membership
 * passes) both equal a reference evaluated here from the rows as written.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import { putCustomerAttribute } from "@/lib/domain/customer-attributes";
import { putEventType } from "@/lib/domain/campaigns/store";
import { checkFilter, filterDeclarations, filterEvaluation, filterQuery } from "@/lib/domain/segments/filter";
import { query, sql } from "@/lib/db/sql";
import { memoryDatabase, type MemoryDatabase } from "../support/pglite-memory";
import { prng } from "../support/prng";

let database: MemoryDatabase;
let prisma: PrismaClient;

before(async () => {
  database = await memoryDatabase();
  prisma = database.prisma;
});
after(() => database.close());

const NOW = new Date("2031-03-10T12:00:00.000Z");
const DAY = 86_400_000;

interface Person {
  id: string;
  tier: string | null;
  score: unknown;
  deleted: boolean;
  /** Purchases: occurredAt (ms) and total. */
  events: { at: number; total: number }[];
}

type Leaf = { attr: string; op: string; value: unknown; window?: string };
type Node = Leaf | { all: Node[] } | { any: Node[] } | { not: Node };

const WINDOWS: Record<string, number> = { P30D: 30 * DAY, P90D: 90 * DAY };

/** The filter's answer for one customer, by the semantics API.md gives (a leaf on an absent value is false). */
function holds(node: Node, p: Person): boolean {
  if ("all" in node) return node.all.every((n) => holds(n, p));
  if ("any" in node) return node.any.some((n) => holds(n, p));
  if ("not" in node) return !holds(node.not, p);
  const cmp = (x: unknown): boolean => {
    if (x === null || x === undefined) return node.op === "exists" && node.value === false;
    switch (node.op) {
      case "exists":
        return node.value === true;
      case "eq":
        return x === node.value;
      case "ne":
        return x !== node.value;
      case "in":
        return (node.value as unknown[]).includes(x);
      case "nin":
        return !(node.value as unknown[]).includes(x);
      case "gt":
        return (x as number) > (node.value as number);
      case "gte":
        return (x as number) >= (node.value as number);
      case "lt":
        return (x as number) < (node.value as number);
      case "lte":
        return (x as number) <= (node.value as number);
    }
    throw new Error(node.op);
  };
  if (node.attr === "customer.tier") return cmp(p.tier);
  if (node.attr === "customer.score") return cmp(typeof p.score === "number" ? p.score : null);
  const from = node.window ? NOW.getTime() - WINDOWS[node.window]! : -Infinity;
  const seen = p.events.filter((e) => e.at > from && e.at <= NOW.getTime());
  if (node.attr === "events.purchase.count") return cmp(seen.length);
  if (node.attr === "events.purchase.sum.total") return cmp(seen.reduce((s, e) => s + e.total, 0));
  if (node.attr === "events.purchase.lastAt")
    return cmp(seen.length ? new Date(Math.max(...seen.map((e) => e.at))).toISOString() : null);
  throw new Error(node.attr);
}

function randomLeaf(r: () => number): Leaf {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const window = r() < 0.6 ? pick(Object.keys(WINDOWS)) : undefined;
  const w = window ? { window } : {};
  return pick<() => Leaf>([
    () => ({ attr: "customer.tier", op: "eq", value: pick(["Gold", "Silver", "Nope"]) }),
    () => ({
      attr: "customer.tier",
      op: "in",
      value: pick([["Silver", "Gold"], ["Nope"], ["Bronze", "Nope"], ["Nope", "Nada"]]),
    }),
    () => ({ attr: "customer.tier", op: "ne", value: pick(["Gold", "Nope"]) }),
    () => ({ attr: "customer.tier", op: "nin", value: pick([["Gold"], ["Nope"], ["Bronze", "Silver"]]) }),
    () => ({ attr: "customer.tier", op: "exists", value: r() < 0.5 }),
    () => ({
      attr: "customer.score",
      op: pick(["eq", "ne", "gt", "gte", "lt", "lte"]),
      value: pick([0, 50, 50.5, 90]),
    }),
    () => ({
      attr: "events.purchase.count",
      op: pick(["gte", "gt", "ne", "eq", "lt"]),
      value: pick([0, 0.5, 1, 2]),
      ...w,
    }),
    () => ({ attr: "events.purchase.lastAt", op: "exists", value: r() < 0.7, ...w }),
    () => ({ attr: "events.purchase.sum.total", op: "gte", value: pick([1, 100, 250]), ...w }),
  ])();
}

function randomTree(r: () => number, depth = 0): Node {
  const x = r();
  if (depth >= 2 || x < 0.35) return randomLeaf(r);
  const children = () => Array.from({ length: 1 + Math.floor(r() * 3) }, () => randomTree(r, depth + 1));
  if (x < 0.75) return { all: children() };
  if (x < 0.9) return { any: children() };
  return { not: randomTree(r, depth + 1) };
}

test("a filter's WHERE form and column form both select what its semantics say (random data, random trees)", async () => {
  const seed = Number(process.env.SEED ?? 24);
  const r = prng(seed);
  const { programId } = await createProgram(prisma, { name: "filter forms" });
  const tiers: Record<string, string> = {};
  for (const [name, requiredPoints] of [
    ["Bronze", 0],
    ["Silver", 100],
    ["Gold", 500],
  ] as const)
    tiers[name] = (await createTier(prisma, { programId, name, requiredPoints, factor: 1 })).tierId;
  await prisma.$transaction(async (tx) => {
    await putCustomerAttribute(tx, { programId, name: "score", type: "number", now: NOW });
    await putEventType(tx, {
      programId,
      type: "purchase",
      attributes: { total: { type: "number", required: true } },
      now: NOW,
    });
  });
  const people: Person[] = [];
  for (let i = 0; i < 80; i++) {
    const tierRoll = r();
    // A customer without a tier row, one whose row names no tier, and one per tier.
    const tier =
      tierRoll < 0.1 ? "none" : tierRoll < 0.15 ? "null" : ["Bronze", "Silver", "Gold"][Math.floor(r() * 3)]!;
    const scoreRoll = r();
    // Absent, mistyped (a string, an array, JSON null: never written by the API, read as absent), or a number.
    const score =
      scoreRoll < 0.1
        ? undefined
        : scoreRoll < 0.14
          ? "high"
          : scoreRoll < 0.17
            ? [70]
            : scoreRoll < 0.2
              ? null
              : Math.floor(r() * 100) + (r() < 0.2 ? 0.5 : 0);
    const events = Array.from({ length: Math.floor(r() * 4) }, () => ({
      at: NOW.getTime() - Math.floor((r() * 130 - 10) * DAY),
      total: Math.floor(r() * 150),
    }));
    const deleted = r() < 0.05;
    const [row] = await query<{ id: string }>(
      prisma,
      sql`INSERT INTO "Customer" ("programId", email, "customAttributes", "deletedAt")
        VALUES (${programId}::uuid, ${`p${i}@forms.example.com`}, ${JSON.stringify(score === undefined ? {} : { score })}::jsonb,
                ${deleted ? NOW.toISOString() : null}::timestamptz)
        RETURNING id::text AS id`,
    );
    const id = row!.id;
    if (tier !== "none")
      await prisma.$executeRawUnsafe(
        `INSERT INTO "CustomerTier" ("programId", "customerId", "currentTierId", "currentTierPoints", "recalculationDate")
         VALUES ($1::uuid, $2::uuid, $3::uuid, 0, $4::timestamptz)`,
        programId,
        id,
        tier === "null" ? null : tiers[tier]!,
        new Date(NOW.getTime() + 365 * DAY).toISOString(),
      );
    for (const e of events)
      await prisma.$executeRawUnsafe(
        `INSERT INTO "CustomerEvent" ("programId", "customerId", type, "occurredAt", attributes, outcome, "createdAt")
         VALUES ($1::uuid, $2::uuid, 'purchase', $3::timestamptz, $4::jsonb, '{}', $3::timestamptz)`,
        programId,
        id,
        new Date(e.at).toISOString(),
        JSON.stringify({ total: e.total }),
      );
    people.push({ id, tier: tier === "none" || tier === "null" ? null : tier, score, deleted, events });
  }
  const live = people.filter((p) => !p.deleted);
  const fixed: Node[] = [
    { attr: "events.purchase.count", window: "P90D", op: "gte", value: 1 },
    { attr: "events.purchase.count", op: "gt", value: 0 },
    { attr: "events.purchase.count", window: "P30D", op: "ne", value: 0 },
    { attr: "events.purchase.lastAt", window: "P30D", op: "exists", value: true },
    // Their neighbours, which must not be read as "has an event": count ≥ 0 (everyone), > 1, ≠ 1, lastAt absent.
    { attr: "events.purchase.count", window: "P30D", op: "gte", value: 0 },
    { attr: "events.purchase.count", op: "gt", value: 1 },
    { all: [{ attr: "events.purchase.count", window: "P90D", op: "ne", value: 1 }] },
    { attr: "events.purchase.lastAt", window: "P30D", op: "exists", value: false },
    { attr: "customer.tier", op: "in", value: ["Gold", "Nope"] },
    { attr: "customer.tier", op: "eq", value: "Nope" },
    { not: { attr: "customer.tier", op: "eq", value: "Nope" } },
    {
      all: [
        { attr: "customer.tier", op: "eq", value: "Gold" },
        { attr: "customer.score", op: "gte", value: 50 },
        { attr: "events.purchase.count", window: "P90D", op: "gte", value: 1 },
      ],
    },
  ];
  const trees = [...fixed, ...Array.from({ length: 120 }, () => randomTree(r))];
  let nonEmpty = 0;
  for (const tree of trees) {
    const decl = await filterDeclarations(prisma, programId, tree);
    assert.deepEqual(checkFilter(tree, decl), [], JSON.stringify(tree));
    const want = live
      .filter((p) => holds(tree, p))
      .map((p) => p.id)
      .sort();
    if (want.length > 0 && want.length < live.length) nonEmpty++;
    const where = (await query<{ id: string }>(prisma, filterQuery(tree as never, decl, programId, NOW))).map((x) =>
      String(x.id),
    );
    const column = (
      await query<{ id: string; member: boolean }>(prisma, filterEvaluation(tree as never, decl, programId, NOW))
    )
      .filter((x) => x.member)
      .map((x) => String(x.id));
    const why = `seed ${seed}: ${JSON.stringify(tree)}`;
    assert.deepEqual(where.sort(), want, `WHERE form, ${why}`);
    assert.deepEqual(column.sort(), want, `column form, ${why}`);
  }
  // The trees discriminate: most select some customers and not all.
  assert.ok(nonEmpty > trees.length / 3, `only ${nonEmpty} of ${trees.length} trees selected a proper subset`);
});
