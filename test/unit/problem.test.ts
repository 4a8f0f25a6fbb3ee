import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { formatPath, internalError, problemResponse, validationFailed, zodProblems } from "@/lib/api/problem";
import { AppError } from "@/lib/errors";

describe("formatPath", () => {
  test("renders zod paths as the JSON paths API.md uses", () => {
    assert.equal(formatPath([3, "payload", "phone"]), "[3].payload.phone");
    assert.equal(formatPath(["points"]), "points");
    assert.equal(formatPath(["params", "amount"]), "params.amount");
    assert.equal(formatPath(["items", 0, "email"]), "items[0].email");
    assert.equal(formatPath([0, 1]), "[0][1]");
    assert.equal(formatPath([]), "");
  });
});

describe("zodProblems", () => {
  const Item = z.array(
    z.strictObject({ email: z.email(), payload: z.strictObject({ phone: z.string().regex(/^\d+$/, "digits only") }) }),
  );

  test("lists every issue with its path and message", () => {
    const result = Item.safeParse([
      { email: "a@b.co", payload: { phone: "1" } },
      { email: "x", payload: { phone: "abc", other: 1 } },
    ]);
    assert.equal(result.success, false);
    const problems = zodProblems(result.error!);
    assert.deepEqual(problems.map((p) => p.path).sort(), ["[1].email", "[1].payload", "[1].payload.phone"]);
    assert.equal(problems.find((p) => p.path === "[1].payload.phone")?.message, "digits only");
    assert.match(problems.find((p) => p.path === "[1].payload")?.message ?? "", /other/);
    for (const p of problems) assert.deepEqual(Object.keys(p).sort(), ["message", "path"]);
  });
});

describe("validationFailed", () => {
  test("is a 400 that carries every problem and counts them", () => {
    const one = validationFailed([{ path: "[0].email", message: "bad" }]);
    assert.ok(one instanceof AppError);
    assert.equal(one.status, 400);
    assert.equal(one.code, "validation_failed");
    assert.equal(one.message, "The request has 1 invalid field.");
    const two = validationFailed(
      [
        { path: "a", message: "x" },
        { path: "b", message: "y" },
      ],
      "unsupported_feature",
    );
    assert.equal(two.code, "unsupported_feature");
    assert.equal(two.message, "The request has 2 invalid fields.");
    assert.equal(two.errors?.length, 2);
  });
});

describe("problemResponse", () => {
  test("writes RFC 9457 problem+json with the request id, extra headers and the errors list", async () => {
    const err = new AppError(429, "rate_limited", "Too many requests.", undefined, { "Retry-After": "3" });
    const headers = new Headers({ "x-request-id": "req-1" });
    const res = problemResponse(err, "req-1", headers);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.equal(res.headers.get("retry-after"), "3");
    assert.equal(res.headers.get("x-request-id"), "req-1");
    const body = await res.json();
    assert.deepEqual(body, {
      type: "https://loyalty.example/problems/rate_limited",
      title: "Too Many Requests",
      status: 429,
      detail: "Too many requests.",
      code: "rate_limited",
      requestId: "req-1",
    });
    assert.equal("errors" in body, false, "no errors member without errors");

    const withErrors = await problemResponse(
      validationFailed([{ path: "[1].payload.phone", message: "bad" }]),
      "req-2",
      new Headers(),
    ).json();
    assert.deepEqual(withErrors.errors, [{ path: "[1].payload.phone", message: "bad" }]);
    assert.equal(withErrors.title, "Bad Request");
  });

  test("a 500 says nothing about the cause", async () => {
    const body = await problemResponse(internalError(), "req-3", new Headers()).json();
    assert.equal(body.status, 500);
    assert.equal(body.code, "internal");
    assert.deepEqual(Object.keys(body).sort(), ["code", "detail", "requestId", "status", "title", "type"]);
  });
});
