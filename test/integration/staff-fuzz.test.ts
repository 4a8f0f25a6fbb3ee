/**
 * No 5xx from any staff input (issue 28, item 2): every staff JSON route and every dashboard page, enumerated from the
 * filesystem (app/api/staff/**\/route.ts with its exported methods, app/dashboard/**\/page.tsx), is called signed in
 * as an owner with malformed bodies, odd strings, bad dates, bad percent-encoding and bad ids. Whatever the answer,
 * it is never a 5xx. The number of cases is printed (and asserted to cover every route).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createStaff } from "@/lib/domain/staff";
import { TWO_PROGRAMS } from "../support/fixtures";
import { BACKENDS, openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { signIn } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
/**
 * Requests in flight at once: the cases are independent reads and refused writes, so their order does not matter;
 * a few at a time keep the server busy while the client reads the previous answers (and try it under concurrency).
 */
const IN_FLIGHT = 4;
const ROOT = path.resolve(import.meta.dirname, "../..");

/** Every file named `name` under `dir`, as its folder's path relative to `base`. */
function folders(dir: string, name: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...folders(full, name, base));
    else if (entry === name) out.push(path.relative(base, dir));
  }
  return out;
}

/** The staff routes: their path template under /api/staff and the methods their route.ts exports. */
const ROUTES = folders(path.join(ROOT, "app/api/staff"), "route.ts").map((folder) => {
  const source = readFileSync(path.join(ROOT, "app/api/staff", folder, "route.ts"), "utf8");
  const methods = [...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!);
  return { template: `/api/staff/${folder.split(path.sep).join("/")}`, methods };
});
/** The dashboard pages (route groups and parallel routes have none here). */
const PAGES = folders(path.join(ROOT, "app/dashboard"), "page.tsx").map(
  (folder) => `/dashboard${folder ? `/${folder.split(path.sep).join("/")}` : ""}`,
);

/** Values for a path parameter other than the program: unknown, malformed, encoded oddly. */
const BAD_IDS = ["00000000-0000-0000-0000-000000000000", "not-an-id", "%ZZ", "%00", "..", "a%2Fb", "x".repeat(300)];
/** Odd strings for every text field and query parameter. */
const ODD = ["", " ", "'; DROP TABLE x; --", "<script>", "𝕏".repeat(50), "é\u0301", "\u202e", "9".repeat(40), "-1"];
const BAD_DATES = ["0001-01-01", "9999-12-31", "2026-13-01", "2026-02-30", "yesterday", "1969-12-31"];
/** Bodies that are not what any route expects. */
const RAW_BODIES = ["{", "null", "[]", '"text"', "1e999", '{"__proto__":{"x":1}}', "[".repeat(200)];

/**
 * One request with this exact request-target (fetch would normalise `%ZZ` or `..`). A body is framed by its
 * Content-Length: node's client sends a DELETE's body without one (no chunking by default for DELETE), and the
 * server then rightly reads those bytes as the start of the next request on the keep-alive connection, which it
 * closes as malformed.
 */
function raw(baseUrl: string, method: string, target: string, headers: Record<string, string>, body?: string) {
  const { hostname, port } = new URL(baseUrl);
  const framed = body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: target, headers: framed }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Object bodies built from the field names a route's forms use, each with odd values. */
const FIELDS = ["name", "email", "phone", "points", "reason", "body", "from", "to", "code", "role", "active", "url"];
function objectBodies(): string[] {
  const bodies: string[] = [];
  for (const v of [...ODD, ...BAD_DATES]) bodies.push(JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, v]))));
  for (const v of [null, -1, 1e308, true, [], {}, 2 ** 53])
    bodies.push(JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, v]))));
  return bodies;
}

