/**
 * The one place where the tests' fixtures are defined: composable parts (a program with its three tiers, more keys,
 * a second program, earning flows…) made the way an operator makes them — the admin CLI — before the app
 * starts (composed by fixture-spec.ts); the specs several test files share; and the three-tier program once more
 * through the domain layer, for tests that run lib/ in this process.
 *
 *   const SPEC = fixtures("rate-limit", program("Limited", { rate: 2, burst: 20 }));
 *   const stack = await openStack(backend, POINTS); // stack.programId, stack.tiers.gold, stack.otherKey…
 */
import { randomBytes } from "node:crypto";
import { createApiKey } from "@/lib/domain/api-keys";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { cliString } from "./cli";
import { fixtures, type FixturePart, type FixtureTools } from "./fixture-spec";

export { fixtures, type FixturePart, type FixtureSpec, type FixtureTools } from "./fixture-spec";

// ---------------------------------------------------------------------------------------------------------------
// The parts

/** The three tiers of the test programs, lowest first: [name, requiredPoints, factor]. */
export const TIERS = [
  ["Bronze", 0, 1],
  ["Silver", 1000, 1.25],
  ["Gold", 5000, 1.5],
] as const;

/** Rate limit of every fixture key except `limitedKey` (requests per second), and its burst (the default, 2 × rate). */
export const HIGH_RATE_LIMIT = 100_000;
export const HIGH_RATE_BURST = 200_000;
/** `limitedKey` refills at 1 request per second and allows 10 at once (`apikey create --rate-limit 1 --burst 10`). */
export const LIMITED_RATE = 1;
export const LIMITED_BURST = 10;

const newProgram = async ({ loyalty }: FixtureTools, name: string) =>
  cliString((await loyalty("program", "create", "--name", name)).programId, "programId");
const newTier = async (
  { loyalty }: FixtureTools,
  programId: string,
  [name, points, factor]: readonly [string, number, number],
) =>
  cliString(
    (
      await loyalty(
        "tier",
        "create",
        "--program",
        programId,
        "--name",
        name,
        "--required-points",
        String(points),
        "--factor",
        String(factor),
      )
    ).tierId,
    "tierId",
  );
async function newKey(
  { loyalty }: FixtureTools,
  programId: string,
  name: string,
  rate = HIGH_RATE_LIMIT,
  burst?: number,
) {
  const k = await loyalty(
    "apikey",
    "create",
    "--program",
    programId,
    "--name",
    name,
    "--rate-limit",
    String(rate),
    ...(burst ? ["--burst", String(burst)] : []),
  );
  return { id: cliString(k.id, "key id"), key: cliString(k.key, "key") };
}

type ProgramA = { programId: string };

/** Program A and its key `key` (id `keyId`; HIGH_RATE_LIMIT unless `rate` and `burst` say otherwise). */
export const program = (
  name = "Program A",
  limits: { rate?: number; burst?: number } = {},
): FixturePart<unknown, { programId: string; key: string; keyId: string }> => ({
  key: `program ${JSON.stringify([name, limits])}`,
  async make(tools) {
    const programId = await newProgram(tools, name);
    const { id, key } = await newKey(tools, programId, "main", limits.rate, limits.burst);
    return { programId, key, keyId: id };
  },
});

/**
 * Program A's tiers Bronze (0, ×1), Silver (1000, ×1.25) and Gold (5000, ×1.5). Silver is made first, so "the base
 * tier" must mean the lowest requiredPoints, not the first row created.
 */
export const threeTiers = (): FixturePart<ProgramA, { tiers: { bronze: string; silver: string; gold: string } }> => ({
  key: `tiers ${JSON.stringify(TIERS)}`,
  async make(tools, { programId }) {
    const silver = await newTier(tools, programId, TIERS[1]);
    const [bronze, gold] = await tools.together(
      () => newTier(tools, programId, TIERS[0]),
      () => newTier(tools, programId, TIERS[2]),
    );
    return { tiers: { bronze, silver, gold } };
  },
});

/** Program A with its key and three tiers (`program` and `threeTiers`, with the tiers made beside the key). */
export const programWithTiers = (
  name = "Program A",
): FixturePart<
  unknown,
  { programId: string; key: string; keyId: string; tiers: { bronze: string; silver: string; gold: string } }
