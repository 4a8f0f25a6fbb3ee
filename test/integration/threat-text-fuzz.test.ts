/**
 * Threat: a client sends text the database cannot hold or the code never expected — U+0000, unpaired surrogates,
 * control characters, 10,000-character strings, RTL overrides, stacked combining marks, emoji, U+FFFF — into any
 * string it can reach, hoping for a 500 (a driver error), or for a refused request that still wrote something.
 *
 * Generated from the OpenAPI document the server serves (/v1/openapi.json): for EVERY operation, every string field
 * of its request body (every branch of a union, every level), every path parameter and every query parameter gets
 * each value of ODD_TEXT, and each body is also sent once as invalid UTF-8 under a declared charset. A new operation
 * is covered without editing this file. Asserted: never a 5xx; U+0000 and unpaired surrogates in a body field, a path
 * parameter or a query value are 400 `validation_failed` naming that field (API.md §1, the one text rule); invalid
 * UTF-8 is 400 `invalid_json`; and the requests answered 4xx write nothing: they are sent again after the first run,
 * and a digest of every table that a request could write is the same before and after (PGlite is read with the app
 * stopped).
 *
 * One stack per backend; requests in parallel batches.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, customerPath, openStack, type ApiResponse, type Fixtures, type Stack } from "../support/stack";
import { earningFlows, fixtures, otherProgram, programWithTiers, type FixturePart } from "../support/fixtures";
import { assertProblem, problemPaths } from "../support/assertions";
import { rawRequest } from "../support/raw-http";
import { signIn, staffClient } from "../support/staff-http";
import { createStaff } from "@/lib/domain/staff";

const PASSWORD = "correct horse battery staple";
const STAFF_EMAIL = "fuzz.manager@example.com";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, unknown>;

/** The odd text, by name. `strict`: the text rule refuses it, so a body field or parameter holding it is a 400. */
const ODD_TEXT: { name: string; value: string; strict?: boolean }[] = [
  { name: "NUL", value: "a\u0000b", strict: true },
  { name: "lone high surrogate", value: "a\ud800b", strict: true },
  { name: "lone low surrogate", value: "\udc00", strict: true },
  { name: "C0 and C1 controls", value: "\u0001\u0007\u001b[31m\u007f\u0085\t\r\n" },
  { name: "overlong", value: "x".repeat(10_000) },
  { name: "RTL override and marks", value: "\u202egnp.exe\u202c\u200f\u200e" },
  { name: "combining marks", value: "e\u0301\u0302\u0303\u0304\u0305\u0306\u0307" },
  { name: "emoji", value: "👩🏽‍💻👨‍👩‍👧🇵🇹" },
  { name: "noncharacters", value: "\uffff\ufffe\ufdd0" },
  { name: "BOM and zero-width", value: "\ufeff\u200b\u2060x" },
  { name: "empty", value: "" },
  { name: "blank", value: "   " },
];

/** What a path parameter of that name is when it is not the one under test. */
interface Known {
  programId: string;
  email: string;
  rewardId: string;
  flowKey: string;
  orderId: string;
  transactionId: string;
  redemptionId: string;
}

/** A reward for the redemption paths, made with the CLI like every fixture. */
const reward = (): FixturePart<{ programId: string }, { rewardId: string }> => ({
  key: "fuzz reward",
  async make({ loyalty }, { programId }) {
    const made = await loyalty("reward", "create", "--program", programId, "--name", "Fuzz", "--cost-points", "1");
    return { rewardId: String(made.rewardId) };
  },
});

const FUZZ = fixtures("text-fuzz", programWithTiers(), otherProgram()).then(earningFlows(), reward());

/**
 * The tables a refused request may still write: its key's rate-limit bucket and the key's last use (authentication
 * records both before the request is judged). Every other table must be unchanged.
 */
const UNWRITTEN_ON_4XX_EXCEPT = new Set(["RateBucket", "ApiKey", "_prisma_migrations"]);

