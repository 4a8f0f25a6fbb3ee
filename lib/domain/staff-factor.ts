/**
 * The staff second factor: TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps, the otpauth library) and recovery
 * codes. Security time, so real time (lib/domain/real-time.ts), never a program's clock. A code is good once: the
 * step it was accepted at is kept (`totpLastStep`), so a code seen over a shoulder cannot be replayed in its window.
 * Recovery codes are random (48 bits each, `xxxx-xxxx-xxxx`; guessing is held back by the sign-in throttle), stored as their SHA-256 and used once.
 */
import "server-only";
import { createHash, randomBytes } from "node:crypto";
import * as OTPAuth from "otpauth";
import type { Db, Tx } from "@/lib/db/types";
import { realTime, realTimeMs } from "./real-time";

const PERIOD = 30;
export const RECOVERY_CODE_COUNT = 10;

function totpOf(secret: string, email = "") {
  return new OTPAuth.TOTP({
    issuer: "Loyalty",
    label: email,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** A new TOTP secret (160 bits, base32) and its otpauth:// URI for an authenticator app. */
export function newTotpSecret(email: string): { secret: string; uri: string } {
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  return { secret, uri: totpOf(secret, email).toString() };
}

/** The otpauth:// URI of a secret (the enrolment page shows it again until confirmed). */
export const totpUri = (secret: string, email: string) => totpOf(secret, email).toString();

/**
 * The time step at which `code` is valid for `secret` (one step of drift either way), or null. Anything but six
 * digits is null without computing.
 */
export function totpStep(secret: string, code: string, nowMs = realTimeMs()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret).validate({ token: code, timestamp: nowMs, window: 1 });
  return delta === null ? null : Math.floor(nowMs / 1000 / PERIOD) + delta;
}

const normalCode = (code: string) => code.replace(/[\s-]/g, "").toLowerCase();
const hashCode = (code: string) => createHash("sha256").update(normalCode(code)).digest("hex");

/** Fresh recovery codes (shown once), replacing any the account had; their hashes are stored. */
export async function replaceRecoveryCodes(tx: Tx, staffId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const hex = randomBytes(6).toString("hex");
    return `${hex.slice(0, 4)}-${hex.slice(4, 8)}-${hex.slice(8)}`;
  });
  await tx.staffRecoveryCode.deleteMany({ where: { staffId } });
  await tx.staffRecoveryCode.createMany({ data: codes.map((c) => ({ staffId, codeHash: hashCode(c) })) });
  return codes;
}

/**
 * Checks a sign-in's second factor for an account with TOTP on: a current TOTP code not used before, or an unused
 * recovery code (then used up). One conditional update each, so two sign-ins racing with one code cannot both pass.
 */
export async function checkSecondFactor(
  db: Db,
  account: { id: string; totpSecret: string },
  code: string,
): Promise<"totp" | "recovery" | null> {
  const trimmed = code.trim();
  const step = totpStep(account.totpSecret, trimmed.replace(/\s/g, ""));
  if (step !== null) {
    const { count } = await db.staffUser.updateMany({
      where: { id: account.id, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return count === 1 ? "totp" : null;
  }
  if (normalCode(trimmed).length !== 12 || !/^[0-9a-f]+$/.test(normalCode(trimmed))) return null;
  const { count } = await db.staffRecoveryCode.updateMany({
    where: { staffId: account.id, codeHash: hashCode(trimmed), usedAt: null },
    data: { usedAt: realTime() },
  });
  return count === 1 ? "recovery" : null;
}

/** How many unused recovery codes the account has left. */
export const recoveryCodesLeft = (db: Db, staffId: string) =>
  db.staffRecoveryCode.count({ where: { staffId, usedAt: null } });
