import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { isLostRace } from "@/lib/db/statement";
import { params, raw, sql } from "@/lib/db/sql";
import {
  KEYED_PARAM_COUNT,
  keyedParams,
  runStatement,
  type StatementRow,
  type StatementWrite,
} from "@/lib/db/keyed-statement";
import { lockedStatement } from "./locked-write";
import { conflict, uniqueOr409, type FieldProblem } from "@/lib/errors";
import { emitEvent } from "./events";
import { programNow } from "./clock";
import { resolveCustomerId } from "./customer-lookup";
import { recordReferral } from "./referrals";
import { requireDeclaredCustomAttributes } from "./customer-attributes";
import { applyLoyaltyItems, type LoyaltyBatchItem, type LoyaltyWriter } from "./loyalty-items";
import type { UserFeature } from "./vocabulary";

/** A customer's own fields, each one changed only when present (the API's UserPayload is checked against this). */
export interface UserFields {
  externalCustomerId?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  emailVerified?: boolean;
  /** A new e-mail, normalised: renames the customer. */
  email?: string;
  /** The referral code of the customer who referred this one (referrals.ts `recordReferral`). */
  referralCode?: string;
  /** The customer's own columns (CUSTOMER_FIELDS), and the birthdate (a userData column). */
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  /** A canonical BCP 47 tag. */
  language?: string | null;
  /** `YYYY-MM-DD`. */
  birthdate?: string | null;
  /** Declared customer attributes (customer-attributes.ts), merged into the stored ones; a null value removes one. */
  customAttributes?: Record<string, unknown>;
}

/** One item of a create/update batch: the customer's e-mail (normalised) and the fields to set. */
export interface UserBatchItem {
  email: string;
  feature: UserFeature;
  payload: UserFields;
}

/** Any item of a create/update batch: a user item, or a `loyalty` item (lib/domain/loyalty-items.ts). */
export type IntegrationBatchItem = UserBatchItem | LoyaltyBatchItem;
export type { LoyaltyBatchItem };

const isUserItem = (item: IntegrationBatchItem): item is UserBatchItem => item.feature !== "loyalty";

/** The form every e-mail is stored and compared in (email.ts: IDNA ASCII domain, NFC lower-cased local part). */
export { normaliseEmail } from "./email";

const USER_FIELDS = ["externalCustomerId", "firstName", "lastName", "phone", "birthdate"] as const;

/**
 * The payload fields kept on the Customer row itself. BATCH_WRITE writes them in their `c` CTE with
 * these snippets (set when the customer is created; on an existing one, changed only when present in the payload),
 * which is why they are kept apart from the rest of those statements.
 */
const CUSTOMER_FIELDS = ["utmSource", "utmMedium", "utmCampaign", "language"] as const;
const customerColumns = raw(CUSTOMER_FIELDS.map((f) => `, "${f}"`).join("") + `, "customAttributes"`);
const customerValues = raw(
  CUSTOMER_FIELDS.map((f) => `, i.payload->>'${f}'`).join("") +
    `, jsonb_strip_nulls(coalesce(i.payload->'customAttributes', '{}'::jsonb))`,
);
/** In ON CONFLICT DO UPDATE: the payload of the conflicting e-mail, read from the statement's `input`. */
const customerUpdates = raw(
  CUSTOMER_FIELDS.map(
    (f) =>
      `, "${f}" = CASE WHEN (SELECT x.payload FROM input x WHERE x.email = EXCLUDED.email) ? '${f}' ` +
      `THEN EXCLUDED."${f}" ELSE "Customer"."${f}" END`,
  ).join("") +
    // Custom attributes merge: the payload's keys replace the stored ones, a null removes one.
    `, "customAttributes" = CASE WHEN (SELECT x.payload FROM input x WHERE x.email = EXCLUDED.email) ? 'customAttributes' ` +
    `THEN jsonb_strip_nulls("Customer"."customAttributes" || ((SELECT x.payload FROM input x WHERE x.email = EXCLUDED.email)->'customAttributes')) ` +
    `ELSE "Customer"."customAttributes" END`,
);

const presentOr = (field: string) =>
  `CASE WHEN i.payload ? '${field}' THEN i.payload->>'${field}' ELSE u."${field}" END`;

interface Upsert {
  email: string;
  payload: Omit<UserFields, "email">;
  /** Index of the batch item(s) this came from, for error paths. */
  index: number;
}

