import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { execute, sql } from "@/lib/db/sql";
import { createApiKey } from "@/lib/domain/api-keys";
import { applyUserBatch, type UserBatchItem } from "@/lib/domain/customers";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { decreaseBalance, increaseBalance } from "@/lib/domain/points";
import { createProgram } from "@/lib/domain/programs";
import { createReward } from "@/lib/domain/rewards";
import { createStaff } from "@/lib/domain/staff";
import { createTier } from "@/lib/domain/tiers";
import { ROLES } from "@/lib/domain/vocabulary";

/**
 * The one place that makes demo data (`loyalty seed demo`, and the bench's customers). Operator tooling, not a
 * rule of the program, so it lives with the scripts, outside lib/ and the app's build. Everything goes through
 * the domain functions an integrator or staff member would reach, so the data obeys the same rules; only the
 * backdating of join dates below is written directly, since no rule lets anyone change when a customer joined.
 */

const FIRST = [
  "Olivia",
  "Liam",
  "Emma",
  "Noah",
  "Ava",
  "Elijah",
  "Sophia",
  "Mateo",
  "Isabella",
  "Lucas",
  "Mia",
  "Levi",
  "Amelia",
  "Ezra",
  "Harper",
  "Asher",
  "Evelyn",
  "James",
  "Luna",
  "Leo",
  "Chloé",
  "Zoë",
  "Jürgen",
  "Aïcha",
  "Kenji",
  "Priya",
  "Santiago",
  "Ngozi",
  "Mei",
  "Oskar",
];
const LAST = [
  "Smith",
  "Johnson",
  "Williams",
  "Brown",
  "Jones",
  "Garcia",
  "Miller",
  "Davis",
  "Rodriguez",
  "Martinez",
  "Hernandez",
  "Lopez",
  "Gonzalez",
  "Wilson",
  "Anderson",
  "Thomas",
  "Taylor",
  "Moore",
  "Jackson",
  "Martin",
  "Müller",
  "O'Brien",
  "Nakamura",
  "Okafor",
  "Kowalski",
  "Dubois",
  "Rossi",
  "Singh",
  "Chen",
  "Larsen",
];
const DOMAINS = ["example.com", "example.org", "mail.example.net", "shop.example"];

/** A deterministic pseudo-random sequence, so the demo data is the same on every machine. */
function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The demo accounts' names, one per role. */
const DEMO_STAFF_NAMES: Record<(typeof ROLES)[number], string> = {
  owner: "Olivia Owner",
  manager: "Max Manager",
  support: "Sam Support",
  viewer: "Vera Viewer",
};

export function demoCustomers(count: number, seed = 42): UserBatchItem[] {
  const rand = mulberry32(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const firstName = pick(FIRST);
    const lastName = pick(LAST);
    const local = `${firstName}.${lastName}`
      .normalize("NFD")
      .replace(/[^A-Za-z.]/g, "")
      .toLowerCase();
    return {
      email: `${local}.${i + 1}@${pick(DOMAINS)}`,
      feature: "user",
      payload: {
        externalCustomerId: `CRM-${String(100000 + i)}`,
        firstName,
        lastName,
        phone: `+1 555 ${String(1000000 + Math.floor(rand() * 8999999)).slice(0, 3)} ${String(Math.floor(rand() * 10000)).padStart(4, "0")}`,
        emailVerified: rand() < 0.8,
      },
    };
  });
}

/**
 * A month of believable history, through the real ledger with its clock set in the past: members joined
 * over the last 60 days, earned on purchases and spent on rewards, so the dashboard's charts have a shape.
 */
