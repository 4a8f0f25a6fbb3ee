/**
 * The API reference's example requests (components/api-reference/request-examples.ts): every operation of the
 * document this app serves gets a curl command and a TypeScript `fetch` call, and the curl, read back by a shell-word
 * parser written here, says what the document says: the method, the URL (server + path with every parameter filled
 * in), the credential its security names, Idempotency-Key where declared, and the body example.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import ts from "typescript";
import { deref, loadDocument } from "@/components/api-reference/document";
import { requestExample } from "@/components/api-reference/request-examples";

/** POSIX shell words of a command: single quotes literal, double quotes with `$NAME` kept as written, `\` + newline joins lines. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "\\" && command[i + 1] === "\n") {
      i++;
      continue;
    }
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      assert.ok(end > i, "unterminated single quote");
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = command.indexOf('"', i + 1);
      assert.ok(end > i, "unterminated double quote");
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** What curl would send for these words (the options the examples use: -X, -H, --data). */
function parseCurl(command: string) {
  const words = shellWords(command);
  assert.equal(words[0], "curl");
  let method: string | null = null;
  let url: string | null = null;
  let data: string | null = null;
  const headers: [string, string][] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "-X") method = words[++i]!;
    else if (w === "-H") {
      const line = words[++i]!;
      const colon = line.indexOf(":");
      assert.ok(colon > 0, `header without a name: ${line}`);
      headers.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
    } else if (w === "--data") data = words[++i]!;
    else if (w.startsWith("-")) assert.fail(`unexpected option ${w}`);
    else {
      assert.equal(url, null, "one URL");
      url = w;
    }
  }
  // curl's default: GET, or POST once there is --data.
  return { method: method ?? (data === null ? "GET" : "POST"), url, headers, data };
}

const { doc, operations } = loadDocument();

describe("the API reference's example requests", () => {
  test("the document has operations and a server", () => {
    assert.ok(operations.length >= 10);
    assert.ok(doc.servers?.[0]?.url);
  });

  for (const entry of operations) {
    test(`${entry.method.toUpperCase()} ${entry.path}: a curl and a fetch that say what the document says`, () => {
      const example = requestExample(doc, entry);
      const parameters = (entry.op.parameters ?? []).map((p) => deref(doc, p));
      const body = entry.op.requestBody && deref(doc, entry.op.requestBody);

      // The curl, parsed back.
      const curl = parseCurl(example.curl);
      assert.equal(curl.method, entry.method.toUpperCase());
      const url = new URL(curl.url!);
      assert.equal(url.origin, new URL(doc.servers![0]!.url).origin);
      const template = new RegExp(
        `^${entry.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/{}]+")}$`,
      );
      assert.match(url.pathname, template, "every path parameter filled in");
      assert.doesNotMatch(curl.url!, /[{}]/);
      assert.deepEqual(curl.headers, example.headers);
      const header = (name: string) => curl.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

      // Authentication as the operation's security says: the api-key, or a customer token on /me.
      const scheme = Object.keys((entry.op.security ?? doc.security ?? [])[0] ?? {})[0];
      if (scheme === "apiKey") assert.equal(header("api-key"), "$LOYALTY_API_KEY");
      else if (scheme === "customerToken") assert.equal(header("authorization"), "Bearer $CUSTOMER_TOKEN");
      else assert.fail(`unknown security ${scheme}`);

      // Idempotency-Key wherever the operation declares it (every POST but the batch delete's DELETE).
      const declaresKey = parameters.some((p) => p.in === "header" && p.name === "Idempotency-Key");
      assert.equal(!!header("Idempotency-Key"), declaresKey);
      if (entry.method === "post" && !entry.path.endsWith("/integrations/api")) assert.ok(declaresKey);

      // The body: the document's first example, as JSON, with its content type.
      if (body?.content["application/json"]) {
        assert.equal(header("content-type"), "application/json");
        const first = Object.values(body.content["application/json"].examples ?? {})[0];
        if (first) assert.deepEqual(JSON.parse(curl.data!), deref(doc, first).value);
      } else {
        assert.equal(curl.data, null);
      }

      // The fetch call: TypeScript that parses, with the same URL, method, headers and body.
      const source = ts.createSourceFile(
        "example.ts",
        `async function run() {\n${example.fetch}\n}`,
        ts.ScriptTarget.Latest,
      );
      const diagnostics = (source as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics;
      assert.equal(diagnostics.length, 0, example.fetch);
      assert.ok(example.fetch.includes(`fetch(${JSON.stringify(example.url)}`));
      assert.ok(example.fetch.includes(`method: ${JSON.stringify(example.method)}`));
      for (const [name] of example.headers) assert.ok(example.fetch.includes(`${JSON.stringify(name)}:`), name);
      assert.equal(example.fetch.includes("process.env.LOYALTY_API_KEY"), scheme === "apiKey");
      assert.equal(example.fetch.includes("body: JSON.stringify("), example.body !== null);
    });
  }
});
