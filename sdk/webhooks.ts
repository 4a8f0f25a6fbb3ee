/**
 * Verifying a webhook delivery (docs/integrating.md "Webhooks"; API.md §5): the `loyalty-signature` header is
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(key, "<t>.<raw body>")>`, with one `v1=` per secret valid at sending time
 * (two during a secret rotation's overlap). The key is the whole secret as the dashboard shows it, `whsec_…` prefix
 * included, as UTF-8 bytes.
 *
 *   const event = await verifyWebhook(rawBody, req.headers["loyalty-signature"], process.env.LOYALTY_WEBHOOK_SECRET!);
 *
 * Browser-, edge- and Node-safe: Web Crypto (`crypto.subtle`) only.
 */
import type { components } from "./generated/openapi.js";

type Schemas = components["schemas"];
/** Every event a webhook may receive (the document's `…Event` schemas). */
export type WebhookEvent = Schemas[Extract<keyof Schemas, `${string}Event`>];

/** The default tolerance: a delivery signed more than this many seconds from the receiver's clock is refused. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

export interface VerifyWebhookOptions {
  /** How far `t` may be from now, in seconds (either way). Default 300 (5 minutes); Infinity turns the check off. */
  toleranceSeconds?: number;
  /** The receiver's clock, for tests: a Date or milliseconds since the epoch. Default: now. */
  now?: Date | number;
}

/** Why a delivery was refused; answer it with a 4xx (the service retries for 24 h, and a re-send is signed anew). */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: "malformed_header" | "timestamp_out_of_tolerance" | "signature_mismatch" | "malformed_body",
    message: string,
  ) {
    super(message);
  }
}

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, message as Uint8Array<ArrayBuffer>));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Equal strings, in a time that depends on their length only. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Checks a delivery and returns its event: the signature must match `secret` (or any of several, while you hold
 * both sides of a rotation) over the raw body exactly as received, and `t` must be within the tolerance. Throws
 * WebhookVerificationError otherwise. Pass the body before any JSON parsing: re-serialised JSON does not verify.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const parts = (signatureHeader ?? "").split(",").map((p) => p.trim());
  const t = parts.find((p) => p.startsWith("t="))?.slice(2) ?? "";
  const signatures = parts.filter((p) => p.startsWith("v1=")).map((p) => p.slice(3));
  if (!/^\d{1,12}$/.test(t) || signatures.length === 0)
    throw new WebhookVerificationError("malformed_header", "loyalty-signature must be t=<unix seconds>,v1=<hex>");
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  if (Math.abs(nowMs / 1000 - Number(t)) > tolerance)
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `the delivery was signed at ${t}, more than ${tolerance} s from now`,
    );
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const signed = new Uint8Array(encoder.encode(`${t}.`).length + bytes.length);
  signed.set(encoder.encode(`${t}.`));
  signed.set(bytes, signed.length - bytes.length);
  const secrets = typeof secret === "string" ? [secret] : secret;
  let match = false;
  for (const s of secrets) {
    const expected = await hmacHex(s, signed);
    for (const candidate of signatures) if (sameText(candidate.toLowerCase(), expected)) match = true;
  }
  if (!match) throw new WebhookVerificationError("signature_mismatch", "no v1 signature matches the secret");
  try {
    return JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("malformed_body", "the body is not JSON");
  }
}
