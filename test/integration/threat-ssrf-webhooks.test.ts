/**
 * Threat: server-side request forgery through webhook and push-endpoint URLs. A program manager (or a stolen staff
 * session) points deliveries at the app's own network — loopback, private ranges, the cloud metadata service — or at
 * a name that resolves to a public address when saved and to an internal one when delivered (DNS rebinding), and
 * reads the delivery log to learn which internal ports are open. lib/net/delivery-target.ts must refuse such URLs
 * when they are saved (400 url_not_allowed), refuse them again right before connecting, and log failures without
 * telling a closed port from a reset or a TLS failure.
 *
 * The harness sets the development setting LOYALTY_ALLOW_HTTP_WEBHOOKS=1 (loopback receivers); these tests turn it
 * off where the production behaviour is under test. The worker's own code (runOutbox) delivers, in this process, so the
 * setting can be switched between passes; the operator's surface is checked once through the CLI.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { BACKENDS, MIGRATED_ONLY, openStack, type Stack } from "../support/stack";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { createProgram } from "@/lib/domain/programs";
import { createWebhook, setPushEndpoint } from "@/lib/domain/webhooks";
import { emitEvent } from "@/lib/domain/events";
import { runOutbox } from "@/lib/jobs/outbox";
import { AppError } from "@/lib/errors";

const SETTING = "LOYALTY_ALLOW_HTTP_WEBHOOKS";

/** Runs `fn` with the development setting on or off in this process (it is read at each check). */
async function withSetting<T>(on: boolean, fn: () => Promise<T>): Promise<T> {
  const saved = process.env[SETTING];
  process.env[SETTING] = on ? "1" : "0";
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env[SETTING];
    else process.env[SETTING] = saved;
  }
}

interface DeliveryRow {
  url: string;
  status: string;
  lastStatusCode: number | null;
  lastError: string | null;
}

/** A TCP server that accepts and at once resets every connection, and a port where nothing listens. */
async function hostileEndpoints(): Promise<{ resetPort: number; closedPort: number; close(): Promise<void> }> {
  const listen = (server: Server) =>
    new Promise<number>((r) => server.listen(0, "127.0.0.1", () => r((server.address() as { port: number }).port)));
  const reset = createServer((socket) => socket.resetAndDestroy());
  const resetPort = await listen(reset);
  const probe = createServer();
  const closedPort = await listen(probe);
  await new Promise((r) => probe.close(r));
  return { resetPort, closedPort, close: () => new Promise((r) => reset.close(() => r(undefined))) };
}

const REFUSED_AT_CREATION = [
  "http://127.0.0.1:8080/hook", // plain http (and loopback)
  "https://127.0.0.1/hook",
  "https://169.254.169.254/latest/meta-data/", // cloud metadata
  "https://[fd00:ec2::254]/", // cloud metadata over IPv6
  "https://2130706433/", // 127.0.0.1 in decimal
  "https://0x7f.1/", // 127.0.0.1 in hex
  "https://[::ffff:10.0.0.1]/", // private, IPv4-mapped
  "https://192.168.1.10/",
  "https://100.64.0.1/", // CGNAT
  "https://[fe80::1]/",
  "https://0.0.0.0/",
  "https://224.0.0.1/",
  "https://localhost/hook",
  "javascript:alert(1)",
  "ftp://hooks.example.com/",
];

