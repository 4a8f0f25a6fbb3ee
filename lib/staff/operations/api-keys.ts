import "server-only";
import { requireRow } from "@/lib/db/require-row";
import { conflict, notFound } from "@/lib/errors";
import { createApiKey, revokeApiKey, setApiKeyLimits } from "@/lib/domain/api-keys";
import { audited } from "../audit";
import { staffOperation } from "../authz";
import { nextVersion, requireVersion } from "../versions";
import type { ApiKeyForm, ApiKeyLimits } from "../forms/api-keys";

/** The staff writes on the program's API keys (`apikeys.manage`). A key's secret is shown once and never audited. */

export const createApiKeyAsStaff = staffOperation("apikeys.manage", async (tx, staff, input: ApiKeyForm) => {
  const key = await createApiKey(tx, {
    programId: staff.programId,
    name: input.name,
    rateLimitPerSec: input.rateLimitPerSec,
    rateLimitBurst: input.rateLimitBurst,
  });
  // The secret is returned to the caller once and never written to the audit log.
  await audited(tx, staff, "apikey.create", { type: "api_key", id: key.id }, null, {
    name: input.name,
    prefix: key.prefix,
    rateLimitPerSec: key.rateLimitPerSec,
    rateLimitBurst: key.rateLimitBurst,
  });
  return key;
});

export const revokeApiKeyAsStaff = staffOperation("apikeys.manage", async (tx, staff, keyId: string) => {
  const key = await requireRow(
    keyId,
    (id) =>
      tx.apiKey.findFirst({
        where: { id, programId: staff.programId },
        select: { id: true, name: true, prefix: true, revokedAt: true },
      }),
    () => notFound("API key"),
  );
  if (key.revokedAt) throw conflict("The key is already revoked.");
  const result = await revokeApiKey(tx, keyId);
  await audited(
    tx,
    staff,
    "apikey.revoke",
    { type: "api_key", id: keyId },
    { name: key.name, prefix: key.prefix, revokedAt: null },
    { revokedAt: result.revokedAt },
  );
  return result;
});

/** Changes a key's rate and burst (a revoked key is refused: it answers nothing anyway). */
export const setApiKeyLimitsAsStaff = staffOperation(
  "apikeys.manage",
  async (tx, staff, keyId: string, input: ApiKeyLimits, version?: string) => {
    await requireVersion(tx, staff, "api_key", keyId, version);
    const key = await requireRow(
      keyId,
      (id) =>
        tx.apiKey.findFirst({
          where: { id, programId: staff.programId },
          select: { id: true, name: true, prefix: true, revokedAt: true, rateLimitPerSec: true, rateLimitBurst: true },
        }),
      () => notFound("API key"),
    );
    if (key.revokedAt) throw conflict("The key is revoked.");
    const result = await setApiKeyLimits(tx, keyId, input);
    await audited(
      tx,
      staff,
      "apikey.update",
      { type: "api_key", id: keyId },
      { name: key.name, prefix: key.prefix, rateLimitPerSec: key.rateLimitPerSec, rateLimitBurst: key.rateLimitBurst },
      { rateLimitPerSec: result.rateLimitPerSec, rateLimitBurst: result.rateLimitBurst },
    );
    return { ...result, version: await nextVersion(tx, staff, "api_key", keyId) };
  },
);
