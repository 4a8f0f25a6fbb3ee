import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { loadConfig } from "@/lib/config";
import { databaseTarget } from "@/lib/db/adapter";
import { allowLoopbackDeliveries } from "@/lib/net/delivery-target";

describe("the environment (lib/config.ts)", () => {
  test("an empty environment gives every default, with its unit", () => {
    const config = loadConfig({});
    assert.equal(config.DATABASE_URL, undefined);
    assert.equal(config.PGLITE_DIR, ".data/pglite");
    assert.equal(config.DATABASE_POOL_SIZE, 10);
    assert.equal(config.DATABASE_CONNECT_TIMEOUT_MS, 2000);
    assert.equal(config.API_KEY_CACHE_MS, 2000);
    assert.equal(config.RATE_LIMIT_STORE, undefined);
    assert.equal(config.OUTBOX_BASE_DELAY_MS, 10_000);
    assert.equal(config.OUTBOX_GIVE_UP_AFTER_MS, 24 * 3600 * 1000);
    assert.equal(config.LOYALTY_JOBS, "on");
    assert.equal(config.LOYALTY_ALLOW_HTTP_WEBHOOKS, false);
    assert.equal(config.TRUST_PROXY, 0);
    assert.equal(config.STAFF_SESSION_MAX_AGE_SECONDS, 12 * 3600);
    assert.equal(config.AUTH_SECRET_FILE, ".data/auth-secret");
  });

  test("values are parsed to their types, and an empty or blank value counts as unset", () => {
    const env = {
      DATABASE_POOL_SIZE: " 20 ",
      LOYALTY_ALLOW_HTTP_WEBHOOKS: "1",
      LOYALTY_JOBS: "off",
      NEXTAUTH_URL: "",
      PGLITE_DIR: "  ",
    };
    const config = loadConfig(env);
    assert.equal(config.DATABASE_POOL_SIZE, 20);
    assert.equal(config.LOYALTY_ALLOW_HTTP_WEBHOOKS, true);
    assert.equal(config.LOYALTY_JOBS, "off");
    assert.equal(config.NEXTAUTH_URL, undefined);
    assert.equal(config.PGLITE_DIR, ".data/pglite");
  });

  test("a bad number fails with the variable's name and value, not a NaN later", () => {
    const named =
      /^InvalidEnvironmentError: Invalid environment: DATABASE_POOL_SIZE must be a whole number \(got "abc"\)$/;
    assert.throws(() => loadConfig({ DATABASE_POOL_SIZE: "abc" }), named);
    assert.throws(() => loadConfig({ OUTBOX_BASE_DELAY_MS: "1.5" }), /OUTBOX_BASE_DELAY_MS must be a whole number/);
    assert.throws(() => loadConfig({ TRUST_PROXY: "11" }), /TRUST_PROXY must be at most 10/);
  });

  test("every bad variable is named at once; words and URLs are checked too", () => {
    assert.throws(
      () => loadConfig({ RATE_LIMIT_STORE: "redis", NEXTAUTH_URL: "not a url", LOYALTY_ALLOW_HTTP_WEBHOOKS: "yes" }),
      (err: Error) => {
        assert.match(err.message, /RATE_LIMIT_STORE must be one of "memory", "database" \(got "redis"\)/);
        assert.match(err.message, /NEXTAUTH_URL must be a URL/);
        assert.match(err.message, /LOYALTY_ALLOW_HTTP_WEBHOOKS must be one of "0", "1"/);
        return true;
      },
    );
  });

  test("the modules' env seams read through it", () => {
    assert.deepEqual(databaseTarget({}), { kind: "pglite", dir: ".data/pglite" });
    assert.deepEqual(databaseTarget({ DATABASE_URL: " postgres://h/db " }), {
      kind: "postgres",
      url: "postgres://h/db",
    });
    assert.equal(allowLoopbackDeliveries({ LOYALTY_ALLOW_HTTP_WEBHOOKS: "1" }), true);
    assert.equal(allowLoopbackDeliveries({ LOYALTY_ALLOW_HTTP_WEBHOOKS: "0" }), false);
  });
});
