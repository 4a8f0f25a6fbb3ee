import "server-only";
import { toCsv } from "./csv";
import type { CsvCell } from "./csv-options";
import { EXPORT_BATCH_ROWS, type ExportSource } from "./sources";

/**
 * Rows per CSV string: a batch's text is built and encoded in slices this small, then joined as bytes. A whole
 * batch as one string (hundreds of KB) is a large object V8 allocates straight in the old generation, freed only by a
 * full collection — which V8 lets wait until the heap has grown several times its live size, so the export's text
 * piled up there (≈ 100–160 MB of resident growth). Strings of a few KB die young, in the cheap collections; the
 * bytes are off the JS heap, freed with their small handle.
 */
const SLICE_ROWS = 50;
const encoder = new TextEncoder();

/** Records as CSV bytes, encoded slice by slice (SLICE_ROWS). */
function csvBytes(records: readonly CsvCell[][]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < records.length; i += SLICE_ROWS)
    parts.push(encoder.encode(toCsv(records.slice(i, i + SLICE_ROWS))));
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/**
 * The one place an export becomes CSV: the header, then one chunk of bytes per keyset batch (lib/exports/sources.ts).
 * The next batch is read only when the consumer asks for more — a ReadableStream's pull, a file stream's drain —
 * so at most one batch is in memory however large the export.
 */
export async function* csvChunks(
  source: ExportSource,
  progress: { rows: number },
  batchRows = EXPORT_BATCH_ROWS,
): AsyncGenerator<Uint8Array> {
  yield csvBytes([[...source.header]]);
  let cursor: string | null = null;
  do {
    const { records, cursor: next } = await source.batch(cursor, batchRows);
    if (records.length === 0) return;
    progress.rows += records.length;
    cursor = next;
    yield csvBytes(records);
  } while (cursor !== null);
}

/** How a streamed export ended: every row sent, or stopped (client gone, error) after `rows`. */
export interface ExportOutcome {
  rows: number;
  complete: boolean;
}

/**
 * The export as a byte stream that reads a batch per pull (backpressure: a slow client slows the reads, never
 * buffers them). `finished` runs once, when the last row is sent, the client cancels, or a read fails.
 */
export function csvByteStream(
  source: ExportSource,
  finished: (outcome: ExportOutcome) => Promise<void>,
): ReadableStream<Uint8Array> {
  const progress = { rows: 0 };
  const chunks = csvChunks(source, progress);
  let done = false;
  const finish = async (complete: boolean) => {
    if (done) return;
    done = true;
    await finished({ rows: progress.rows, complete }).catch((err: unknown) =>
      console.error(JSON.stringify({ level: "error", msg: "export audit failed", error: String(err) })),
    );
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) {
            await finish(true);
            controller.close();
          } else controller.enqueue(next.value);
        } catch (err) {
          console.error(JSON.stringify({ level: "error", msg: "export failed", error: String(err) }));
          await finish(false);
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return(undefined);
        await finish(false);
      },
    },
    { highWaterMark: 0 },
  );
}
