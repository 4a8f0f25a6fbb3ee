/**
 * Moves a program's customers in from JeriCommerce (docs/integrating.md "Coming from JeriCommerce"): reads a CSV of
 * customers and balances and posts it to Create/Update resources (`POST /v1/programs/{programId}/integrations/api`) in
 * batches of at most 1,000 items: per row, a `users` item (created or updated) and a `loyalty` item (balance,
 * memberSince, tier).
 *
 *   LOYALTY_API_KEY=lk_live_… npm run --silent import:jericommerce -- --file customers.csv --program <id> \
 *     [--base-url http://localhost:3000] [--rows-per-batch 250 (at most 500)] [--state customers.csv.import-state.json]
 *
 * Safe to run again: each batch carries an Idempotency-Key made from its content (a retry within 24 h replays the
 * first answer), loyalty items SET balances (an item repeating the current state writes nothing), and a state file
 * records the batches done, so a run that stopped resumes after the last batch that was applied. Progress goes to
 * stderr; the last line of stdout is one JSON summary. The API key is read from the environment, never a flag (a
 * flag shows in the process list).
 *
 * CSV columns (a header row; names as in the JeriCommerce export and the spec; empty cells are left out):
 * email, externalCustomerId, firstName, lastName, phone, emailVerified, loyaltyCustomerId, balance, memberSince,
 * tierStatus. A row without `balance` only creates or updates the customer.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync, writeFileSync } from "node:fs";
import { parse as parseCsv } from "csv-parse";
import { z } from "zod";

/** Two items per row, within the batch limit of 1,000 items (API.md §1). */
const MAX_ROWS_PER_BATCH = 500;
/**
 * Rows per request unless told: each loyalty item is a ledger write on the locked path (tens of ms on a busy PGlite),
 * so a smaller batch keeps every request well inside the transaction limit and the progress lines frequent.
 */
const DEFAULT_ROWS_PER_BATCH = 250;
/** How often a batch refused with 429 or 503 (or not answered) is tried again, waiting Retry-After (or 2 s). */
const MAX_ATTEMPTS = 5;

const Flags = z.strictObject({
  file: z.string().min(1),
  program: z.uuid(),
  "base-url": z.url().default("http://localhost:3000"),
  "rows-per-batch": z.coerce.number().int().min(1).max(MAX_ROWS_PER_BATCH).default(DEFAULT_ROWS_PER_BATCH),
  state: z.string().min(1).optional(),
});
type Flags = z.output<typeof Flags>;

const Env = z.object({ LOYALTY_API_KEY: z.string().min(1, "must be set to the program's API key") });

/** One CSV row as read (every cell text). */
type Row = Record<string, string>;

const USER_COLUMNS = ["externalCustomerId", "firstName", "lastName", "phone"] as const;

/** The batch items of one row: a `users` item, then a `loyalty` item when the row has a balance. */
export function rowToItems(row: Row): object[] {
  const cell = (name: string) => {
    const value = row[name]?.trim();
    return value ? value : undefined;
  };
  const email = cell("email") ?? "";
  const user: Record<string, unknown> = {};
  for (const column of USER_COLUMNS) if (cell(column) !== undefined) user[column] = cell(column);
  const verified = cell("emailVerified")?.toLowerCase();
  if (verified !== undefined) user.emailVerified = verified === "true" || verified === "1" || verified === "yes";
  const items: object[] = [{ email, feature: "users", payload: user }];
  const balance = cell("balance");
  if (balance !== undefined) {
    const loyalty: Record<string, unknown> = {
      // Sent as a number when it reads as one; anything else reaches the API as is, which names the problem.
      balance: /^-?\d+$/.test(balance) ? Number(balance) : balance,
      memberSince: cell("memberSince"),
      tierStatus: cell("tierStatus"),
    };
    if (cell("loyaltyCustomerId") !== undefined) loyalty.loyaltyCustomerId = cell("loyaltyCustomerId");
    items.push({ email, feature: "loyalty", payload: loyalty });
  }
  return items;
}

