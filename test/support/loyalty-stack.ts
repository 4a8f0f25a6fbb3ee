/**
 * The stack of the rewards, coupons, tokens, notifications, deletion and webhook tests: two programs, three tiers
 * and a key each, made with the admin CLI (stack.ts does the rest). A test adds its own CLI fixtures before the
 * first app instance starts, and may stop and start instances on the same database.
 *
 *   const stack = await createStack(backend);
 *   const rewardId = (await stack.loyalty("reward", "create", "--program", stack.programId, ...)).rewardId;
 *   const app = await stack.start({ LOYALTY_JOBS: "on" });
 *   await app.api("GET", `/v1/programs/${stack.programId}/rewards`);
 *   await stack.close();
 */
import { randomBytes } from "node:crypto";
import { cliString, openStack, type Backend, type FixtureSpec, type Stack as StackOf } from "./stack";

export { BACKENDS, waitFor, type Api, type ApiResponse, type AppInstance, type Backend } from "./stack";

export interface StackFixtures {
  /** Program A: tiers Bronze (0, ×1), Silver (1000, ×1.25), Gold (5000, ×1.5); `key` has a high rate limit. */
  programId: string;
  tiers: { bronze: string; silver: string; gold: string };
  key: string;
  /** Program B and its key. */
  otherProgramId: string;
  otherKey: string;
}

export type Stack = StackOf<StackFixtures>;

const BASE: FixtureSpec<StackFixtures> = {
  name: "stack",
  async make({ loyalty, together }) {
    const program = async (name: string) => cliString((await loyalty("program", "create", "--name", name)).programId, "programId");
    const [programId, otherProgramId] = await together(
      () => program("Program A"),
      () => program("Program B"),
    );
    const tier = async (name: string, points: number, factor: number) =>
      cliString(
        (await loyalty("tier", "create", "--program", programId, "--name", name, "--required-points", String(points), "--factor", String(factor))).tierId,
        "tierId",
      );
    const key = async (program: string) => cliString((await loyalty("apikey", "create", "--program", program, "--name", "tests", "--rate-limit", "100000")).key, "key");
    const [bronze, silver, gold, keyA, keyB] = await together(
      () => tier("Bronze", 0, 1),
      () => tier("Silver", 1000, 1.25),
      () => tier("Gold", 5000, 1.5),
      () => key(programId),
      () => key(otherProgramId),
    );
    return { programId, otherProgramId, tiers: { bronze, silver, gold }, key: keyA, otherKey: keyB };
  },
};

export const createStack = (backend: Backend): Promise<Stack> => openStack(backend, BASE);

export const emailPath = (programId: string, email: string) => `/v1/programs/${programId}/customers/${encodeURIComponent(email)}`;

let counter = 0;
/** A fresh lower-case e-mail per call. */
export const newEmail = (label: string) => `${label}.${process.pid}.${++counter}.${randomBytes(3).toString("hex")}@example.com`;