/**
 * Creates or updates the customers of `rows` in the caller's transaction: `BATCH_WRITE`, the statement of the
 * one-statement path, so both decide alike. Nothing is locked first (the rows it creates do not exist yet): a customer
 * that a concurrent batch created while the statement waited for its row has a userData row the statement's snapshot
 * cannot see, and the statement refuses to commit (`invariant`); it is then undone to a savepoint and run again,
 * with a new snapshot that sees it (READ COMMITTED), a few times at most.
 */
async function upsert(tx: Tx, programId: string, rows: Upsert[], now: Date): Promise<{ created: number }> {
  const values = batchValues(programId, rows, now);
  for (let attempt = 1; ; attempt++) {
    await tx.$executeRawUnsafe("SAVEPOINT user_batch");
    let result;
    try {
      result = await uniqueOr409(
        () =>
          runStatement(tx, null, () =>
            tx.$queryRawUnsafe<StatementRow[]>(LOCKED_BATCH_SQL.text, ...keyedParams(null), ...values),
          ),
        externalIdTaken,
        "externalCustomerId",
      );
    } catch (err) {
      if (!isLostRace(err) || attempt >= 5) throw err;
      await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT user_batch");
      continue;
    }
    await tx.$executeRawUnsafe("RELEASE SAVEPOINT user_batch");
    if (!("row" in result)) throw new Error(`a Create/Update batch refused: ${result.refusal}`);
    return { created: Number(result.row.created) };
  }
}

/** externalCustomerId clashes named by item, before writing (the unique index stays the final guard). */
async function checkExternalIds(tx: Db, programId: string, items: IntegrationBatchItem[]) {
  const claims = new Map<string, { email: string; index: number }>();
  const problems: FieldProblem[] = [];
  items.forEach((item, index) => {
    if (!isUserItem(item)) return;
    const ext = item.payload.externalCustomerId;
    if (ext == null) return;
    const owner = item.payload.email ?? item.email;
    const earlier = claims.get(ext);
    if (earlier && earlier.email !== owner && earlier.email !== item.email) {
      problems.push({
        path: `[${index}].payload.externalCustomerId`,
        message: `also given to ${earlier.email} in item [${earlier.index}]`,
      });
    }
    claims.set(ext, { email: owner, index });
  });
  if (claims.size > 0) {
    const taken = await tx.userData.findMany({
      where: { programId, externalCustomerId: { in: [...claims.keys()] } },
      select: { externalCustomerId: true, customer: { select: { email: true } } },
    });
    for (const row of taken) {
      const claim = claims.get(row.externalCustomerId!)!;
      const item = items[claim.index]!;
      if (row.customer.email !== item.email && row.customer.email !== claim.email) {
        problems.push({
          path: `[${claim.index}].payload.externalCustomerId`,
          message: "already belongs to another customer",
        });
      }
    }
  }
  if (problems.length) throw conflict("externalCustomerId must be unique within the program.", problems);
}

async function rename(tx: Tx, programId: string, from: string, to: string, index: number, now: Date) {
  const renamed = await uniqueOr409(
    () =>
      tx.customer.updateManyAndReturn({
        where: { programId, email: from, deletedAt: null },
        data: { email: to, updatedAt: now },
        select: { id: true },
      }),
    () =>
      conflict("Another customer of the program already has this e-mail.", [
        { path: `[${index}].payload.email`, message: "is already taken" },
      ]),
  );
  for (const c of renamed)
    await emitEvent(
      tx,
      programId,
      "customer.updated",
      {
        customerId: c.id,
        email: to,
        previousEmail: from,
        changes: ["email"],
      },
      now,
    );
}

/** A batch without renames as one row per e-mail: items for the same e-mail merged in order (later fields win). */
function mergeItems(items: IntegrationBatchItem[]): Upsert[] {
  const merged = new Map<string, Upsert>();
  items.forEach((item, index) => {
    if (!isUserItem(item)) return;
    const { email: _same, ...payload } = item.payload;
    const prev = merged.get(item.email);
    const next = { ...prev?.payload, ...payload };
    if (prev?.payload.customAttributes && payload.customAttributes)
      next.customAttributes = { ...prev.payload.customAttributes, ...payload.customAttributes };
    merged.set(item.email, { email: item.email, payload: next, index });
  });
  return [...merged.values()];
}

const BATCH = params(["programId", "items", "now"] as const, KEYED_PARAM_COUNT + 1);
const b = BATCH.sql;

