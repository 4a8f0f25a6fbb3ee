/**
 * Threat: a client (no api-key needed) sends requests the routes were never written for — malformed
 * percent-encoding, methods the fetch API cannot even represent, unknown paths, unexported methods, odd
 * spellings of valid input, bodies nested thousands deep — hoping for a 500, a stack trace in the log, an HTML
 * page, or an answer outside the contract. Every /v1 answer must be problem+json with a stable `code` and
 * `x-request-id` (API.md §1), never a 5xx, and must leave the log quiet.
 *
 * One server per backend; raw node:http requests so that the exact bytes of the request line reach the server.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { BACKENDS, openStack, type ApiResponse, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { fixtures, otherProgram, program } from "../support/fixtures";
import { assertProblem, problemPaths } from "../support/assertions";
import { waitFor } from "../support/app-process";

/** One request with this exact request-target, as bytes on the wire (fetch would normalise or refuse some). */
function raw(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<ApiResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: target, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
        let json: unknown = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: h, text, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Two programs with a key each: the least this file needs (CLI calls dominate its run time on PostgreSQL). */
const EDGE = fixtures("edge", program("Edge A"), otherProgram("Edge B"));

const MALFORMED = ["%E0%A4%A", "%ZZ", "%", "abc%C3"];
const NIL_UUID = "00000000-0000-0000-0000-000000000000";

for (const backend of BACKENDS) {
  describe(`Threat: malformed and unexpected requests under /v1 [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof EDGE>>;
    let app: AppInstance & Fixtures<typeof EDGE>;
    before(async () => {
      stack = await openStack(backend, EDGE);
      app = {
        ...(await stack.start()),
        programId: stack.programId,
        key: stack.key,
        keyId: stack.keyId,
        otherProgramId: stack.otherProgramId,
      };
    });
    after(async () => {
      await stack?.close();
    });

    const send = (method: string, target: string, headers: Record<string, string> = {}, body?: string) =>
      raw(app.baseUrl, method, target, headers, body);
    const A = () => `/v1/programs/${app.programId}`;
    /** A new customer of program A (balance 0), as the path of their resource. */
    const newCustomerPath = async (prefix: string) => {
      const email = `${prefix}.${Date.now()}@example.com`;
      const created = await app.api("POST", `${A()}/integrations/api`, {
        body: [{ email, feature: "user", payload: {} }],
      });
      assert.equal(created.status, 201);
      return `${A()}/customers/${encodeURIComponent(email)}`;
    };

    test("a malformed percent-encoding in any path segment is 400 invalid_path, with or without an api-key", async () => {
      const targets = (bad: string) => [
        `/v1/programs/${app.programId}/customers/${bad}`,
        `/v1/programs/${bad}/tiers`,
        `/v1/programs/${bad}/customers/a%40b.co`,
        `/v1/programs/${app.programId}/customers/a%40b.co/rewards/${bad}/redeem`,
        `/v1/programs/${app.programId}/me/rewards/${bad}/redeem`,
        `/v1/programs/${app.programId}/customers/a%40b.co/earning-flows/${bad}`,
        `/v1/${bad}`,
      ];
      for (const bad of MALFORMED) {
        for (const target of targets(bad)) {
          for (const headers of [{}, { "api-key": app.key }] as Record<string, string>[]) {
            const method = target.endsWith("/redeem") || target.includes("/earning-flows/") ? "POST" : "GET";
            const p = assertProblem(await send(method, target, headers), 400, "invalid_path");
            assert.match(p.detail, /percent-encoding/i, target);
          }
        }
      }
    });

    test("outside /v1 too (dashboard, staff API, sign-in), a malformed percent-encoding is 400 with the security headers", async () => {
      for (const target of [
        "/dashboard/%ZZ",
        `/dashboard/${app.programId}/customers/%E0%A4%A`,
        "/api/staff/%ZZ/tiers",
        `/api/staff/${app.programId}/customers/abc%C3`,
        "/api/auth/%ZZ",
        "/%",
        "/dashboard/%ZZ?q=1",
        `/api/staff/${app.programId}/api-keys/%00`,
      ]) {
        for (const method of ["GET", "POST"]) {
          const res = await raw(app.baseUrl, method, target);
          assert.equal(res.status, 400, `${method} ${target}: ${res.status} ${res.text.slice(0, 200)}`);
          assertProblem(res, 400, "invalid_path");
          assert.equal(res.headers.get("x-content-type-options"), "nosniff", target);
          assert.ok(res.headers.get("x-frame-options") ?? res.headers.get("content-security-policy"), target);
        }
      }
      // A well-formed encoding outside /v1 is untouched: the sign-in page still renders.
      assert.equal((await raw(app.baseUrl, "GET", "/sign%2Din")).status < 500, true);
    });

    test("with TRUST_PROXY=0 a client's X-Forwarded-Proto never turns HSTS on (pages, /api/auth, /v1)", async () => {
      for (const target of ["/sign-in", "/api/auth/csrf", `/v1/programs/${app.programId}/customers`]) {
        const res = await raw(app.baseUrl, "GET", target, { "x-forwarded-proto": "https", "api-key": app.key });
        assert.ok(res.status < 500, `${target}: ${res.status}`);
        assert.equal(res.headers.get("strict-transport-security"), null, target);
      }
    });

    test("TRACE (which the fetch API cannot represent) is 405 method_not_allowed with Allow, not a 500", async () => {
      const res = await send("TRACE", `${A()}/tiers`, { "x-request-id": "trace-probe-1" });
      assertProblem(res, 405, "method_not_allowed");
      assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
      assert.equal(res.headers.get("x-request-id"), "trace-probe-1");
      // Answered before Next, yet with the same security headers as every other answer (lib/security-headers.json).
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("content-security-policy"), "default-src 'none'; frame-ancestors 'none'");
      assertProblem(await send("TRACE", "/v1/nope"), 404, "not_found");
      assertProblem(await send("TRACE", `${A()}/customers/%E0%A4%A`), 400, "invalid_path");
      // TRACK never reaches the app: node:http's parser refuses it with a bare 400. Not a 5xx, nothing logged.
      assert.equal((await send("TRACK", `${A()}/tiers`)).status, 400);
    });

    test("an unknown path under /v1 is 404 not_found problem+json, not Next's HTML page", async () => {
      for (const target of [
        "/v1",
        "/v1/nope",
        "/v1/programs",
        `${A()}`,
        `${A()}/unknown`,
        `${A()}/customers`,
        `${A()}/customers/a%40b.co/balances`, // `…/balance` is a route now (the balance explained)
        `${A()}/tiers/extra`,
        `/v1/programs/${NIL_UUID}/customers/a%40b.co/x/y/z`,
      ]) {
        for (const method of ["GET", "POST", "DELETE"]) {
          assertProblem(await send(method, target, { "api-key": app.key }), 404, "not_found");
        }
      }
    });

    test("a method a route does not serve is 405 method_not_allowed with Allow and x-request-id", async () => {
      const cases: [string, string, string][] = [
        ["PUT", `${A()}/tiers`, "GET, HEAD, OPTIONS"],
        ["DELETE", `${A()}/rewards`, "GET, HEAD, OPTIONS"],
        ["GET", `${A()}/customers/a%40b.co/balance/increase`, "OPTIONS, POST"],
        ["PATCH", `${A()}/customers/a%40b.co`, "GET, HEAD, OPTIONS"],
        ["GET", `${A()}/integrations/api`, "DELETE, OPTIONS, POST"],
        ["PUT", `${A()}/integrations/api`, "DELETE, OPTIONS, POST"],
        ["POST", "/v1/openapi.json", "GET, HEAD, OPTIONS"],
        ["GET", `${A()}/me/rewards/${NIL_UUID}/redeem`, "OPTIONS, POST"],
      ];
      for (const [method, target, allow] of cases) {
        for (const headers of [{}, { "api-key": app.key }] as Record<string, string>[]) {
          const res = await send(method, target, headers);
          assertProblem(res, 405, "method_not_allowed");
          assert.equal(res.headers.get("allow"), allow, `${method} ${target}`);
        }
      }
    });

    test("a trailing slash still redirects to the path without it (308), as before", async () => {
      const res = await send("GET", `${A()}/tiers/`);
      assert.equal(res.status, 308);
      assert.equal(res.headers.get("location"), `${A()}/tiers`);
    });

    test("OPTIONS answers 204 with Allow and x-request-id", async () => {
      const res = await send("OPTIONS", `${A()}/customers/a%40b.co/balance/increase`);
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("allow"), "OPTIONS, POST");
      assert.ok(res.headers.get("x-request-id"));
    });

    test("a programId is a UUID: its upper-case form finds the same program", async () => {
      const lower = await app.api("GET", `${A()}/tiers`);
      assert.equal(lower.status, 200, lower.text);
      const upper = await app.api("GET", `/v1/programs/${app.programId.toUpperCase()}/tiers`);
      assert.equal(upper.status, 200, upper.text);
      assert.deepEqual(upper.json, lower.json);
      // Still isolated: another program's id, in any case, is a program that does not exist for this key.
      assertProblem(await app.api("GET", `/v1/programs/${app.otherProgramId.toUpperCase()}/tiers`), 404, "not_found");
    });

    test("a body nested deeper than the limit is 400 validation_failed with its path, never a 500; nothing written", async () => {
      const path = await newCustomerPath("deep");
      const nest = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
      const headers = { "api-key": app.key, "content-type": "application/json" };
      for (const depth of [100, 10_000, 200_000]) {
        for (const body of [`{"points":1,"metadata":{"a":${nest(depth)}}}`, `{"params":{"amount":${nest(depth)}}}`]) {
          const target = body.startsWith('{"points"') ? `${path}/balance/increase` : `${path}/earning-flows/visit`;
          const p = assertProblem(await send("POST", target, headers, body), 400, "validation_failed");
          assert.equal(problemPaths(p).length, 1);
          assert.match(problemPaths(p)[0]!, /^(metadata\.a|params\.amount)(\[0\])+$/);
        }
      }
      const c = await app.api("GET", path);
      assert.equal(c.json.loyaltyData.balance, 0);
    });

    test("a body cut short (the client leaves before its Content-Length is sent) changes nothing; the server goes on", async () => {
      const path = await newCustomerPath("cut");
      const { hostname, port } = new URL(app.baseUrl);
      const body = '{"points":5}';
      for (const sent of [0, 5, body.length - 1]) {
        await new Promise<void>((resolve, reject) => {
          const socket = net.connect(Number(port), hostname, () => {
            socket.write(
              [
                `POST ${path}/balance/increase HTTP/1.1`,
                `Host: ${hostname}:${port}`,
                `api-key: ${app.key}`,
                "content-type: application/json",
                `content-length: ${body.length}`,
              ].join("\r\n") + `\r\n\r\n${body.slice(0, sent)}`,
            );
            setTimeout(() => socket.destroy(), 100);
          });
          socket.on("close", () => resolve());
          socket.on("error", reject);
        });
      }
      const c = await app.api("GET", path);
      assert.equal(c.status, 200, "the server still answers");
      assert.equal(c.json.loyaltyData.balance, 0, "no part of a cut body was acted on");
      assert.equal((await app.api("POST", `${path}/balance/increase`, { body: { points: 5 } })).json.balance, 5);
    });

    test("the log stays quiet: no stack trace, no error line for any of the above", async () => {
      const before = app.logs().length;
      await send("TRACE", `${A()}/tiers`);
      await send("TRACK", `${A()}/tiers`);
      await send("GET", `${A()}/customers/%E0%A4%A`);
      await send("PUT", `${A()}/tiers`);
      await send("GET", "/v1/nope");
      // The log is buffered: a request that is logged, sent last, shows that every line written before it is out.
      const marker = `quiet-${Date.now()}`;
      await app.api("GET", `${A()}/tiers`, { headers: { "x-request-id": marker } });
      await waitFor(() => app.logs().includes(marker), "the marker's access line");
      // Access lines of the earlier requests may still be arriving; a refused request writes no line of its own.
      const noise = app
        .logs()
        .slice(before)
        .split("\n")
        .filter((line) => line.trim() && !(/"msg":"request"/.test(line) && /"status":[1-4]\d\d,/.test(line)));
      assert.deepEqual(noise, [], "nothing logged for refused requests");
      assert.doesNotMatch(
        app.logs().slice(before),
        /"method":"(TRACE|TRACK|PUT)"/,
        "no access line for a refused request",
      );
      assert.doesNotMatch(
        app.logs(),
        /\n\s+at |TypeError|HTTP method is unsupported|⨯/,
        "no stack trace anywhere in the server's log",
      );
    });
  });
}