for (const backend of BACKENDS) {
  describe(`threat: SSRF through webhook and push URLs [${backend}]`, () => {
    let stack: Stack<{ key?: string }>;
    let programId: string;
    let receiver: Receiver;
    let hostile: Awaited<ReturnType<typeof hostileEndpoints>>;
    let urls: Record<"ok" | "closed" | "reset" | "rebind", string>;

    before(async () => {
      [receiver, hostile, stack] = await Promise.all([
        startReceiver(),
        hostileEndpoints(),
        openStack(backend, MIGRATED_ONLY),
      ]);
      urls = {
        ok: `${receiver.url}/ok`,
        closed: `http://127.0.0.1:${hostile.closedPort}/closed`,
        reset: `http://127.0.0.1:${hostile.resetPort}/reset`,
        // A name, not an address: only the lookup at delivery can tell where it goes.
        rebind: `https://localhost:${new URL(receiver.url).port}/rebind`,
      };
      // Saved with the development setting on, as a name that resolved elsewhere when it was saved would be.
      programId = await withSetting(true, () =>
        stack.withPrisma(async (prisma) => {
          const { programId } = await createProgram(prisma, { name: "Hooks" });
          for (const url of Object.values(urls)) await createWebhook(prisma, { programId, url });
          return programId;
        }),
      );
    });
    after(async () => {
      await stack?.close();
      await receiver?.close();
      await hostile?.close();
    });

    /** One event, then one pass of the delivery worker; the newest delivery to each URL. */
    const eventThenDeliver = (setting: boolean) =>
      withSetting(setting, () =>
        stack.withPrisma(async (prisma) => {
          await prisma.$transaction((tx) =>
            emitEvent(tx, programId, "customer.created", { email: "x@example.com" }, new Date()),
          );
          await runOutbox(prisma);
          const rows = await prisma.delivery.findMany({
            orderBy: { createdAt: "asc" },
            select: { url: true, status: true, lastStatusCode: true, lastError: true },
          });
          return new Map<string, DeliveryRow>(rows.map((r) => [r.url, r]));
        }),
      );

    test("URLs that point inside are refused when saved: 400 url_not_allowed, nothing stored", async () => {
      const cli = await stack.cliRun(
        ["webhook", "create", "--program", programId, "--url", "https://169.254.169.254/latest/"],
        { [SETTING]: "0" },
      );
      assert.equal(cli.code, 1, cli.stdout);
      assert.equal((cli.json?.error as { code?: string })?.code, "url_not_allowed", cli.stdout);
      await withSetting(false, () =>
        stack.withPrisma(async (prisma) => {
          const before = await prisma.webhook.count();
          for (const url of REFUSED_AT_CREATION) {
            for (const attempt of [
              () => createWebhook(prisma, { programId, url }),
              () => setPushEndpoint(prisma, { programId, url }),
            ]) {
              await assert.rejects(attempt(), (err: unknown) => {
                assert.ok(err instanceof AppError, String(err));
                assert.deepEqual(
                  [err.status, err.code, err.errors?.map((e) => e.path)],
                  [400, "url_not_allowed", ["url"]],
                  url,
                );
                return true;
              });
            }
          }
          assert.equal(await prisma.webhook.count(), before);
          assert.equal((await prisma.program.findUniqueOrThrow({ where: { id: programId } })).pushEndpointUrl, null);
          // A public https URL is fine (a name that does not resolve here is checked again at delivery).
          await createWebhook(prisma, {
            programId: (await createProgram(prisma, { name: "Other" })).programId,
            url: "https://8.8.8.8/hook",
          });
        }),
      );
      // The development setting admits loopback, over http too, and nothing else: private stays refused.
      await withSetting(true, () =>
        stack.withPrisma(async (prisma) => {
          await assert.rejects(
            createWebhook(prisma, { programId, url: "http://10.0.0.1/hook" }),
            (err: unknown) => err instanceof AppError && err.code === "url_not_allowed",
          );
          await assert.rejects(
            createWebhook(prisma, { programId, url: "https://169.254.169.254/" }),
            (err: unknown) => err instanceof AppError && err.code === "url_not_allowed",
          );
        }),
      );
    });

    test("the delivery log does not tell a closed port from a reset connection or a TLS failure", async () => {
      const rows = await eventThenDeliver(true);
      assert.equal(rows.get(urls.ok)?.status, "delivered");
      for (const which of ["closed", "reset", "rebind"] as const) {
        const row = rows.get(urls[which]);
        assert.ok(row, `no delivery to ${which}`);
        assert.deepEqual(
          [row.lastStatusCode, row.lastError],
          [null, "connection failed"],
          `${which}: ${JSON.stringify(row)}`,
        );
      }
    });

    test("at delivery the address is checked again: stored internal URLs are not connected to", async () => {
      const seen = receiver.received.length;
      const rows = await eventThenDeliver(false);
      for (const which of ["ok", "closed", "reset", "rebind"] as const) {
        const row = rows.get(urls[which]);
        assert.ok(row, `no delivery to ${which}`);
        assert.deepEqual(
          [row.lastStatusCode, row.lastError],
          [null, "address not allowed"],
          `${which}: ${JSON.stringify(row)}`,
        );
        assert.notEqual(row.status, "delivered");
      }
      assert.equal(receiver.received.length, seen, "nothing reached the loopback receiver");
    });
  });
}
