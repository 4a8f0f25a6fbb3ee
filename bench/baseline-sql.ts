/**
 * The bare server's increase (bench/baseline-server.ts): ONE statement doing what lib/domain/ledger.ts changeSql,
 * applyTierEarn and the Idempotency-Key record do, in as few steps as a hand-written server would. Its own module so
 * that bench/profile.ts can run it beside ours without a server.
 */
import { balanceChangedData, ledgerEntryJson } from "@/lib/domain/sql";

const MAX_BALANCE = 2_147_483_647;

/** $1 programId, $2 e-mail, $3 points, $4 actor, $5 Idempotency-Key or null, $6 api key id, $7 request hash. */
export const increaseSql = (withProgramId: Set<string>) => {
  const pid = (table: string, value: string) =>
    withProgramId.has(table) ? { col: ', "programId"', val: `, ${value}` } : { col: "", val: "" };
  const lotPid = pid("PointLot", "$1::uuid");
  const idemPid = pid("IdempotencyRecord", "$1::uuid");
  return `
WITH c AS (
  SELECT id FROM "Customer" WHERE "programId" = $1::uuid AND email = $2 AND "deletedAt" IS NULL
), upd AS (
  UPDATE "LoyaltyData" l SET balance = l.balance + $3, "updatedAt" = now()
  FROM c WHERE l."customerId" = c.id AND l.balance::bigint + $3 BETWEEN 0 AND ${MAX_BALANCE}
  RETURNING l."customerId", l.balance
), program AS (
  SELECT "pointsExpiryMonths" AS months FROM "Program" WHERE id = $1::uuid
), e AS (
  INSERT INTO "LedgerEntry" ("programId", "customerId", type, points, "balanceAfter", source, actor, "idempotencyKey",
                             "createdAt", "expiresAt")
  SELECT $1::uuid, upd."customerId", 'earn', $3, upd.balance, 'api', $4, $5::text, now(),
         CASE WHEN program.months IS NOT NULL THEN now() + make_interval(months => program.months) END
  FROM upd CROSS JOIN program
  RETURNING *
), lot AS (
  INSERT INTO "PointLot" ("customerId", "ledgerEntryId", remaining, "createdAt", "expiresAt"${lotPid.col})
  SELECT e."customerId", e.id, e.points, e."createdAt", e."expiresAt"${lotPid.val} FROM e
  RETURNING 1
), event AS (
  INSERT INTO "Event" ("programId", type, data)
  SELECT e."programId", 'balance.changed',
         ${balanceChangedData("e")}
  FROM e
  RETURNING 1
), tier AS (
  UPDATE "CustomerTier" ct SET
    "currentTierPoints" = LEAST(${MAX_BALANCE}, ct."currentTierPoints"::bigint + $3)::int,
    ("currentTierId", "tierChangedAt") = (
      SELECT coalesce(up.id, ct."currentTierId"), CASE WHEN up.id IS NULL THEN ct."tierChangedAt" ELSE now() END
      FROM (SELECT (SELECT t.id FROM "Tier" t
                    WHERE t."programId" = $1::uuid AND t."requiredPoints" <= ct."currentTierPoints"::bigint + $3
                      AND t."requiredPoints" > coalesce((SELECT r."requiredPoints" FROM "Tier" r WHERE r.id = ct."currentTierId"), -1)
                    ORDER BY t."requiredPoints" DESC LIMIT 1) AS id) up)
  FROM e WHERE ct."customerId" = e."customerId"
  RETURNING 1
), answer AS (
  SELECT e."customerId", '{"balance":' || e."balanceAfter" || ',"transaction":' || ${ledgerEntryJson("e")}::text || '}' AS body
  FROM e
), idem AS (
  INSERT INTO "IdempotencyRecord" ("apiKeyId", key, "requestHash", status, body, "customerId"${idemPid.col})
  SELECT $6::uuid, $5::text, $7, 200, answer.body, answer."customerId"${idemPid.val} FROM answer WHERE $5::text IS NOT NULL
  RETURNING 1
)
SELECT answer.body, (SELECT count(*) FROM lot)::int AS lots, (SELECT count(*) FROM event)::int AS events,
       (SELECT count(*) FROM tier)::int AS tiers, (SELECT count(*) FROM idem)::int AS records
FROM answer`;
};

