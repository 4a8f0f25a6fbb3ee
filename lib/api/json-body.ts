import "server-only";
import { invalidJson, invalidUtf8, payloadTooLarge, unsupportedMediaType } from "@/lib/errors";
import { formatPath, validationFailed } from "./problem";
import { REQUEST_BODIES } from "./front-channels";

/**
 * The one place where a request's JSON body is read (API.md §1), for /v1 and the dashboard alike: its content
 * type, its size and nesting limits, and its parsing. Validation against a schema comes after (./edge.ts parseWith).
 */

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * How deeply a JSON body may nest (the root object or array is level 1). Our own schemas need 3; a deeper body
 * is refused before anything walks it recursively (zod, JSON.stringify, the database's jsonb), which would
 * otherwise overflow the stack on a 1 MB body of brackets and answer 500.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * The body as `{ raw, value }`. With `whenEmpty` (a route whose body is optional: `requestBody.required: false` in
 * the OpenAPI document), a request that carries no content reads as `whenEmpty.value`, however the client said so:
 * no body and no Content-Length (`curl -X POST`), `Content-Length: 0`, or an empty body under any content type
 * (`Content-Type: application/json` included). Without it, the body must be sent as application/json (415) and be
 * JSON (an empty body is 400 `invalid_json`).
 */
export async function readJsonBody(
  req: Request,
  whenEmpty?: { value: unknown },
): Promise<{ raw: string; value: unknown }> {
  const isJson = /^application\/json\s*(;|$)/i.test(req.headers.get("content-type") ?? "");
  const length = req.headers.get("content-length");
  const declared = length === null ? null : Number(length);
  // A body that is not JSON is refused before it is read, unless it may turn out to be empty (no length said).
  if (!isJson && (!whenEmpty || (declared !== null && declared !== 0))) throw unsupportedMediaType();
  const tooLarge = () => payloadTooLarge(MAX_BODY_BYTES);
  if (declared !== null && declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes =
    REQUEST_BODIES.get(req) ??
    (req.body === null || declared === 0 ? new Uint8Array(0) : new Uint8Array(await req.arrayBuffer()));
  if (bytes.byteLength === 0 && whenEmpty) return { raw: "", value: whenEmpty.value };
  if (!isJson) throw unsupportedMediaType();
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  const raw = decodeUtf8(bytes);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidJson();
  }
  const deep = pathBeyondDepth(value, MAX_JSON_DEPTH);
  if (deep)
    throw validationFailed([
      { path: formatPath(deep), message: `must not be nested more than ${MAX_JSON_DEPTH} levels deep` },
    ]);
  return { raw, value };
}

/**
 * The body as text: UTF-8 whatever charset the Content-Type declares (JSON is UTF-8, RFC 8259 §8.1), and strictly —
 * a byte sequence that is not UTF-8 is 400 `invalid_json`, never silently replaced by U+FFFD and stored.
 */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidUtf8();
  }
}

/** The path of the first object or array nested deeper than `maxDepth`, or null. Iterative: any depth is safe. */
export function pathBeyondDepth(value: unknown, maxDepth: number): (string | number)[] | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (path.length >= maxDepth) return path;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    // Pushed in reverse so the first member is visited first and the reported path is the first in document order.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      if (x !== null && typeof x === "object") stack.push({ value: x, path: [...path, k] });
    }
  }
  return null;
}
