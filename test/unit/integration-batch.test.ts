import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseDeleteBatch, parseIntegrationBatch } from "@/lib/api/batch";
import { AppError } from "@/lib/errors";
import type { UserFields } from "@/lib/domain/customers";

const user = (email: unknown, payload: Record<string, unknown> = {}) => ({ email, feature: "user", payload });

/** The payload of the first item of a parsed batch of user items. */
const firstPayload = (input: unknown[]) => parseIntegrationBatch(input)[0]!.payload as UserFields;

/** The code and sorted problem paths of a refused batch. */
function refused(input: unknown): { code: string; status: number; paths: string[]; messages: string[] } {
  try {
    parseIntegrationBatch(input);
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return {
      code: err.code,
      status: err.status,
      paths: (err.errors ?? []).map((e) => e.path).sort(),
      messages: (err.errors ?? []).map((e) => e.message),
    };
  }
  assert.fail(`expected ${JSON.stringify(input).slice(0, 200)} to be refused`);
}

describe("parseIntegrationBatch", () => {
  test("trims and lower-cases e-mails, in the item and in payload.email", () => {
    const [item] = parseIntegrationBatch([user("  Ann.Lee+X@Example.COM ", { email: " NEW@X.io" })]);
    assert.equal(item!.email, "ann.lee+x@example.com");
    assert.equal((item!.payload as UserFields).email, "new@x.io");
  });

  test("keeps null (clear the field) apart from absent (leave it): only given fields are in the payload", () => {
    const [item] = parseIntegrationBatch([user("a@b.co", { phone: null, firstName: " Ada " })]);
    assert.deepEqual(item!.payload, { phone: null, firstName: "Ada" });
    assert.deepEqual(Object.keys(parseIntegrationBatch([user("a@b.co")])[0]!.payload), []);
  });

  test("accepts every payload field of the spec", () => {
    const payload = {
      externalCustomerId: "E1",
      firstName: "Ada",
      lastName: "Lovelace",
      phone: "+44 (20) 7946-0958",
      emailVerified: true,
      email: "ada@x.io",
    };
    assert.deepEqual(parseIntegrationBatch([user("a@b.co", payload)])[0]!.payload, payload);
  });

  test("lists every problem of every item by JSON path", () => {
    const r = refused([
      user("ok@b.co", { firstName: "fine" }),
      user("a@b.co", { firstName: "x".repeat(256), phone: "call me" }),
      { email: "nope", feature: "user", payload: { emailVerified: "yes", extra: 1 } },
      { feature: "user", payload: {} },
      { email: "b@b.co", feature: "user" },
    ]);
    assert.equal(r.code, "validation_failed");
    assert.equal(r.status, 400);
    assert.deepEqual(r.paths, [
      "[1].payload.firstName",
      "[1].payload.phone",
      "[2].email",
      "[2].payload",
      "[2].payload.emailVerified",
      "[3].email",
      "[4].payload",
    ]);
  });

  test("rejects unknown fields in the item and in the payload, naming them", () => {
    const r = refused([{ ...user("a@b.co", { balance: 10 }), origin: "ADMIN" }]);
    assert.deepEqual(r.paths, ["[0]", "[0].payload"]);
    assert.ok(r.messages.some((m) => m.includes("balance")));
    assert.ok(r.messages.some((m) => m.includes("origin")));
    assert.deepEqual(refused([user("a@b.co", { referral: "ABC" })]).paths, ["[0].payload"]);
  });

  test("a batch whose only problems are unknown feature names is unsupported_feature", () => {
    const r = refused([
      user("a@b.co"),
      { email: "b@b.co", feature: "points", payload: {} },
      { email: "c@b.co", feature: "coupon", payload: {} },
    ]);
    assert.equal(r.code, "unsupported_feature");
    assert.deepEqual(r.paths, ["[1].feature", "[2].feature"]);
    assert.ok(
      r.messages.every((m) => m.includes("user")),
      "the message names the supported feature",
    );
  });

  test("an unknown feature together with other problems, or a missing or non-string feature, is validation_failed", () => {
    assert.deepEqual(refused([{ email: "bad", feature: "points", payload: {} }]), {
      code: "validation_failed",
      status: 400,
      paths: ["[0].email", "[0].feature"],
      messages: refused([{ email: "bad", feature: "points", payload: {} }]).messages,
    });
    assert.equal(refused([{ email: "a@b.co", payload: {} }]).code, "validation_failed");
    assert.equal(refused([{ email: "a@b.co", feature: 1, payload: {} }]).code, "validation_failed");
    assert.equal(refused([{ email: "a@b.co", feature: null, payload: {} }]).code, "validation_failed");
  });

  test("the batch is an array of 1 to 1,000 items", () => {
    for (const notABatch of [{}, null, "x", 1, []])
      assert.equal(refused(notABatch).code, "validation_failed", JSON.stringify(notABatch));
    assert.equal(parseIntegrationBatch(Array(1000).fill(user("a@b.co"))).length, 1000);
    const over = refused(Array(1001).fill(user("a@b.co")));
    assert.equal(over.code, "validation_failed");
    assert.equal(over.paths.length, 1, "one problem for the size, not one per item");
  });

  test("e-mails are at most 254 characters and must be valid", () => {
    const at254 = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`;
    assert.equal(at254.length, 254);
    assert.equal(parseIntegrationBatch([user(at254)])[0]!.email, at254);
    assert.deepEqual(refused([user(`a${at254}`)]).paths, ["[0].email"]);
    for (const bad of ["", "plain", "a@", "@b.co", "a b@c.co", "a@b..co", 42, null])
      assert.deepEqual(refused([user(bad)]).paths, ["[0].email"], String(bad));
    assert.deepEqual(refused([user("a@b.co", { email: "nope" })]).paths, ["[0].payload.email"]);
  });

  test("strings are trimmed, then at most 255 characters", () => {
    const name = "n".repeat(255);
    assert.equal(firstPayload([user("a@b.co", { lastName: `  ${name}  ` })]).lastName, name);
    assert.deepEqual(refused([user("a@b.co", { lastName: `${name}n` })]).paths, ["[0].payload.lastName"]);
    assert.deepEqual(refused([user("a@b.co", { externalCustomerId: 7 })]).paths, ["[0].payload.externalCustomerId"]);
  });

  test("strings that PostgreSQL cannot store (U+0000, unpaired surrogates) are refused", () => {
    assert.deepEqual(refused([user("a@b.co", { firstName: "A\u0000B" })]).paths, ["[0].payload.firstName"]);
    assert.deepEqual(refused([user("a@b.co", { externalCustomerId: "A\ud800B" })]).paths, [
      "[0].payload.externalCustomerId",
    ]);
    assert.deepEqual(refused([user("a@b.co", { lastName: "\udc00" })]).paths, ["[0].payload.lastName"]);
    // A proper pair (an emoji) is fine.
    assert.equal(firstPayload([user("a@b.co", { firstName: "Ada \u{1F600}" })]).firstName, "Ada \u{1F600}");
  });

  test("phone numbers are digits with + ( ) . - and spaces; emailVerified is a boolean", () => {
    for (const phone of ["+44 20 7946 0958", "+1 (555) 123-4567", "555.123.4567", "123"]) {
      assert.equal(firstPayload([user("a@b.co", { phone })]).phone, phone);
    }
    for (const phone of ["abc", "12", "+", "555 CALL NOW", "1".repeat(40)])
      assert.deepEqual(refused([user("a@b.co", { phone })]).paths, ["[0].payload.phone"], phone);
    for (const emailVerified of ["true", 1, null])
      assert.deepEqual(refused([user("a@b.co", { emailVerified })]).paths, ["[0].payload.emailVerified"]);
  });

  test("users is the same item as user (JeriCommerce's spelling), for create/update and delete", () => {
    const [item] = parseIntegrationBatch([{ email: "A@b.co", feature: "users", payload: { firstName: "Ada" } }]);
    assert.deepEqual(item, { email: "a@b.co", feature: "users", payload: { firstName: "Ada" } });
    assert.deepEqual(parseDeleteBatch([{ email: "a@b.co", feature: "users" }]), [
      { email: "a@b.co", feature: "users" },
    ]);
  });

  test("a loyalty item needs balance and memberSince; loyaltyCustomerId and tierStatus are optional", () => {
    const loyalty = (payload: Record<string, unknown>) => ({ email: "a@b.co", feature: "loyalty", payload });
    const good = { balance: 1200, memberSince: "2021-03-14T09:26:53.000+01:00", tierStatus: " Gold " };
    assert.deepEqual(parseIntegrationBatch([loyalty(good)])[0]!.payload, { ...good, tierStatus: "Gold" });
    assert.equal(
      (parseIntegrationBatch([loyalty({ ...good, memberSince: "2021-03-14" })])[0]!.payload as { memberSince: string })
        .memberSince,
      "2021-03-14",
    );
    assert.deepEqual(refused([loyalty({})]).paths, ["[0].payload.balance", "[0].payload.memberSince"]);
    const { tierStatus: _left, ...noTier } = good;
    assert.deepEqual(parseIntegrationBatch([loyalty(noTier)])[0]!.payload, noTier);
    assert.deepEqual(refused([loyalty({ ...good, tierStatus: " " })]).paths, ["[0].payload.tierStatus"]);
    for (const balance of [-1, 1.5, "10", 2_147_483_648])
      assert.deepEqual(refused([loyalty({ ...good, balance })]).paths, ["[0].payload.balance"], String(balance));
    for (const memberSince of ["yesterday", "2021-13-01", "2999-01-01T00:00:00Z"])
      assert.deepEqual(refused([loyalty({ ...good, memberSince })]).paths, ["[0].payload.memberSince"], memberSince);
    assert.deepEqual(refused([loyalty({ ...good, firstName: "Ada" })]).paths, ["[0].payload"], "no user fields");
    assert.deepEqual(
      refused([user("a@b.co", { balance: 5 })]).paths,
      ["[0].payload"],
      "no loyalty fields on a user item",
    );
  });

  test("an unknown feature is still reported with the item's other problems, and only loyalty cannot be deleted", () => {
    assert.deepEqual(refused([{ email: "bad", feature: "points", payload: { x: 1 } }]).paths, [
      "[0].email",
      "[0].feature",
      "[0].payload",
    ]);
    const r = refused([{ email: "a@b.co", feature: "coupons", payload: {} }]);
    assert.equal(r.code, "unsupported_feature");
    assert.ok(r.messages[0]!.includes("user, users, loyalty"), r.messages[0]);
    assert.throws(
      () => parseDeleteBatch([{ email: "a@b.co", feature: "loyalty" }]),
      (err: AppError) => {
        assert.equal(err.code, "unsupported_feature");
        return true;
      },
    );
  });
});