/**
 * The bare server's Create/Update batch, in two statements of a transaction as a hand-written server would: the
 * missing customers created with their userData, loyaltyData and customerTier, returning which e-mails existed; then
 * the fields present applied to those (a statement of its own, so that it sees userData rows a concurrent batch
 * created). The app's own is one statement, lib/domain/customers.ts BATCH_WRITE.
 */
export const UPSERT_SQL = `
WITH input AS (
  SELECT x.email, x.payload FROM jsonb_to_recordset($2::jsonb) AS x(email text, payload jsonb)
), program AS (
  SELECT p."tierPeriodMonths",
         (SELECT t.id FROM "Tier" t WHERE t."programId" = p.id ORDER BY t."requiredPoints", t."createdAt", t.id LIMIT 1) AS base_tier
  FROM "Program" p WHERE p.id = $1::uuid
), c AS (
  INSERT INTO "Customer" ("programId", email, "createdAt", "updatedAt")
  SELECT $1::uuid, i.email, $3::timestamptz, $3::timestamptz FROM input i ORDER BY i.email
  ON CONFLICT ("programId", email) DO UPDATE SET "updatedAt" = $3::timestamptz
  RETURNING id, email, (xmax = 0) AS inserted
), new_user AS (
  INSERT INTO "UserData" ("customerId", "programId", "externalCustomerId", "firstName", "lastName", phone, "emailVerified", "createdAt", "updatedAt")
  SELECT c.id, $1::uuid, i.payload->>'externalCustomerId', i.payload->>'firstName', i.payload->>'lastName',
         i.payload->>'phone', coalesce((i.payload->>'emailVerified')::boolean, false), $3::timestamptz, $3::timestamptz
  FROM c JOIN input i USING (email) WHERE c.inserted
  RETURNING 1
), new_loyalty AS (
  INSERT INTO "LoyaltyData" ("programId", "customerId", "loyaltyCustomerId", "tierStatus", "memberSince", "createdAt", "updatedAt")
  SELECT $1::uuid, c.id, replace(gen_random_uuid()::text, '-', ''), 'base', $3::timestamptz, $3::timestamptz, $3::timestamptz FROM c WHERE c.inserted
  RETURNING 1
), new_tier AS (
  INSERT INTO "CustomerTier" ("programId", "customerId", "currentTierId", "tierChangedAt", "recalculationDate")
  SELECT $1::uuid, c.id, p.base_tier, CASE WHEN p.base_tier IS NULL THEN NULL ELSE $3::timestamptz END,
         $3::timestamptz + make_interval(months => p."tierPeriodMonths")
  FROM c CROSS JOIN program p WHERE c.inserted
  RETURNING 1
)
SELECT c.id, c.email, c.inserted, (SELECT count(*) FROM new_user) + (SELECT count(*) FROM new_loyalty) + (SELECT count(*) FROM new_tier) AS rows
FROM c`;

const USER_FIELDS = ["externalCustomerId", "firstName", "lastName", "phone"] as const;

export const UPDATE_USER_SQL = `
UPDATE "UserData" u SET
  ${USER_FIELDS.map((f) => `"${f}" = CASE WHEN i.payload ? '${f}' THEN i.payload->>'${f}' ELSE u."${f}" END`).join(",\n  ")},
  "emailVerified" = CASE WHEN i.payload ? 'emailVerified' THEN (i.payload->>'emailVerified')::boolean ELSE u."emailVerified" END,
  "updatedAt" = $2::timestamptz
FROM jsonb_to_recordset($1::jsonb) AS i("customerId" uuid, payload jsonb)
WHERE u."customerId" = i."customerId"`;
