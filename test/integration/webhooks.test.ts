/**
 * Webhooks and push notifications through the transactional outbox, delivered by the app's own worker to a real
 * HTTP receiver on 127.0.0.1: every event type, signatures, retries after a 500, giving up, re-sending, only the
 * configured URL, and exactly one delivery per event and webhook with several workers at once (on PostgreSQL:
 * two app instances plus concurrent `outbox run` CLI passes on one database).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BACKENDS,
  customerPath,
  openStack,
  waitFor,
  type AppInstance,
  type Stack,
  type Fixtures,
} from "../support/stack";
import { newEmail, TWO_PROGRAMS } from "../support/fixtures";
import { startReceiver, verifySignature, type Receiver, type Received } from "../support/webhook-receiver";
import { ISO_MS } from "../support/assertions";
import { describedEvent } from "../support/webhook-events";
import { verifyWebhook, WebhookVerificationError } from "@/sdk";

const GIVE_UP_MS = 5000;
const WORKER_ENV = {
  LOYALTY_JOBS: "on",
  OUTBOX_INTERVAL_MS: "200",
  OUTBOX_BASE_DELAY_MS: "200",
  OUTBOX_GIVE_UP_AFTER_MS: String(GIVE_UP_MS),
};
const EVENT_TYPES = [
  "customer.created",
  "customer.updated",
  "customer.deleted",
  "balance.changed",
  "tier.changed",
  "reward.redeemed",
  "coupon.assigned",
  "notification.requested",
];

for (const backend of BACKENDS) {
  describe(`Webhooks and push delivery [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let apps: AppInstance[] = [];
    const files = mkdtempSync(path.join(os.tmpdir(), "loyalty-hooks-"));
    let receiver: Receiver;
    const secret: Record<"hooks" | "second" | "push" | "push2", string> = {
      hooks: "",
      second: "",
      push: "",
      push2: "",
    };
    let rewardId: string;
    let poolId: string;
    const failedOnce = new Set<string>();
    const api = (...args: Parameters<AppInstance["api"]>) => apps[0]!.api(...args);
    const p = () => `/v1/programs/${stack.programId}`;
    const c = (email: string) => customerPath(stack.programId, email);
    const at = (where: string) => receiver.received.filter((r) => r.path === where);
    const ok = (where: string) => at(where).filter((r) => r.status === 200);
    const idsAt = (where: string) => new Set(ok(where).map((r) => r.json.id as string));
    /** Both webhooks have received the same events and nothing has arrived for a while. */
    const settle = () =>
      waitFor(() => {
        const [hooks, second] = [idsAt("/hooks"), idsAt("/second")];
        const quiet = Date.now() - (receiver.received.at(-1)?.at ?? 0) > 1000;
        return quiet && hooks.size === second.size && [...hooks].every((id) => second.has(id));
      }, "the outbox to settle");

    /** PGlite admits one process: stop the app for the CLI or SQL. PostgreSQL keeps its instances running. */
    const pause = async () => {
      if (backend === "pglite") await stack.stopAll();
    };
    const resume = async () => {
      if (backend === "pglite") apps = [await stack.start(WORKER_ENV)];
    };

    before(async () => {
      receiver = await startReceiver((r) => {
        if (r.path === "/hooks" && r.json?.type === "customer.created" && !failedOnce.has(r.json.id)) {
          failedOnce.add(r.json.id); // the first attempt of every customer.created fails: each must be retried
          return 500;
        }
        if (r.path === "/push" && r.json?.title === "FAIL") return 500;
        if (r.path === "/push" && r.json?.title === "FLAKY" && !failedOnce.has(r.json.id)) {
          failedOnce.add(r.json.id);
          return 500;
        }
        return 200;
      });
      stack = await openStack(backend, TWO_PROGRAMS);
      const A = stack.programId;
      const refusals = await stack.together(
        ...["ftp://127.0.0.1/x", "javascript:alert(1)", "file:///etc/passwd"].map(
          (url) => () => stack.cliRun(["webhook", "create", "--program", A, "--url", url]),
        ),
      );
      for (const r of refusals) assert.equal(r.code, 1, `only http(s) URLs: ${r.stdout}`);
      const [hooks, second, push, reward, pool] = await stack.together(
        () => stack.loyalty("webhook", "create", "--program", A, "--url", `${receiver.url}/hooks`),
        () => stack.loyalty("webhook", "create", "--program", A, "--url", `${receiver.url}/second`),
        () => stack.loyalty("push-endpoint", "set", "--program", A, "--url", `${receiver.url}/push`),
        () => stack.loyalty("reward", "create", "--program", A, "--name", "Cup", "--cost-points", "10"),
        () => stack.loyalty("coupon-pool", "create", "--program", A, "--name", "Hooks"),
        // Points expire after a month: the expiry job's balance.changed events are checked at the end.
        () => stack.loyalty("program", "update", "--id", A, "--points-expiry-months", "1"),
      );
      assert.match(String(hooks!.webhookId), /^[0-9a-f-]{36}$/);
      secret.hooks = String(hooks!.secret);
      secret.second = String(second!.secret);
      assert.notEqual(secret.hooks, secret.second);
      secret.push = String(push!.secret);
      rewardId = String(reward!.rewardId);
      poolId = String(pool!.couponPoolId);
      const csv = path.join(files, "codes.csv");
      writeFileSync(csv, "HOOK-1\nHOOK-2\n");
      await stack.loyalty("coupon-pool", "import", "--pool", poolId, "--file", csv);
      // Two instances, so two workers, on one PostgreSQL database; PGlite admits one process.
      apps = await stack.together(
        ...Array.from({ length: backend === "postgres" ? 2 : 1 }, () => () => stack.start(WORKER_ENV)),
      );
    });
    after(async () => {
      await stack?.close();
      await receiver?.close();
      rmSync(files, { recursive: true, force: true });
    });

    let customerId: string;
    let pushCustomer: string;
    const eventIds = new Map<string, string>(); // type → id, for the customer below

    test("every event type reaches every webhook once, signed; a 500 is retried", async () => {
      const email = newEmail("hook");
      assert.equal(
        (
          await api("POST", `${p()}/integrations/api`, {
            body: [{ email, feature: "user", payload: { firstName: "W" } }],
          })
        ).status,
        201,
      );
      customerId = (await api("GET", c(email))).json.id;
      assert.equal(
        (
          await api("POST", `${p()}/integrations/api`, {
            body: [{ email, feature: "user", payload: { lastName: "H" } }],
          })
        ).status,
        201,
      );
      assert.equal((await api("POST", `${c(email)}/balance/increase`, { body: { points: 1500 } })).status, 200); // + tier.changed (Silver)
      assert.equal((await api("POST", `${c(email)}/rewards/${rewardId}/redeem`, { body: {} })).status, 201);
      assert.equal((await api("POST", `${c(email)}/coupons`, { body: { couponPoolId: poolId } })).status, 201);
      assert.equal(
        (await api("POST", `${c(email)}/notifications`, { body: { title: "Hello", body: "B", category: "tier" } }))
          .status,
        202,
      );
      assert.equal(
        (await api("DELETE", `${p()}/integrations/api`, { body: [{ email, feature: "user" }] })).status,
        204,
      );

      const mine = (path: string) => ok(path).filter((r) => r.json?.data?.customerId === customerId);
      for (const path of ["/hooks", "/second"]) {
        await waitFor(
          () => EVENT_TYPES.every((t) => mine(path).some((r) => r.json.type === t)),
          `every event type at ${path}`,
        );
      }
      for (const r of mine("/second")) eventIds.set(`${r.json.type}:${r.json.data.type ?? ""}`, r.json.id);

      for (const r of at("/hooks"))
        assert.ok(
          verifySignature(secret.hooks, r.headers["loyalty-signature"], r.body),
          "signed with the webhook's secret",
        );
      for (const r of at("/second")) assert.ok(verifySignature(secret.second, r.headers["loyalty-signature"], r.body));
      const sample = mine("/hooks")[0]!;
      assert.ok(
        !verifySignature(secret.second, sample.headers["loyalty-signature"], sample.body),
        "another webhook's secret does not verify",
      );
      assert.ok(
        !verifySignature(secret.hooks, sample.headers["loyalty-signature"], sample.body.replace("}", " }")),
        "a changed body does not verify",
      );
      assert.match(String(sample.headers["loyalty-signature"]), /^t=\d{10},v1=[0-9a-f]{64}$/);
      assert.match(String(sample.headers["content-type"]), /^application\/json/);
      assert.equal(sample.method, "POST");

      for (const r of mine("/hooks")) {
        assert.deepEqual(Object.keys(r.json).sort(), [
          "createdAt",
          "data",
          "id",
          "livemode",
          "programId",
          "sequence",
          "type",
        ]);
        assert.ok(Number.isSafeInteger(r.json.sequence) && r.json.sequence > 0, r.body);
        assert.equal(r.json.programId, stack.programId);
        assert.match(r.json.createdAt, ISO_MS);
        assert.ok(EVENT_TYPES.includes(r.json.type), r.json.type);
        // What the document describes: the type's zod schema, no field more or less (issue 11 item 7).
        assert.deepEqual(describedEvent(r.json), [], r.body);
      }
      const earn = mine("/hooks").find((r) => r.json.type === "balance.changed" && r.json.data.type === "earn")!.json
        .data;
      assert.deepEqual({ points: earn.points, balance: earn.balance }, { points: 1500, balance: 1500 });
      const redeem = mine("/hooks").find((r) => r.json.type === "balance.changed" && r.json.data.type === "redeem")!
        .json.data;
      assert.deepEqual({ points: redeem.points, balance: redeem.balance }, { points: -10, balance: 1490 });
      const tier = mine("/hooks").find((r) => r.json.type === "tier.changed")!.json.data;
      assert.deepEqual(
        { from: tier.fromTierId, to: tier.toTierId },
        { from: stack.tiers.bronze, to: stack.tiers.silver },
      );
      assert.equal(mine("/hooks").find((r) => r.json.type === "reward.redeemed")!.json.data.rewardId, rewardId);
      assert.equal(mine("/hooks").find((r) => r.json.type === "coupon.assigned")!.json.data.couponPoolId, poolId);

      // The sequence follows the order the changes committed (each call above waited for the one before).
      const seqOf = (type: string, ledgerType?: string) =>
        mine("/hooks").find((r) => r.json.type === type && (!ledgerType || r.json.data.type === ledgerType))!.json
          .sequence as number;
      const steps = [
        [seqOf("customer.created")],
        [seqOf("customer.updated")],
        [seqOf("balance.changed", "earn"), seqOf("tier.changed")],
        [seqOf("balance.changed", "redeem"), seqOf("reward.redeemed")],
        [seqOf("coupon.assigned")],
        [seqOf("notification.requested")],
        [seqOf("customer.deleted")],
      ];
      for (let i = 1; i < steps.length; i++)
        assert.ok(Math.min(...steps[i]!) > Math.max(...steps[i - 1]!), `step ${i} after step ${i - 1}`);

      // The typed client's verifyWebhook on real deliveries: the whole whsec_ string is the key; 5 minutes of tolerance.
      for (const r of mine("/hooks")) {
        const header = String(r.headers["loyalty-signature"]);
        const event = await verifyWebhook(r.body, header, secret.hooks);
        assert.equal(event.id, r.json.id);
        await verifyWebhook(new TextEncoder().encode(r.body), header, [secret.second, secret.hooks]);
      }
      const header = String(sample.headers["loyalty-signature"]);
      const signedAt = Number(/t=(\d+)/.exec(header)![1]) * 1000;
      const refusal = async (why: WebhookVerificationError["reason"], ...args: Parameters<typeof verifyWebhook>) =>
        assert.rejects(
          verifyWebhook(...args),
          (err: unknown) => err instanceof WebhookVerificationError && err.reason === why,
        );
      await refusal("signature_mismatch", sample.body, header, secret.second);
      await refusal("signature_mismatch", sample.body, header, secret.hooks.slice("whsec_".length));
      await refusal("signature_mismatch", sample.body.replace("}", " }"), header, secret.hooks);
      await refusal("timestamp_out_of_tolerance", sample.body, header, secret.hooks, { now: signedAt + 301_000 });
      await refusal("timestamp_out_of_tolerance", sample.body, header, secret.hooks, { now: signedAt - 301_000 });
      await verifyWebhook(sample.body, header, secret.hooks, { now: signedAt + 299_000 });
      await verifyWebhook(sample.body, header, secret.hooks, { now: signedAt + 3_600_000, toleranceSeconds: 3601 });
      await refusal("malformed_header", sample.body, "v1=abc", secret.hooks);
      await refusal("malformed_header", sample.body, undefined, secret.hooks);

      // The first attempt of customer.created failed with a 500 and was retried after the backoff, once.
      const created = at("/hooks").filter(
        (r) => r.json?.type === "customer.created" && r.json.data.customerId === customerId,
      );
      assert.deepEqual(
        created.map((r) => r.status),
        [500, 200],
      );
      assert.ok(created[1]!.at - created[0]!.at >= 100, "retried after a delay, not at once");
    });

    test("deliveries are unordered; a receiver that keeps the highest sequence per customer ends at the true balance", async () => {
      const email = newEmail("order");
      assert.equal(
        (await api("POST", `${p()}/integrations/api`, { body: [{ email, feature: "user", payload: {} }] })).status,
        201,
      );
      const id = (await api("GET", c(email))).json.id as string;
      // Concurrent changes of one balance (at once on PostgreSQL, two app instances).
      const moves = [
        ...Array.from({ length: 8 }, (_, i) => ["increase", 100 + i]),
        ...Array.from({ length: 4 }, () => ["decrease", 10]),
      ];
      const answers = await Promise.all(
        moves.map(([move, points], i) =>
          apps[i % apps.length]!.api("POST", `${c(email)}/balance/${move}`, { body: { points } }),
        ),
      );
      for (const a of answers) assert.equal(a.status, 200, a.text);
      const balance = (await api("GET", c(email))).json.loyaltyData.balance as number;
      const changes = () => {
        const byId = new Map(
          ok("/hooks")
            .filter((r) => r.json?.type === "balance.changed" && r.json.data.customerId === id)
            .map((r) => [r.json.id as string, r.json]),
        );
        return [...byId.values()];
      };
      await waitFor(() => changes().length === moves.length, "every balance.changed");
      // Mirror in arrival order, dropping what is older than what was applied.
      let mirrored = { sequence: 0, balance: -1 };
      for (const r of ok("/hooks").filter((r) => r.json?.type === "balance.changed" && r.json.data.customerId === id))
        if (r.json.sequence > mirrored.sequence) mirrored = { sequence: r.json.sequence, balance: r.json.data.balance };
      assert.equal(mirrored.balance, balance);
      // In sequence order, each event's balance is the one before plus its points: the order they committed.
      const ordered = changes().sort((a, b) => a.sequence - b.sequence);
      let running = 0;
      for (const e of ordered) {
        running += e.data.points as number;
        assert.equal(e.data.balance, running, JSON.stringify(e));
      }
      assert.equal(running, balance);
    });

    test("push notifications go to the push endpoint signed with its secret; a 500 is retried, then delivered", async () => {
      pushCustomer = newEmail("push");
      assert.equal(
        (
          await api("POST", `${p()}/integrations/api`, {
            body: [{ email: pushCustomer, feature: "user", payload: {} }],
          })
        ).status,
        201,
      );
      const flaky = await api("POST", `${c(pushCustomer)}/notifications`, {
        body: { title: "FLAKY", body: "Your points", category: "balance", data: { screen: "wallet" } },
      });
      assert.equal(flaky.json.notification.status, "queued");
      const suppressed = await api("POST", `${c(pushCustomer)}/notifications`, {
        body: { title: "Sale", body: "B", category: "marketing" },
      });
      assert.equal(suppressed.json.notification.status, "suppressed");
      const id = flaky.json.notification.id;
      await waitFor(() => ok("/push").some((r) => r.json.id === id), "the push delivery");
      const attempts = at("/push").filter((r) => r.json.id === id);
      assert.deepEqual(
        attempts.map((r) => r.status),
        [500, 200],
      );
      const body = attempts[1]!.json;
      assert.deepEqual(
        { title: body.title, body: body.body, category: body.category, data: body.data, programId: body.programId },
        {
          title: "FLAKY",
          body: "Your points",
          category: "balance",
          data: { screen: "wallet" },
          programId: stack.programId,
        },
      );
      assert.match(body.createdAt, ISO_MS);
      for (const r of at("/push"))
        assert.ok(verifySignature(secret.push, r.headers["loyalty-signature"], r.body), "signed with the push secret");
      assert.ok(!at("/push").some((r) => r.json.title === "Sale"), "a suppressed notification is never sent");
      await waitFor(
        () => ok("/hooks").some((r) => r.json.type === "notification.requested" && r.json.data.notificationId === id),
        "notification.requested",
      );
    });

    test("a delivery that keeps failing is retried with growing delays, then marked failed", async () => {
      const res = await api("POST", `${c(pushCustomer)}/notifications`, {
        body: { title: "FAIL", body: "B", category: "balance" },
      });
      const id = res.json.notification.id;
      const tries = () => at("/push").filter((r) => r.json.id === id);
      // The last attempt is the first one made more than GIVE_UP_MS after the delivery was created.
      await waitFor(
        () => tries().length > 1 && tries().at(-1)!.at - tries()[0]!.at > GIVE_UP_MS,
        "retries past the give-up window",
        30_000,
      );
      await new Promise((r) => setTimeout(r, 1500)); // the worker records the outcome; no further attempt comes
      const seen = tries();
      assert.ok(seen.every((r) => r.status === 500));
      const gaps = seen.slice(1).map((r, i) => r.at - seen[i]!.at);
      assert.ok(gaps.length >= 3, `several retries (${gaps.length})`);
      assert.ok(gaps.at(-1)! > gaps[0]!, `the delay grows: ${gaps.join(", ")} ms`);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(tries().length, seen.length, "no attempt after giving up");
    });

    test("exactly one delivery per event and webhook with several workers at once", async () => {
      const emails = Array.from({ length: 60 }, () => newEmail("load"));
      assert.equal(
        (
          await api("POST", `${p()}/integrations/api`, {
            body: emails.map((email) => ({ email, feature: "user", payload: {} })),
          })
        ).status,
        201,
      );
      // Extra workers on PostgreSQL: `outbox run` passes from the CLI, racing the two app instances.
      let racing = backend === "postgres";
      const cliWorkers = racing
        ? Array.from({ length: 2 }, async () => {
            let passes = 0;
            while (racing) {
              const r = await stack.cliRun(["outbox", "run"]);
              assert.equal(r.code, 0, r.stderr);
              passes++;
            }
            return passes;
          })
        : [];
      await Promise.all(
        emails.map((email, i) =>
          apps[i % apps.length]!.api("POST", `${c(email)}/balance/increase`, { body: { points: 10 + i } }),
        ),
      );
      const loadIds = (where: string) =>
        new Set(
          ok(where)
            .filter((r) => r.json.type === "balance.changed" && r.json.data.type === "earn" && r.json.data.points < 70)
            .map((r) => r.json.id),
        );
      await waitFor(
        () => loadIds("/hooks").size === 60 && loadIds("/second").size === 60,
        "the 60 balance.changed deliveries",
        60_000,
      );
      racing = false;
      const passes = await Promise.all(cliWorkers);
      await settle(); // the customer.created retries, and any duplicate, would arrive by now
      // The 60 here, and one each from the first three tests (event types, order, push).
      assert.equal(ok("/second").filter((r) => r.json.type === "customer.created").length, 63);
      for (const where of ["/hooks", "/second"]) {
        const delivered = ok(where).map((r: Received) => r.json.id);
        assert.equal(new Set(delivered).size, delivered.length, `no event delivered twice to ${where}`);
      }
      assert.deepEqual(
        new Set(ok("/hooks").map((r) => r.json.id)),
        new Set(ok("/second").map((r) => r.json.id)),
        "both webhooks received the same events",
      );
      if (passes.length)
        assert.ok(
          passes.every((n) => n > 0),
          `CLI passes ran: ${passes.join(", ")}`,
        );
    });

    test("the outbox tables agree: one delivery per event and webhook, delivered; the failed push recorded", async () => {
      await settle();
      await pause();
      const [row] = await stack.query<Record<string, number>>(
        `SELECT (SELECT count(*)::int FROM "Event" WHERE "programId" = $1) AS events,
                (SELECT count(*)::int FROM "Event" WHERE "programId" = $1 AND "fannedOutAt" IS NULL) AS unplanned,
                (SELECT count(*)::int FROM "Delivery" WHERE "programId" = $1 AND kind = 'webhook') AS deliveries,
                (SELECT count(*)::int FROM (SELECT 1 FROM "Delivery" WHERE kind = 'webhook' GROUP BY "eventId", "webhookId" HAVING count(*) > 1) d) AS doubled,
                (SELECT count(*)::int FROM "Delivery" WHERE "programId" = $1 AND kind = 'webhook' AND status <> 'delivered') AS undelivered`,
        [stack.programId],
      );
      assert.equal(row!.unplanned, 0);
      assert.equal(row!.doubled, 0);
      assert.equal(row!.deliveries, row!.events! * 2, "one delivery per event for each of the two webhooks");
      assert.equal(row!.undelivered, 0);
      const delivered = receiver.received.filter(
        (r) => (r.path === "/hooks" || r.path === "/second") && r.status === 200,
      ).length;
      assert.equal(delivered, row!.deliveries, "the receiver got each delivery exactly once");

      const pushes = await stack.query<{
        title: string;
        status: string;
        delivery: string;
        attempts: number;
        lastStatusCode: number;
      }>(
        `SELECT n.title, n.status, d.status AS delivery, d.attempts, d."lastStatusCode" FROM "Notification" n
         LEFT JOIN "Delivery" d ON d."notificationId" = n.id WHERE n."programId" = $1 ORDER BY n."createdAt"`,
        [stack.programId],
      );
      // The erased customer's push was blanked by the deletion: cancelled if it had not left yet, else delivered.
      const [erased, ...live] = pushes;
      assert.equal(erased!.title, "");
      assert.ok(
        ["cancelled/cancelled", "delivered/delivered", "cancelled/delivered"].includes(
          `${erased!.status}/${erased!.delivery}`,
        ),
        `${erased!.status}/${erased!.delivery}`,
      );
      assert.deepEqual(
        live.map((n) => [n.title, n.status, n.delivery]),
        [
          ["FLAKY", "delivered", "delivered"],
          ["Sale", "suppressed", null],
          ["FAIL", "failed", "failed"],
        ],
      );
      const fail = pushes.find((n) => n.title === "FAIL")!;
      assert.equal(fail.lastStatusCode, 500);
      assert.equal(fail.attempts, at("/push").filter((r) => r.json.title === "FAIL").length);
    });

    test("re-send goes to the endpoint configured now, signed with its secret; no endpoint → cancelled", async () => {
      // (app paused on PGlite) Re-send the failed push after moving the push endpoint; expire everyone's points.
      const [failed] = await stack.query<{ id: string }>(
        `SELECT d.id FROM "Delivery" d JOIN "Notification" n ON n.id = d."notificationId" WHERE n.title = 'FAIL' AND n."programId" = $1`,
        [stack.programId],
      );
      // (Endpoint first, then the re-send: on PostgreSQL the workers keep running and would pick it up at once.)
      const pushBefore = at("/push").length;
      secret.push2 = String(
        (await stack.loyalty("push-endpoint", "set", "--program", stack.programId, "--url", `${receiver.url}/push2`))
          .secret,
      );
      assert.notEqual(secret.push2, secret.push, "a new endpoint gets a new secret");
      assert.deepEqual(await stack.loyalty("delivery", "resend", "--program", stack.programId, "--id", failed!.id), {
        deliveryId: failed!.id,
      });
      const refused = await stack.cliRun(["delivery", "resend", "--program", stack.otherProgramId, "--id", failed!.id]);
      assert.equal(
        (refused.json?.error as { code: string }).code,
        "not_found",
        "a delivery is re-sent only within its program",
      );
      const in40Days = new Date(Date.now() + 40 * 86_400_000).toISOString();
      const expired = await stack.loyalty("points", "expire", "--program", stack.programId, "--now", in40Days);
      assert.ok(Number(expired.customers) >= 60, JSON.stringify(expired));
      await resume();

      await waitFor(() => ok("/push2").some((r) => r.json.title === "FAIL"), "the re-sent push at the new endpoint");
      const resent = ok("/push2").find((r) => r.json.title === "FAIL")!;
      assert.ok(verifySignature(secret.push2, resent.headers["loyalty-signature"], resent.body));
      assert.ok(!verifySignature(secret.push, resent.headers["loyalty-signature"], resent.body));
      assert.equal(at("/push").length, pushBefore, "nothing more went to the old endpoint");
      // The expiry path emits balance.changed too.
      await waitFor(
        () =>
          ok("/second").filter((r) => r.json.type === "balance.changed" && r.json.data.type === "expire").length >= 60,
        "the expiry events",
      );
      // Every event this file had delivered, of every type, is what the document describes (issue 11 item 7).
      for (const r of ok("/second").filter((r) => r.json.type !== "webhook.test"))
        assert.deepEqual(describedEvent(r.json), [], r.body);

      await pause();
      const [after] = await stack.query<{ status: string; url: string; notification: string }>(
        `SELECT d.status, d.url, n.status AS notification FROM "Delivery" d JOIN "Notification" n ON n.id = d."notificationId" WHERE d.id = $1`,
        [failed!.id],
      );
      assert.deepEqual(after, { status: "delivered", url: `${receiver.url}/push2`, notification: "delivered" });

      // With the push endpoint removed, a re-sent push is cancelled instead of going anywhere.
      const push2Before = at("/push2").length;
      await stack.loyalty("push-endpoint", "set", "--program", stack.programId, "--url", "off");
      await stack.loyalty("delivery", "resend", "--program", stack.programId, "--id", failed!.id);
      await resume();
      if (backend === "pglite") await new Promise((r) => setTimeout(r, 2500)); // several worker ticks
      await pause();
      const poll = async () =>
        (await stack.query<{ status: string }>(`SELECT status FROM "Delivery" WHERE id = $1`, [failed!.id]))[0]!.status;
      if (backend === "postgres") await waitFor(async () => (await poll()) === "cancelled", "the cancellation");
      assert.equal(await poll(), "cancelled");
      assert.equal(at("/push2").length, push2Before, "nothing was sent");
      const [n] = await stack.query<{ status: string }>(
        `SELECT n.status FROM "Notification" n JOIN "Delivery" d ON d."notificationId" = n.id WHERE d.id = $1`,
        [failed!.id],
      );
      assert.equal(n!.status, "failed");
    });
  });
}
