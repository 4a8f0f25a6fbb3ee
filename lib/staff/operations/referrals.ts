import "server-only";
import { getReferralSettings, updateReferralSettings } from "@/lib/domain/referrals";
import { auditedUpdate } from "../audit";
import { staffOperation } from "../authz";
import type { ReferralSettingsPatch } from "../forms/program";

/** The settings page's "Referrals" card: the program's referral settings (managers and owners), audited. */
export const updateReferralSettingsAsStaff = staffOperation(
  "program.manage",
  async (tx, staff, input: ReferralSettingsPatch, version?: string) => {
    const { after, version: next } = await auditedUpdate(
      tx,
      staff,
      "program.referrals_update",
      { type: "program", id: staff.programId },
      {
        read: () => getReferralSettings(tx, staff.programId),
        change: () => updateReferralSettings(tx, staff.programId, input),
        version: { of: "program", expected: version },
      },
    );
    return { ...after, version: next };
  },
);