interface Case {
  label: string;
  method: string;
  path: string;
  token: boolean;
  /** A JSON value, or raw bytes. */
  body?: Json | Uint8Array<ArrayBuffer>;
  /** The problem path a 400 must name (strict text only). */
  mustName?: string;
  /** `mustName` is the object under which the offending key is named (`metadata.<key>`). */
  keyUnder?: boolean;
  /** The body is invalid UTF-8: 400 invalid_json. */
  badUtf8?: boolean;
}

// --------------------------------------------------------------------------------------------------------------
// The document, walked

function resolver(doc: Schema) {
  const deref = (s: Schema | undefined): Schema => {
    let at = s ?? {};
    while (typeof at.$ref === "string") {
      const parts = (at.$ref as string).replace(/^#\//, "").split("/");
      at = parts.reduce<Schema>((o, p) => (o as Record<string, Schema>)[p]!, doc);
    }
    return at;
  };
  return deref;
}

/** The alternatives of a schema: each branch of oneOf/anyOf (a null branch dropped), or the schema itself. */
function branches(s: Schema, deref: (s: Schema | undefined) => Schema): Schema[] {
  const alts = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (!alts) return [s];
  const kept = alts.map(deref).filter((a) => a.type !== "null");
  return kept.flatMap((a) => branches(a, deref));
}

/** A value the schema accepts where possible (examples, enums, formats, bounds); requireds only. */
function sample(schema: Schema | undefined, deref: (s: Schema | undefined) => Schema): Json {
  const s = branches(deref(schema), deref)[0]!;
  if (s.const !== undefined) return s.const as Json;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0] as Json;
  if (Array.isArray(s.enum)) return s.enum[0] as Json;
  if (s.default !== undefined) return s.default as Json;
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : (s.type as string);
  switch (type) {
    case "object": {
      const out: Record<string, Json> = {};
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const name of (s.required ?? []) as string[]) out[name] = sample(props[name], deref);
      return out;
    }
    case "array":
      return [sample(s.items as Schema, deref)];
    case "integer":
    case "number":
      return Math.max(1, Number(s.minimum ?? s.exclusiveMinimum ?? 1));
    case "boolean":
      return false;
    case "string":
      if (s.format === "email") return "fuzz.sample@example.com";
      if (s.format === "date-time") return "2024-01-01T00:00:00.000Z";
      if (s.format === "date") return "2000-01-01";
      return "x".repeat(Math.max(1, Number(s.minLength ?? 1)));
    default:
      return "x";
  }
}

/** A string slot of a body: its path, and the body with it set. `key`: the value is an object key under `path`. */
interface Slot {
  path: (string | number)[];
  key?: boolean;
  build: (value: string) => Json;
}

/** Every string slot of a body: the body (requireds sampled) with that slot set to `value`, and its problem path. */
function stringSlots(schema: Schema | undefined, deref: (s: Schema | undefined) => Schema, depth = 0): Slot[] {
  if (depth > 8) return [];
  const out: Slot[] = [];
  for (const s of branches(deref(schema), deref)) {
    const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : (s.type as string);
    if (type === "string" || (s.type === undefined && (s.enum || s.const !== undefined || s.format))) {
      out.push({ path: [], build: (v) => v });
    } else if (type === "object") {
      const base = sample(s, deref) as Record<string, Json>;
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const [name, prop] of Object.entries(props)) {
        for (const slot of stringSlots(prop, deref, depth + 1))
          out.push({ ...slot, path: [name, ...slot.path], build: (v) => ({ ...base, [name]: slot.build(v) }) });
      }
      // A record (metadata): its keys and its values are strings too.
      const extra = s.additionalProperties as Schema | boolean | undefined;
      if (extra && typeof extra === "object") {
        out.push({ path: ["fuzzKey"], build: (v) => ({ ...base, fuzzKey: v }) });
        out.push({ path: [], key: true, build: (v) => ({ ...base, [v || "k"]: "x" }) });
      }
    } else if (type === "array") {
      for (const slot of stringSlots(s.items as Schema, deref, depth + 1))
        out.push({ ...slot, path: [0, ...slot.path], build: (v) => [slot.build(v)] });
    }
  }
  return out;
}

