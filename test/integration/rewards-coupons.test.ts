/**
 * Rewards (catalogue, redemption) and coupons (pools, CSV import, assignment) over HTTP against the built app,
 * with the fixtures made through the admin CLI. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BACKENDS, customerPath, openStack, type AppInstance, type Stack, type Fixtures } from "../support/stack";
import { newEmail, TWO_PROGRAMS } from "../support/fixtures";
import { assertProblem, ISO_MS } from "../support/assertions";

const REWARD_FIELDS = [
  "active",
  "costPoints",
  "createdAt",
  "description",
  "id",
  "image",
  "name",
  "programId",
  "stock",
  "updatedAt",
];
const REDEMPTION_FIELDS = [
  "cancelReason",
  "cancelledAt",
  "code",
  "createdAt",
  "customerId",
  "id",
  "metadata",
  "points",
  "rewardId",
  "status",
  "transactionId",
];
const CODE = /^[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}$/; // no 0/O/1/I
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

for (const backend of BACKENDS) {
  describe(`Rewards and coupons [${backend}]`, () => {
    let stack: Stack<Fixtures<typeof TWO_PROGRAMS>>;
    let app: AppInstance;
    const files = mkdtempSync(path.join(os.tmpdir(), "loyalty-codes-"));
    type Ids = "mug" | "coffee" | "sticker" | "retired" | "foreign" | "welcome" | "forever" | "empty" | "foreignPool";
    const id = {} as Record<Ids, string>;
    const welcomeCodes = ["WELCOME-A", "WELCOME-B", "WELCOME-C", "WELCOME-D", "WELCOME-E"];
    let firstImport: Record<string, unknown>;
    let firstImportStderr = "";
    let reImport: Record<string, unknown>;
    const p = () => `/v1/programs/${stack.programId}`;
    const c = (email: string) => customerPath(stack.programId, email);
    const api = (...args: Parameters<AppInstance["api"]>) => app.api(...args);

    /** A new customer of program A with `points` (earned through the API). */
    async function customer(label: string, points = 0): Promise<string> {
      const email = newEmail(label);
      assert.equal(
        (
          await api("POST", `${p()}/integrations/api`, {
            body: [{ email, feature: "user", payload: { firstName: label } }],
          })
        ).status,
        201,
      );
      if (points > 0)
        assert.equal((await api("POST", `${c(email)}/balance/increase`, { body: { points } })).status, 200);
      return email;
    }
    const balanceOf = async (email: string) => (await api("GET", c(email))).json.loyaltyData.balance as number;
    const rewardsById = async () =>
      new Map(
        ((await api("GET", `${p()}/rewards`)).json.data as { id: string; stock: number | null }[]).map((r) => [
          r.id,
          r,
        ]),
      );
    const stockOf = async (rewardId: string) => (await rewardsById()).get(rewardId)?.stock;

    before(async () => {
      stack = await openStack(backend, TWO_PROGRAMS);
      const loyalty = stack.loyalty;
      const reward = async (...args: string[]) => String((await loyalty("reward", "create", ...args)).rewardId);
      const pool = async (...args: string[]) => String((await loyalty("coupon-pool", "create", ...args)).couponPoolId);
      const A = stack.programId;
      [id.mug, id.coffee, id.sticker, id.retired, id.foreign, id.welcome, id.forever, id.empty, id.foreignPool] =
        (await stack.together(
          () =>
            reward(
              "--program",
              A,
              "--name",
              "Mug",
              "--cost-points",
              "100",
              "--stock",
              "3",
              "--description",
              "A mug",
              "--image",
              "https://img.example.com/mug.png",
            ),
          () => reward("--program", A, "--name", "Coffee", "--cost-points", "30"),
          () => reward("--program", A, "--name", "Sticker", "--cost-points", "5", "--stock", "0"),
          () => reward("--program", A, "--name", "Retired", "--cost-points", "10"),
          () => reward("--program", stack.otherProgramId, "--name", "B only", "--cost-points", "1"),
          () => pool("--program", A, "--name", "Welcome", "--valid-days", "30"),
          () => pool("--program", A, "--name", "No expiry"),
          () => pool("--program", A, "--name", "Empty"),
          () => pool("--program", stack.otherProgramId, "--name", "B pool"),
        )) as [string, string, string, string, string, string, string, string, string];
      // Deactivated (and renamed, repriced) with `reward update`: gone from the catalogue, refused at redemption.
      await loyalty(
        "reward",
        "update",
        "--program",
        A,
        "--id",
        id.retired,
        "--active",
        "false",
        "--name",
        "Retired cap",
        "--cost-points",
        "12",
      );

      // A header, blank lines, surrounding spaces and a duplicate: 5 distinct codes.
      const csv = path.join(files, "welcome.csv");
      writeFileSync(
        csv,
        ["code", ...welcomeCodes.slice(0, 3), "", `  ${welcomeCodes[3]}  `, welcomeCodes[0], welcomeCodes[4], ""].join(
          "\n",
        ),
      );
      const run = await stack.cliRun(["coupon-pool", "import", "--pool", id.welcome, "--file", csv]);
      assert.equal(run.code, 0, run.stderr);
      firstImport = run.json!;
      firstImportStderr = run.stderr;
      reImport = (await stack.cliRun(["coupon-pool", "import", "--pool", id.welcome, "--file", csv])).json!;

      const one = path.join(files, "one.csv");
      writeFileSync(one, "FOREVER-1\n");
      await stack.together(
        () => loyalty("coupon-pool", "import", "--pool", id.forever, "--file", one),
        () => loyalty("coupon-pool", "import", "--pool", id.foreignPool, "--file", one),
      );
      app = await stack.start();
    });
    after(async () => {
      await stack?.close();
      rmSync(files, { recursive: true, force: true });
    });

    test("coupon-pool import: header skipped, codes trimmed and deduplicated, a re-import adds nothing", () => {
      assert.deepEqual({ imported: firstImport.imported, skipped: firstImport.skipped }, { imported: 5, skipped: 1 });
      assert.match(firstImportStderr, /imported 5 of 6 codes read/);
      assert.deepEqual({ imported: reImport.imported, skipped: reImport.skipped }, { imported: 0, skipped: 6 });
    });

    test("GET /rewards: the active rewards only, cheapest first, every field", async () => {
      const res = await api("GET", `${p()}/rewards`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      assert.deepEqual(Object.keys(res.json), ["data"]);
      assert.deepEqual(
        res.json.data.map((r: { name: string }) => r.name),
        ["Sticker", "Coffee", "Mug"],
      );
      for (const r of res.json.data) {
        assert.deepEqual(Object.keys(r).sort(), REWARD_FIELDS);
        assert.equal(r.programId, stack.programId);
        assert.equal(r.active, true);
        assert.match(r.createdAt, ISO_MS);
        assert.match(r.updatedAt, ISO_MS);
      }
      const mug = res.json.data.find((r: { id: string }) => r.id === id.mug);
      assert.deepEqual(
        { costPoints: mug.costPoints, stock: mug.stock, description: mug.description, image: mug.image },
        { costPoints: 100, stock: 3, description: "A mug", image: "https://img.example.com/mug.png" },
      );
      const coffee = res.json.data.find((r: { id: string }) => r.id === id.coffee);
      assert.deepEqual(
        { stock: coffee.stock, description: coffee.description, image: coffee.image },
        { stock: null, description: null, image: null },
      );

      const other = await api("GET", `/v1/programs/${stack.otherProgramId}/rewards`, { key: stack.otherKey });
      assert.deepEqual(
        other.json.data.map((r: { id: string }) => r.id),
        [id.foreign],
      );
      assertProblem(await api("GET", `${p()}/rewards`, { key: null }), 401, "unauthorized");
      assertProblem(await api("GET", `${p()}/rewards`, { key: "lk_live_nope" }), 401, "unauthorized");
      assertProblem(await api("GET", `${p()}/rewards`, { key: stack.otherKey }), 404, "not_found");
    });

    test("redeem: 201 spends costPoints through the ledger (type redeem), takes one unit, issues a code", async () => {
      const email = await customer("redeem", 250);
      const stockBefore = (await stockOf(id.mug))!;
      const res = await api("POST", `${c(email)}/rewards/${id.mug}/redeem`, {
        body: { metadata: { store: "Lyon", till: 4 } },
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.json).sort(), ["balance", "redemption"]);
      const r = res.json.redemption;
      assert.deepEqual(Object.keys(r).sort(), REDEMPTION_FIELDS);
      assert.equal(res.json.balance, 150);
      assert.equal(r.rewardId, id.mug);
      assert.equal(r.points, 100);
      assert.match(r.code, CODE);
      assert.deepEqual(r.metadata, { store: "Lyon", till: 4 });
      assert.match(r.createdAt, ISO_MS);
      const customerJson = (await api("GET", c(email))).json;
      assert.equal(r.customerId, customerJson.id);
      assert.equal(customerJson.loyaltyData.balance, 150);

      const [entry] = (await api("GET", `${c(email)}/transactions?limit=1`)).json.data;
      assert.equal(entry.id, r.transactionId);
      assert.deepEqual(
        { type: entry.type, points: entry.points, balanceAfter: entry.balanceAfter, source: entry.source },
        { type: "redeem", points: -100, balanceAfter: 150, source: "api" },
      );
      assert.match(entry.actor, /^api_key:/);
      assert.equal(await stockOf(id.mug), stockBefore - 1);

      // An unlimited reward keeps stock null; the body may be left out entirely.
      const coffee = await api("POST", `${c(email)}/rewards/${id.coffee}/redeem`, {});
      assert.equal(coffee.status, 201, coffee.text);
      assert.equal(coffee.json.balance, 120);
      assert.equal(coffee.json.redemption.metadata, null);
      assert.notEqual(coffee.json.redemption.code, r.code);
      assert.equal(await stockOf(id.coffee), null);
    });

    test("redeem with Idempotency-Key: a retry replays, with no second spend nor second unit", async () => {
      const email = await customer("idem", 100);
      const headers = { "Idempotency-Key": `redeem-${email}` };
      const first = await api("POST", `${c(email)}/rewards/${id.coffee}/redeem`, {
        body: { metadata: { n: 1 } },
        headers,
      });
      assert.equal(first.status, 201);
      const again = await api("POST", `${c(email)}/rewards/${id.coffee}/redeem`, {
        body: { metadata: { n: 1 } },
        headers,
      });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.json, first.json);
      assert.equal(await balanceOf(email), 70);
      assertProblem(
        await api("POST", `${c(email)}/rewards/${id.coffee}/redeem`, { body: { metadata: { n: 2 } }, headers }),
        409,
        "idempotency_conflict",
      );
      assert.equal(await balanceOf(email), 70);
    });

    test("redeem refusals: 409 insufficient_balance / reward_out_of_stock / reward_inactive, 404s; nothing changes", async () => {
      const poor = await customer("poor", 20);
      const noMoney = assertProblem(
        await api("POST", `${c(poor)}/rewards/${id.coffee}/redeem`, { body: {} }),
        409,
        "insufficient_balance",
      );
      assert.ok(noMoney.detail.length > 0);
      assert.equal(await balanceOf(poor), 20);
      assert.equal((await api("GET", `${c(poor)}/transactions`)).json.data.length, 1, "no ledger entry was written");

      const rich = await customer("rich", 10_000);
      assertProblem(
        await api("POST", `${c(rich)}/rewards/${id.sticker}/redeem`, { body: {} }),
        409,
        "reward_out_of_stock",
      );
      // Take the Mug's remaining units, then one more.
      let left = (await stockOf(id.mug))!;
      while (left-- > 0)
        assert.equal((await api("POST", `${c(rich)}/rewards/${id.mug}/redeem`, { body: {} })).status, 201);
      const balance = await balanceOf(rich);
      assertProblem(await api("POST", `${c(rich)}/rewards/${id.mug}/redeem`, { body: {} }), 409, "reward_out_of_stock");
      assert.equal(await stockOf(id.mug), 0, "stock never below zero");
      assertProblem(await api("POST", `${c(rich)}/rewards/${id.retired}/redeem`, { body: {} }), 409, "reward_inactive");
      for (const reward of [id.foreign, UNKNOWN_ID, "not-a-uuid"]) {
        assertProblem(await api("POST", `${c(rich)}/rewards/${reward}/redeem`, { body: {} }), 404, "reward_not_found");
      }
      assert.equal(await balanceOf(rich), balance, "no refusal spent anything");

      assertProblem(
        await api("POST", `${c(newEmail("nobody"))}/rewards/${id.coffee}/redeem`, { body: {} }),
        404,
        "customer_not_found",
      );
      const extra = assertProblem(
        await api("POST", `${c(rich)}/rewards/${id.coffee}/redeem`, { body: { metadata: {}, points: 1 } }),
        400,
        "validation_failed",
      );
      // An unknown field is named by the object that holds it (the body: path ""), as everywhere in /v1.
      assert.deepEqual(
        extra.errors.map((e: { path: string }) => e.path),
        [""],
      );
      assert.match(extra.errors[0].message, /points/);
      assertProblem(
        await api("POST", `${c(rich)}/rewards/${id.coffee}/redeem`, { body: { metadata: "x" } }),
        400,
        "validation_failed",
      );
      // Text PostgreSQL cannot store is refused up front, not a 500.
      for (const metadata of [{ note: "a\u0000b" }, { note: "\ud800" }, { "k\u0000": 1 }]) {
        assertProblem(
          await api("POST", `${c(rich)}/rewards/${id.coffee}/redeem`, { body: { metadata } }),
          400,
          "validation_failed",
        );
      }
      assertProblem(
        await api("POST", `${c(rich)}/rewards/${id.coffee}/redeem`, { body: [] }),
        400,
        "validation_failed",
      );
      assertProblem(
        await api("POST", `${c(rich)}/rewards/${id.coffee}/redeem`, {
          body: "{",
          headers: { "content-type": "application/json" },
        }),
        400,
        "invalid_json",
      );
      assertProblem(
        await api("POST", `${c(rich)}/rewards/${id.coffee}/redeem`, {
          body: "metadata=1",
          headers: { "content-type": "text/plain" },
        }),
        415,
        "unsupported_media_type",
      );
      assertProblem(
        await api("POST", `${c(rich)}/rewards/${id.coffee}/redeem`, { key: null, body: {} }),
        401,
        "unauthorized",
      );
      assertProblem(
        await api("POST", `${c(rich)}/rewards/${id.coffee}/redeem`, { key: stack.otherKey, body: {} }),
        404,
        "not_found",
      );
      assert.equal(await balanceOf(rich), balance);
    });

    test("coupons: 201 with the next free code, each code to one customer, expiry from the pool's valid days", async () => {
      const seen = new Set<string>();
      for (let i = 0; i < welcomeCodes.length; i++) {
        const email = await customer(`coupon${i}`);
        const res = await api("POST", `${c(email)}/coupons`, { body: { couponPoolId: id.welcome } });
        assert.equal(res.status, 201, res.text);
        assert.deepEqual(Object.keys(res.json), ["coupon"]);
        const coupon = res.json.coupon;
        assert.deepEqual(Object.keys(coupon).sort(), ["assignedAt", "code", "couponPoolId", "expiresAt"]);
        assert.equal(coupon.couponPoolId, id.welcome);
        assert.ok(welcomeCodes.includes(coupon.code), coupon.code);
        assert.ok(!seen.has(coupon.code), "a code goes to one customer only");
        seen.add(coupon.code);
        assert.match(coupon.assignedAt, ISO_MS);
        assert.match(coupon.expiresAt, ISO_MS);
        assert.equal(Date.parse(coupon.expiresAt) - Date.parse(coupon.assignedAt), 30 * 86_400_000);
        assert.ok(Math.abs(Date.parse(coupon.assignedAt) - Date.now()) < 60_000);
      }
      const late = await customer("late");
      assertProblem(
        await api("POST", `${c(late)}/coupons`, { body: { couponPoolId: id.welcome } }),
        409,
        "coupon_pool_empty",
      );
      assertProblem(
        await api("POST", `${c(late)}/coupons`, { body: { couponPoolId: id.empty } }),
        409,
        "coupon_pool_empty",
      );

      const forever = await api("POST", `${c(late)}/coupons`, {
        body: { couponPoolId: id.forever },
        headers: { "Idempotency-Key": `coupon-${late}` },
      });
      assert.equal(forever.status, 201);
      assert.deepEqual(
        { code: forever.json.coupon.code, expiresAt: forever.json.coupon.expiresAt },
        { code: "FOREVER-1", expiresAt: null },
      );
      const replay = await api("POST", `${c(late)}/coupons`, {
        body: { couponPoolId: id.forever },
        headers: { "Idempotency-Key": `coupon-${late}` },
      });
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(replay.json, forever.json);
    });

    test("coupon refusals: 404 coupon_pool_not_found (unknown or another program's), 404 customer_not_found, 400, 401", async () => {
      const email = await customer("nopool");
      assertProblem(
        await api("POST", `${c(email)}/coupons`, { body: { couponPoolId: id.foreignPool } }),
        404,
        "coupon_pool_not_found",
      );
      assertProblem(
        await api("POST", `${c(email)}/coupons`, { body: { couponPoolId: UNKNOWN_ID } }),
        404,
        "coupon_pool_not_found",
      );
      assertProblem(
        await api("POST", `${c(newEmail("ghost"))}/coupons`, { body: { couponPoolId: id.welcome } }),
        404,
        "customer_not_found",
      );
      const bad = assertProblem(
        await api("POST", `${c(email)}/coupons`, { body: { couponPoolId: "nope", extra: 1 } }),
        400,
        "validation_failed",
      );
      assert.deepEqual(bad.errors.map((e: { path: string }) => e.path).sort(), ["", "couponPoolId"]);
      assert.match(bad.errors.find((e: { path: string }) => e.path === "").message, /extra/);
      const missing = assertProblem(await api("POST", `${c(email)}/coupons`, { body: {} }), 400, "validation_failed");
      assert.deepEqual(
        missing.errors.map((e: { path: string }) => e.path),
        ["couponPoolId"],
      );
      assertProblem(await api("POST", `${c(email)}/coupons`, {}), 415, "unsupported_media_type");
      assertProblem(
        await api("POST", `${c(email)}/coupons`, { key: null, body: { couponPoolId: id.welcome } }),
        401,
        "unauthorized",
      );
      assertProblem(
        await api("POST", `${c(email)}/coupons`, { key: stack.otherKey, body: { couponPoolId: id.foreignPool } }),
        404,
        "not_found",
      );
    });

    test("OpenAPI lists the reward and coupon operations", async () => {
      const doc = (await api("GET", "/v1/openapi.json", { key: null })).json;
      assert.ok(doc.paths["/v1/programs/{programId}/rewards"].get);
      assert.ok(doc.paths["/v1/programs/{programId}/customers/{email}/rewards/{rewardId}/redeem"].post);
      assert.ok(doc.paths["/v1/programs/{programId}/customers/{email}/coupons"].post);
      for (const schema of ["Reward", "RewardList", "RedeemRequest", "RedeemResult", "CouponRequest", "CouponResult"]) {
        assert.ok(doc.components.schemas[schema], schema);
      }
    });

    test("the database agrees: stock, redemptions, ledger and balances; assigned coupons", async () => {
      await stack.stopAll(); // PGlite: the directory is free for this process
      const [row] = await stack.query<Record<string, number>>(
        `SELECT (SELECT stock FROM "Reward" WHERE id = $1) AS "mugStock",
                (SELECT count(*)::int FROM "Redemption" WHERE "rewardId" = $1) AS "mugRedemptions",
                (SELECT count(*)::int FROM "Redemption" r JOIN "LedgerEntry" e ON e.id = r."ledgerEntryId"
                   WHERE e.type = 'redeem' AND e.points = -r.points AND e."customerId" = r."customerId") AS "linked",
                (SELECT count(*)::int FROM "Redemption") AS "redemptions",
                (SELECT count(*)::int FROM "LoyaltyData" l
                   WHERE l.balance < 0 OR l.balance <> (SELECT coalesce(sum(points), 0) FROM "LedgerEntry" e WHERE e."customerId" = l."customerId")) AS "broken",
                (SELECT count(DISTINCT code)::int FROM "Redemption") AS "codes",
                (SELECT count(*)::int FROM "Coupon" WHERE "poolId" = $2 AND "customerId" IS NOT NULL) AS "welcomeAssigned",
                (SELECT count(DISTINCT "customerId")::int FROM "Coupon" WHERE "poolId" = $2) AS "welcomeCustomers"`,
        [id.mug, id.welcome],
      );
      assert.deepEqual(row, {
        mugStock: 0,
        mugRedemptions: 3,
        linked: row!.redemptions,
        redemptions: row!.redemptions,
        broken: 0,
        codes: row!.redemptions,
        welcomeAssigned: 5,
        welcomeCustomers: 5,
      });
    });

    test("coupon-pool import takes 100,000 codes in seconds (chunked multi-row INSERT … ON CONFLICT DO NOTHING)", async (t) => {
      const big = path.join(files, "big.csv");
      writeFileSync(
        big,
        `code\n${Array.from({ length: 100_000 }, (_, i) => `BULK-${i.toString(36).toUpperCase()}-${i}`).join("\n")}\n`,
      );
      const poolId = String(
        (await stack.loyalty("coupon-pool", "create", "--program", stack.programId, "--name", "Bulk")).couponPoolId,
      );
      const first = await stack.cliRun(["coupon-pool", "import", "--pool", poolId, "--file", big]);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(
        { imported: first.json!.imported, skipped: first.json!.skipped },
        { imported: 100_000, skipped: 0 },
      );
      assert.ok(
        first.stderr.split("\n").filter((l) => l.startsWith("imported ")).length >= 10,
        "progress lines on stderr",
      );
      const again = await stack.cliRun(["coupon-pool", "import", "--pool", poolId, "--file", big]);
      assert.deepEqual(
        { imported: again.json!.imported, skipped: again.json!.skipped },
        { imported: 0, skipped: 100_000 },
      );
      const seconds = Number(first.json!.seconds);
      t.diagnostic(
        `[${backend}] 100,000 codes: import ${seconds} s (${Math.round(100_000 / seconds)} codes/s), re-import ${again.json!.seconds} s; CLI process ${first.ms} ms`,
      );
      assert.ok(seconds < 60, `import took ${seconds} s`);
      const [count] = await stack.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Coupon" WHERE "poolId" = $1`, [
        poolId,
      ]);
      assert.equal(count?.n, 100_000);
    });

    test("CLI refusals: bad flags, unknown pool, an invalid code in the file, a taken name, another program's reward", async () => {
      const one = path.join(files, "one.csv");
      const invalid = path.join(files, "invalid.csv");
      writeFileSync(invalid, "GOOD-1\nbad code with spaces\n");
      const runs = await stack.together(
        () => stack.cliRun(["reward", "create", "--program", stack.programId, "--name", "Free", "--cost-points", "0"]),
        () => stack.cliRun(["coupon-pool", "import", "--pool", UNKNOWN_ID, "--file", one]),
        () => stack.cliRun(["coupon-pool", "import", "--pool", id.empty, "--file", invalid]),
        () => stack.cliRun(["coupon-pool", "create", "--program", stack.programId, "--name", "Welcome"]),
        () =>
          stack.cliRun(["reward", "update", "--program", stack.otherProgramId, "--id", id.mug, "--active", "false"]),
      );
      assert.deepEqual(
        runs.map((r) => [r.code, (r.json?.error as { code: string } | undefined)?.code]),
        [
          [1, "invalid_flags"],
          [1, "coupon_pool_not_found"],
          [1, "validation_failed"],
          [1, "conflict"],
          [1, "reward_not_found"], // a reward is updated only within its program
        ],
      );
    });
  });
}
