import { db } from "@/lib/db/client";
import { can } from "@/lib/staff/authz";
import { requirePage } from "@/lib/staff/session";
import { staffMembers } from "@/lib/staff/queries/staff-accounts";
import { ActiveBadge, Badge, Card, Table } from "@/components/ui";
import { StaffForm } from "@/components/dashboard/staff/staff-form";
import { StaffDisableButton, StaffRoleForm, StaffUnlockButton } from "@/components/dashboard/staff/staff-row-actions";

export const metadata = { title: "Staff · Loyalty" };

const COLUMNS = [{ label: "E-mail / name" }, { label: "Role" }, { label: "Added" }, { label: "Status" }];
const ACTIONS = { label: "Actions", hidden: true };
const td = "px-3 py-2 align-middle";

export default async function StaffPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const me = await requirePage(programId, "staff.read");
  // Owners get the forms; every other role the same list as plain text (a read view, not disabled controls).
  const manage = can(me.role, "staff.manage");
  const members = await staffMembers(await db(), programId);
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Staff &amp; roles</h1>
      <p className="text-sm text-slate-600">
        Viewers read; support also serves customers; managers also configure the program; owners also manage staff. A
        change of role or a disabled account applies at the member&apos;s next request. The program always keeps at
        least one active owner.{manage ? "" : " Only owners add members or change roles."}
      </p>
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
                  <p className="whitespace-nowrap font-medium">
                    {m.email} {self && <Badge tone="indigo">you</Badge>}
                  </p>
                  <p className="text-xs text-slate-600">{m.name ?? "no name"}</p>
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
                <td className={`${td} whitespace-nowrap`}>
                  {m.addedAt.toLocaleDateString("en-GB", { dateStyle: "medium", timeZone: "UTC" })}
                </td>
                <td className={td}>
                  <div className="flex flex-wrap items-center gap-2">
                    <ActiveBadge active={!m.disabledAt} inactive="disabled" inactiveTone="red" />
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
                      <StaffDisableButton
                        programId={programId}
                        staffId={m.id}
                        email={m.email}
                        disabled={!!m.disabledAt}
                      />
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
