import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";

export interface Received {
  body: string;
  json: { id: string; type: string; [k: string]: unknown };
  signature: string;
  status: number;
  at: number;
}

/** A real local HTTP receiver for webhooks and push deliveries; `respond` picks each answer's status. */
export async function startReceiver(respond: (r: Omit<Received, "status" | "at">) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const entry = { body, json: JSON.parse(body), signature: String(req.headers["loyalty-signature"] ?? "") };
      const status = respond(entry);
      received.push({ ...entry, status, at: Date.now() });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Checks `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` as a receiver should. */
export function verifySignature(secret: string, header: string, body: string, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(",").map((kv) => kv.split("=") as [string, string]));
  const t = Number(parts.t);
  if (!parts.v1 || !Number.isFinite(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = "condition") {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