for (const backend of BACKENDS) {
  describe(`Staff fuzz: never a 5xx from any staff route or page [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    let cookie = "";
    let programId = "";

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      programId = stack.programId;
      const email = `fuzz.${Math.random().toString(36).slice(2, 8)}@example.com`;
      await stack.withPrisma((prisma) => createStaff(prisma, { email, password: PASSWORD, programId, role: "owner" }));
      app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-fuzz-${process.pid}-${backend}`),
      });
      cookie = (await signIn(app.baseUrl, email, PASSWORD))!;
      assert.ok(cookie);
    });
    after(() => stack?.close());

    test("every staff route and page answers odd input with something other than a 5xx", async () => {
      assert.ok(ROUTES.length >= 30, `found ${ROUTES.length} staff routes`);
      assert.ok(PAGES.length >= 10, `found ${PAGES.length} dashboard pages`);
      const headers = { cookie, origin: app.baseUrl };
      const failures: string[] = [];
      /** Connections closed without an answer: none (every request, body-less DELETEs included, is answered). */
      const resets: string[] = [];
      /** Every case, listed first and sent afterwards, IN_FLIGHT at a time (the server's work overlaps the client's). */
      const cases: (() => Promise<void>)[] = [];
      const call = (method: string, target: string, body?: string, extra: Record<string, string> = {}) =>
        void cases.push(async () => {
          const h: Record<string, string> = { ...headers, ...extra };
          if (body !== undefined) h["content-type"] = "application/json";
          const res = await raw(app.baseUrl, method, target, h, body).catch((err: Error) => ({
            status: 0,
            text: err.message,
          }));
          if (res.status === 0) resets.push(`${method} ${target} ${body?.slice(0, 40) ?? ""}: ${res.text}`);
          if (res.status >= 500) failures.push(`${method} ${target} ${body?.slice(0, 80) ?? ""} → ${res.status}`);
        });
      const fill = (template: string, id: string) =>
        template.replace("[programId]", programId).replace(/\[[A-Za-z]+\]/g, id);
      const queries = [
        "",
        ...BAD_DATES.map((d) => `?from=${d}&to=${d}&range=custom`),
        ...ODD.map((v) => `?q=${encodeURIComponent(v)}&after=${encodeURIComponent(v)}&kind=${encodeURIComponent(v)}`),
        "?q=%ZZ",
        "?from=2026-01-01&to=9999-12-31",
      ];
      const bodies = [...RAW_BODIES, ...objectBodies()];

      for (const route of ROUTES) {
        for (const method of route.methods) {
          const targets = route.template.includes("[", route.template.indexOf("[programId]") + 1)
            ? BAD_IDS.map((id) => fill(route.template, id))
            : [fill(route.template, "x")];
          // The program itself, malformed and unknown.
          targets.push(route.template.replace("[programId]", "%ZZ").replace(/\[[A-Za-z]+\]/g, "x"));
          targets.push(route.template.replace("[programId]", BAD_IDS[0]!).replace(/\[[A-Za-z]+\]/g, "x"));
          for (const target of targets) {
            if (method === "GET") for (const q of queries) call(method, `${target}${q}`);
            else {
              call(method, target);
              call(method, target, "{}", { "if-match": "garbage" });
            }
          }
          // Every body shape on the real ids' routes (a bad id answers before the body is read).
          if (method !== "GET") {
            const target = targets[0]!;
            for (const body of bodies) call(method, target, body);
          }
        }
      }
      const pageQueries = [
        "",
        "?range=custom&from=0001-01-01&to=9999-12-31",
        "?range=custom&from=2026-13-01&to=2026-13-02",
        "?q=%ZZ&after=%ZZ",
        `?q=${encodeURIComponent("'; DROP TABLE x; --")}&status=${"9".repeat(40)}&pool=..`,
        "?from=2026-01-01&to=9999-12-31&action=x&staff=%3Cscript%3E",
      ];
      for (const page of PAGES) {
        for (const id of ["00000000-0000-0000-0000-000000000000", "not-an-id", "%ZZ"]) {
          const target = fill(page, id);
          for (const q of pageQueries) call("GET", `${target}${q}`);
        }
      }
      let next = 0;
      const worker = async () => {
        while (next < cases.length) await cases[next++]!();
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      console.log(
        `staff fuzz [${backend}]: ${cases.length} cases over ${ROUTES.length} routes and ${PAGES.length} pages; ` +
          `${resets.length} closed without an answer${resets.length ? `: ${resets.join("; ")}` : ""}`,
      );
      // The server is still up and answering after all of it.
      assert.equal((await raw(app.baseUrl, "GET", "/healthz", {})).status, 200);
      assert.deepEqual(failures, [], `${failures.length} of ${cases.length} cases answered 5xx`);
      assert.deepEqual(resets, [], `${resets.length} of ${cases.length} cases got no answer`);
    });
  });
}