/** `[3].payload.phone` from `[3, "payload", "phone"]`, as problem+json names fields. */
const formatPath = (path: (string | number)[]) =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");

/** A path or query value as sent: percent-encoded UTF-8; an unpaired surrogate as the bytes of its CESU-8 form. */
const encode = (value: string) =>
  value.isWellFormed()
    ? encodeURIComponent(value)
    : [...value]
        .map((c) => {
          const u = c.charCodeAt(0);
          if (c.length === 1 && u >= 0xd800 && u <= 0xdfff)
            return [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)]
              .map((b) => `%${b.toString(16).toUpperCase()}`)
              .join("");
          return encodeURIComponent(c);
        })
        .join("");

function casesOf(doc: Schema, known: Known): Case[] {
  const deref = resolver(doc);
  const cases: Case[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const params = ((op.parameters ?? []) as Schema[]).map(deref);
      const token = JSON.stringify(op.security ?? doc.security ?? []).includes("ustomer");
      const pathParams = params.filter((p) => p.in === "path").map((p) => String(p.name));
      const queryParams = params.filter((p) => p.in === "query").map((p) => String(p.name));
      const requiredQuery = params.filter((p) => p.in === "query" && p.required);
      const fill = (overrides: Record<string, string> = {}) =>
        template.replace(/\{(\w+)\}/g, (_, name: string) =>
          name in overrides ? overrides[name]! : encodeURIComponent(known[name as keyof Known] ?? "x"),
        );
      const baseQuery = requiredQuery
        .map((p) => `${String(p.name)}=${encodeURIComponent(String(sample(p.schema as Schema, deref)))}`)
        .join("&");
      const withQuery = (path: string, extra?: string) => {
        const q = [baseQuery, extra].filter(Boolean).join("&");
        return q ? `${path}?${q}` : path;
      };
      const bodySchema = deref(op.requestBody as Schema | undefined).content as
        Record<string, { schema?: Schema }> | undefined;
      const schema = bodySchema?.["application/json"]?.schema;
      const baseBody = schema ? sample(schema, deref) : undefined;
      const M = method.toUpperCase();
      const label = `${M} ${template}`;

      for (const odd of ODD_TEXT) {
        for (const name of pathParams) {
          const encoded = encode(odd.value);
          if (encoded === "") continue; // an empty segment is another path
          cases.push({
            label: `${label} path ${name} ← ${odd.name}`,
            method: M,
            path: withQuery(fill({ [name]: encoded })),
            token,
            body: baseBody,
            // U+0000 reaches the route; an unpaired surrogate is not UTF-8, refused before it (400 invalid_path).
            mustName: odd.name === "NUL" ? name : undefined,
          });
        }
        for (const name of queryParams) {
          cases.push({
            label: `${label} query ${name} ← ${odd.name}`,
            method: M,
            path: withQuery(fill(), `${name}=${encode(odd.value)}`),
            token,
            body: baseBody,
            mustName: odd.name === "NUL" ? name : undefined,
          });
        }
        for (const slot of schema ? stringSlots(schema, deref) : []) {
          cases.push({
            label: `${label} body ${formatPath(slot.path)}${slot.key ? " (a key)" : ""} ← ${odd.name}`,
            method: M,
            path: withQuery(fill()),
            token,
            body: slot.build(odd.value),
            mustName: odd.strict ? formatPath(slot.path) : undefined,
            keyUnder: slot.key,
          });
        }
      }
      if (schema) {
        // The sample body with a string holding bytes that are not UTF-8 (a lone 0xC3, an encoded surrogate).
        const text = JSON.stringify(baseBody);
        const at = text.indexOf('"') + 1;
        const bytes = at > 0 ? text : `${text.slice(0, -1)},"k":"x"}`;
        const cut = bytes.indexOf('"') + 1;
        const buf = Buffer.concat([
          Buffer.from(bytes.slice(0, cut)),
          Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80]),
          Buffer.from(bytes.slice(cut)),
        ]);
        cases.push({
          label: `${label} body as invalid UTF-8`,
          method: M,
          path: withQuery(fill()),
          token,
          body: new Uint8Array(buf),
          badUtf8: true,
        });
      }
    }
  }
  return cases;
}

