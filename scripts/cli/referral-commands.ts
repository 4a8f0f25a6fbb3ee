import { z } from "zod";
import { db } from "@/lib/db/client";
import { MAX_POINTS } from "@/lib/api/schemas/common";
import { getReferralSettings, updateReferralSettings } from "@/lib/domain/referrals";
import { linkTemplateProblem } from "@/lib/domain/referral-rules";
import { Int, Uuid, type Command } from "./command";

/** CLI commands for a program's referrals (lib/domain/referrals.ts): its settings. */
export const referralCommands: Record<string, Command> = {
  "referral settings": {
    usage:
      "--program ID [--link-template URL|off] [--referrer-points P] [--referred-points P] [--min-earn P] [--cap N|off] [--cap-days D]",
    flags: z.strictObject({
      program: Uuid,
      "link-template": z
        .union([
          z.literal("off"),
          z.string().refine((t) => linkTemplateProblem(t) === null, "must be an http(s) URL containing {code}"),
        ])
        .optional(),
      "referrer-points": Int(0, MAX_POINTS).optional(),
      "referred-points": Int(0, MAX_POINTS).optional(),
      "min-earn": Int(1, MAX_POINTS).optional(),
      cap: z.union([z.literal("off"), Int(1, 1_000_000)]).optional(),
      "cap-days": Int(1, 3650).optional(),
    }),
    run: async (f: {
      program: string;
      "link-template"?: string;
      "referrer-points"?: number;
      "referred-points"?: number;
      "min-earn"?: number;
      cap?: number | "off";
      "cap-days"?: number;
    }) => {
      const offIsNull = <T>(v: T | "off") => (v === "off" ? null : v);
      const database = await db();
      if (Object.keys(f).length === 1) return getReferralSettings(database, f.program);
      return updateReferralSettings(database, f.program, {
        referralLinkTemplate: offIsNull(f["link-template"]),
        referralReferrerPoints: f["referrer-points"],
        referralReferredPoints: f["referred-points"],
        referralMinEarnPoints: f["min-earn"],
        referralCapCount: offIsNull(f.cap),
        referralCapDays: f["cap-days"],
      });
    },
  },
};