/**
 * A Create/Update batch's customers as ONE statement, the one decision of both paths: the API's keyed statement
 * (outside an interactive transaction, with the Idempotency-Key's record) and the locked path (`upsert`, in the
 * caller's transaction). Set-based over the whole batch (jsonb_to_recordset): the creation of missing customers with
 * their userData, loyaltyData (balance 0) and customerTier (base tier, one period ahead), the changes to existing
 * ones, and an event per customer. Rows are locked in e-mail order, so concurrent batches over the same customers
 * queue instead of deadlocking, and concurrent creates of one e-mail meet on the unique index and yield one
 * customer. The update reads the statement's snapshot: a customer that a concurrent batch created after it was
 * taken has a userData row the update cannot see, and then `invariant` fails the statement, so that the batch runs
 * again (the API's on the locked path, the locked path's from a savepoint). `result`: the customers created.
 */
export const BATCH_WRITE: StatementWrite = {
  ctes: sql`input AS (
  SELECT x.email, x.payload, x.changes FROM jsonb_to_recordset(${b.items}::jsonb) AS x(email text, payload jsonb, changes jsonb)
  WHERE EXISTS (SELECT 1 FROM go)
), program AS (
  SELECT p."tierPeriodMonths",
         (SELECT t.id FROM "Tier" t WHERE t."programId" = p.id ORDER BY t."requiredPoints", t."createdAt", t.id LIMIT 1) AS base_tier
  FROM "Program" p WHERE p.id = ${b.programId}::uuid
), c AS (
  INSERT INTO "Customer" ("programId", email, "createdAt", "updatedAt"${customerColumns})
  SELECT ${b.programId}::uuid, i.email, ${b.now}::timestamptz, ${b.now}::timestamptz${customerValues} FROM input i ORDER BY i.email
  ON CONFLICT ("programId", email) DO UPDATE SET "updatedAt" = ${b.now}::timestamptz${customerUpdates}
  RETURNING id, email, (xmax = 0) AS inserted
), new_user AS (
  INSERT INTO "UserData" ("customerId", "programId", "externalCustomerId", "firstName", "lastName", phone, birthdate, "emailVerified", "createdAt", "updatedAt")
  SELECT c.id, ${b.programId}::uuid, i.payload->>'externalCustomerId', i.payload->>'firstName', i.payload->>'lastName',
         i.payload->>'phone', i.payload->>'birthdate', coalesce((i.payload->>'emailVerified')::boolean, false), ${b.now}::timestamptz, ${b.now}::timestamptz
  FROM c JOIN input i USING (email) WHERE c.inserted
  RETURNING 1
), new_loyalty AS (
  INSERT INTO "LoyaltyData" ("programId", "customerId", "loyaltyCustomerId", "tierStatus", "memberSince", "createdAt", "updatedAt")
  SELECT ${b.programId}::uuid, c.id, replace(gen_random_uuid()::text, '-', ''), 'base', ${b.now}::timestamptz, ${b.now}::timestamptz,
         ${b.now}::timestamptz FROM c WHERE c.inserted
  RETURNING 1
), new_tier AS (
  INSERT INTO "CustomerTier" ("programId", "customerId", "currentTierId", "tierChangedAt", "recalculationDate")
  SELECT ${b.programId}::uuid, c.id, p.base_tier, CASE WHEN p.base_tier IS NULL THEN NULL ELSE ${b.now}::timestamptz END,
         ${b.now}::timestamptz + make_interval(months => p."tierPeriodMonths")
  FROM c CROSS JOIN program p WHERE c.inserted
  RETURNING 1
), changed AS (
  SELECT c.id, i.payload FROM c JOIN input i USING (email) WHERE NOT c.inserted AND i.payload <> '{}'::jsonb
), old_user AS (
  UPDATE "UserData" u SET
    ${raw(USER_FIELDS.map((f) => `"${f}" = ${presentOr(f)}`).join(",\n    "))},
    "emailVerified" = CASE WHEN i.payload ? 'emailVerified' THEN (i.payload->>'emailVerified')::boolean ELSE u."emailVerified" END,
    "updatedAt" = ${b.now}::timestamptz
  FROM changed i
  WHERE u."programId" = ${b.programId}::uuid AND u."customerId" = i.id
  RETURNING 1
), event AS (
  INSERT INTO "Event" ("programId", type, data, "createdAt")
  SELECT ${b.programId}::uuid, CASE WHEN c.inserted THEN 'customer.created' ELSE 'customer.updated' END,
         jsonb_build_object('customerId', c.id, 'email', c.email, 'changes', i.changes), ${b.now}::timestamptz
  FROM c JOIN input i USING (email)
  RETURNING 1
), result AS (
  SELECT NULL::uuid AS "customerId", (SELECT count(*) FROM c WHERE c.inserted)::int AS created
  WHERE EXISTS (SELECT 1 FROM go)
), refusal AS (
  SELECT NULL::text AS why WHERE false
), invariant AS (
  SELECT (SELECT count(*) FROM old_user) = (SELECT count(*) FROM changed)
         AND (SELECT count(*) FROM event) = (SELECT count(*) FROM c) AS ok
)`,
};

