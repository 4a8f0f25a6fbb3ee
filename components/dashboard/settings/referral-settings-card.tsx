import type { ReferralSettings } from "@/lib/domain/referrals";
import { Card, formatNumber } from "@/components/ui";
import { DefinitionList } from "@/components/dashboard/edit-drawer";
import { ReferralSettingsDrawer } from "./referral-settings-form";

const points = (n: number) => (n === 0 ? "none" : `${formatNumber(n)} point${n === 1 ? "" : "s"}`);

/** The settings page's "Referrals" card: the referral settings; managers and owners edit them. */
export function ReferralSettingsCard({
  programId,
  settings,
  canEdit,
  version,
}: {
  programId: string;
  settings: ReferralSettings;
  canEdit: boolean;
  /** The program's version, for the edit drawer's If-Match. */
  version: string | Date;
}) {
  return (
    <Card
      title="Referrals"
      actions={canEdit && <ReferralSettingsDrawer programId={programId} settings={settings} version={version} />}
    >
      <DefinitionList
        items={[
          ["Referral link", settings.referralLinkTemplate ?? "none (customers get no link)"],
          ["Referrer gets", points(settings.referralReferrerPoints)],
          ["Referred customer gets", points(settings.referralReferredPoints)],
          ["Qualifying earn", `the first earn of at least ${points(settings.referralMinEarnPoints)}`],
          [
            "Cap per referrer",
            settings.referralCapCount === null
              ? "no cap"
              : `${formatNumber(settings.referralCapCount)} rewarded in ${formatNumber(settings.referralCapDays)} days`,
          ],
        ]}
      />
    </Card>
  );
}
