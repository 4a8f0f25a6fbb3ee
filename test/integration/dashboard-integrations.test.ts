/**
 * The dashboard's integration settings through its JSON routes, on the built app with its outbox worker and a real
 * HTTP receiver: an API key's rate and burst changed in the dashboard govern the /v1 API at once (429 after the new
 * burst); a webhook receives only the event types it subscribes to (none: all); a disabled webhook receives nothing;
 * "send test event" reaches that one webhook, signed, and the delivery page shows the exact body it signed; a
 * rotated secret signs beside the new one until its window ends, then only the new one does. Roles that may not
 * write are refused and change nothing; another program's webhook is 404; every change is audited without secrets.
 */
import { verifyWebhook } from "@/sdk";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { createStaff } from "@/lib/domain/staff";
import type { Role } from "@/lib/domain/vocabulary";
import { newEmail, TWO_PROGRAMS } from "../support/fixtures";
import {
  BACKENDS,
  customerPath,
  openStack,
  waitFor,
  type AppInstance,
  type Fixtures,
  type Stack,
} from "../support/stack";
import { signIn, staffCall } from "../support/staff-http";
import { startReceiver, verifySignature, type Receiver } from "../support/webhook-receiver";

const PASSWORD = "correct horse battery staple";
const ROLES_OF_A: Role[] = ["manager", "support", "viewer"];
const WORKER_ENV = { LOYALTY_JOBS: "on", OUTBOX_INTERVAL_MS: "200", OUTBOX_BASE_DELAY_MS: "200" };

/** The text of an HTML page, entities decoded (enough for React's escaping of a JSON payload). */
const htmlText = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

