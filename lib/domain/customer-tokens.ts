import "server-only";
import { randomBytes } from "node:crypto";
import { SignJWT, jwtVerify } from "jose";
import type { Db } from "@/lib/db/types";
import { invalidCustomerToken, notFound } from "@/lib/errors";
import { realTime } from "./real-time";

/** Customer tokens (HS256 JWTs) let a front-end widget call the /me routes for one customer of one program. */

/** A token's lifetime when the caller names none (API.md §3), and the longest it may ask for: 7 days. */
export const TOKEN_TTL_SECONDS = 3600;
export const MAX_TOKEN_TTL_SECONDS = 7 * 24 * 3600;
const AUDIENCE = "loyalty:me";

/** The program's signing key, created on first use. Rotating it (setting it to null) revokes every token. */
async function programSecret(db: Db, programId: string): Promise<Uint8Array | null> {
  return (await programSecretAndClock(db, programId))?.secret ?? null;
}

/**
 * The signing key with the program's test clock (null: a live program), read together: the /me routes run on the
 * program's clock (clock.ts) without a read of their own.
 */
async function programSecretAndClock(
  db: Db,
  programId: string,
): Promise<{ secret: Uint8Array; clockAt: Date | null } | null> {
  const program = await db.program.findUnique({
    where: { id: programId },
    select: { tokenSecret: true, clockAt: true },
  });
  if (!program) return null;
  if (program.tokenSecret) return { secret: Buffer.from(program.tokenSecret, "hex"), clockAt: program.clockAt };
  // Two concurrent first uses may both try: only a null secret is replaced, and both then read the winner's.
  await db.program.updateMany({
    where: { id: programId, tokenSecret: null },
    data: { tokenSecret: randomBytes(32).toString("hex") },
  });
  return programSecretAndClock(db, programId);
}

/** A token for the customer, valid `ttlSeconds` (1 to MAX_TOKEN_TTL_SECONDS; the API's schemas bound it). */
export async function issueCustomerToken(
  db: Db,
  programId: string,
  customerId: string,
  ttlSeconds = TOKEN_TTL_SECONDS,
  now = realTime(),
) {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TOKEN_TTL_SECONDS)
    throw new Error(`token lifetime out of bounds: ${ttlSeconds}`);
  const secret = await programSecret(db, programId);
  if (!secret) throw notFound("program");
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expiresAt = new Date((issuedAt + ttlSeconds) * 1000);
  const token = await new SignJWT({ pid: programId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(customerId)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(secret);
  return { token, expiresAt: expiresAt.toISOString() };
}

/**
 * The live customer a token names, for the program in the path, with the program's test clock (null: live); 401 for
 * anything else.
 */
export async function verifyCustomerToken(
  db: Db,
  programId: string,
  token: string,
): Promise<{ customerId: string; clockAt: Date | null }> {
  const program = await programSecretAndClock(db, programId).catch(() => null);
  if (!program) throw invalidCustomerToken();
  const { secret, clockAt } = program;
  let customerId: string | undefined;
  try {
    const { payload } = await jwtVerify(token, secret, { audience: AUDIENCE, algorithms: ["HS256"] });
    if (payload.pid !== programId) throw invalidCustomerToken();
    customerId = payload.sub;
  } catch {
    throw invalidCustomerToken();
  }
  const customer = customerId
    ? await db.customer.findFirst({ where: { id: customerId, programId, deletedAt: null }, select: { id: true } })
    : null;
  if (!customer) throw invalidCustomerToken();
  return { customerId: customer.id, clockAt };
}

/**
 * Revokes every customer token of the program at once: the signing key is dropped (the next token issued gets a new
 * one), so no token signed before verifies any more. Returns when the key was dropped.
 */
export async function revokeCustomerTokens(db: Db, programId: string): Promise<{ revokedAt: string }> {
  const updated = await db.program.updateMany({ where: { id: programId }, data: { tokenSecret: null } });
  if (updated.count === 0) throw notFound("program");
  return { revokedAt: realTime().toISOString() };
}
