/** The one place for how the dashboard writes dates (UTC, en-GB) and numbers (en-US grouping). */

export const formatDate = (iso: string | Date | null | undefined) =>
  iso
    ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC"
    : "—";
export const formatNumber = (n: number) => n.toLocaleString("en-US");
