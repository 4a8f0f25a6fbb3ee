import { db } from "@/lib/db/client";
import { getProgram } from "@/lib/domain/programs";
import { getReferralSettings } from "@/lib/domain/referrals";
import { timeZones } from "@/lib/domain/time-zones";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { currentVersion } from "@/lib/staff/versions";
import { Card, formatNumber } from "@/components/ui";
import { DefinitionList } from "@/components/dashboard/edit-drawer";
import { NewProgramCard, TestCopyCard } from "@/components/dashboard/settings/settings-form";
import { SettingsDrawer } from "@/components/dashboard/settings/settings-drawer";
import { ReferralSettingsCard } from "@/components/dashboard/settings/referral-settings-card";
import { PointsPolicyCard } from "@/components/dashboard/settings/points-policy-card";
import { getPointsPolicy } from "@/lib/domain/points-policy";

const months = (n: number) => `${n} month${n === 1 ? "" : "s"}`;
const cancelWindow = (hours: number | null) =>
  hours === null ? "at any time" : hours === 0 ? "never" : `${hours} hour${hours === 1 ? "" : "s"} after redeeming`;
const ceiling = (n: number | null) => (n === null ? "no ceiling" : `${formatNumber(n)} points`);

/** Program settings: a read view for every role; managers and owners edit in a drawer; owners create programs. */
export default async function SettingsPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const staff = await requirePage(programId, "program.read");
  const database = await db();
  const [settings, referralSettings, version, pointsPolicy] = await Promise.all([
    getProgram(database, programId),
    getReferralSettings(database, programId),
    currentVersion(database, "program", programId, programId),
    getPointsPolicy(database, programId),
  ]);
  const { id: _id, ...data } = settings;
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Settings</h1>
      <Card
        title="Program settings"
        actions={
          can(staff.role, "program.manage") && (
            <SettingsDrawer programId={programId} settings={data} timeZones={timeZones()} version={version} />
          )
        }
      >
        <DefinitionList
          items={[
            ["Name", settings.name],
            [
              "Points expiry",
              settings.pointsExpiryMonths === null ? "never" : `${months(settings.pointsExpiryMonths)} after earning`,
            ],
            ["Tier period", months(settings.tierPeriodMonths)],
            ["Time zone", settings.timeZone],
            ["Adjustment ceiling, support", ceiling(settings.adjustCeilingSupport)],
            ["Adjustment ceiling, managers", ceiling(settings.adjustCeilingManager)],
            ["Adjustment ceiling, owners", "no ceiling"],
            ["Redemption cancel window", cancelWindow(settings.redemptionCancelHours)],
            [
              "Web origins allowed to call /me",
              settings.allowedOrigins.length === 0 ? "none" : settings.allowedOrigins.join(", "),
            ],
          ]}
        />
      </Card>
      <PointsPolicyCard programId={programId} policy={pointsPolicy} canEdit={can(staff.role, "program.manage")} />
      <ReferralSettingsCard
        programId={programId}
        settings={referralSettings}
        canEdit={can(staff.role, "program.manage")}
        version={version}
      />
      {can(staff.role, "programs.create") && <NewProgramCard programId={programId} />}
      {can(staff.role, "programs.test_copy") && <TestCopyCard programId={programId} name={settings.name} />}
    </div>
  );
}
