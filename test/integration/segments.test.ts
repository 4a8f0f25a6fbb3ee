/**
 * Declared customer attributes and segments (issue 24) over HTTP against the built app, on PGlite and (with
 * TEST_DATABASE_URL) PostgreSQL, one stack per backend, on a test program (clock 2026-01-01, frozen between
 * advances, so memberDays and event windows are exact):
 *   customer attributes declared, set through the user item (refused by path when undeclared or mistyped, a null
 *   removes one), shown by the customer's GET, cleared by erasure, read by campaign conditions (checked at creation);
 *   each filter kind selecting exactly the customers it should, preview count = members listed page by page;
 *   a customer's segments; incremental sync (updatedSince); segment.entered / segment.left exactly once, by an
 *   event and by time alone (a clock advance past the window).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BACKENDS, cliString, customerPath, openStack, type Fixtures, type Stack } from "../support/stack";
import { fixtures, type FixturePart } from "../support/fixtures";
import { assertProblem } from "../support/assertions";

const START = "2026-01-01T00:00:00.000Z";

const segmentProgram = (): FixturePart<unknown, { seg: { programId: string; key: string } }> => ({
  key: `segmentProgram ${START}`,
  async make(tools) {
    const programId = cliString(
      (await tools.loyalty("program", "create", "--name", "Segments", "--test", "--clock", START)).programId,
      "programId",
    );
    await tools.loyalty(
      ...["tier", "create", "--program", programId, "--name", "Bronze", "--required-points", "0", "--factor", "1"],
    );
    await tools.loyalty(
      ...["tier", "create", "--program", programId, "--name", "Gold", "--required-points", "500", "--factor", "1"],
    );
    const key = await tools.loyalty(
      ...["apikey", "create", "--program", programId, "--name", "test", "--rate-limit", "100000"],
    );
    return { seg: { programId, key: cliString(key.key, "key") } };
  },
});

const SPEC = fixtures("segments", segmentProgram());

for (const backend of BACKENDS) {
  describe(`Segments [${backend}]`, () => {
    let app: Stack<Fixtures<typeof SPEC>>;
    before(async () => {
      app = await openStack(backend, SPEC);
      await app.start();
    });
    after(() => app?.close());

    const A = () => `/v1/programs/${app.seg.programId}`;
    const call = (method: string, path: string, body?: unknown) =>
      app.api(method, path, { key: app.seg.key, ...(body === undefined ? {} : { body }) });
    const ok = async (method: string, path: string, body: unknown, status = 200) => {
      const res = await call(method, path, body);
      assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
      return res.json;
    };
    const users = (items: { email: string; payload: object }[]) =>
      call(
        "POST",
        `${A()}/integrations/api`,
        items.map((i) => ({ ...i, feature: "user" })),
      );
    const preview = async (filter: object) =>
      (await ok("POST", `${A()}/segments/preview`, { filter })) as {
        count: number;
        sample: { customerId: string; email: string }[];
      };
    const emails = (sample: { email: string }[]) => sample.map((s) => s.email).sort();
    /** The segment.* webhooks of a customer (PostgreSQL: SQL beside the running app; PGlite allows none). */
    const eventsOf = async (type: string, email: string) =>
      backend === "postgres"
        ? ((
            await app.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM "Event" e JOIN "Customer" c ON c.id = (e.data->>'customerId')::uuid
               WHERE e.type = $1 AND c.email = $2`,
              [type, email],
            )
          )[0]!.n as number)
        : null;
    /** Moves the test clock; answers the webhooks the advance wrote. */
    const advance = async (to: string) =>
      ((await ok("POST", `${A()}/clock/advance`, { to })) as { applied: { webhooks: number } }).applied.webhooks;

    const ana = "ana@example.com";
    const bo = "bo@example.com";
    const cy = "cy@example.com";

    test("customer attributes: declared, set by path-checked user items, shown, read by campaigns", async () => {
      await ok("PUT", `${A()}/customer-attributes/vip`, { type: "boolean" });
      await ok("PUT", `${A()}/customer-attributes/score`, { type: "number" });
      await ok("PUT", `${A()}/customer-attributes/store`, { type: "string" });
      assertProblem(await call("PUT", `${A()}/customer-attributes/tier`, { type: "string" }), 400, "validation_failed");
      const list = await ok("GET", `${A()}/customer-attributes`, undefined);
      assert.deepEqual(
        list.data.map((a: { name: string }) => a.name),
        ["score", "store", "vip"],
      );
      const bad = await users([{ email: ana, payload: { customAttributes: { vip: "yes", nope: 1 } } }]);
      assertProblem(bad, 400, "validation_failed");
      assert.deepEqual(bad.json.errors.map((e: { path: string }) => e.path).sort(), [
        "[0].payload.customAttributes.nope",
        "[0].payload.customAttributes.vip",
      ]);
      let res = await users([
        {
          email: ana,
          payload: {
            language: "es",
            utmSource: "spring",
            birthdate: "1990-04-23",
            customAttributes: { vip: true, score: 5, store: "Madrid" },
          },
        },
        { email: bo, payload: { language: "en", birthdate: "2001-12-01", customAttributes: { score: 1 } } },
      ]);
      assert.equal(res.status, 201, res.text);
      res = await users([{ email: ana, payload: { customAttributes: { store: null } } }]);
      assert.equal(res.status, 201, res.text);
      const got = await ok("GET", customerPath(app.seg.programId, ana), undefined);
      assert.deepEqual(got.customAttributes, { vip: true, score: 5 });

      await ok("PUT", `${A()}/event-types/purchase`, { attributes: { total: { type: "number", required: true } } });
      const campaign = (conditions: object) =>
        call("POST", `${A()}/campaigns`, {
          name: "vip",
          trigger: { event: "purchase" },
          conditions,
          effects: [{ type: "award_points", points: 10, tierFactor: false }],
        });
      assert.equal((await campaign({ attr: "customer.vip", op: "eq", value: true })).status, 201);
      const wrong = await campaign({ attr: "customer.nope", op: "eq", value: true });
      assertProblem(wrong, 400, "validation_failed");
      assert.equal(wrong.json.errors[0].path, "conditions.attr");
      const unknown = await campaign({ attr: "customer.segment", op: "in", value: ["No such segment"] });
      assertProblem(unknown, 400, "validation_failed");
      assert.equal(unknown.json.errors[0].path, "conditions.value[0]");
    });

    test("each filter kind selects its customers; preview count = members listed; a customer's segments", async () => {
      // ana: 2 purchases (30 + 20), bo: 1 purchase of 100 and 600 points (Gold); cy: nothing.
      assert.equal((await users([{ email: cy, payload: {} }])).status, 201);
      const buy = (email: string, total: number) =>
        ok("POST", `${customerPath(app.seg.programId, email)}/events`, { type: "purchase", attributes: { total } });
      await buy(ana, 30);
      await buy(ana, 20);
      await buy(bo, 100);
      await ok("POST", `${customerPath(app.seg.programId, bo)}/balance/increase`, { points: 600 });
      const cases: [object, string[]][] = [
        [{ attr: "customer.tier", op: "eq", value: "Gold" }, [bo]],
        [{ attr: "customer.balance", op: "gte", value: 600 }, [bo]],
        [{ attr: "customer.memberDays", op: "gte", value: 0 }, [ana, bo, cy]],
        [{ attr: "customer.memberDays", op: "gte", value: 1 }, []],
        [{ attr: "customer.language", op: "in", value: ["es", "fr"] }, [ana]],
        [{ attr: "customer.utmSource", op: "eq", value: "spring" }, [ana]],
        [{ attr: "customer.birthdate", op: "lt", value: "2000-01-01" }, [ana]],
        [{ attr: "customer.vip", op: "eq", value: true }, [ana]],
        [{ not: { attr: "customer.vip", op: "eq", value: true } }, [bo, cy]],
        [{ attr: "customer.score", op: "gt", value: 2 }, [ana]],
        // The compiler's rewrites (filter.ts): a number attribute by JSON path (not `ne`), the tier by id (a name no
        // tier has matches no one), "has an event in the window" as a semi-join.
        [{ attr: "customer.score", op: "lte", value: 1 }, [bo]],
        [{ attr: "customer.score", op: "eq", value: 5 }, [ana]],
        [{ attr: "customer.score", op: "ne", value: 5 }, [bo]],
        [{ attr: "customer.tier", op: "in", value: ["Gold", "Nope"] }, [bo]],
        [{ attr: "customer.tier", op: "eq", value: "Nope" }, []],
        [{ not: { attr: "customer.tier", op: "eq", value: "Nope" } }, [ana, bo, cy]],
        [{ attr: "events.purchase.count", window: "P90D", op: "gt", value: 0 }, [ana, bo]],
        [{ attr: "events.purchase.lastAt", op: "exists", value: true }, [ana, bo]],
        [
          {
            all: [
              { attr: "customer.tier", op: "in", value: ["Gold", "Nope"] },
              { attr: "customer.score", op: "gte", value: 1 },
              { attr: "events.purchase.count", window: "P90D", op: "ne", value: 0 },
            ],
          },
          [bo],
        ],
        [{ attr: "customer.store", op: "exists", value: false }, [ana, bo, cy]],
        [{ attr: "customer.lastActivityAt", op: "exists", value: true }, [ana, bo]],
        [{ attr: "events.purchase.count", op: "gte", value: 2 }, [ana]],
        [{ attr: "events.purchase.count", window: "P90D", op: "eq", value: 0 }, [cy]],
        [{ attr: "events.purchase.sum.total", window: "P30D", op: "gte", value: 50 }, [ana, bo]],
        [{ attr: "events.purchase.lastAt", op: "gte", value: START }, [ana, bo]],
        // Event leaves under not / any / exists: false (the event read may be joined only when the filter needs it).
        [{ not: { attr: "events.purchase.count", window: "P90D", op: "gte", value: 1 } }, [cy]],
        [{ attr: "events.purchase.lastAt", op: "exists", value: false }, [cy]],
        [{ attr: "events.purchase.count", op: "lt", value: 2 }, [bo, cy]],
        [
          {
            any: [
              { attr: "events.purchase.count", op: "gte", value: 2 },
              { attr: "customer.tier", op: "eq", value: "Gold" },
            ],
          },
          [ana, bo],
        ],
        [
          {
            all: [
              { attr: "events.purchase.sum.total", op: "gt", value: 40 },
              { not: { attr: "customer.tier", op: "eq", value: "Gold" } },
            ],
          },
          [ana],
        ],
        [
          {
            all: [
              { attr: "customer.memberDays", op: "gte", value: 0 },
              {
                any: [
                  { attr: "customer.tier", op: "eq", value: "Gold" },
                  { attr: "customer.vip", op: "eq", value: true },
                ],
              },
              { attr: "events.purchase.count", window: "P90D", op: "gte", value: 1 },
            ],
          },
          [ana, bo],
        ],
      ];
      for (const [filter, want] of cases) {
        const p = await preview(filter);
        assert.deepEqual(emails(p.sample), [...want].sort(), JSON.stringify(filter));
        assert.equal(p.count, want.length, JSON.stringify(filter));
      }
      const bad = await call("POST", `${A()}/segments/preview`, {
        filter: {
          all: [
            { attr: "customer.nope", op: "eq", value: 1 },
            { attr: "events.purchase.count", window: "P1X", op: "eq", value: 1 },
          ],
        },
      });
      assertProblem(bad, 400, "validation_failed");
      assert.deepEqual(bad.json.errors.map((e: { path: string }) => e.path).sort(), [
        "filter.all[0].attr",
        "filter.all[1].window",
      ]);

      // Members page by page (limit 1) = the preview's count.
      const all = await ok(
        "POST",
        `${A()}/segments`,
        {
          name: "Everyone",
          filter: { attr: "customer.memberDays", op: "gte", value: 0 },
        },
        201,
      );
      const listed: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await ok(
          "GET",
          `${A()}/segments/${all.id}/members?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          undefined,
        );
        listed.push(...page.data.map((m: { email: string }) => m.email));
        cursor = page.nextCursor;
      } while (cursor);
      assert.equal(listed.length, (await preview(all.filter)).count);
      assert.deepEqual(listed.sort(), [ana, bo, cy]);
      const mine = await ok("GET", `${customerPath(app.seg.programId, cy)}/segments`, undefined);
      assert.deepEqual(
        mine.data.map((s: { name: string }) => s.name),
        ["Everyone"],
      );
    });

    test("entered and left exactly once, by an event and by time; incremental sync", async () => {
      const buyers = await ok(
        "POST",
        `${A()}/segments`,
        {
          name: "Bought in 90 days",
          emitEvents: true,
          filter: { attr: "events.purchase.count", window: "P90D", op: "gte", value: 1 },
        },
        201,
      );
      // Baseline: ana and bo are in at creation, no event.
      if (backend === "postgres") assert.equal(await eventsOf("segment.entered", ana), 0);
      // A campaign on customer.segment (by name) reads the filter live: ana is in, cy (no purchase yet) is not.
      await ok("PUT", `${A()}/event-types/visit`, { attributes: {} });
      const campaign = await ok(
        "POST",
        `${A()}/campaigns`,
        {
          name: "buyers' visit",
          trigger: { event: "visit" },
          conditions: { attr: "customer.segment", op: "in", value: ["Bought in 90 days"] },
          effects: [{ type: "award_points", points: 7, tierFactor: false }],
        },
        201,
      );
      await ok("POST", `${A()}/campaigns/${campaign.id}/activate`, undefined);
      const visit = async (email: string) =>
        (
          (await ok("POST", `${customerPath(app.seg.programId, email)}/events`, {
            type: "visit",
            attributes: {},
          })) as { effects: { points: number }[] }
        ).effects.map((e) => e.points);
      assert.deepEqual(await visit(ana), [7]);
      assert.deepEqual(await visit(cy), []);
      const t0 = (await ok("GET", `${A()}/clock`, undefined)).now as string;
      assert.equal(await advance("2026-01-01T00:00:30.000Z"), 0);
      // cy buys at 00:00:30: enters at the next pass (the start of the next clock advance), once, dated then.
      await ok("POST", `${customerPath(app.seg.programId, cy)}/events`, { type: "purchase", attributes: { total: 5 } });
      assert.equal(await advance("2026-01-01T00:01:00.000Z"), 1);
      assert.equal(await advance("2026-01-01T00:02:00.000Z"), 0);
      if (backend === "postgres") {
        assert.equal(await eventsOf("segment.entered", cy), 1);
        assert.equal(await eventsOf("segment.left", cy), 0);
      }
      const changes = await ok(
        "GET",
        `${A()}/segments/${buyers.id}/members?updatedSince=${encodeURIComponent(t0)}`,
        undefined,
      );
      assert.deepEqual(
        changes.data.map((c: { email: string; member: boolean }) => [c.email, c.member]),
        [[cy, true]],
      );
      // "No purchase in 90 days": nobody at its creation (all three bought at the start).
      const lapsed = await ok(
        "POST",
        `${A()}/segments`,
        {
          name: "Lapsed",
          emitEvents: true,
          filter: { attr: "events.purchase.count", window: "P90D", op: "eq", value: 0 },
        },
        201,
      );
      // Time alone: on day 91 nobody bought in 90 days; each leaves "Bought in 90 days" and enters "Lapsed" once, at
      // the instant their last purchase left the window (the advance steps to it), not at the advance's end.
      const t1 = "2026-01-01T00:02:00.000Z";
      assert.equal(await advance("2026-04-02T00:00:00.000Z"), 6);
      assert.equal(await advance("2026-04-03T00:00:00.000Z"), 0);
      if (backend === "postgres") {
        for (const who of [ana, bo, cy]) assert.equal(await eventsOf("segment.left", who), 1, who);
        assert.equal(await eventsOf("segment.entered", cy), 2);
      }
      const left = await ok(
        "GET",
        `${A()}/segments/${buyers.id}/members?updatedSince=${encodeURIComponent(t1)}`,
        undefined,
      );
      assert.deepEqual(
        left.data
          .map((c: { email: string; member: boolean; changedAt: string }) => [c.email, c.member, c.changedAt])
          .sort(),
        [
          [ana, false, "2026-04-01T00:00:00.000Z"],
          [bo, false, "2026-04-01T00:00:00.000Z"],
          [cy, false, "2026-04-01T00:00:30.000Z"],
        ].sort(),
      );
      const entered = await ok(
        "GET",
        `${A()}/segments/${lapsed.id}/members?updatedSince=${encodeURIComponent(t1)}`,
        undefined,
      );
      assert.deepEqual(
        entered.data
          .map((c: { email: string; member: boolean; changedAt: string }) => [c.email, c.member, c.changedAt])
          .sort(),
        [
          [ana, true, "2026-04-01T00:00:00.000Z"],
          [bo, true, "2026-04-01T00:00:00.000Z"],
          [cy, true, "2026-04-01T00:00:30.000Z"],
        ].sort(),
      );
      assert.equal((await preview(buyers.filter)).count, 0);
      // Within one advance: ana buys on 3 April (leaves "Lapsed" at once) and lapses again 90 days later, on 2 July;
      // an advance to 15 July sees both changes, each once, each at its instant (the old end-of-advance recompute saw
      // ana lapsed before and after, and nothing).
      await ok("POST", `${customerPath(app.seg.programId, ana)}/events`, {
        type: "purchase",
        attributes: { total: 1 },
      });
      assert.equal(await advance("2026-07-15T00:00:00.000Z"), 4);
      assert.equal(await advance("2026-07-16T00:00:00.000Z"), 0);
      const spell = await ok(
        "GET",
        `${A()}/segments/${lapsed.id}/members?updatedSince=${encodeURIComponent("2026-04-02T00:00:00.000Z")}`,
        undefined,
      );
      assert.deepEqual(
        spell.data.map((c: { email: string; member: boolean; changedAt: string }) => [c.email, c.member, c.changedAt]),
        [[ana, true, "2026-07-02T00:00:00.000Z"]],
      );
      if (backend === "postgres") {
        // left: "Bought" on 1 April, "Lapsed" on 3 April, "Bought" on 2 July; entered: the other way round.
        assert.equal(await eventsOf("segment.left", ana), 3);
        assert.equal(await eventsOf("segment.entered", ana), 3);
      }
    });
  });
}
