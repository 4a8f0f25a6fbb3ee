import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { authOptions } from "@/lib/staff/auth";
import { db } from "@/lib/db/client";
import { membershipsOf } from "@/lib/domain/staff";

/** The dashboard's entry: the first program the staff member belongs to. */
export default async function DashboardHome() {
  const session = (await getServerSession(authOptions)) as { staffId?: string } | null;
  if (!session?.staffId) redirect("/signin");
  const [first] = await membershipsOf(await db(), session.staffId);
  if (!first) redirect("/signin");
  redirect(`/dashboard/${first.programId}`);
}