> => ({
  key: `programWithTiers ${JSON.stringify(name)}`,
  async make(tools) {
    const programId = await newProgram(tools, name);
    const [{ tiers }, main] = await tools.together(
      () => threeTiers().make(tools, { programId }),
      () => newKey(tools, programId, "main"),
    );
    return { programId, tiers, key: main.key, keyId: main.id };
  },
});

/** Another key of program A: idempotency keys are scoped per API key. */
export const secondKey = (): FixturePart<ProgramA, { secondKey: string }> => ({
  key: "secondKey",
  make: async (tools, { programId }) => ({ secondKey: (await newKey(tools, programId, "second")).key }),
});

/** A key of program A, revoked. */
export const revokedKey = (): FixturePart<ProgramA, { revokedKey: string }> => ({
  key: "revokedKey",
  async make(tools, { programId }) {
    const revoked = await newKey(tools, programId, "revoked");
    const revocation = await tools.loyalty("apikey", "revoke", "--id", revoked.id);
    if (!revocation.revokedAt) throw new Error(`apikey revoke did not revoke: ${JSON.stringify(revocation)}`);
    return { revokedKey: revoked.key };
  },
});

/** A key of program A with LIMITED_RATE requests/s and a burst of LIMITED_BURST. */
export const limitedKey = (): FixturePart<ProgramA, { limitedKey: string; limitedKeyId: string }> => ({
  key: `limitedKey ${LIMITED_RATE} ${LIMITED_BURST}`,
  async make(tools, { programId }) {
    const limited = await newKey(tools, programId, "limited", LIMITED_RATE, LIMITED_BURST);
    return { limitedKey: limited.key, limitedKeyId: limited.id };
  },
});

/** Program B, with no tier, no key and no settings of its own. */
export const otherProgram = (name = "Program B"): FixturePart<unknown, { otherProgramId: string }> => ({
  key: `otherProgram ${JSON.stringify(name)}`,
  make: async (tools) => ({ otherProgramId: await newProgram(tools, name) }),
});

/** Program B's key. */
export const otherKey = (): FixturePart<{ otherProgramId: string }, { otherKey: string }> => ({
  key: "otherKey",
  make: async (tools, { otherProgramId }) => ({ otherKey: (await newKey(tools, otherProgramId, "other")).key }),
});

/** Program B's one tier, Member (0 points, ×1). */
export const otherTier = (): FixturePart<{ otherProgramId: string }, { otherTierId: string }> => ({
  key: "otherTier",
  make: async (tools, { otherProgramId }) => ({ otherTierId: await newTier(tools, otherProgramId, ["Member", 0, 1]) }),
});

/** The clock a test program of the fixtures starts at. */
export const TEST_CLOCK_START = "2026-01-01T00:00:00.000Z";

/** A test program (`program create --test`, clock at TEST_CLOCK_START, no tiers) and its lk_test_ key. */
export const testProgram = (name = "Program T"): FixturePart<unknown, { testProgramId: string; testKey: string }> => ({
  key: `testProgram ${JSON.stringify([name, TEST_CLOCK_START])}`,
  async make(tools) {
    const created = await tools.loyalty("program", "create", "--name", name, "--test", "--clock", TEST_CLOCK_START);
    const testProgramId = cliString(created.programId, "programId");
    return { testProgramId, testKey: (await newKey(tools, testProgramId, "test")).key };
  },
});

/** With earningFlows(), program A's points expire this many months after they are earned. */
export const EXPIRY_MONTHS = 12;

/** Program A's earning flows, as CLI flags. */
export const FLOW_SPECS = {
  /** Fixed points; runs may send the optional `store` (1 to 9999). */
  visit: ["--points", "10", "--name", "Store visit", "--params", "store?:1..9999"],
  /** 0.5 point per unit of `amount` (declared for it: 0 to 1,000,000,000, required), × the tier factor, rounded down. */
  purchase: ["--points-per-unit", "0.5", "--param", "amount"],
  /** 2 points per unit of `amount` (1 to 500), and the optional `items` (1 to 50), declared explicitly. */
  receipt: ["--points-per-unit", "2", "--param", "amount", "--params", "amount:1..500,items?:1..50"],
  /** 10 points, at most 25 a UTC day. */
  daily: ["--points", "10", "--cap-per-day", "25"],
  /** 10 points, at most 15 in all. */
  limited: ["--points", "10", "--cap-total", "15"],
  /** 50 points, once per customer. */
  welcome: ["--points", "50", "--once"],
} as const;

