/**
 * The multi-instance deployment, run for real (PostgreSQL only): Debian's PgBouncer in TRANSACTION pooling mode
 * (scripts/pgbouncer-test.sh) in front of the test PostgreSQL, and two `next start` instances on different ports
 * whose DATABASE_URL is the PgBouncer (with DATABASE_PGBOUNCER=1), both running the jobs. Then:
 *  - the HTTP suite's smoke subset against both: batch create, GET, increase, redeem, concurrent increases split
 *    across the two (the balance is exact);
 *  - the guarantees across them: one key's rate limit is shared (its burst spent alternately gives 429 on either),
 *    an Idempotency-Key used on both has one effect and the second answers the replay, each webhook event is
 *    delivered exactly once with both outboxes running, and the expiry job run by both at once expires once;
 *  - why the setting exists: the app's named prepared statements (its default on PostgreSQL) fail behind a
 *    transaction-mode PgBouncer, and DATABASE_PGBOUNCER / ?pgbouncer=true turns them off.
 * Not skippable: with TEST_DATABASE_URL set and no pgbouncer binary the test fails (CI installs it: .ci/run).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { customerPath, openStack, waitFor, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { CUSTOMERS, LIMITED_BURST } from "../support/fixtures";
import { assertProblem } from "../support/assertions";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { ROOT } from "../support/cli";

const run = promisify(execFile);
// CUSTOMERS (program A with a rate-limited key among others): its template is cached for the other HTTP tests too.
const SPEC = CUSTOMERS;
/** Both instances run every job, often: the outbox and the expiry job race each other across the two. */
const JOBS_ENV = {
  LOYALTY_JOBS: "on",
  LOYALTY_JOBS_INTERVAL_MS: "150",
  OUTBOX_INTERVAL_MS: "100",
  OUTBOX_BASE_DELAY_MS: "200",
};
const BOUNCER_PORT = process.env.PGBOUNCER_PORT ?? "56432";
const SCRIPT = path.join(ROOT, "scripts/pgbouncer-test.sh");

/** `url`'s database reached through the PgBouncer at `bouncer` (same database name). */
function throughBouncer(url: string, bouncer: string): string {
  const direct = new URL(url);
  const via = new URL(bouncer);
  via.pathname = direct.pathname;
  return via.toString();
}