for (const backend of BACKENDS) {
  describe(`Dashboard integrations: API keys and webhooks [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    let receiver: Receiver;
    const cookies: Partial<Record<Role | "otherManager", string>> = {};
    const emails: Partial<Record<Role | "otherManager", string>> = {};
    const authSecretFile = path.join(os.tmpdir(), `loyalty-auth-secret-integrations-${process.pid}-${backend}`);
    const hooks: Record<"all" | "balance" | "off", { id: string; secret: string }> = {
      all: { id: "", secret: "" },
      balance: { id: "", secret: "" },
      off: { id: "", secret: "" },
    };

    const secrets: string[] = [];
    const A = () => stack.programId;
    const B = () => stack.otherProgramId;
    const staff = (who: Role | "otherManager", method: string, route: string, body?: unknown, program = A()) =>
      staffCall(app.baseUrl, cookies[who]!, method, `/api/staff/${program}${route}`, body);
    const page = async (who: Role | "otherManager", route: string) => {
      const res = await fetch(`${app.baseUrl}/dashboard/${A()}${route}`, {
        headers: { cookie: cookies[who]! },
        redirect: "manual",
      });
      return { status: res.status, html: await res.text() };
    };
    const at = (where: string) => receiver.received.filter((r) => r.path === where);
    const start = async () => {
      app = await stack.start({ ...WORKER_ENV, AUTH_SECRET_FILE: authSecretFile });
      for (const who of Object.keys(emails) as (Role | "otherManager")[])
        cookies[who] = (await signIn(app.baseUrl, emails[who]!, PASSWORD))!;
    };
    /** SQL on the database: PGlite admits one process, so there the app stops for good (the file's last step). */
    const finalSql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) => {
      if (backend === "pglite") await stack.stopAll();
      return stack.query<T>(text, params);
    };

    before(async () => {
      receiver = await startReceiver();
      stack = await openStack(backend, TWO_PROGRAMS);
      await stack.withPrisma(async (prisma) => {
        for (const role of ROLES_OF_A) {
          emails[role] = newEmail(role);
          await createStaff(prisma, { email: emails[role], password: PASSWORD, programId: A(), role });
        }
        emails.otherManager = newEmail("other-manager");
        await createStaff(prisma, {
          email: emails.otherManager,
          password: PASSWORD,
          programId: B(),
          role: "manager",
        });
      });
      await start();
      for (const who of Object.keys(emails)) assert.ok(cookies[who as Role], `${who} signed in`);
    });
    after(async () => {
      await stack?.close();
      await receiver?.close();
    });

    test("a key's new rate and burst govern the API at once: 429 after the new burst", async () => {
      const created = await staff("manager", "POST", "/api-keys", {
        name: "Shop",
        rateLimitPerSec: 1,
        rateLimitBurst: 10,
      });
      assert.equal(created.status, 201, created.text);
      const key = String(created.json!.key);
      secrets.push(key);
      const keyId = String(created.json!.id);
      const call = () => stack.api("GET", `/v1/programs/${A()}/tiers`, { key });
      // The old burst: six at once are fine.
      for (let i = 0; i < 6; i++) assert.equal((await call()).status, 200, `request ${i + 1} within the burst of 10`);

      const refused = await staff("support", "PATCH", `/api-keys/${keyId}`, { rateLimitPerSec: 1, rateLimitBurst: 3 });
      assert.equal(refused.status, 403);
      assert.equal(refused.json!.code, "forbidden");
      const invalid = await staff("manager", "PATCH", `/api-keys/${keyId}`, { rateLimitPerSec: 0, rateLimitBurst: 3 });
      assert.equal(invalid.status, 400);
      assert.deepEqual(
        (invalid.json!.errors as { path: string }[]).map((e) => e.path),
        ["rateLimitPerSec"],
      );

      const changed = await staff("manager", "PATCH", `/api-keys/${keyId}`, { rateLimitPerSec: 1, rateLimitBurst: 3 });
      assert.equal(changed.status, 200, changed.text);
      // The answer carries the key's new version (the next edit's If-Match).
      assert.match(String(changed.json!.version), /^\d{4}-\d\d-\d\dT/);
      assert.deepEqual(
        { ...changed.json, version: undefined },
        { id: keyId, rateLimitPerSec: 1, rateLimitBurst: 3, version: undefined },
      );
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await call()).status);
      // Three tokens (perhaps one more refilled at 1/s while these run), then 429.
      assert.deepEqual(statuses.slice(0, 3), [200, 200, 200], statuses.join());
      assert.ok(statuses.slice(3).includes(429), statuses.join());
      const limited = await call();
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get("ratelimit-limit"), "3");

      // Another program's key is not there; a revoked key cannot be changed.
      const foreign = await staff("otherManager", "PATCH", `/api-keys/${keyId}`, { rateLimitPerSec: 5 }, B());
      assert.equal(foreign.status, 404);
      assert.equal((await staff("manager", "DELETE", `/api-keys/${keyId}`)).status, 200);
      assert.equal((await staff("manager", "PATCH", `/api-keys/${keyId}`, { rateLimitPerSec: 5 })).status, 409);
    });

    test("subscriptions filter deliveries; a disabled webhook receives nothing", async () => {
      const create = async (where: keyof typeof hooks, eventTypes?: string[]) => {
        const res = await staff("manager", "POST", "/webhooks", { url: `${receiver.url}/${where}`, eventTypes });
        assert.equal(res.status, 201, res.text);
        hooks[where] = { id: String(res.json!.id), secret: String(res.json!.secret) };
        secrets.push(hooks[where].secret);
      };
      await create("all");
      await create("balance", ["balance.changed"]);
      await create("off");
      const unknown = await staff("manager", "PUT", `/webhooks/${hooks.balance.id}/events`, {
        eventTypes: ["balance.changed", "webhook.test"],
      });
      assert.equal(unknown.status, 400);
      assert.deepEqual(
        (unknown.json!.errors as { path: string }[]).map((e) => e.path),
        ["eventTypes[1]"],
      );
      assert.equal((await staff("manager", "PATCH", `/webhooks/${hooks.off.id}`, { active: false })).status, 200);
      const testOff = await staff("manager", "POST", `/webhooks/${hooks.off.id}/test-event`);
      assert.equal(testOff.status, 409);

      const email = newEmail("subscriber");
      const batch = await stack.api("POST", `/v1/programs/${A()}/integrations/api`, {
        body: [{ email, feature: "user", payload: { firstName: "Sub" } }],
      });
      assert.equal(batch.status, 201, batch.text);
      const earn = await stack.api("POST", `${customerPath(A(), email)}/balance/increase`, {
        body: { points: 5, reason: "subscriptions" },
      });
      assert.equal(earn.status, 200, earn.text);
      const mine = (where: string) => at(where).filter((r) => r.json?.data?.email === email || r.json?.data?.points);
      await waitFor(
        () => mine("/all").some((r) => r.json.type === "balance.changed") && mine("/balance").length > 0,
        "the deliveries",
      );
      await new Promise((r) => setTimeout(r, 1000)); // anything else the worker would send, it sends by now
      assert.deepEqual(
        mine("/all")
          .map((r) => r.json.type)
          .sort(),
        ["balance.changed", "customer.created"],
      );
      assert.deepEqual(
        at("/balance").map((r) => r.json.type),
        ["balance.changed"],
      );
      assert.equal(at("/off").length, 0);
      for (const r of at("/all")) assert.ok(verifySignature(hooks.all.secret, r.headers["loyalty-signature"], r.body));

      // Subscribing to more takes effect for the next events.
      const more = await staff("manager", "PUT", `/webhooks/${hooks.balance.id}/events`, {
        eventTypes: ["customer.updated", "balance.changed", "customer.updated"],
      });
      assert.equal(more.status, 200, more.text);
      assert.deepEqual(more.json!.eventTypes, ["balance.changed", "customer.updated"]);
    });

    test("a test event reaches that one webhook, signed; its delivery page shows the exact body", async () => {
      const before = { balance: at("/balance").length, off: at("/off").length };
      const queued = await staff("manager", "POST", `/webhooks/${hooks.all.id}/test-event`);
      assert.equal(queued.status, 202, queued.text);
      const deliveryId = String(queued.json!.deliveryId);
      await waitFor(() => at("/all").some((r) => r.headers["loyalty-delivery"] === deliveryId), "the test event");
      const got = at("/all").find((r) => r.headers["loyalty-delivery"] === deliveryId)!;
      assert.equal(got.json.type, "webhook.test");
      assert.equal(got.json.programId, A());
      assert.equal(got.json.data.webhookId, hooks.all.id);
      assert.ok(verifySignature(hooks.all.secret, got.headers["loyalty-signature"], got.body));
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual({ balance: at("/balance").length, off: at("/off").length }, before, "no other webhook");

      const shown = await page("viewer", `/webhooks/deliveries/${deliveryId}`);
      assert.equal(shown.status, 200);
      assert.ok(htmlText(shown.html).includes(got.body), "the page shows the exact signed body");
      assert.match(htmlText(shown.html), /delivered/);
      // The delivery log links to it.
      assert.ok((await page("viewer", "/webhooks")).html.includes(`/webhooks/deliveries/${deliveryId}`));
      // Another program's staff: their own route knows no such webhook or delivery.
      const foreign = await staff("otherManager", "POST", `/webhooks/${hooks.all.id}/test-event`, undefined, B());
      assert.equal(foreign.status, 404);
      const foreignPage = await fetch(`${app.baseUrl}/dashboard/${B()}/webhooks/deliveries/${deliveryId}`, {
        headers: { cookie: cookies.otherManager! },
      });
      assert.equal(foreignPage.status, 404, "a not-found page answers 404");
      const foreignHtml = htmlText(await foreignPage.text());
      assert.ok(foreignHtml.includes("Not found"), "another program's delivery is not found");
      assert.ok(!foreignHtml.includes(got.body) && !foreignHtml.includes(hooks.all.id));
    });

    test("a rotated secret signs beside the new one during its window, and only the new one after", async () => {
      const old = hooks.all.secret;
      const rotated = await staff("manager", "POST", `/webhooks/${hooks.all.id}/secret`, { overlapHours: 24 });
      assert.equal(rotated.status, 200, rotated.text);
      const fresh = String(rotated.json!.secret);
      secrets.push(fresh);
      assert.notEqual(fresh, old);
      const sendTest = async () => {
        const res = await staff("manager", "POST", `/webhooks/${hooks.all.id}/test-event`);
        assert.equal(res.status, 202, res.text);
        const id = String(res.json!.deliveryId);
        await waitFor(() => at("/all").some((r) => r.headers["loyalty-delivery"] === id), "the test event");
        return at("/all").find((r) => r.headers["loyalty-delivery"] === id)!;
      };
      const during = await sendTest();
      const header = String(during.headers["loyalty-signature"]);
      assert.match(header, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      assert.ok(verifySignature(old, header, during.body), "the old secret verifies during the window");
      assert.ok(verifySignature(fresh, header, during.body), "the new secret verifies during the window");
      // The typed client's verifyWebhook: either secret alone, or both held at once.
      for (const held of [old, fresh, [old, fresh], ["whsec_unrelated", fresh]])
        assert.equal((await verifyWebhook(during.body, header, held)).type, "webhook.test");
      assert.match((await page("manager", "/webhooks")).html, /old secret valid until/);

      // The window ends (as 24 hours later): on PostgreSQL by moving its end into the past while the app runs (PGlite
      // admits one process, and restarting the app costs half a minute); on both, by a rotation without overlap.
      const onlyNew = async (secret: string, outdated: string[]) => {
        const delivery = await sendTest();
        const signed = String(delivery.headers["loyalty-signature"]);
        assert.match(signed, /^t=\d+,v1=[0-9a-f]{64}$/);
        assert.ok(verifySignature(secret, signed, delivery.body));
        for (const o of outdated) assert.ok(!verifySignature(o, signed, delivery.body));
        await verifyWebhook(delivery.body, signed, secret);
        for (const o of outdated)
          await assert.rejects(verifyWebhook(delivery.body, signed, o), { name: "WebhookVerificationError" });
      };
      if (backend === "postgres") {
        await stack.query(
          `UPDATE "Webhook" SET "previousSecretExpiresAt" = now() - interval '1 second' WHERE id = $1::uuid`,
          [hooks.all.id],
        );
        await onlyNew(fresh, [old]);
      }
      const again = await staff("manager", "POST", `/webhooks/${hooks.all.id}/secret`, { overlapHours: 0 });
      assert.equal(again.status, 200, again.text);
      const newest = String(again.json!.secret);
      secrets.push(newest);
      assert.equal(again.json!.previousSecretExpiresAt, null);
      await onlyNew(newest, [old, fresh]);
      assert.doesNotMatch((await page("manager", "/webhooks")).html, /old secret valid until/);
      hooks.all.secret = newest;

      const bad = await staff("manager", "POST", `/webhooks/${hooks.all.id}/secret`, { overlapHours: 169 });
      assert.equal(bad.status, 400);
    });

    test("roles that may not write are refused and change nothing; they get read views", async () => {
      const writes: [string, string, unknown][] = [
        ["PUT", `/webhooks/${hooks.all.id}/events`, { eventTypes: [] }],
        ["POST", `/webhooks/${hooks.all.id}/secret`, { overlapHours: 0 }],
        ["POST", `/webhooks/${hooks.all.id}/test-event`, undefined],
        ["PATCH", `/webhooks/${hooks.all.id}`, { active: false }],
      ];
      const deliveriesBefore = at("/all").length;
      for (const role of ["support", "viewer"] as const) {
        for (const [method, route, body] of writes) {
          const res = await staff(role, method, route, body);
          assert.equal(res.status, 403, `${role} ${method} ${route}`);
          assert.equal(res.json!.code, "forbidden");
        }
      }
      // Not a member of program A: refused without saying whether the webhook exists.
      assert.equal((await staff("otherManager", "POST", `/webhooks/${hooks.all.id}/test-event`)).status, 403);

      // Read views: the lists without their forms.
      const staffPage = await page("viewer", "/staff");
      assert.equal(staffPage.status, 200);
      assert.ok(staffPage.html.includes(emails.manager!));
      assert.ok(!staffPage.html.includes("Add staff member"));
      // API keys stay the business of owners and managers (apikeys.read): support is sent to the forbidden page.
      const keysPage = await page("support", "/api-keys");
      assert.equal(keysPage.status, 403, "a page the role may not see answers 403");
      assert.ok(keysPage.html.includes("Not for your role"));
      assert.ok(!keysPage.html.includes("Shop") && !keysPage.html.includes("Save limits"));
      const managerKeys = await page("manager", "/api-keys");
      assert.ok(managerKeys.html.includes("Shop") && managerKeys.html.includes("Create key"));
      const hooksPage = await page("viewer", "/webhooks");
      assert.ok(hooksPage.html.includes(`${receiver.url}/all`));
      assert.ok(!hooksPage.html.includes("Send test event") && !hooksPage.html.includes("Rotate secret"));
      const managerHooks = await page("manager", "/webhooks");
      assert.ok(managerHooks.html.includes("Send test event") && managerHooks.html.includes("Rotate secret"));

      await new Promise((r) => setTimeout(r, 500));
      assert.equal(at("/all").length, deliveriesBefore, "no refused test event was sent");
    });

    test("not-found and forbidden dashboard pages answer 404 and 403, not 200", async () => {
      const nil = "00000000-0000-4000-8000-000000000000";
      const cases: [Role | "otherManager", string, number, string][] = [
        ["manager", `/customers/${nil}`, 404, "Not found"],
        ["manager", "/customers/not-a-uuid", 404, "Not found"],
        ["manager", `/coupons/${nil}`, 404, "Not found"],
        ["manager", `/webhooks/deliveries/${nil}`, 404, "Not found"],
        ["otherManager", "", 404, ""],
        ["otherManager", "/customers", 404, ""],
        ["viewer", "/audit", 403, "Not for your role"],
        ["support", "/api-keys", 403, "Not for your role"],
        ["manager", "/audit", 200, "Audit log"],
      ];
      for (const [who, route, status, shows] of cases) {
        const got = await page(who, route);
        assert.equal(got.status, status, `${who} ${route}`);
        assert.ok(htmlText(got.html).includes(shows), `${who} ${route} shows ${shows}`);
      }
      const signedOut = await fetch(`${app.baseUrl}/dashboard/${A()}/audit`, { redirect: "manual" });
      assert.equal(signedOut.status, 307);
      assert.match(signedOut.headers.get("location") ?? "", /\/signin$/);
    });

    test("the audit page filters by day, who, what and entity, says each change in words, shows no secret", async () => {
      const all = await page("manager", "/audit");
      assert.equal(all.status, 200);
      const allText = htmlText(all.html);
      for (const secret of secrets) assert.ok(!allText.includes(secret), "no secret on the audit page");
      assert.match(allText, new RegExp(`${emails.manager} (created|changed|rotated the signing secret of) webhook`));
      // The actions of the listed entries (the filter's <option>s, also in the page's payload, name every action).
      const actions = (html: string) =>
        [...html.matchAll(/<span class="font-mono">([a-z_.]+)<\/span>/g)].map((m) => m[1]);
      // One entity's history: only that webhook's rows, each linking to the webhooks page.
      const one = await page("manager", `/audit?type=webhook&entity=${hooks.all.id}`);
      assert.ok(actions(one.html).includes("webhook.rotate_secret"), "the webhook's rows");
      assert.ok(
        actions(one.html).every((a) => a!.startsWith("webhook.")),
        "other entities are filtered out",
      );
      assert.ok(one.html.includes(`href="/dashboard/${A()}/webhooks"`), "a link to the entity");
      // What and who.
      const keys = await page("manager", `/audit?action=apikey.update&staff=${emails.manager}`);
      assert.ok(actions(keys.html).length > 0 && actions(keys.html).every((a) => a === "apikey.update"));
      assert.ok(htmlText(keys.html).includes(`${emails.manager} changed API key`), "in words");
      assert.match(keys.html, />rateLimit(PerSec|Burst)<\/th>/, "the diff names the changed key");
      // A day with nothing; a day outside 1970–2100 is ignored with a message, never a 5xx.
      const empty = await page("manager", "/audit?from=2001-01-01&to=2001-01-01");
      assert.ok(htmlText(empty.html).includes("No entries match these filters."));
      const odd = await page("manager", "/audit?from=9999-12-31&to=2026-13-01");
      assert.equal(odd.status, 200);
      assert.match(htmlText(odd.html), /from must be a date in the years 1970 to 2100 \(ignored\)/);
      // The CSV export takes the same filter.
      const csv = await staffCall(
        app.baseUrl,
        cookies.manager!,
        "GET",
        `/api/staff/${A()}/exports/audit-log?type=webhook`,
        undefined,
        {
          "sec-fetch-site": "same-origin",
        },
      );
      assert.equal(csv.status, 200, csv.text);
      const lines = csv.text.trim().split("\n").slice(1);
      assert.ok(lines.length > 0 && lines.every((l) => l.includes(",webhook,")), "only webhook rows");
    });

    test("every change is audited, without secrets", async () => {
      const rows = await finalSql<{ action: string; staffEmail: string; before: unknown; after: unknown }>(
        `SELECT action, "staffEmail", before, after FROM "AuditLog" WHERE "programId" = $1::uuid ORDER BY "createdAt"`,
        [A()],
      );
      const actions = rows.map((r) => r.action);
      for (const action of [
        "apikey.create",
        "apikey.update",
        "apikey.revoke",
        "webhook.create",
        "webhook.update",
        "webhook.subscriptions",
        "webhook.test",
        "webhook.rotate_secret",
      ])
        assert.ok(actions.includes(action), `${action} in ${actions.join()}`);
      assert.equal(actions.filter((a) => a === "apikey.update").length, 1, "the refused and invalid changes left none");
      assert.equal(actions.filter((a) => a === "webhook.rotate_secret").length, 2);
      assert.equal(actions.filter((a) => a === "webhook.test").length, backend === "postgres" ? 4 : 3);
      for (const r of rows) assert.equal(r.staffEmail, emails.manager);
      const update = rows.find((r) => r.action === "apikey.update")!;
      assert.deepEqual(update.after, { rateLimitPerSec: 1, rateLimitBurst: 3 });
      assert.equal((update.before as { rateLimitBurst: number }).rateLimitBurst, 10);
      const subscriptions = rows.find((r) => r.action === "webhook.subscriptions")!;
      assert.deepEqual(subscriptions.after, { eventTypes: ["balance.changed", "customer.updated"] });
      const text = JSON.stringify(rows);
      assert.ok(secrets.length >= 5);
      for (const secret of secrets) assert.ok(!text.includes(secret), "no secret in the audit log");
      assert.ok(!text.includes("whsec_"));
    });
  });
}
