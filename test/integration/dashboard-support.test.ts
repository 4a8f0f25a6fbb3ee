/**
 * The dashboard as support uses it (issue 10 items 3, 4), over HTTP against the built app with real staff sessions,
 * on PGlite and (with TEST_DATABASE_URL) on PostgreSQL:
 * - one search box: e-mail exact, prefix and substring, first / last / full name, phone digits, external id, ranked
 *   exact > prefix > substring (e-mail before phone before name), never another program's customers;
 * - internal notes: support writes them, a viewer cannot, another program's staff get 403 and another program's
 *   customer 404; audited; never in the /v1 customer JSON nor in an event; deleted when the customer is erased;
 * - notification preferences and language edited by support (audited, validated);
 * - the timeline: the points movement with the staff member's name, the note, the staff action, newest first, by kind.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import path from "node:path";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { applyUserBatch } from "@/lib/domain/customers";
import { increaseBalance } from "@/lib/domain/points";
import { createStaff } from "@/lib/domain/staff";
import type { Role } from "@/lib/domain/vocabulary";
import { programWithTiersIn } from "../support/fixtures";
import { BACKENDS, MIGRATED_ONLY, customerPath, openStack, type Stack } from "../support/stack";
import { signIn } from "../support/staff-http";

const PASSWORD = "correct horse battery staple";
const NOTE = "Called about a missing parcel; promised goodwill points";

interface Person {
  email: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  externalCustomerId?: string;
}

/** The people the search must tell apart; `zelda*` are the ranking trio. */
const PEOPLE: Record<string, Person> = {
  jane: {
    email: "jane.doe@example.com",
    firstName: "Jane",
    lastName: "Doe",
    phone: "+34 612 34 56 78",
    externalCustomerId: "CRM-777",
  },
  john: { email: "john.smith@acme-corp.io", firstName: "John", lastName: "Smith", phone: "555-0100" },
  zeldaName: { email: "princess@hyrule.test", firstName: "Zelda", lastName: "Harkinian" },
  zeldaPrefix: { email: "zelda.fan@example.com", firstName: "Link", lastName: "Hero" },
  zeldaSubstring: { email: "mazelda@example.com", firstName: "Ma", lastName: "Z" },
  quill: { email: "pq@example.com", firstName: "Peter", lastName: "Quillon" },
};

async function addPeople(prisma: PrismaClient, programId: string, people: Person[]) {
  await prisma.$transaction((tx) =>
    applyUserBatch(
      tx,
      programId,
      people.map(({ email, ...payload }) => ({ email, feature: "user" as const, payload })),
    ),
  );
}

