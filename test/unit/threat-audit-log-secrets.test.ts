/**
 * Threat: the readable audit log (lib/staff/audit-words.ts) shows a secret — a webhook signing secret, an API key,
 * a password hash, a token, a URL's password — that a writer put into a row by mistake. The diff and the sentence
 * replace every one, at any depth, changed or not; and the diff lists only the keys that changed, in words.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { auditDiff, auditEntityHref, describeAudit, HIDDEN } from "@/lib/staff/audit-words";

const SECRETS = [
  "whsec_live_0123456789abcdef",
  "lk_live_SUPERSECRETKEY",
  "$2b$12$abcdefghijklmnopqrstuv",
  "tok_ABCDEF123456",
  "hunter2",
  "JBSWY3DPEHPK3PXP",
];

describe("threat: secrets in the audit log", () => {
  test("no secret value reaches the diff or the sentence, wherever it sits", () => {
    const before = {
      name: "Shop hook",
      secret: SECRETS[0],
      url: "https://user:hunter2@hooks.example.com/in",
      nested: { apiKey: SECRETS[1], list: [{ passwordHash: SECRETS[2] }] },
      customerToken: SECRETS[3],
      totpSecret: SECRETS[5],
    };
    const after = {
      ...before,
      secret: "whsec_live_changed",
      nested: { apiKey: "lk_live_OTHER", list: [{ passwordHash: "$2b$12$changed" }] },
      customerToken: "tok_changed",
      totpSecret: "KRSXG5CTMVRXEZLU",
      url: "https://user:hunter3@hooks.example.com/in",
    };
    const changes = auditDiff(before, after);
    const text =
      JSON.stringify(changes) +
      describeAudit({
        action: "webhook.update",
        staffEmail: "owner@example.com",
        entityType: "webhook",
        entityId: "0f0f0f0f-0000-4000-8000-000000000000",
        before,
        after,
      });
    for (const secret of [
      ...SECRETS,
      "whsec_live_changed",
      "lk_live_OTHER",
      "tok_changed",
      "KRSXG5CTMVRXEZLU",
      "hunter3",
    ])
      assert.ok(!text.includes(secret), `${secret} is not shown`);
    const secretRow = changes.find((c) => c.key === "secret");
    assert.deepEqual(
      secretRow,
      { key: "secret", before: HIDDEN, after: HIDDEN },
      "a changed secret shows that it changed",
    );
    assert.ok(
      changes.find((c) => c.key === "url")?.after.includes("hooks.example.com"),
      "the URL stays, without password",
    );
  });

  test("a secret-looking key holding a date or a count is shown", () => {
    const changes = auditDiff(null, { previousSecretValidUntil: "2026-11-27T05:00:00.000Z", tokensRevoked: 3 });
    assert.deepEqual(changes, [
      { key: "previousSecretValidUntil", before: "—", after: "2026-11-27T05:00:00.000Z" },
      { key: "tokensRevoked", before: "—", after: "3" },
    ]);
  });
});

describe("the audit log in words", () => {
  test("the diff holds only the keys that changed", () => {
    const changes = auditDiff(
      { firstName: "Ada", phone: "+34600000001", tags: ["a"] },
      { firstName: "Ada", phone: "+34600000002", tags: ["a", "b"] },
    );
    assert.deepEqual(changes, [
      { key: "phone", before: "+34600000001", after: "+34600000002" },
      { key: "tags", before: '["a"]', after: '["a","b"]' },
    ]);
  });

  test("a key only in before is context, not a removal; a deletion lists what was there", () => {
    assert.deepEqual(auditDiff({ name: "Shop", rateLimitPerSec: 10 }, { rateLimitPerSec: 20 }), [
      { key: "rateLimitPerSec", before: "10", after: "20" },
    ]);
    assert.deepEqual(auditDiff({ name: "Gold" }, null), [{ key: "name", before: "Gold", after: "—" }]);
  });

  test("a row reads as a sentence naming who, what, which entity and the changed keys", () => {
    const row = {
      action: "customer.update",
      staffEmail: "support@example.com",
      entityType: "customer",
      entityId: "11111111-0000-4000-8000-000000000000",
      before: { email: "ada@example.com", phone: "1" },
      after: { email: "ada@example.com", phone: "2" },
    };
    assert.equal(describeAudit(row), "support@example.com changed customer “ada@example.com”: phone");
    assert.equal(
      describeAudit({ ...row, action: "tier.create", entityType: "tier", before: null, after: { name: "Gold" } }),
      "support@example.com created tier “Gold”",
    );
    assert.equal(auditEntityHref("p", "customer", row.entityId), `/dashboard/p/customers/${row.entityId}`);
    assert.equal(auditEntityHref("p", "export", "customers"), null);
  });
});
