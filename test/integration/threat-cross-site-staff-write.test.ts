/**
 * Threat: cross-site request forgery against the dashboard's JSON routes — a page on another site making a signed-in
 * staff member's browser send a write (a form post, a body-less POST such as webhook re-send, a fetch without
 * credentials checks). Every write must come from the app's own origin (Origin, or Sec-Fetch-Site when Origin is
 * absent); anything else is 403 `cross_site_request` and changes nothing.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import { applyUserBatch } from "@/lib/domain/customers";
import { increaseBalance } from "@/lib/domain/points";
import { createStaff } from "@/lib/domain/staff";
import { createWebhook } from "@/lib/domain/webhooks";
import { TWO_PROGRAMS } from "../support/fixtures";
import { BACKENDS, openStack, type AppInstance, type Fixtures, type Stack } from "../support/stack";
import { signIn, staffCall } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";

for (const backend of BACKENDS) {
  describe(`Threat: cross-site staff writes [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    let programId = "";
    let customerId = "";
    let deliveryId = "";
    let owner = "";

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      programId = stack.programId;
      const email = `owner.${Math.random().toString(36).slice(2, 8)}@example.com`;
      await stack.withPrisma(async (prisma) => {
        await createStaff(prisma, { email, password: PASSWORD, programId, role: "owner" });
        await prisma.$transaction((tx) =>
          applyUserBatch(tx, programId, [
            { email: "victim@example.com", feature: "user", payload: { firstName: "Ada" } },
          ]),
        );
        customerId = (await prisma.customer.findFirstOrThrow({ where: { programId }, select: { id: true } })).id;
        await prisma.$transaction((tx) =>
          increaseBalance(tx, { programId, customerId, points: 100, source: "api", actor: "test" }),
        );
        const { webhookId } = await createWebhook(prisma, { programId, url: "https://hooks.example.com/x" });
        const event = await prisma.event.create({
          data: { programId, type: "balance.changed", data: {}, fannedOutAt: new Date() },
          select: { id: true },
        });
        deliveryId = (
          await prisma.delivery.create({
            data: {
              programId,
              kind: "webhook",
              eventId: event.id,
              webhookId,
              url: "https://hooks.example.com/x",
              status: "failed",
              attempts: 7,
              lastError: "HTTP 500",
            },
            select: { id: true },
          })
        ).id;
      });
      app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-xsite-${process.pid}-${backend}`),
      });
      owner = (await signIn(app.baseUrl, email, PASSWORD))!;
      assert.ok(owner);
    });
    after(() => stack?.close());

    const balance = async () =>
      (await staffCall(app.baseUrl, owner, "GET", `/api/staff/${programId}/customers/${customerId}/transactions`)).json;
    const adjust = (headers: Record<string, string>) =>
      staffCall(
        app.baseUrl,
        owner,
        "POST",
        `/api/staff/${programId}/customers/${customerId}/balance`,
        { points: 5, reason: "Forged" },
        headers,
      );
    const resend = (headers: Record<string, string>) =>
      staffCall(
        app.baseUrl,
        owner,
        "POST",
        `/api/staff/${programId}/deliveries/${deliveryId}/resend`,
        undefined,
        headers,
      );

    test("a write with another site's Origin is 403 cross_site_request and changes nothing (JSON and body-less POST)", async () => {
      const before = JSON.stringify(await balance());
      for (const origin of [
        "http://evil.example",
        "null",
        app.baseUrl.replace("127.0.0.1", "localhost"),
        `${app.baseUrl}.evil.example`,
      ]) {
        const res = await adjust({ origin });
        assert.equal(res.status, 403, origin);
        assert.equal(res.json?.code, "cross_site_request");
        assert.equal(res.headers.get("content-type"), "application/problem+json");
        assert.ok(res.headers.get("x-request-id"));
        const re = await resend({ origin });
        assert.equal(re.status, 403, `resend from ${origin}`);
        assert.equal(re.json?.code, "cross_site_request");
      }
      assert.equal(JSON.stringify(await balance()), before);
      const rows = await stack
        .query<{ status: string; attempts: number }>(`SELECT status, attempts FROM "Delivery" WHERE id = $1`, [
          deliveryId,
        ])
        .catch(() => null);
      // PostgreSQL can be read while the app runs; the PGlite check is the unchanged history above.
      if (rows)
        assert.deepEqual(
          rows.map((r) => [r.status, r.attempts]),
          [["failed", 7]],
        );
    });

    test("a cross-site link cannot make a signed-in browser download an export; the dashboard's own fetch can", async () => {
      const exportsBefore = await stack
        .query<{ n: number }>(`SELECT count(*)::int AS n FROM "AuditLog" WHERE action = 'data.export'`)
        .catch(() => null);
      for (const kind of ["customers", "ledger", "audit-log"]) {
        for (const site of ["cross-site", "same-site"]) {
          // A link or <img> on another site: a GET navigation with the session cookie and Sec-Fetch-Site of its origin.
          const res = await staffCall(app.baseUrl, owner, "GET", `/api/staff/${programId}/exports/${kind}`, undefined, {
            origin: "",
            "sec-fetch-site": site,
            "sec-fetch-mode": "navigate",
          });
          assert.equal(res.status, 403, `${kind} from ${site}`);
          assert.equal(res.json?.code, "cross_site_request");
          assert.doesNotMatch(res.headers.get("content-type") ?? "", /csv/);
          assert.equal(res.headers.get("content-disposition"), null);
        }
      }
      if (exportsBefore) {
        const after = await stack.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "AuditLog" WHERE action = 'data.export'`,
        );
        assert.equal(after[0]!.n, exportsBefore[0]!.n, "no refused export was started");
      }
      for (const site of ["same-origin", "none"]) {
        const ok = await staffCall(app.baseUrl, owner, "GET", `/api/staff/${programId}/exports/customers`, undefined, {
          origin: "",
          "sec-fetch-site": site,
        });
        assert.equal(ok.status, 200, `${site}: ${ok.text}`);
        assert.match(ok.headers.get("content-type") ?? "", /text\/csv/);
      }
    });

    test("without Origin, Sec-Fetch-Site decides; with neither header the write is refused", async () => {
      for (const site of ["cross-site", "same-site", "none"]) {
        const res = await adjust({ origin: "", "sec-fetch-site": site });
        assert.equal(res.status, 403, site);
        assert.equal(res.json?.code, "cross_site_request");
      }
      assert.equal((await adjust({ origin: "" })).status, 403);
      assert.equal((await resend({ origin: "" })).status, 403);
      assert.equal((await adjust({ origin: "", "sec-fetch-site": "same-origin" })).status, 200);
    });

    test("the app's own origin is accepted; a forged X-Forwarded-Host does not make another origin its own", async () => {
      assert.equal((await adjust({ origin: app.baseUrl })).status, 200);
      const forged = await adjust({ origin: "http://evil.example", "x-forwarded-host": "evil.example" });
      assert.equal(forged.status, 403);
      assert.equal((await resend({ origin: app.baseUrl })).status, 200);
      // Reads stay open to plain navigation: no Origin is needed for GET.
      assert.equal(
        (
          await staffCall(app.baseUrl, owner, "GET", `/api/staff/${programId}/search?q=victim`, undefined, {
            origin: "",
          })
        ).status,
        200,
      );
    });
  });
}