async function demoActivity(prisma: PrismaClient, programId: string) {
  const rand = mulberry32(7);
  const day = 86_400_000;
  const now = Date.now();
  await execute(
    prisma,
    sql`UPDATE "Customer" c SET "createdAt" = now() - (random() * interval '60 days') WHERE "programId" = ${programId}::uuid`,
  );
  await execute(
    prisma,
    sql`UPDATE "LoyaltyData" l SET "memberSince" = c."createdAt", "createdAt" = c."createdAt" FROM "Customer" c
     WHERE c.id = l."customerId" AND l."programId" = ${programId}::uuid AND c."programId" = ${programId}::uuid`,
  );
  const mug = await createReward(prisma, {
    programId,
    name: "Ceramic mug",
    costPoints: 400,
    stock: 150,
    description: "The club mug.",
  });
  await createReward(prisma, { programId, name: "Free coffee", costPoints: 120, description: "Any size, any blend." });
  const { couponPoolId } = await createCouponPool(prisma, { programId, name: "Welcome 10%", validDays: 30 });
  await importCoupons(
    prisma,
    couponPoolId,
    Array.from({ length: 500 }, (_, i) => `WELCOME10-${String(i).padStart(4, "0")}`),
  );
  const customers = await prisma.customer.findMany({
    where: { programId },
    select: { id: true },
    orderBy: { email: "asc" },
  });
  for (const { id: customerId } of customers) {
    const visits = 1 + Math.floor(rand() * 4);
    const times = Array.from({ length: visits }, () => now - Math.floor(rand() * 30 * day)).sort((a, b) => a - b);
    for (const [i, at] of times.entries()) {
      await prisma.$transaction(async (tx) => {
        const base = { programId, customerId, actor: "system", source: "api" as const, now: new Date(at) };
        await increaseBalance(tx, { ...base, points: 50 + Math.floor(rand() * 400), reason: "purchase" });
        if (i > 0 && rand() < 0.3) {
          await increaseBalance(tx, { ...base, points: 200, reason: "bonus" });
          await decreaseBalance(tx, { ...base, points: 120, reason: "reward: Free coffee" });
        }
      });
    }
  }
  return { rewardId: mug.rewardId, couponPoolId };
}

/** The demo's earning flow: 25 points a visit, at most 25 points a UTC day (capPerDay counts points). */
export const DEMO_FLOW_KEY = "store-visit";

/** A demo program with three tiers, `customers` customers and an API key (whose secret is returned once). */
export async function seedDemo(prisma: PrismaClient, customers = 1000) {
  const { programId } = await createProgram(prisma, { name: "Demo Coffee Club" });
  const tiers = [
    { name: "Bronze", requiredPoints: 0, factor: 1, content: "Welcome tier: earn on every purchase." },
    { name: "Silver", requiredPoints: 1000, factor: 1.25, content: "25% more points on every purchase." },
    { name: "Gold", requiredPoints: 5000, factor: 1.5, content: "50% more points and early access to rewards." },
  ];
  for (const tier of tiers) await createTier(prisma, { programId, ...tier });
  const people = demoCustomers(customers);
  for (let i = 0; i < people.length; i += 1000) {
    await prisma.$transaction((tx) => applyUserBatch(tx, programId, people.slice(i, i + 1000)), { timeout: 60_000 });
  }
  const { rewardId, couponPoolId } = await demoActivity(prisma, programId);
  // The printed curls act on the first customer: enough points that "Redeem a reward" and "Decrease balance" work.
  const sample = await prisma.customer.findFirstOrThrow({ where: { programId, email: people[0]!.email } });
  await prisma.$transaction((tx) =>
    increaseBalance(tx, {
      programId,
      customerId: sample.id,
      points: 1000,
      reason: "welcome bonus",
      actor: "system",
      source: "api",
      now: new Date(),
    }),
  );
  // An earning flow, so that "Execute a custom earning flow" can be tried from what `npm run up` prints.
  await createEarningFlow(prisma, { programId, key: DEMO_FLOW_KEY, name: "Store visit", points: 25, capPerDay: 25 });
  const apiKey = await createApiKey(prisma, { programId, name: "Demo key" });
  // One account per role, sharing a password generated for this seed and shown once.
  const password = `demo-${randomBytes(6).toString("hex")}`;
  const staff = [];
  for (const role of ROLES) {
    const email = `${role}.${programId.slice(0, 8)}@demo.example`;
    // A name, so the customer timeline says who did what ("Sam Support"), as real accounts would.
    const name = DEMO_STAFF_NAMES[role];
    await createStaff(prisma, { email, password, programId, role, name });
    staff.push({ role, email, password, name });
  }
  return {
    programId,
    apiKey: apiKey.key,
    apiKeyId: apiKey.id,
    customers: people.length,
    sampleEmail: people[0]!.email,
    rewardId,
    couponPoolId,
    earningFlowKey: DEMO_FLOW_KEY,
    staff,
  };
}
