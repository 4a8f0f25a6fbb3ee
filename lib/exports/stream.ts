import "server-only";
import { toCsv } from "./csv";
import { EXPORT_BATCH_ROWS, type ExportSource } from "./sources";

/**
 * The one place an export becomes CSV text: the header, then one chunk per keyset batch (lib/exports/sources.ts).
 * The next batch is read only when the consumer asks for more — a ReadableStream's pull, a file stream's drain —
 * so at most one batch is in memory however large the export.
 */
export async function* csvChunks(
  source: ExportSource,
  progress: { rows: number },
  batchRows = EXPORT_BATCH_ROWS,
): AsyncGenerator<string> {
  yield toCsv([source.header]);
  let cursor: string | null = null;
  do {
    const batch = await source.batch(cursor, batchRows);
    if (batch.records.length === 0) return;
    progress.rows += batch.records.length;
    cursor = batch.cursor;
    yield toCsv(batch.records);
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
  const encoder = new TextEncoder();
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
          } else controller.enqueue(encoder.encode(next.value));
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
    { highWaterMark: 1 },
  );
}
