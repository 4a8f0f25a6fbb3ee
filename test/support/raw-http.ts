/**
 * The one place where a test writes an HTTP/1.1 request byte for byte, for the requests `fetch` cannot make: fetch
 * (undici) adds `Content-Length: 0` to every POST without a body, so it cannot send what `curl -X POST` sends (no
 * body, no Content-Length, no Transfer-Encoding) nor an empty chunked body.
 */
import net from "node:net";
import type { ApiResponse } from "./api-client";

/** Sends `method path` with exactly `headers` (plus Host and `Connection: close`) and `body` as written, if any. */
export function rawRequest(
  baseUrl: string,
  method: string,
  pathname: string,
  headers: Record<string, string>,
  body = "",
): Promise<ApiResponse> {
  const url = new URL(baseUrl);
  const head = [
    `${method} ${pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      // Written, not ended: a half-closed socket may be dropped before the answer. `Connection: close` ends it.
      socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
    });
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("end", () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
  });
}

function parseResponse(bytes: Buffer): ApiResponse {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no HTTP response head in ${JSON.stringify(bytes.toString("latin1"))}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let rest = bytes.subarray(end + 4);
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) rest = dechunk(rest);
  const text = rest.toString("utf8");
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status, headers, text, json };
}

/** The payload of a chunked transfer coding (RFC 9112 §7.1), trailers ignored. */
function dechunk(bytes: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (!size) return Buffer.concat(out);
    out.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