for (const backend of BACKENDS) {
  describe(`Dashboard for support: search, notes, preferences, timeline [${backend}]`, () => {
    let stack: Stack<{ key?: string }>;
    let programId = "";
    let otherProgramId = "";
    let key = "";
    const ids: Record<string, string> = {};
    let otherCustomerId = "";
    const cookies = {} as Record<Role | "outsider", string>;

    before(async () => {
      stack = await openStack(backend, MIGRATED_ONLY);
      await stack.withPrisma(async (prisma) => {
        const program = await programWithTiersIn(prisma, "Support desk");
        const other = await programWithTiersIn(prisma, "Elsewhere");
        programId = program.programId;
        otherProgramId = other.programId;
        key = program.key;
        await addPeople(prisma, programId, Object.values(PEOPLE));
        // The same name in another program: never found from this one.
        await addPeople(prisma, otherProgramId, [{ email: "zelda.other@example.com", firstName: "Zelda" }]);
        for (const [name, person] of Object.entries(PEOPLE)) {
          ids[name] = (await prisma.customer.findFirst({ where: { programId, email: person.email } }))!.id;
        }
        otherCustomerId = (await prisma.customer.findFirst({ where: { programId: otherProgramId } }))!.id;
        await prisma.$transaction((tx) =>
          increaseBalance(tx, { programId, customerId: ids.jane!, points: 100, source: "api", actor: "test" }),
        );
        const staff: [Role | "outsider", string, string][] = [
          ["support", "Sam Support", programId],
          ["viewer", "Vera Viewer", programId],
          ["manager", "Max Manager", programId],
          ["outsider", "Olga Outsider", otherProgramId],
        ];
        for (const [who, name, inProgram] of staff) {
          await createStaff(prisma, {
            email: `${who}.${backend}@support.test`,
            password: PASSWORD,
            programId: inProgram,
            role: who === "outsider" ? "owner" : who,
            name,
          });
        }
      });
      const app = await stack.start({
        AUTH_SECRET_FILE: path.join(os.tmpdir(), `loyalty-auth-secret-support-${process.pid}-${backend}`),
      });
      for (const who of ["support", "viewer", "manager", "outsider"] as const) {
        const cookie = await signIn(app.baseUrl, `${who}.${backend}@support.test`, PASSWORD);
        assert.ok(cookie, `${who} could not sign in`);
        cookies[who] = cookie;
      }
    });
    after(() => stack?.close());

    const call = async (who: Role | "outsider", method: string, pathname: string, body?: unknown) => {
      const headers: Record<string, string> = { origin: stack.baseUrl, cookie: cookies[who] };
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`${stack.baseUrl}/api/staff/${programId}${pathname}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    const search = async (q: string) => {
      const res = await call("viewer", "GET", `/search?q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200);
      return res.body.data as { id: string; email: string; match: string }[];
    };
    const timeline = async (customerId: string, query = "") =>
      call("support", "GET", `/customers/${customerId}/timeline${query}`);

    test("the search box finds by each kind, ranked exact > prefix > substring, e-mail before phone before name", async () => {
      const first = async (q: string, who: string, match: string) => {
        const rows = await search(q);
        assert.ok(rows.length > 0, `nothing found for ${q}`);
        assert.deepEqual([rows[0]!.id, rows[0]!.match], [ids[who], match], `${q}: ${JSON.stringify(rows)}`);
      };
      await first("jane.doe@example.com", "jane", "email_exact");
      await first("JANE.DOE@", "jane", "email_prefix");
      await first("acme-corp", "john", "email_substring");
      // Across the "@": the index is asked for the part before it, the whole text checked on every candidate.
      await first("n.smith@acme-co", "john", "email_substring");
      assert.deepEqual(await search("n.smith@acme-cx"), [], "the part after the @ must match too");
      await first("CRM-777", "jane", "external_id_exact");
      await first("Jane Doe", "jane", "name_exact");
      await first("smith", "john", "name_exact");
      await first("quill", "quill", "name_prefix");
      await first("illon", "quill", "name_substring");
      // Phone digits whatever the typing: the whole number, the national part, with other separators.
      await first("+34612345678", "jane", "phone_exact");
      await first("34 612", "jane", "phone_prefix");
      await first("612-345-678", "jane", "phone_suffix");
      await first("555 0100", "john", "phone_exact");

      const zelda = await search("zelda");
      assert.deepEqual(
        zelda.map((r) => [r.email, r.match]),
        [
          [PEOPLE.zeldaName!.email, "name_exact"],
          [PEOPLE.zeldaPrefix!.email, "email_prefix"],
          [PEOPLE.zeldaSubstring!.email, "email_substring"],
        ],
        "exact name, then e-mail prefix, then e-mail substring; nothing from the other program",
      );
      assert.deepEqual(await search("nobody-like-this"), []);
      // LIKE's own characters are text, not wildcards.
      assert.deepEqual(await search("%"), []);
      assert.deepEqual(await search("j_ne"), []);
    });

    test("the customers page searches the same way", async () => {
      const res = await fetch(`${stack.baseUrl}/dashboard/${programId}/customers?q=Quillon`, {
        headers: { cookie: cookies.viewer },
      });
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /pq@example\.com/);
      assert.doesNotMatch(html, /jane\.doe@example\.com/);
    });

    test("support writes an internal note; a viewer cannot; another program's staff get 403 and its customers 404", async () => {
      const added = await call("support", "POST", `/customers/${ids.jane}/notes`, { body: `  ${NOTE}  ` });
      assert.equal(added.status, 201);
      assert.equal(added.body.note.body, NOTE);

      const refused = await call("viewer", "POST", `/customers/${ids.jane}/notes`, { body: "viewer note" });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, "forbidden");
      const empty = await call("support", "POST", `/customers/${ids.jane}/notes`, { body: "   " });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.errors[0].path, "body");
      // Not a member of this program: refused before anything is read (the dashboard routes' rule, lib/staff/authz.ts).
      const outsider = await call("outsider", "POST", `/customers/${ids.jane}/notes`, { body: "outsider note" });
      assert.equal(outsider.status, 403);
      assert.equal((await call("outsider", "GET", `/customers/${ids.jane}/timeline`)).status, 403);
      const elsewhere = await call("support", "POST", `/customers/${otherCustomerId}/notes`, { body: "wrong program" });
      assert.equal(elsewhere.status, 404);
      assert.equal((await timeline(otherCustomerId)).status, 404);

      // Never in what the API answers about the customer.
      const v1 = await stack.api("GET", customerPath(programId, PEOPLE.jane!.email), { key });
      assert.equal(v1.status, 200);
      assert.ok(!v1.text.includes("missing parcel"));
    });

    test("support edits notification preferences and language; bad input is refused at the field and changes nothing", async () => {
      const bad = await call("support", "PATCH", `/customers/${ids.john}/preferences`, { language: "not a language" });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].path, "language");
      assert.equal(
        (await call("viewer", "PATCH", `/customers/${ids.john}/preferences`, { language: "es" })).status,
        403,
      );
      const saved = await call("support", "PATCH", `/customers/${ids.john}/preferences`, {
        language: "pt-BR",
        marketingNotifications: true,
        balanceNotifications: false,
      });
      assert.equal(saved.status, 200);
      assert.equal(saved.body.language, "pt-BR");
      const v1 = await stack.api("GET", customerPath(programId, PEOPLE.john!.email), { key });
      assert.equal(v1.json.language, "pt-BR");
      assert.equal(v1.json.marketingNotifications, true);
      assert.equal(v1.json.balanceNotifications, false);
      assert.equal(v1.json.tierNotifications, true);
    });

    test("the timeline merges points (with the staff member's name), notes and staff actions, newest first, by kind", async () => {
      const adjusted = await call("support", "POST", `/customers/${ids.jane}/balance`, {
        points: -30,
        reason: "Wrong purchase reversed",
      });
      assert.equal(adjusted.status, 200);
      const overdraw = await call("support", "POST", `/customers/${ids.jane}/balance`, {
        points: -1000,
        reason: "Too much",
      });
      assert.equal(overdraw.status, 409);
      assert.equal(overdraw.body.code, "insufficient_balance");
      await call("support", "PATCH", `/customers/${ids.jane}`, { lastName: "Doe-Smith" });

      const res = await timeline(ids.jane!);
      assert.equal(res.status, 200);
      const entries = res.body.data as {
        kind: string;
        title: string;
        detail: string | null;
        points: number | null;
        by: { name: string | null; email: string } | null;
        at: string;
      }[];
      const at = entries.map((e) => e.at);
      assert.deepEqual(at, [...at].sort().reverse(), "newest first");
      const adjust = entries.find((e) => e.kind === "points" && e.detail === "Wrong purchase reversed");
      assert.ok(adjust, JSON.stringify(entries));
      assert.equal(adjust.points, -30);
      assert.deepEqual(adjust.by, { name: "Sam Support", email: `support.${backend}@support.test` });
      const earned = entries.find((e) => e.kind === "points" && e.points === 100);
      assert.equal(earned?.by, null, "an API movement names no staff member");
      const note = entries.find((e) => e.kind === "note");
      assert.equal(note?.detail, NOTE);
      assert.equal(note?.by?.name, "Sam Support");
      const edit = entries.find((e) => e.kind === "staff" && e.title === "customer.update");
      assert.equal(edit?.by?.name, "Sam Support");
      assert.match(edit?.detail ?? "", /lastName/);
      assert.ok(!entries.some((e) => e.detail === "Too much"), "the refused adjustment left nothing");

      const notes = await timeline(ids.jane!, "?kind=note");
      assert.deepEqual(
        notes.body.data.map((e: { kind: string }) => e.kind),
        ["note"],
      );
      // Keyset pages: one entry at a time would need a limit parameter; the cursor of an edited URL is ignored.
      const bogus = await timeline(ids.jane!, "?cursor=not-a-cursor");
      assert.equal(bogus.status, 200);
      assert.equal(bogus.body.data.length, entries.length);
    });

    test("erasing the customer deletes the notes; the audit log has the note and the preference change", async () => {
      const erased = await call("manager", "DELETE", `/customers/${ids.jane}`);
      assert.equal(erased.status, 200);
      assert.equal((await timeline(ids.jane!)).status, 404);
      if (backend === "pglite") await stack.stopAll();
      const notes = await stack.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "CustomerNote" WHERE "customerId" = $1::uuid`,
        [ids.jane],
      );
      assert.equal(notes[0]!.n, 0);
      const events = await stack.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "Event" WHERE data::text LIKE '%missing parcel%'`,
      );
      assert.equal(events[0]!.n, 0, "a note is never in an event (so never in a webhook)");
      const audit = await stack.query<{ action: string; staffEmail: string }>(
        `SELECT action, "staffEmail" FROM "AuditLog" WHERE "programId" = $1::uuid AND action IN ('customer.note', 'customer.preferences') ORDER BY action`,
        [programId],
      );
      assert.deepEqual(
        audit.map((a) => a.action),
        ["customer.note", "customer.preferences"],
      );
      assert.ok(audit.every((a) => a.staffEmail === `support.${backend}@support.test`));
      // The note's text does not outlive the customer in the audit log either.
      const leaked = await stack.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "AuditLog" WHERE after::text LIKE '%missing parcel%'`,
      );
      assert.equal(leaked[0]!.n, 0);
    });
  });
}
