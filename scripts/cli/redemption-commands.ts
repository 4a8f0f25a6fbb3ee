import { z } from "zod";
import { db } from "@/lib/db/client";
import { CancelRedemptionRequest } from "@/lib/api/schemas/rewards";
import { cancelRedemption } from "@/lib/domain/redemption-cancel";
import { dateOrNow, Now, Uuid, type Command } from "./command";

/** CLI commands on redemptions: cancelling one (the API's and the dashboard's rules, lib/domain/redemption-cancel.ts). */
export const redemptionCommands: Record<string, Command> = {
  "redemption cancel": {
    usage: "--program ID --id REDEMPTION_ID --reason TEXT [--now ISO]",
    flags: z.strictObject({ program: Uuid, id: z.string(), reason: CancelRedemptionRequest.shape.reason, now: Now }),
    run: async (f: { program: string; id: string; reason: string; now?: string }) => {
      const database = await db();
      const result = await database.$transaction((tx) =>
        cancelRedemption(tx, {
          programId: f.program,
          redemptionId: f.id,
          reason: f.reason,
          actor: "system",
          source: "system",
          now: dateOrNow(f.now),
        }),
      );
      return {
        redemption: result.redemption,
        balance: result.balance,
        transaction: JSON.parse(result.entryJson) as unknown,
      };
    },
  },
};
