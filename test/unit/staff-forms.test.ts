/**
 * The dashboard's form schemas (lib/staff/forms/) where they guard against stored scripts: image URLs of rewards and
 * tiers are http(s) only (the same ImageUrl rule as the CLI's --image), API key rate limits stay within bounds, and a
 * new staff password is measured in bytes, as bcrypt and the domain measure it.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ApiKeyForm } from "@/lib/staff/forms/api-keys";
import { RewardForm } from "@/lib/staff/forms/rewards";
import { TierForm } from "@/lib/staff/forms/tiers";
import { ImageUrl } from "@/lib/api/schemas/common";
import { PasswordChangeForm } from "@/lib/staff/forms/account";
import { StaffForm } from "@/lib/staff/forms/staff";

const HOSTILE = [
  "javascript:alert(document.cookie)",
  "JavaScript:alert(1)",
  "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "ftp://img.example.com/a.png",
  "blob:https://evil.example/1",
];

describe("image URLs (rewards, tiers)", () => {
  test("http(s) URLs are accepted", () => {
    for (const url of ["https://img.example.com/mug.png", "http://cdn.example.com/a.jpg?x=1"])
      assert.equal(ImageUrl.safeParse(url).success, true, url);
  });

  test("javascript:, data:, file: and other schemes are refused with the field's path", () => {
    for (const image of HOSTILE) {
      const reward = RewardForm.safeParse({ name: "Mug", costPoints: 10, image });
      assert.equal(reward.success, false, image);
      assert.deepEqual(
        reward.error!.issues.map((i) => i.path.join(".")),
        ["image"],
      );
      assert.equal(reward.error!.issues[0]!.message, "must be an http(s) URL");
      assert.equal(TierForm.safeParse({ name: "Gold", requiredPoints: 0, factor: 1, image }).success, false, image);
    }
  });
});

describe("ApiKeyForm", () => {
  test("rate and burst are optional whole numbers within the domain's bounds", () => {
    assert.equal(ApiKeyForm.safeParse({ name: "Shop" }).success, true);
    assert.equal(ApiKeyForm.safeParse({ name: "Shop", rateLimitPerSec: 1, rateLimitBurst: 1 }).success, true);
    for (const bad of [
      { rateLimitPerSec: 0 },
      { rateLimitBurst: 0 },
      { rateLimitPerSec: 1.5 },
      { rateLimitPerSec: 1_000_001 },
      { rateLimitBurst: 2_000_001 },
    ]) {
      assert.equal(ApiKeyForm.safeParse({ name: "Shop", ...bad }).success, false, JSON.stringify(bad));
    }
  });
});

describe("new staff passwords", () => {
  const staff = (password: string) =>
    StaffForm.safeParse({ email: "ada@example.com", name: "Ada", password, role: "support" });
  const change = (password: string) => PasswordChangeForm.safeParse({ current: "old", password });

  test("72 plain letters pass; 73 do not", () => {
    assert.equal(staff("a".repeat(72)).success, true);
    assert.equal(change("a".repeat(72)).success, true);
    assert.equal(staff("a".repeat(73)).success, false);
  });

  test("accented letters count their bytes: 37 × é (74 bytes) is refused by the form, not only by the domain", () => {
    for (const parsed of [staff("é".repeat(37)), change("é".repeat(37))]) {
      assert.equal(parsed.success, false);
      assert.deepEqual(
        parsed.error!.issues.map((i) => i.path.join(".")),
        ["password"],
      );
      assert.match(parsed.error!.issues[0]!.message, /72 bytes/);
    }
    assert.equal(staff("é".repeat(36)).success, true);
  });

  test("fewer than 12 characters is refused", () => {
    assert.equal(staff("é".repeat(11)).success, false);
    assert.equal(change("short").success, false);
  });
});
