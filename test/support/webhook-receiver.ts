/**
 * A real HTTP endpoint on 127.0.0.1 for webhook and push deliveries, and the signature check a receiver makes.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  /** The status we answered. */
  status: number;
  at: number;
}

export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:PORT; deliveries may go to any path under it. */
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** `respond` picks each answer's status (default 200); `delayMs` holds each answer that long. */
export async function startReceiver(
  respond: (r: Omit<Received, "status" | "at">) => number = () => 200,
  delayMs = 0,
): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const entry = { path: req.url ?? "", method: req.method ?? "", headers: req.headers, body, json };
      const status = respond(entry);
      received.push({ ...entry, status, at: Date.now() });
      setTimeout(() => res.writeHead(status, { "content-type": "text/plain" }).end("ok"), delayMs);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * What a receiver does with `loyalty-signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`:
 * recompute over the raw body, compare in constant time, refuse stale timestamps. During a secret rotation's
 * overlap the header carries one `v1=` per valid secret: any one matching `secret` verifies.
 */
export function verifySignature(
  secret: string,
  header: string | string[] | undefined,
  body: string,
  toleranceSeconds = 300,
): boolean {
  if (typeof header !== "string") return false;
  const parts = header.split(",").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)] as const);
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  const signatures = parts.filter(([k]) => k === "v1").map(([, v]) => v);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  return signatures.some((v1) => /^[0-9a-f]{64}$/.test(v1) && timingSafeEqual(Buffer.from(v1, "hex"), expected));
}
