import { z } from "zod";
import { db } from "@/lib/db/client";
import { revokeCustomerTokens } from "@/lib/domain/customer-tokens";
import { Uuid, type Command } from "./command";

/** CLI commands for customer tokens (the /me routes' credentials). */
const revoke: Command = {
  usage: "--program ID",
  flags: z.strictObject({ program: Uuid }),
  run: async (f: { program: string }) => ({
    programId: f.program,
    ...(await revokeCustomerTokens(await db(), f.program)),
  }),
};

export const tokenCommands: Record<string, Command> = {
  /** Revokes every customer token of the program at once (its signing key is dropped). */
  "tokens revoke": revoke,
  /** The same, by the name the migration guide uses (docs/integrating.md "Coming from JeriCommerce"). */
  "revoke-tokens": revoke,
};
