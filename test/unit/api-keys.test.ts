/**
 * API keys: the hash is plain SHA-256 of the secret, and the key lifecycle on a real (in-memory PGlite) database —
 * no server involved.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createApiKey, findActiveKey, hashSecret, revokeApiKey } from "@/lib/domain/api-keys";
import { createProgram } from "@/lib/domain/programs";
import { AppError } from "@/lib/errors";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { memoryDatabase } from "../support/pglite-memory";

describe("hashSecret", () => {
  test("is the SHA-256 of the secret's UTF-8 bytes, in lower-case hex", () => {
    // FIPS 180-2 test vectors.
    assert.equal(hashSecret(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert.equal(hashSecret("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert.equal(hashSecret("lk_live_x"), hashSecret("lk_live_x"));
    assert.notEqual(hashSecret("lk_live_secret"), hashSecret("lk_live_secreT"));
  });
});

describe("API keys on a database", () => {
  let prisma: PrismaClient;
  let close: () => Promise<void>;
  let programId: string;
  before(async () => {
    ({ prisma, close } = await memoryDatabase());
    ({ programId } = await createProgram(prisma, { name: "Keys" }));
  });
  after(async () => close?.());

  test("a new key is lk_live_ + 32 base62 characters, shown once: only its SHA-256 and prefix are stored", async () => {
    const created = await createApiKey(prisma, { programId, name: "k1" });
    assert.match(created.key, /^lk_live_[0-9A-Za-z]{32}$/);
    assert.equal(created.prefix, created.key.slice(0, 14));
    const row = await prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    assert.equal(row.secretHash, hashSecret(created.key));
    assert.ok(!JSON.stringify(row).includes(created.key.slice(8)), "the secret is stored nowhere");
    const other = await createApiKey(prisma, { programId, name: "k2" });
    assert.notEqual(other.key, created.key);
  });

  test("rate limits: 50/s with a burst of 100 by default; the burst is 2 × rate unless given (1/s is not 100 at once)", async () => {
    const cases: [number | undefined, number | undefined, number, number][] = [
      [undefined, undefined, 50, 100],
      [1, undefined, 1, 2],
      [1, 1, 1, 1],
      [100_000, undefined, 100_000, 200_000],
      [5, 7, 5, 7],
    ];
    for (const [rateLimitPerSec, rateLimitBurst, rate, burst] of cases) {
      const { key } = await createApiKey(prisma, { programId, name: `rate-${rate}`, rateLimitPerSec, rateLimitBurst });
      const identity = await findActiveKey(prisma, key);
      assert.ok(identity);
      assert.equal(identity.programId, programId);
      assert.deepEqual([identity.rateLimitPerSec, identity.rateLimitBurst], [rate, burst]);
    }
  });

  test("rate limits out of bounds are a 400 naming the field, and no key is made", async () => {
    const before = await prisma.apiKey.count();
    const cases: [number | undefined, number | undefined, string][] = [
      [0, undefined, "rateLimitPerSec"],
      [1_000_001, undefined, "rateLimitPerSec"],
      [1.5, undefined, "rateLimitPerSec"],
      [10, 0, "rateLimitBurst"],
      [10, 2_000_001, "rateLimitBurst"],
    ];
    for (const [rateLimitPerSec, rateLimitBurst, path] of cases) {
      await assert.rejects(
        createApiKey(prisma, { programId, name: "bad", rateLimitPerSec, rateLimitBurst }),
        (err: unknown) => {
          assert.ok(err instanceof AppError);
          assert.equal(err.status, 400);
          assert.deepEqual(
            err.errors?.map((e) => e.path),
            [path],
          );
          return true;
        },
      );
    }
    assert.equal(await prisma.apiKey.count(), before);
  });

  test("findActiveKey: unknown, malformed and over-long secrets are null", async () => {
    const { key } = await createApiKey(prisma, { programId, name: "k3" });
    assert.equal(await findActiveKey(prisma, `${key.slice(0, -1)}${key.endsWith("a") ? "b" : "a"}`), null);
    assert.equal(await findActiveKey(prisma, key.slice(8)), null, "without its prefix");
    assert.equal(await findActiveKey(prisma, `lk_live_${"a".repeat(200)}`), null);
    assert.equal(await findActiveKey(prisma, ""), null);
  });

  test("a revoked key stops working at once in the process that revoked it, even while cached", async () => {
    const { id, key } = await createApiKey(prisma, { programId, name: "k4" });
    assert.ok(await findActiveKey(prisma, key)); // now cached
    const revoked = await revokeApiKey(prisma, id);
    assert.ok(revoked.revokedAt instanceof Date);
    assert.equal(await findActiveKey(prisma, key), null);
    const again = await revokeApiKey(prisma, id);
    assert.equal(again.revokedAt.getTime(), revoked.revokedAt.getTime(), "revoking twice keeps the first time");
  });

  test("requests that find no cached lookup at the same moment share one read of the key", async () => {
    const { id, key } = await createApiKey(prisma, { programId, name: "k5" });
    let reads = 0;
    const counted = prisma.$extends({
      query: {
        apiKey: {
          findUnique({ args, query }) {
            reads++;
            return query(args);
          },
        },
      },
    }) as unknown as PrismaClient;
    const identities = await Promise.all(Array.from({ length: 20 }, () => findActiveKey(counted, key)));
    assert.equal(reads, 1, "one read for 20 concurrent requests");
    assert.ok(identities.every((identity) => identity?.id === id));
    await revokeApiKey(prisma, id);
    assert.equal(await findActiveKey(counted, key), null, "the shared lookup's cache entry is dropped on revocation");
  });

  test("keys belong to an existing program", async () => {
    await assert.rejects(
      createApiKey(prisma, { programId: "00000000-0000-4000-8000-000000000000", name: "x" }),
      (err) => err instanceof AppError && err.status === 404,
    );
  });
});
