import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { parseWith, type SchemaLike } from "@/lib/api/edge";
import { EXPORT_FILTERS, EXPORT_KINDS, type ExportKind } from "@/lib/exports/kinds";
import { exportSource } from "@/lib/exports/sources";
import { csvChunks } from "@/lib/exports/stream";
import { Uuid, type Command } from "./command";

/**
 * `export <kind> --program ID --out FILE [filters]`: the dashboard's CSV exports (lib/exports), written to a file in
 * the same keyset batches, waiting for the file to drain between them (constant memory). The filters are the
 * dashboard's query parameters as flags (`--from 2026-01-01 --to 2026-01-31`, `--q jane`, `--pool ID`).
 */

const USAGE: Record<ExportKind, string> = {
  customers: "--program ID --out FILE [--q EMAIL_PREFIX] [--tier TIER_ID]",
  ledger: "--program ID --out FILE [--from YYYY-MM-DD] [--to YYYY-MM-DD]   (days in the program's time zone)",
  redemptions: "--program ID --out FILE [--from YYYY-MM-DD] [--to YYYY-MM-DD]",
  "coupon-codes": "--program ID --out FILE --pool POOL_ID",
  "audit-log":
    "--program ID --out FILE [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--action A] [--staff EMAIL] [--type ENTITY_TYPE] [--entity ID]",
  "segment-members": "--program ID --out FILE --segment SEGMENT_ID",
  "points-accounting": "--program ID --out FILE --from YYYY-MM-DD --to YYYY-MM-DD   (at most 731 days)",
};

const Flags = z.object({ program: Uuid, out: z.string().min(1) }).catchall(z.string());

async function exportTo(kind: ExportKind, flags: z.infer<typeof Flags>) {
  const { program, out, ...rest } = flags;
  const filter: unknown = parseWith(EXPORT_FILTERS[kind] as SchemaLike<unknown>)(rest);
  const source = await exportSource(await db(), program, kind, filter as never);
  const file = createWriteStream(out);
  const progress = { rows: 0 };
  try {
    for await (const chunk of csvChunks(source, progress)) {
      if (!file.write(chunk)) await once(file, "drain");
    }
  } finally {
    file.end();
    await once(file, "close");
  }
  return { kind, out, rows: progress.rows };
}

export const exportCommands: Record<string, Command> = Object.fromEntries(
  EXPORT_KINDS.map((kind) => [
    `export ${kind}`,
    { usage: USAGE[kind], flags: Flags, run: (flags: z.infer<typeof Flags>) => exportTo(kind, flags) },
  ]),
);
