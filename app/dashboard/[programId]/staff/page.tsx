import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { pendingInvites, secondFactorSetting, staffMembers } from "@/lib/staff/queries/staff-accounts";
import { ActiveBadge, Badge, Card, Table } from "@/components/ui";
import { StaffForm } from "@/components/dashboard/staff/staff-form";
import {
  StaffDisableButton,
  StaffRemoveButton,
  StaffResetLinkButton,
  StaffRoleForm,
  StaffUnlockButton,
} from "@/components/dashboard/staff/staff-row-actions";
import { InviteForm } from "@/components/dashboard/staff/invite-form";
import { SecondFactorSetting } from "@/components/dashboard/staff/second-factor-setting";

export const metadata = { title: "Staff · Loyalty" };

const COLUMNS = [{ label: "E-mail / name" }, { label: "Role" }, { label: "Added / last sign-in" }, { label: "Status" }];
const utc = (d: Date) =>
  `${d.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })} UTC`;
const ACTIONS = { label: "Actions", hidden: true };
const td = "px-3 py-2 align-middle";

export default async function StaffPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const me = await requirePage(programId, "staff.read");
  // Owners get the forms; every other role the same list as plain text (a read view, not disabled controls).
  const manage = can(me.role, "staff.manage");
  const database = await db();
  const members = await staffMembers(database, programId);
  const invites = manage ? await pendingInvites(database, programId, new Date()) : [];
  const factor = await secondFactorSetting(database, programId, me.staffId);
  const without = members.filter((m) => !m.disabledAt && !m.secondFactor).length;
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Staff &amp; roles</h1>
      <p className="text-sm text-slate-600">
        Viewers read; support also serves customers; managers also configure the program; owners also manage staff. A
        change of role or a disabled account applies at the member&apos;s next request. The program always keeps at
        least one active owner.{manage ? "" : " Only owners add members or change roles."}
      </p>
      {manage && <InviteForm programId={programId} />}
      {manage && (
        <SecondFactorSetting
          programId={programId}
          required={factor.required}
          without={without}
          ownerHasFactor={factor.ownerHasFactor}
        />
      )}
      {!manage && factor.required && (
        <p className="text-sm text-slate-700">
          This program requires a second factor (an authenticator app) of every member.
        </p>
      )}
      {manage && invites.length > 0 && (
        <Card title="Invitations not used yet">
          <ul className="space-y-1 text-sm">
            {invites.map((i) => (
              <li key={i.id}>
                {i.email} <span className="capitalize">({i.role})</span>, until {utc(i.expiresAt)}
              </li>
            ))}
          </ul>
        </Card>
      )}
      {manage && <StaffForm programId={programId} />}
      <Card title="Staff members">
        <Table
          label="Staff members"
          columns={manage ? [...COLUMNS, ACTIONS] : COLUMNS}
          rows={members}
          empty="No staff members yet."
          pad="px-3 py-2"
          bleed={false}
        >
          {(m) => {
            const self = m.id === me.staffId;
            return (
              <tr key={m.id}>
                <td className={td}>
                  <p className="whitespace-nowrap font-medium">{m.email}</p>
                  <p className="text-xs text-slate-600">
                    {m.name ?? "no name"} {self && <Badge tone="indigo">you</Badge>}
                  </p>
                </td>
                <td className={td}>
                  {self || !manage ? (
                    <span className="capitalize">{m.role}</span>
                  ) : (
                    <StaffRoleForm
                      programId={programId}
                      staffId={m.id}
                      email={m.email}
                      role={m.role}
                      version={m.version}
                    />
                  )}
                </td>
                <td className={td}>
                  <p className="whitespace-nowrap">
                    {m.addedAt.toLocaleDateString("en-GB", { dateStyle: "medium", timeZone: "UTC" })}
                  </p>
                  <p className="text-xs text-slate-600">
                    {m.lastSignInAt ? (
                      <>
                        last sign-in <span className="whitespace-nowrap">{utc(m.lastSignInAt)}</span>
                      </>
                    ) : (
                      "never signed in"
                    )}
                  </p>
                </td>
                <td className={td}>
                  <div className="flex flex-col items-start gap-1">
                    <ActiveBadge active={!m.disabledAt} inactive="disabled" inactiveTone="red" />
                    {m.secondFactor ? (
                      <Badge tone="green">second factor</Badge>
                    ) : (
                      <Badge tone={factor.required ? "amber" : "slate"}>no second factor</Badge>
                    )}
                    {m.lockedUntil && (
                      <Badge tone="red">
                        sign-in locked until{" "}
                        {m.lockedUntil.toLocaleTimeString("en-GB", { timeStyle: "short", timeZone: "UTC" })} UTC
                      </Badge>
                    )}
                    {m.lockedUntil && manage && !self && (
                      <StaffUnlockButton programId={programId} staffId={m.id} email={m.email} />
                    )}
                  </div>
                </td>
                {manage && (
                  <td className={`${td} text-right`}>
                    {!self && (
                      <div className="flex flex-col items-end gap-1">
                        <StaffResetLinkButton programId={programId} staffId={m.id} email={m.email} />
                        <StaffDisableButton
                          programId={programId}
                          staffId={m.id}
                          email={m.email}
                          disabled={!!m.disabledAt}
                          version={m.version}
                        />
                        <StaffRemoveButton programId={programId} staffId={m.id} email={m.email} />
                      </div>
                    )}
                  </td>
                )}
              </tr>
            );
          }}
        </Table>
      </Card>
    </div>
  );
}
