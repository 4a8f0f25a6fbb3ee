import "server-only";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { loadConfig, type Environment } from "@/lib/config";
import { urlNotAllowed } from "@/lib/errors";
import { addressAllowed, classifyAddress } from "./address-policy";

/**
 * The one place where outbound delivery URLs (webhooks, push endpoint) are checked and connected to, against
 * server-side request forgery (docs/operating.md "Security and operations"):
 *  - at configuration: https only, and the host must not be, or resolve to, an address
 *    that lib/net/address-policy.ts refuses (a name that does not resolve yet is accepted: delivery checks again);
 *  - at delivery: the name is resolved again right before connecting, every answer is checked, and the socket
 *    connects to the address that was checked (a custom `lookup`), so DNS rebinding between the check and the
 *    connection cannot reach an internal address. Redirects are never followed.
 * Development setting LOYALTY_ALLOW_HTTP_WEBHOOKS=1: loopback addresses are allowed, and plain http to them.
 */

/** Read at each check, not once per process: the SSRF tests switch it in-process. */
export const allowLoopbackDeliveries = (env: Environment = process.env) => loadConfig(env).LOYALTY_ALLOW_HTTP_WEBHOOKS;

const LOOPBACK_NAME = /^(localhost|.*\.localhost)\.?$/i;

function resolveAll(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );
}

/** The URL's host without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

/**
 * Which addresses a URL of this scheme may reach: https any public address (and loopback with the development
 * setting); plain http only loopback, and only with the development setting.
 */
function addressRule(protocol: string): ((ip: string) => boolean) | null {
  const allowLoopback = allowLoopbackDeliveries();
  if (protocol === "https:") return (ip) => addressAllowed(ip, allowLoopback);
  if (protocol === "http:" && allowLoopback) return (ip) => classifyAddress(ip) === "loopback";
  return null;
}

/**
 * Validates a delivery URL for storage and returns it normalised; throws a 400 `url_not_allowed` naming `path`.
 * The URL parser has already turned decimal, octal and hex IPv4 forms (http://2130706433/) into dotted quads.
 */
export async function checkDeliveryUrl(raw: string, path: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw urlNotAllowed(path, "must be an https URL");
  }
  const allowed = addressRule(url.protocol);
  if (!allowed) throw urlNotAllowed(path, "must be an https URL");
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else if (LOOPBACK_NAME.test(host)) addresses = ["127.0.0.1"];
  else
    addresses = await resolveAll(host).then(
      (list) => list.map((a) => a.address),
      () => [],
    );
  if (url.protocol === "http:" && addresses.length === 0) throw urlNotAllowed(path, "must be an https URL");
  if (!addresses.every(allowed)) {
    throw urlNotAllowed(
      path,
      url.protocol === "http:"
        ? "must be an https URL"
        : "must not point to a private, loopback, link-local or reserved address",
    );
  }
  return url.toString();
}

class RefusedAddress extends Error {
  code = "EADDRNOTALLOWED";
}

/** net.connect's `lookup`: resolves, refuses if any answer is not allowed, and hands back only checked addresses. */
function guardedLookup(allowed: (ip: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname).then(
      (list) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = list.filter((a) => !family || a.family === family);
        if (usable.length === 0 || !list.every((a) => allowed(a.address))) {
          callback(new RefusedAddress(ADDRESS_NOT_ALLOWED), "", 0);
        } else if (options.all) {
          (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}

export interface DeliveryOutcome {
  /** The receiver's HTTP status, or null when none was received. */
  status: number | null;
  /**
   * Why it failed, in words that do not tell one network failure from another (refused, timed out, reset, TLS):
   * the delivery log must not become a port scanner of whatever the URL points to.
   */
  error: string | null;
}

export const CONNECTION_FAILED = "connection failed";
export const ADDRESS_NOT_ALLOWED = "address not allowed";

/** POSTs `body` to `raw` under the rules of the header. Never throws. */
export function postDelivery(
  raw: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<DeliveryOutcome> {
  const refused = Promise.resolve({ status: null, error: ADDRESS_NOT_ALLOWED });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refused;
  }
  const allowed = addressRule(url.protocol);
  if (!allowed) return refused;
  const host = hostOf(url);
  // An IP literal never goes through `lookup`: check it here.
  if (isIP(host) && !allowed(host)) return refused;
  const lookup = guardedLookup(allowed);
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: DeliveryOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const req = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body) },
        lookup,
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume(); // the answer's body is not read: only the status counts
        done({
          status: res.statusCode ?? null,
          error: res.statusCode && res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`,
        });
        req.destroy();
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error("timeout")), timeoutMs);
    req.on("close", () => clearTimeout(deadline));
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (err: NodeJS.ErrnoException) =>
      done({ status: null, error: err instanceof RefusedAddress ? ADDRESS_NOT_ALLOWED : CONNECTION_FAILED }),
    );
    req.end(body);
  });
}
