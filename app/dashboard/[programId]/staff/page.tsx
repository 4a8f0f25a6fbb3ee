import { db } from "@/lib/db/client";
import { requirePage } from "@/lib/staff/authz";
import { staffMembers } from "@/lib/staff/queries/staff-accounts";
import { Badge, Card, Empty, TableScroll } from "@/components/ui";
import { StaffDisableButton, StaffForm, StaffRoleForm } from "@/components/dashboard/people-forms";

export const metadata = { title: "Staff · Loyalty" };

const th = "px-3 py-2 whitespace-nowrap";
const td = "px-3 py-2 align-middle";

export default async function StaffPage({ params }: { params: Promise<{ programId: string }> }) {
  const { programId } = await params;
  const me = await requirePage(programId, "staff.manage");
  const members = await staffMembers(await db(), programId);
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Staff &amp; roles</h1>
      <p className="text-sm text-slate-600">
        Viewers read; support also serves customers; managers also configure the program; owners also manage staff. A change of role or a disabled
        account applies at the member&apos;s next request. The program always keeps at least one active owner.
      </p>
      <StaffForm programId={programId} />
      <Card title="Staff members">
        {members.length === 0 ? (
          <Empty>No staff members yet.</Empty>
        ) : (
          <TableScroll bleed={false}>
            <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Staff members">
              <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-700">
                <tr>
                  <th scope="col" className={th}>E-mail / name</th>
                  <th scope="col" className={th}>Role</th>
                  <th scope="col" className={th}>Added</th>
                  <th scope="col" className={th}>Status</th>
                  <th scope="col" className={th}>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {members.map((m) => {
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
                        {self ? <span className="capitalize">{m.role}</span> : <StaffRoleForm programId={programId} staffId={m.id} email={m.email} role={m.role} />}
                      </td>
                      <td className={`${td} whitespace-nowrap`}>{m.addedAt.toLocaleDateString("en-GB", { dateStyle: "medium", timeZone: "UTC" })}</td>
                      <td className={td}>{m.disabledAt ? <Badge tone="red">disabled</Badge> : <Badge tone="green">active</Badge>}</td>
                      <td className={`${td} text-right`}>
                        {!self && <StaffDisableButton programId={programId} staffId={m.id} email={m.email} disabled={!!m.disabledAt} />}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Card>
    </div>
  );
}