if (process.env.TEST_DATABASE_URL) {
  describe("two instances behind PgBouncer (transaction pooling) on one PostgreSQL", () => {
    let stack: Stack<Fixtures<typeof SPEC>>;
    let a: AppInstance;
    let b: AppInstance;
    let bouncerUrl = "";
    let viaBouncer = "";
    let receiver: Receiver;
    const P = () => `/v1/programs/${stack.programId}`;
    const c = (email: string) => customerPath(stack.programId, email);
    /** A new customer's e-mail, created through one instance. */
    const fresh = async (label: string) => {
      const email = `${label}-${randomBytes(4).toString("hex")}@example.com`;
      const res = await a.api("POST", `${P()}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] });
      assert.equal(res.status, 201, res.text);
      return email;
    };

    before(async () => {
      const env = { ...process.env, PGBOUNCER_PORT: BOUNCER_PORT };
      const out = await run("bash", [SCRIPT, "start"], { env }).catch((err: { stderr?: string }) => {
        throw new Error(`PgBouncer did not start (apt-get install -y pgbouncer): ${err.stderr ?? err}`);
      });
      bouncerUrl = /^PGBOUNCER_URL=(\S+)$/m.exec(out.stdout)?.[1] ?? "";
      assert.ok(bouncerUrl, out.stdout + out.stderr);
      receiver = await startReceiver();
      stack = await openStack("postgres", SPEC);
      viaBouncer = throughBouncer(stack.env.DATABASE_URL!, bouncerUrl);
      const instanceEnv = { ...JOBS_ENV, DATABASE_URL: viaBouncer, DATABASE_PGBOUNCER: "1" };
      [a, b] = await Promise.all([stack.start(instanceEnv), stack.start(instanceEnv)]);
      assert.notEqual(a.baseUrl, b.baseUrl);
    });
    after(async () => {
      await stack?.close();
      await receiver?.close();
      await run("bash", [SCRIPT, "stop"], { env: { ...process.env, PGBOUNCER_PORT: BOUNCER_PORT } }).catch(() => {});
    });

    test("smoke: batch create on one, GET on the other, increase, redeem, concurrent increases exact", async () => {
      const emails = Array.from({ length: 50 }, (_, i) => `batch${i}-${randomBytes(4).toString("hex")}@example.com`);
      const batch = await a.api("POST", `${P()}/integrations/api`, {
        body: emails.map((email) => ({ email, feature: "user", payload: { firstName: "Ada" } })),
      });
      assert.equal(batch.status, 201, batch.text);
      for (const email of [emails[0]!, emails[49]!]) {
        const got = await b.api("GET", c(email));
        assert.equal(got.status, 200, got.text);
        assert.equal(got.json.email, email);
      }
      const email = emails[1]!;
      const inc = await b.api("POST", `${c(email)}/balance/increase`, { body: { points: 100 } });
      assert.equal(inc.status, 200, inc.text);
      assert.equal(inc.json.balance, 100);
      const { rewardId } = await stack.loyalty(
        "reward",
        "create",
        "--program",
        stack.programId,
        "--name",
        "Cup",
        "--cost-points",
        "30",
      );
      const redeemed = await a.api("POST", `${c(email)}/rewards/${rewardId}/redeem`);
      assert.equal(redeemed.status, 201, redeemed.text);
      // 40 increases at once, half on each instance: every one counted once.
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).api("POST", `${c(email)}/balance/increase`, { body: { points: 1 } }),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status).filter((s) => s !== 200),
        [],
        results.find((r) => r.status !== 200)?.text,
      );
      assert.equal((await a.api("GET", c(email))).json.loyaltyData.balance, 100 - 30 + 40);
    });

    test("rate limit: one key's burst spent alternately on both instances, then 429 on either", async () => {
      const target = c("nobody@example.com");
      let allowed = 0;
      const refusedOn = new Set<string>();
      for (let i = 0; i < LIMITED_BURST * 2 + 4; i++) {
        const app = i % 2 ? a : b;
        const res = await app.api("GET", target, { key: stack.limitedKey });
        if (res.status === 429) {
          assertProblem(res, 429, "rate_limited");
          refusedOn.add(app.baseUrl);
        } else {
          assert.equal(res.status, 404, res.text);
          allowed++;
        }
      }
      // One instance alone would allow the burst plus ~1/s refill; two separate buckets would allow twice that.
      assert.ok(allowed >= LIMITED_BURST && allowed <= LIMITED_BURST + 3, `${allowed} allowed`);
      assert.deepEqual(refusedOn, new Set([a.baseUrl, b.baseUrl]));
    });

    test("idempotency: the same key on both instances, at once and in turn, has one effect; the other replays", async () => {
      const email = await fresh("idem");
      const body = { points: 7, reason: "once" };
      const key = `k-${randomBytes(6).toString("hex")}`;
      const [first, second] = await Promise.all([
        a.api("POST", `${c(email)}/balance/increase`, { body, headers: { "idempotency-key": key } }),
        b.api("POST", `${c(email)}/balance/increase`, { body, headers: { "idempotency-key": key } }),
      ]);
      const statuses = [first.status, second.status];
      // Both 200 (one the replay) or one 200 and one 409 `idempotency_in_progress` while the first still ran.
      assert.ok(statuses.includes(200), `${first.text} ${second.text}`);
      const later = await b.api("POST", `${c(email)}/balance/increase`, { body, headers: { "idempotency-key": key } });
      assert.equal(later.status, 200, later.text);
      assert.equal(later.headers.get("idempotent-replayed"), "true");
      assert.equal(later.json.balance, 7);
      assert.equal((await a.api("GET", c(email))).json.loyaltyData.balance, 7);
    });

    test("outbox: each event delivered exactly once to the webhook with both instances' outboxes running", async () => {
      const { webhookId } = await stack.loyalty(
        "webhook",
        "create",
        "--program",
        stack.programId,
        "--url",
        `${receiver.url}/hooks`,
      );
      const email = await fresh("hooks");
      for (let i = 0; i < 10; i++) {
        const res = await (i % 2 ? a : b).api("POST", `${c(email)}/balance/increase`, { body: { points: 1 } });
        assert.equal(res.status, 200, res.text);
      }
      const deliveries = () =>
        stack.query<{ status: string; attempts: number }>(
          `SELECT status, attempts FROM "Delivery" WHERE "webhookId" = $1::uuid`,
          [webhookId],
        );
      await waitFor(
        async () => {
          const rows = await deliveries();
          return rows.length >= 10 && rows.every((r) => r.status === "delivered");
        },
        "every delivery delivered",
        20_000,
      );
      await new Promise((r) => setTimeout(r, 600)); // a few more outbox passes on both
      const rows = await deliveries();
      assert.ok(
        rows.every((r) => r.status === "delivered" && r.attempts === 1),
        JSON.stringify(rows),
      );
      const received = receiver.received.filter((r) => r.path === "/hooks").map((r) => r.json.id as string);
      assert.equal(received.length, new Set(received).size, "no event delivered twice");
      assert.equal(received.length, rows.length);
    });

    test("scheduler: points expiry run by both instances at once expires the due points once", async () => {
      const email = await fresh("expiry");
      const inc = await a.api("POST", `${c(email)}/balance/increase`, { body: { points: 40 } });
      assert.equal(inc.status, 200, inc.text);
      const [customer] = await stack.query<{ id: string }>(
        `SELECT id FROM "Customer" WHERE "programId" = $1::uuid AND email = $2`,
        [stack.programId, email],
      );
      const id = customer!.id;
      // Its lot became due a minute ago; both instances' expiry jobs tick every 150 ms.
      await stack.query(
        `UPDATE "PointLot" SET "expiresAt" = now() - interval '1 minute' WHERE "customerId" = $1::uuid`,
        [id],
      );
      const expiries = () =>
        stack.query<{ points: number }>(
          `SELECT points FROM "LedgerEntry" WHERE "customerId" = $1::uuid AND type = 'expire'`,
          [id],
        );
      await waitFor(async () => (await expiries()).length > 0, "the expiry job", 15_000);
      await new Promise((r) => setTimeout(r, 600)); // several more ticks of both
      assert.deepEqual(await expiries(), [{ points: -40 }]);
      assert.equal((await b.api("GET", c(email))).json.loyaltyData.balance, 0);
    });

    test("why DATABASE_PGBOUNCER exists: named prepared statements fail behind transaction pooling; unnamed ones do not", async () => {
      const { openAdapter } = await import("@/lib/db/adapter");
      const { PrismaClient } = await import("@/lib/generated/prisma/client");
      /** Many concurrent reads of one statement text through the app's own adapter; the errors they met. */
      const errorsWith = async (url: string) => {
        const opened = await openAdapter({ kind: "postgres", url });
        const prisma = new PrismaClient({ adapter: opened.factory });
        const errors: string[] = [];
        try {
          for (let round = 0; round < 10; round++) {
            await Promise.all(
              Array.from({ length: 10 }, (_, i) =>
                prisma
                  .$transaction(async (tx) => tx.$queryRawUnsafe(`SELECT $1::int AS n, pg_backend_pid() AS pid`, i))
                  .catch((err: Error) => errors.push(err.message)),
              ),
            );
          }
        } finally {
          await prisma.$disconnect();
          await opened.close();
        }
        return errors;
      };
      // Without the setting, named statements fail whenever PgBouncer hands a transaction a server connection that did
      // not prepare them: often, but it depends on its choice of connection, so this is reported, not asserted (CI
      // saw runs with none). The setting's own guarantee, no error at all, is asserted below.
      const named = await errorsWith(viaBouncer);
      assert.ok(
        named.every((m) => /prepared statement/.test(m)),
        named.join("\n"),
      );
      console.log(`named statements through PgBouncer: ${named.length} of 100 transactions failed`);
      const unnamed = await errorsWith(`${viaBouncer}${viaBouncer.includes("?") ? "&" : "?"}pgbouncer=true`);
      assert.deepEqual(unnamed, []);
      // And direct to PostgreSQL, named statements are fine (the default keeps its planning saving there).
      assert.deepEqual(await errorsWith(stack.env.DATABASE_URL!), []);
      // Sanity: the bouncer really is in transaction mode.
      const admin = new pg.Client({ connectionString: throughBouncer("postgres://x/pgbouncer", bouncerUrl) });
      await admin.connect();
      try {
        const rows = (await admin.query("SHOW CONFIG")).rows as { key: string; value: string }[];
        assert.equal(rows.find((r) => r.key === "pool_mode")?.value, "transaction");
      } finally {
        await admin.end();
      }
    });
  });
}