interface State {
  /** The file's SHA-256: a state file is only used for the file it was written for. */
  file: string;
  rowsDone: number;
  batchesDone: number;
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

function parseFlags(args: string[]): Flags {
  const values: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--")) throw new Error(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    if (eq > 0) values[arg.slice(2, eq)] = arg.slice(eq + 1);
    else values[arg.slice(2)] = args[++i] ?? "";
  }
  const parsed = Flags.safeParse(values);
  if (!parsed.success)
    throw new Error(parsed.error.issues.map((i) => `--${i.path.join(".") || "flags"} ${i.message}`).join("; "));
  return parsed.data;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Posts one batch; retries what the API asks to retry (429, 503) and lost connections. Throws on a refusal. */
async function postBatch(flags: Flags, apiKey: string, items: object[], firstRow: number): Promise<void> {
  const body = JSON.stringify(items);
  const url = new URL(`/v1/programs/${flags.program}/integrations/api`, flags["base-url"]);
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: {
          "api-key": apiKey,
          "content-type": "application/json",
          // The same batch always gets the same key: a retry (or a rerun within 24 h) cannot apply it twice.
          "idempotency-key": `jericommerce-import:${sha256(body)}`,
        },
        body,
      });
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS) throw err;
      await sleep(2000);
      continue;
    }
    if (res.status === 201) return;
    if ((res.status === 429 || res.status === 503) && attempt < MAX_ATTEMPTS) {
      await sleep(Number(res.headers.get("retry-after") ?? 2) * 1000);
      continue;
    }
    const problem = (await res.json().catch(() => ({}))) as {
      code?: string;
      detail?: string;
      errors?: { path: string; message: string }[];
    };
    // `[7].payload.balance` → the CSV line: two items per row at most, so map items back through their rows.
    const lines = rowLines(items, firstRow);
    const errors = (problem.errors ?? []).map((e) => {
      const index = Number(/^\[(\d+)\]/.exec(e.path)?.[1]);
      return { line: Number.isNaN(index) ? null : lines[index], path: e.path, message: e.message };
    });
    throw Object.assign(new Error(`batch refused: ${res.status} ${problem.code ?? ""} ${problem.detail ?? ""}`), {
      code: problem.code ?? `http_${res.status}`,
      errors,
    });
  }
}

/** The CSV line (header = line 1) of each item of a batch whose first row is `firstRow` (0-based data rows). */
function rowLines(items: object[], firstRow: number): number[] {
  let row = firstRow - 1;
  return items.map((item) => {
    if ((item as { feature: string }).feature === "users") row++;
    return row + 2;
  });
}

async function main() {
  const flags = parseFlags(process.argv.slice(2));
  const env = Env.safeParse(process.env);
  if (!env.success) throw new Error(`LOYALTY_API_KEY ${env.error.issues[0]!.message}`);
  const apiKey = env.data.LOYALTY_API_KEY;
  const statePath = flags.state ?? `${flags.file}.import-state.json`;
  const fileHash = sha256(readFileSync(flags.file));
  const saved: State | null = existsSync(statePath) ? (JSON.parse(readFileSync(statePath, "utf8")) as State) : null;
  const resumeFrom = saved && saved.file === fileHash ? saved.rowsDone : 0;
  let batches = saved && saved.file === fileHash ? saved.batchesDone : 0;
  if (resumeFrom > 0) console.error(`resuming after row ${resumeFrom} (${statePath})`);

  const started = Date.now();
  const rows = createReadStream(flags.file).pipe(
    parseCsv({ columns: true, bom: true, skip_empty_lines: true, trim: true }),
  ) as AsyncIterable<Row>;
  let read = 0;
  let pending: object[] = [];
  let pendingRows = 0;
  const flush = async () => {
    if (pendingRows === 0) return;
    await postBatch(flags, apiKey, pending, read - pendingRows);
    batches++;
    const state: State = { file: fileHash, rowsDone: read, batchesDone: batches };
    writeFileSync(statePath, JSON.stringify(state));
    const seconds = (Date.now() - started) / 1000;
    console.error(`batch ${batches}: ${read} rows imported (${(read / Math.max(seconds, 0.001)).toFixed(0)} rows/s)`);
    pending = [];
    pendingRows = 0;
  };
  for await (const row of rows) {
    read++;
    if (read <= resumeFrom) continue;
    pending.push(...rowToItems(row));
    pendingRows++;
    if (pendingRows >= flags["rows-per-batch"]) await flush();
  }
  await flush();
  console.log(
    JSON.stringify({
      rows: read,
      imported: read - resumeFrom,
      resumedAfter: resumeFrom,
      batches,
      seconds: Number(((Date.now() - started) / 1000).toFixed(2)),
      state: statePath,
    }),
  );
}

main().catch((err: Error & { code?: string; errors?: unknown }) => {
  console.error(`error: ${err.message}`);
  console.log(JSON.stringify({ error: { code: err.code ?? "failed", message: err.message, errors: err.errors } }));
  process.exitCode = 1;
});