/** FLOW_SPECS and EXPIRY_MONTHS for program A; program B gets a `visit` flow worth 99 that declares no params. */
export const earningFlows = (): FixturePart<ProgramA & { otherProgramId: string }, Record<never, never>> => ({
  key: `earningFlows ${JSON.stringify(FLOW_SPECS)} ${EXPIRY_MONTHS}`,
  async make({ loyalty, together }, { programId, otherProgramId }) {
    await together(
      ...Object.entries(FLOW_SPECS).map(
        ([k, flags]) =>
          () =>
            loyalty("earning-flow", "create", "--program", programId, "--key", k, ...flags),
      ),
      () => loyalty("earning-flow", "create", "--program", otherProgramId, "--key", "visit", "--points", "99"),
      () => loyalty("program", "update", "--id", programId, "--points-expiry-months", String(EXPIRY_MONTHS)),
    );
    return {};
  },
});

/** Program A's referral settings (lib/domain/referrals.ts): a link template, both sides' points, a minimum, a cap. */
export const REFERRAL_SETTINGS = {
  template: "https://shop.example.com/join?ref={code}",
  referrer: 100,
  referred: 50,
  minEarn: 20,
  cap: 2,
  capDays: 30,
} as const;

/** REFERRAL_SETTINGS for program A, through `loyalty referral settings`. */
export const referralSettings = (): FixturePart<ProgramA, Record<never, never>> => ({
  key: `referralSettings ${JSON.stringify(REFERRAL_SETTINGS)}`,
  async make({ loyalty }, { programId }) {
    const r = REFERRAL_SETTINGS;
    await loyalty(
      ...["referral", "settings", "--program", programId, "--link-template", r.template],
      ...["--referrer-points", String(r.referrer), "--referred-points", String(r.referred)],
      ...["--min-earn", String(r.minEarn), "--cap", String(r.cap), "--cap-days", String(r.capDays)],
    );
    return {};
  },
});

// ---------------------------------------------------------------------------------------------------------------
// The specs of several test files

/** customers-api and concurrency: program A's keys of every kind, program B with a tier and a key. */
export const CUSTOMERS = fixtures("customers", programWithTiers(), otherProgram()).then(
  secondKey(),
  revokedKey(),
  limitedKey(),
  otherKey(),
  otherTier(),
);

/** points-api and points-concurrency: CUSTOMERS' programs with earning flows and points expiry, fewer keys. */
export const POINTS = fixtures("points", programWithTiers(), otherProgram()).then(
  secondKey(),
  otherKey(),
  otherTier(),
  earningFlows(),
);

/** Most HTTP tests: program A with its three tiers and program B, a key each. */
export const TWO_PROGRAMS = fixtures("two-programs", programWithTiers(), otherProgram()).then(otherKey());

// ---------------------------------------------------------------------------------------------------------------
// The same program through the domain layer, for tests that run lib/ in this process

export interface ProgramFixture {
  programId: string;
  key: string;
  keyId: string;
  tiers: { bronze: string; silver: string; gold: string };
}

/** A program with the three TIERS and a key with HIGH_RATE_LIMIT, made with the domain functions the CLI calls. */
export async function programWithTiersIn(prisma: PrismaClient, name = "Test program"): Promise<ProgramFixture> {
  const { programId } = await createProgram(prisma, { name });
  const ids: string[] = [];
  for (const [tierName, requiredPoints, factor] of TIERS)
    ids.push((await createTier(prisma, { programId, name: tierName, requiredPoints, factor })).tierId);
  const key = await createApiKey(prisma, { programId, name: "test", rateLimitPerSec: HIGH_RATE_LIMIT });
  return { programId, key: key.key, keyId: key.id, tiers: { bronze: ids[0]!, silver: ids[1]!, gold: ids[2]! } };
}

let counter = 0;
/** A fresh lower-case e-mail per call. */
export const newEmail = (label: string) =>
  `${label}.${process.pid}.${++counter}.${randomBytes(3).toString("hex")}@example.com`;