// --------------------------------------------------------------------------------------------------------------

/** Each table's row count and a digest of its rows, in one query (PGlite opens the database for each). */
async function digest(stack: Stack<unknown>): Promise<Record<string, string>> {
  const tables = await stack.query<{ t: string }>(
    `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const parts = tables
    .map(({ t }) => t)
    .filter((t) => !UNWRITTEN_ON_4XX_EXCEPT.has(t))
    .map(
      (t) =>
        `SELECT '${t}' AS t, count(*)::int AS n, md5(string_agg(md5(x::text), '' ORDER BY md5(x::text))) AS h FROM "${t}" x`,
    );
  const rows = await stack.query<{ t: string; n: number; h: string | null }>(parts.join("\nUNION ALL\n"));
  return Object.fromEntries(rows.map((r) => [r.t, `${r.n}:${r.h ?? ""}`]));
}

for (const backend of BACKENDS) {
  describe(`Threat: odd text into every string of every operation (OpenAPI-generated fuzz) [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof FUZZ>>;
    let cases: Case[] = [];
    /** Customer tokens to take turns with: each customer's bucket allows 30 at once, 10 a second. */
    const tokens: string[] = [];
    let turn = 0;
    const refused: Case[] = [];
    let started = 0;

    before(async () => {
      stack = await openStack(backend, FUZZ);
      await stack.withPrisma((prisma) =>
        createStaff(prisma, { email: STAFF_EMAIL, password: PASSWORD, programId: stack.programId, role: "manager" }),
      );
      await stack.start();
      started = Date.now();
    });
    after(async () => {
      console.log(
        `[${backend}] ${cases.length} fuzz cases (sent once, ${refused.length} 4xx sent twice) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      await stack?.close();
    });

    const send = async (c: Case): Promise<ApiResponse> => {
      const headers: Record<string, string> = c.token
        ? { authorization: `Bearer ${tokens[turn++ % tokens.length]}` }
        : { "api-key": stack.key };
      let body: string | Uint8Array<ArrayBuffer> | undefined;
      if (c.body instanceof Uint8Array) {
        body = c.body;
        headers["content-type"] = "application/json; charset=iso-8859-1";
      } else if (c.body !== undefined) {
        body = JSON.stringify(c.body);
        headers["content-type"] = "application/json";
      }
      const res = await fetch(stack.baseUrl + c.path, { method: c.method, headers, body });
      const text = await res.text();
      let json: unknown = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = null;
      }
      return { status: res.status, headers: res.headers, text, json } as ApiResponse;
    };
    /** Sends every case, `width` at a time; returns the answers in order. */
    const sendAll = async (list: Case[], width = 6) => {
      const answers: ApiResponse[] = new Array(list.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: width }, async () => {
          while (next < list.length) {
            const i = next++;
            answers[i] = await send(list[i]!);
          }
        }),
      );
      return answers;
    };

    test("every case: never a 5xx; U+0000 and unpaired surrogates named by path; invalid UTF-8 refused", async () => {
      const A = `/v1/programs/${stack.programId}`;
      const email = "fuzz.customer@example.com";
      const api = stack.api;
      assert.equal(
        (await api("POST", `${A}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] })).status,
        201,
      );
      const C = customerPath(stack.programId, email);
      const earned = await api("POST", `${C}/balance/increase`, { body: { points: 1000, orderId: "ORD-FUZZ" } });
      assert.equal(earned.status, 200, earned.text);
      const redeemed = await api("POST", `${C}/rewards/${stack.rewardId}/redeem`, { body: {} });
      assert.equal(redeemed.status, 201, redeemed.text);
      for (let i = 0; i < 12; i++) {
        const holder = `fuzz.holder.${i}@example.com`;
        await api("POST", `${A}/integrations/api`, { body: [{ email: holder, feature: "user", payload: {} }] });
        const path = customerPath(stack.programId, holder);
        assert.equal((await api("POST", `${path}/balance/increase`, { body: { points: 1000 } })).status, 200);
        tokens.push(String((await api("GET", `${path}/token`)).json?.token));
      }
      const doc = (await api("GET", "/v1/openapi.json", { key: null })).json as Schema;
      const known: Known = {
        programId: stack.programId,
        email,
        rewardId: stack.rewardId,
        flowKey: "visit",
        orderId: "ORD-FUZZ",
        transactionId: String((earned.json?.transaction as { id?: string })?.id),
        redemptionId: String(
          (redeemed.json as { id?: string; redemption?: { id?: string } })?.id ??
            (redeemed.json as { redemption?: { id?: string } })?.redemption?.id,
        ),
      };
      cases = casesOf(doc, known);
      assert.ok(cases.length > 500, `only ${cases.length} cases: is the document walked?`);
      const answers = await sendAll(cases);
      const failures: string[] = [];
      answers.forEach((res, i) => {
        const c = cases[i]!;
        const problem = res.json as { code?: string; errors?: { path: string }[] } | null;
        if (res.status >= 500) failures.push(`${c.label}: ${res.status} ${res.text.slice(0, 200)}`);
        else if (c.badUtf8 && (res.status !== 400 || problem?.code !== "invalid_json"))
          failures.push(`${c.label}: ${res.status} ${res.text.slice(0, 200)} (expected 400 invalid_json)`);
        else if (
          c.mustName !== undefined &&
          (res.status !== 400 ||
            problem?.code !== "validation_failed" ||
            !problem.errors?.some((e) => (c.keyUnder ? e.path.startsWith(`${c.mustName}.`) : e.path === c.mustName)))
        )
          failures.push(`${c.label}: ${res.status} ${res.text.slice(0, 300)} (expected 400 naming ${c.mustName})`);
        if (res.status >= 400 && res.status < 500) refused.push(c);
      });
      assert.deepEqual(failures, []);
    });

    test("the inputs of issue 26, a 10,000-character flowKey, invalid UTF-8, an absolute-form target, staff routes", async () => {
      const A = `/v1/programs/${stack.programId}`;
      const email = "fuzz.named@example.com";
      const C = customerPath(stack.programId, email);
      const api = stack.api;
      const named = async (res: ApiResponse, path: string) =>
        assert.deepEqual(problemPaths(assertProblem(res, 400, "validation_failed")), [path], res.text);
      assert.equal(
        (await api("POST", `${A}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] })).status,
        201,
      );
      await named(await api("POST", `${C}/balance/increase`, { body: { points: 5, reason: "a\u0000b" } }), "reason");
      await named(await api("POST", `${C}/balance/decrease`, { body: { points: 5, reason: "a\u0000b" } }), "reason");
      // A lone surrogate, as a JSON escape: refused, not stored as U+FFFD.
      await named(await api("POST", `${C}/balance/increase`, { body: '{"points":5,"reason":"a\\ud800"}' }), "reason");
      await named(await api("POST", `${C}/referral`, { body: { code: "AB\u0000" } }), "code");
      await named(
        await api("POST", `${A}/integrations/api`, {
          body: [{ email, feature: "user", payload: { referralCode: "AB\u0000" } }],
        }),
        "[0].payload.referralCode",
      );
      await named(await api("POST", `${C}/earning-flows/vi%00sit`), "flowKey");
      await named(
        await api("POST", `${A}/custom-earning-flows/vi%00sit/execute`, { body: { customerEmail: email } }),
        "flowKey",
      );
      const longKey = "k".repeat(10_000);
      for (const [path, body] of [
        [`${C}/earning-flows/${longKey}`, {}],
        [`${A}/custom-earning-flows/${longKey}/execute`, { customerEmail: email }],
      ] as const) {
        const long = await api("POST", path, { body });
        assertProblem(long, 404, "earning_flow_not_found");
        assert.ok(
          String(long.json?.detail).length < 200,
          `detail echoes the key whole: ${String(long.json?.detail).length}`,
        );
      }
      // Bytes that are not UTF-8, whatever the declared charset: 400 invalid_json, nothing stored.
      for (const charset of ["", "; charset=utf-8", "; charset=iso-8859-1"]) {
        const res = await fetch(`${stack.baseUrl}${C}/balance/increase`, {
          method: "POST",
          headers: { "api-key": stack.key, "content-type": `application/json${charset}` },
          body: Buffer.concat([Buffer.from('{"points":5,"reason":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
        });
        assert.equal(res.status, 400, charset);
        assert.equal(((await res.json()) as { code: string }).code, "invalid_json");
      }
      const c = (await api("GET", C)).json;
      assert.equal(c.loyaltyData.balance, 0, "none of the above wrote anything");

      // An absolute-form request target (RFC 9112 §3.2.2) is served like its origin form; another host is refused.
      const host = new URL(stack.baseUrl).host;
      const absolute = await rawRequest(stack.baseUrl, "GET", `http://${host}${C}`, { "api-key": stack.key });
      assert.equal(absolute.status, 200, absolute.text);
      assert.deepEqual(absolute.json, c);
      const elsewhere = await rawRequest(stack.baseUrl, "GET", `http://evil.example${C}`, { "api-key": stack.key });
      assertProblem(elsewhere, 400, "invalid_path");
      assert.match(elsewhere.headers.get("content-type") ?? "", /^application\/problem\+json/);

      // The dashboard's JSON routes share the edge (lib/staff/http.ts → parseWith, urlInputs): the same rule.
      const cookie = await signIn(stack.baseUrl, STAFF_EMAIL, PASSWORD);
      assert.ok(cookie, "signed in");
      const staff = staffClient(stack.baseUrl, stack.programId, cookie);
      const staffNamed = async (res: { status: number; json: unknown; text: string }, path: string) => {
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(problemPaths(res.json), [path], res.text);
      };
      await staffNamed(await staff("PATCH", `/customers/${c.id}`, { firstName: "a\u0000" }), "firstName");
      await staffNamed(await staff("GET", "/search?q=a%00"), "q");
      // An encoded NUL in a path outside /v1 is refused by the edge guard before any route runs (lib/api/http-guard.ts).
      const nulInPath = await staff("PATCH", `/customers/${c.id}a%00`, {});
      assert.equal(nulInPath.status, 400, nulInPath.text);
      assert.equal((nulInPath.json as { code?: string }).code, "invalid_path", nulInPath.text);
      const edited = await staff("PATCH", `/customers/${c.id}`, { firstName: "Zoë", birthdate: "1990-04-23" });
      assert.equal(edited.status, 200, edited.text);
    });

    test("a request answered 4xx writes nothing: every refused case again, every table's digest unchanged", async () => {
      assert.ok(refused.length > 0);
      await stack.stopAll();
      const before = await digest(stack as Stack<unknown>);
      await stack.start();
      const answers = await sendAll(refused);
      const nowAccepted = answers.flatMap((res, i) => (res.status < 400 ? [refused[i]!.label] : []));
      await stack.stopAll();
      const afterwards = await digest(stack as Stack<unknown>);
      assert.deepEqual(nowAccepted, [], "refused the first time, accepted the second");
      assert.deepEqual(afterwards, before);
    });
  });
}
