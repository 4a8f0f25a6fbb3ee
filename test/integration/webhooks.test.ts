import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { backends, client, createDatabase, startApp, withPrisma, type Database, type RunningApp } from "../helpers/app";
import { programWithTiers, uniqueEmail, type ProgramFixture } from "../helpers/fixtures";
import { startReceiver, verifySignature, waitFor } from "../helpers/receiver";
import { createWebhook, setPushEndpoint } from "@/lib/domain/webhooks";
import { createReward } from "@/lib/domain/rewards";

const workerEnv = { LOYALTY_JOBS: "on", OUTBOX_INTERVAL_MS: "200", OUTBOX_BASE_DELAY_MS: "300" };

for (const backend of backends) {
  describe(`Webhooks and push delivery [${backend}]`, () => {
    let database: Database;
    const apps: RunningApp[] = [];
    let a: ProgramFixture;
    let api: ReturnType<typeof client>;
    let hooks: Awaited<ReturnType<typeof startReceiver>>;
    let push: Awaited<ReturnType<typeof startReceiver>>;
    let webhookSecret: string;
    let pushSecret: string;
    let rewardId: string;
    const failedOnce = new Set<string>();

    before(async () => {
      // The first attempt of every customer.created event fails with a 500: each must be retried, once.
      hooks = await startReceiver(({ json }) => {
        if (json.type === "customer.created" && !failedOnce.has(json.id)) {
          failedOnce.add(json.id);
          return 500;
        }
        return 200;
      });
      push = await startReceiver();
      database = await createDatabase(backend);
      await withPrisma(database, async (prisma) => {
        a = await programWithTiers(prisma);
        webhookSecret = (await createWebhook(prisma, { programId: a.programId, url: hooks.url })).secret;
        pushSecret = (await setPushEndpoint(prisma, { programId: a.programId, url: push.url })).secret!;
        rewardId = (await createReward(prisma, { programId: a.programId, name: "Cup", costPoints: 10 })).rewardId;
      });
      apps.push(await startApp(database, workerEnv));
      // Two instances each running the outbox worker on one PostgreSQL database (PGlite is one process only).
      if (backend === "postgres") apps.push(await startApp(database, workerEnv));
      api = client(apps[0]!.baseUrl, a.key);
    });
    after(async () => {
      for (const app of apps) await app.stop();
      await database?.drop();
      await hooks?.close();
      await push?.close();
    });

    test("every event type is delivered, signed, once per event, with a retry after a 500", async () => {
      const email = uniqueEmail("hook");
      const p = `/v1/programs/${a.programId}`;
      const c = `${p}/customers/${encodeURIComponent(email)}`;
      assert.equal((await api("POST", `${p}/integrations/api`, { body: [{ email, feature: "user", payload: { firstName: "W" } }] })).status, 201);
      await api("POST", `${p}/integrations/api`, { body: [{ email, feature: "user", payload: { lastName: "H" } }] });
      await api("POST", `${c}/balance/increase`, { body: { points: 1500 } }); // balance.changed + tier.changed (Silver)
      await api("POST", `${c}/rewards/${rewardId}/redeem`, { body: {} });
      await api("POST", `${c}/notifications`, { body: { title: "T", body: "B", category: "balance" } });
      await waitFor(() => push.received.length > 0, 10_000, "the push delivery");
      await api("DELETE", `${p}/integrations/api`, { body: [{ email, feature: "user" }] });

      const expected = ["customer.created", "customer.updated", "balance.changed", "tier.changed", "reward.redeemed", "notification.requested", "customer.deleted"];
      const ok = () => hooks.received.filter((r) => r.status === 200);
      await waitFor(() => expected.every((t) => ok().some((r) => r.json.type === t)), 30_000, "every event type");
      await new Promise((r) => setTimeout(r, 1500)); // any duplicate delivery would arrive by now

      for (const r of hooks.received) assert.ok(verifySignature(webhookSecret, r.signature, r.body), "signature verifies");
      assert.ok(!verifySignature("whsec_wrong", hooks.received[0]!.signature, hooks.received[0]!.body));
      const deliveredIds = ok().map((r) => r.json.id);
      assert.equal(new Set(deliveredIds).size, deliveredIds.length, "no event delivered twice");
      const created = hooks.received.filter((r) => r.json.type === "customer.created");
      assert.deepEqual(created.map((r) => r.status), [500, 200], "retried after the 500, then delivered once");
      const event = ok().find((r) => r.json.type === "balance.changed" && (r.json.data as { type: string }).type === "earn")!.json;
      assert.equal(event.programId, a.programId);
      assert.match(String(event.createdAt), /Z$/);
      assert.deepEqual(Object.keys(event).sort(), ["createdAt", "data", "id", "programId", "type"]);
      assert.equal((event.data as { points: number }).points, 1500);

      const notification = push.received[0]!;
      assert.ok(verifySignature(pushSecret, notification.signature, notification.body));
      assert.equal(notification.json.title, "T");
      assert.equal(push.received.length, 1);
    });
  });
}
