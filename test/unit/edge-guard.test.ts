import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { judgeV1, requestIdFrom, type EdgeVerdict } from "@/lib/api/edge-guard";
import { V1_ROUTES } from "@/lib/api/v1-routes.generated";
import { canonicalJson, requestFingerprint } from "@/lib/api/idempotency";
import { pathBeyondDepth } from "@/lib/api/json-body";
import { PageQuery } from "@/lib/api/schemas/common";
import { v1RouteFiles } from "../support/v1-route-files";

const P = "/v1/programs/0193a5b2-6f1e-7c3a-9a4b-2d1e0f9c8b7a";
const code = (v: EdgeVerdict) => (v.kind === "refuse" ? `${v.error.status} ${v.error.code}` : v.kind);

describe("judgeV1", () => {
  test("lets every method a route serves through, and leaves other paths alone", () => {
    assert.equal(code(judgeV1("GET", `${P}/tiers`)), "pass");
    assert.equal(code(judgeV1("HEAD", `${P}/tiers`)), "pass");
    assert.equal(code(judgeV1("POST", `${P}/customers/a%40b.co/balance/increase`)), "pass");
    assert.equal(code(judgeV1("DELETE", `${P}/integrations/api`)), "pass");
    assert.equal(code(judgeV1("GET", `${P.toUpperCase().replace("/V1/PROGRAMS", "/v1/programs")}/tiers`)), "pass");
    assert.equal(code(judgeV1("TRACE", "/dashboard")), "pass");
    assert.equal(code(judgeV1("GET", "/v1x/programs")), "pass");
    assert.equal(code(judgeV1("GET", `${P}/tiers/`)), "pass", "Next redirects a trailing slash; the target is judged");
    assert.equal(code(judgeV1("GET", `${P}/tier%ZZ/`)), "400 invalid_path");
  });

  test("a malformed percent-encoding in any segment is 400 invalid_path, before the route is looked up", () => {
    for (const bad of ["%E0%A4%A", "%ZZ", "%", "a%C3", "%ED%A0%80"]) {
      assert.equal(code(judgeV1("GET", `${P}/customers/${bad}`)), "400 invalid_path", bad);
      assert.equal(code(judgeV1("GET", `/v1/programs/${bad}/tiers`)), "400 invalid_path", bad);
      assert.equal(code(judgeV1("GET", `/v1/${bad}/nowhere/at/all`)), "400 invalid_path", bad);
    }
    assert.equal(code(judgeV1("GET", `${P}/customers/%C3%A9%40b.co`)), "pass");
  });

  test("an unknown path is 404 not_found, whatever the method; an empty segment matches no parameter", () => {
    for (const p of ["/v1", "/v1/programs", P, `${P}/customers`, `${P}/customers//token`, `${P}/tiers/x`]) {
      assert.equal(code(judgeV1("GET", p)), "404 not_found", p);
      assert.equal(code(judgeV1("TRACE", p)), "404 not_found", p);
    }
  });

  test("another method is 405 with Allow; OPTIONS gets the same list", () => {
    const v = judgeV1("PUT", `${P}/integrations/api`);
    assert.equal(code(v), "405 method_not_allowed");
    assert.deepEqual(v.kind === "refuse" && v.error.headers, { Allow: "DELETE, OPTIONS, POST" });
    assert.deepEqual(judgeV1("OPTIONS", `${P}/tiers`), { kind: "options", allow: "GET, HEAD, OPTIONS" });
    assert.equal(code(judgeV1("HEAD", `${P}/customers/a%40b.co/coupons`)), "405 method_not_allowed");
    assert.equal(code(judgeV1("get", `${P}/tiers`)), "405 method_not_allowed", "methods are case-sensitive");
  });

  test("V1_ROUTES lists exactly app/v1's route files and the methods each exports", () => {
    const found = v1RouteFiles();
    const listed = V1_ROUTES.map(([p, m]) => [p, [...m].sort()] as [string, string[]]);
    const byPattern = (a: [string, string[]], b: [string, string[]]) => a[0].localeCompare(b[0]);
    assert.deepEqual(listed.sort(byPattern), found.sort(byPattern));
  });
});

describe("requestIdFrom", () => {
  test("keeps a sane caller id, replaces anything else with a UUID", () => {
    assert.equal(requestIdFrom("abc-123:x.y_z"), "abc-123:x.y_z");
    for (const bad of [null, undefined, "", "a b", "x".repeat(129), "<script>"])
      assert.match(requestIdFrom(bad), /^[0-9a-f-]{36}$/);
  });
});

describe("canonicalJson and the idempotency fingerprint", () => {
  test("sorts keys at every level, drops whitespace, writes numbers one way", () => {
    const a = JSON.parse('{ "b": [ {"y":1,"x":2} ], "a": 1.0, "c": {"\\u00e9": "é", "e": null} }');
    assert.equal(canonicalJson(a), '{"a":1,"b":[{"x":2,"y":1}],"c":{"e":null,"é":"é"}}');
    assert.equal(canonicalJson(JSON.parse("1E2")), "100");
    assert.equal(canonicalJson([]), "[]");
  });

  test("the same meaning has the same fingerprint; another meaning, method or path another", () => {
    const f = (body: string, method = "POST", p = "/x") => requestFingerprint(method, p, JSON.parse(body));
    assert.equal(f('{"points":10,"reason":"r"}'), f('{\n  "reason": "r",\n  "points": 10.0\n}'));
    assert.notEqual(f('{"points":10}'), f('{"points":11}'));
    assert.notEqual(f('{"points":10}'), f('{"points":"10"}'));
    assert.notEqual(f("[1,2]"), f("[2,1]"), "array order is meaning");
    assert.notEqual(f('{"points":10}'), f('{"points":10}', "POST", "/y"));
    assert.notEqual(requestFingerprint("POST", "/x", undefined), requestFingerprint("POST", "/x", {}));
  });
});

describe("pathBeyondDepth", () => {
  test("null within the limit; else the first path beyond it, at any depth without overflowing the stack", () => {
    assert.equal(pathBeyondDepth({ a: [{ b: 1 }] }, 3), null);
    assert.deepEqual(pathBeyondDepth({ a: [{ b: {} }] }, 3), ["a", 0, "b"]);
    assert.deepEqual(pathBeyondDepth({ ok: [[]], bad: [[[]]] }, 3), ["bad", 0, 0]);
    const deep = JSON.parse("[".repeat(500_000) + "]".repeat(500_000));
    assert.equal(pathBeyondDepth(deep, 32)!.length, 32);
    assert.equal(pathBeyondDepth("text", 0), null);
  });
});

describe("PageQuery limit", () => {
  test("accepts decimal digits only", () => {
    assert.equal(PageQuery.parse({}).limit, 50);
    assert.equal(PageQuery.parse({ limit: "200" }).limit, 200);
    assert.equal(PageQuery.parse({ limit: "007" }).limit, 7);
    for (const limit of ["1e2", "0x10", " 5", "5 ", "", "5.0", "+5", "-1", "0", "201", "99999999999999999999"]) {
      assert.equal(PageQuery.safeParse({ limit }).success, false, limit);
    }
  });
});
