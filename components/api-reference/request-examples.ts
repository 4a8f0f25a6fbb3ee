/**
 * The one place for the reference's example requests: for each operation, a curl command and a TypeScript `fetch`
 * call built from the document alone — the server URL, the path with its parameters' examples, the authentication
 * the operation's security names (as an environment variable, never a real secret), Idempotency-Key where the
 * operation declares it, and the request body's first example. Pure: test/unit/api-reference-examples.test.ts
 * checks every operation gets both and that the curl says what the document says.
 */
import { deref, type Doc, type OperationEntry, type Parameter } from "./document";

export type RequestExample = {
  method: string;
  /** Absolute URL: the document's server, the path with its parameters filled in. */
  url: string;
  /** In the order sent. A value written `$NAME` is an environment variable the reader sets. */
  headers: [string, string][];
  /** The request body as JSON text (indented), or null. */
  body: string | null;
  curl: string;
  fetch: string;
};

/** Where each security scheme's credential goes and which environment variable the examples read it from. */
const CREDENTIALS: Record<string, { header: string; prefix: string; env: string }> = {
  apiKey: { header: "api-key", prefix: "", env: "LOYALTY_API_KEY" },
  customerToken: { header: "Authorization", prefix: "Bearer ", env: "CUSTOMER_TOKEN" },
};

const exampleOf = (p: Parameter) => {
  const value = (p as { example?: unknown }).example ?? p.schema?.example ?? p.schema?.examples?.[0];
  return value === undefined ? undefined : String(value);
};

/** The first example of the operation's JSON request body, indented, or null. */
function bodyExample(doc: Doc, entry: OperationEntry): string | null {
  const body = entry.op.requestBody && deref(doc, entry.op.requestBody);
  const media = body?.content["application/json"];
  if (!media) return null;
  const first = Object.values(media.examples ?? {})[0];
  const value = first ? deref(doc, first).value : media.example;
  return value === undefined ? null : JSON.stringify(value, null, 2);
}

export function requestExample(doc: Doc, entry: OperationEntry): RequestExample {
  const method = entry.method.toUpperCase();
  const parameters = (entry.op.parameters ?? []).map((p) => deref(doc, p));
  const server = (doc.servers?.[0]?.url ?? "").replace(/\/$/, "");
  const path = entry.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const example = parameters.find((p) => p.in === "path" && p.name === name);
    const value = example && exampleOf(example);
    return value === undefined ? whole : encodeURIComponent(value);
  });
  const query = parameters
    .filter((p) => p.in === "query" && p.required && exampleOf(p) !== undefined)
    .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(exampleOf(p)!)}`);
  const url = `${server}${path}${query.length ? `?${query.join("&")}` : ""}`;

  const headers: [string, string][] = [];
  const scheme = Object.keys((entry.op.security ?? doc.security ?? [])[0] ?? {})[0];
  const credential = scheme ? CREDENTIALS[scheme] : undefined;
  if (credential) headers.push([credential.header, `${credential.prefix}$${credential.env}`]);
  const body = bodyExample(doc, entry);
  if (body !== null) headers.push(["content-type", "application/json"]);
  for (const p of parameters) {
    if (p.in !== "header") continue;
    const value = exampleOf(p);
    if (value !== undefined) headers.push([p.name, value]);
  }
  return {
    method,
    url,
    headers,
    body,
    curl: curl(method, url, headers, body),
    fetch: fetchCall(method, url, headers, body),
  };
}

/** A POSIX shell word in single quotes (a `'` inside becomes `'\''`). */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
/** A header line for the shell: double quotes where it names a variable, so the shell fills it in. */
const shellHeader = ([name, value]: [string, string]) =>
  /\$[A-Z_]+/.test(value) ? `"${name}: ${value}"` : quote(`${name}: ${value}`);

function curl(method: string, url: string, headers: [string, string][], body: string | null): string {
  const lines = [`curl${method === "GET" ? "" : ` -X ${method}`} ${quote(url)}`];
  for (const header of headers) lines.push(`  -H ${shellHeader(header)}`);
  if (body !== null) lines.push(`  --data ${quote(body)}`);
  return lines.join(" \\\n");
}

/** A header value in TypeScript: an environment variable read from process.env, anything else a string literal. */
function tsValue(value: string): string {
  const variable = value.match(/^(.*)\$([A-Z_]+)$/);
  if (!variable) return JSON.stringify(value);
  const [, prefix, name] = variable;
  return prefix ? `\`${prefix}\${process.env.${name}}\`` : `process.env.${name}!`;
}

function fetchCall(method: string, url: string, headers: [string, string][], body: string | null): string {
  const lines = [`const response = await fetch(${JSON.stringify(url)}, {`, `  method: ${JSON.stringify(method)},`];
  if (headers.length > 0) {
    lines.push("  headers: {");
    for (const [name, value] of headers) lines.push(`    ${JSON.stringify(name)}: ${tsValue(value)},`);
    lines.push("  },");
  }
  if (body !== null) lines.push(`  body: JSON.stringify(${body.replace(/\n/g, "\n  ")}),`);
  lines.push("});");
  lines.push("// A refusal is problem+json: its `code` says why (see the responses below).");
  lines.push("if (!response.ok) throw new Error(`${response.status} ${(await response.json()).code}`);");
  lines.push("const result = response.status === 204 ? null : await response.json();");
  return lines.join("\n");
}
