import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatPath } from "@/lib/api/problem";
import { parseIntegrationBatch } from "@/lib/api/batch";
import { takeToken } from "@/lib/api/rate-limit";
import { hashSecret } from "@/lib/domain/api-keys";
import { AppError, uniqueViolation } from "@/lib/errors";

describe("formatPath", () => {
  test("renders zod paths as JSON paths", () => {
    assert.equal(formatPath([3, "payload", "phone"]), "[3].payload.phone");
    assert.equal(formatPath(["points"]), "points");
    assert.equal(formatPath(["params", "amount"]), "params.amount");
    assert.equal(formatPath([]), "");
  });
});

describe("parseIntegrationBatch", () => {
  const problems = (input: unknown) => {
    try {
      parseIntegrationBatch(input);
    } catch (err) {
      assert.ok(err instanceof AppError);
      return { code: err.code, paths: (err.errors ?? []).map((e) => e.path) };
    }
    assert.fail("expected a validation error");
  };

  test("normalises e-mails and keeps nulls for clearing", () => {
    const [item] = parseIntegrationBatch([{ email: "  Ann@Example.COM ", feature: "user", payload: { phone: null, email: "NEW@x.io" } }]);
    assert.equal(item!.email, "ann@example.com");
    assert.equal(item!.payload.phone, null);
    assert.equal(item!.payload.email, "new@x.io");
  });

  test("lists every problem of every item", () => {
    const r = problems([
      { email: "a@b.co", feature: "user", payload: { firstName: "x".repeat(256) } },
      { email: "nope", feature: "user", payload: { emailVerified: "yes", extra: 1 } },
    ]);
    assert.equal(r.code, "validation_failed");
    assert.deepEqual(r.paths.sort(), ["[0].payload.firstName", "[1].email", "[1].payload", "[1].payload.emailVerified"].sort());
  });

  test("only unknown features is unsupported_feature", () => {
    assert.deepEqual(problems([{ email: "a@b.co", feature: "points", payload: {} }]), { code: "unsupported_feature", paths: ["[0].feature"] });
    assert.equal(problems([{ email: "bad", feature: "points", payload: {} }]).code, "validation_failed");
  });

  test("bounds the batch", () => {
    assert.equal(problems([]).code, "validation_failed");
    const item = { email: "a@b.co", feature: "user", payload: {} };
    assert.equal(problems(Array(1001).fill(item)).code, "validation_failed");
    assert.equal(parseIntegrationBatch(Array(1000).fill(item)).length, 1000);
  });

  test("rejects e-mails over 254 characters", () => {
    const long = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.com`;
    assert.ok(long.length > 254);
    assert.deepEqual(problems([{ email: long, feature: "user", payload: {} }]).paths, ["[0].email"]);
  });
});

describe("takeToken", () => {
  test("allows the burst, refuses the next, refills at the rate", () => {
    const id = `k-${Math.random()}`;
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) assert.equal(takeToken(id, 1, 3, t0).allowed, true);
    const refused = takeToken(id, 1, 3, t0);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 1);
    assert.equal(takeToken(id, 1, 3, t0 + 500).allowed, false);
    assert.equal(takeToken(id, 1, 3, t0 + 1000).allowed, true);
  });

  test("keys have separate buckets", () => {
    assert.equal(takeToken(`a-${Math.random()}`, 1, 1, 0).allowed, true);
    assert.equal(takeToken(`b-${Math.random()}`, 1, 1, 0).allowed, true);
  });
});

describe("hashSecret", () => {
  test("is SHA-256 hex and never the secret", () => {
    const h = hashSecret("lk_live_secret");
    assert.match(h, /^[0-9a-f]{64}$/);
    assert.notEqual(h, hashSecret("lk_live_secreT"));
  });
});

describe("uniqueViolation", () => {
  test("finds the constraint through driver-adapter wrapping", () => {
    const wrapped = { code: "P2010", meta: { driverAdapterError: { cause: { originalCode: "23505", originalMessage: 'duplicate key value violates unique constraint "UserData_programId_externalCustomerId_key"' } } } };
    assert.match(uniqueViolation(wrapped)?.constraint ?? "", /externalCustomerId/);
    assert.equal(uniqueViolation(new Error("other")), null);
  });
});