const LOCKED_BATCH_SQL = lockedStatement(BATCH_WRITE, ["created"]);

/** The values of BATCH_WRITE's parameters for rows merged by e-mail. */
const batchValues = (programId: string, rows: Upsert[], now: Date) =>
  BATCH.values({
    programId,
    items: JSON.stringify(rows.map((r) => ({ email: r.email, payload: r.payload, changes: Object.keys(r.payload) }))),
    now: now.toISOString(),
  });

/**
 * The values of BATCH_WRITE's parameters (after the keyed statement's five) for a batch it can apply, or null when the
 * batch must take the locked path: it renames customers (applied item by item) or records referrals (under row locks).
 * An externalCustomerId that belongs to another customer is refused first (409), as the locked path does.
 */
export async function userBatchValues(db: Db, programId: string, items: IntegrationBatchItem[]) {
  if (!items.every(isUserItem)) return null; // `loyalty` items change balances (ledger.ts `changeBalance`)
  if (items.some((i) => i.payload.email !== undefined && i.payload.email !== i.email)) return null;
  if (items.some((i) => i.payload.referralCode !== undefined)) return null;
  await requireDeclaredCustomAttributes(db, programId, items);
  await checkExternalIds(db, programId, items);
  return batchValues(programId, mergeItems(items), programNow(programId));
}

/** 409 `conflict` for a batch whose write met the unique index of externalCustomerId (a concurrent batch took it). */
export const externalIdTaken = () =>
  conflict("An externalCustomerId in this batch already belongs to another customer of the program.");

/**
 * Applies a validated Create/Update batch inside the caller's transaction: all items or none.
 * Items for the same e-mail merge in order (later fields win). A batch that renames customers is applied
 * item by item so each rename sees the items before it.
 */
export async function applyUserBatch(
  tx: Tx,
  programId: string,
  items: IntegrationBatchItem[],
): Promise<{ created: number }> {
  const referrals = items.flatMap((item, index) =>
    !isUserItem(item) || item.payload.referralCode === undefined
      ? []
      : [{ email: item.payload.email ?? item.email, code: item.payload.referralCode, index }],
  );
  if (referrals.length === 0) return applyUsers(tx, programId, items);
  const result = await applyUsers(
    tx,
    programId,
    items.map((item) => {
      if (!isUserItem(item)) return item;
      const { referralCode: _code, ...payload } = item.payload;
      return { ...item, payload };
    }),
  );
  // After the customers exist: a new customer can be referred in the batch that creates it.
  for (const r of referrals) {
    const customerId = await resolveCustomerId(tx, programId, r.email);
    await recordReferral(tx, programId, customerId, r.code, `[${r.index}].payload.referralCode`);
  }
  return result;
}

async function applyUsers(tx: Tx, programId: string, items: IntegrationBatchItem[]): Promise<{ created: number }> {
  await requireDeclaredCustomAttributes(
    tx,
    programId,
    items.map((i) => (isUserItem(i) ? i : { payload: {} })),
  );
  await checkExternalIds(tx, programId, items);
  const now = programNow(programId);
  const renames = items.some((i) => isUserItem(i) && i.payload.email !== undefined && i.payload.email !== i.email);
  if (!renames) {
    const rows = mergeItems(items);
    return rows.length ? upsert(tx, programId, rows, now) : { created: 0 };
  }
  let created = 0;
  for (const [index, item] of items.entries()) {
    if (!isUserItem(item)) continue;
    const { email: newEmail, ...payload } = item.payload;
    created += (await upsert(tx, programId, [{ email: item.email, payload, index }], now)).created;
    if (newEmail !== undefined && newEmail !== item.email)
      await rename(tx, programId, item.email, newEmail, index, now);
  }
  return { created };
}

/**
 * A validated Create/Update batch in the caller's transaction, all or nothing: the user items first (so one batch can
 * create customers and set their loyalty), then the `loyalty` items on the customers as the user items left them
 * (a loyalty item names a customer by its e-mail after the batch's renames).
 */
export async function applyIntegrationBatch(
  tx: Tx,
  programId: string,
  items: IntegrationBatchItem[],
  writer: LoyaltyWriter,
): Promise<{ created: number; entries: number }> {
  const { created } = await applyUserBatch(tx, programId, items);
  const loyalty = items.flatMap((item, index) => (isUserItem(item) ? [] : [{ item, index }]));
  const { entries } = await applyLoyaltyItems(tx, programId, loyalty, writer);
  return { created, entries };
}
