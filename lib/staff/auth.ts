import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { db } from "@/lib/db/client";
import {
  accountKey,
  addressKey,
  beginSignInAttempt,
  isTrustedAddress,
  pairKey,
  signInFailed,
  signInSucceeded,
} from "@/lib/domain/sign-in-throttle";
import { verifyStaffPassword } from "@/lib/domain/staff";
import { createStaffSession, isStaffSessionLive, revokeStaffSession } from "@/lib/domain/staff-sessions";
import { checkSecondFactor } from "@/lib/domain/staff-factor";
import { auditedAccount, auditedSignIn } from "./audit";
import { SECOND_FACTOR_NEEDED, SIGN_IN_THROTTLED } from "./sign-in-errors";
import { clientAddress } from "./request-origin";
import { config } from "@/lib/config";

/**
 * The session-signing secret: NEXTAUTH_SECRET when set (set it when several instances serve the dashboard,
 * so they all accept each other's sessions), else 32 random bytes generated on first start and kept in
 * .data/auth-secret (mode 600, git-ignored; AUTH_SECRET_FILE moves it), so a single instance needs no
 * configuration and no secret ever lives in the repository. Deleting the file signs everyone out.
 */
function authSecret(): string {
  const { NEXTAUTH_SECRET, AUTH_SECRET_FILE: file } = config();
  if (NEXTAUTH_SECRET) return NEXTAUTH_SECRET;
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (err) {
      // Another process starting at the same moment wrote it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return readFileSync(file, "utf8").trim();
}

// Without NEXTAUTH_URL next-auth takes the public origin from X-Forwarded-Host, which proxy.ts sets from the host
// that request-origin.ts trusts (the Host header unless TRUST_PROXY is set), so a client cannot steer redirects.
if (!config().NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";

/** The sign-in throttle's timings (lib/domain/sign-in-throttle-rules.ts). */
const THROTTLE_POLICY = {
  backoffBaseMs: config().STAFF_SIGNIN_BACKOFF_BASE_MS,
  lockMs: config().STAFF_SIGNIN_LOCK_SECONDS * 1000,
};

/** A token whose session row was ended (sign-out, password change, disabled) or has passed its absolute end. */
class StaffSessionEnded extends Error {
  constructor() {
    super("The staff session has ended.");
    this.name = "StaffSessionEnded";
  }
}

/**
 * Checks a sign-in attempt: throttled per account and per client address (both keyed whether or not the account
 * exists, and bcrypt runs against a dummy hash for unknown e-mails, so every answer is the same), failures and
 * locks in the audit log.
 */
async function authorizeStaff(
  email: string,
  password: string,
  code: string,
  headers: Record<string, string | string[] | undefined>,
) {
  const prisma = await db();
  const address = clientAddress(headers);
  const keys = [accountKey(email), addressKey(address), pairKey(email, address)];
  // From an address the account signed in from, the account's own lock does not hold a correct password back.
  const trusted = await isTrustedAddress(prisma, email, address);
  const attempt = await beginSignInAttempt(prisma, keys, THROTTLE_POLICY, trusted ? [keys[0]!] : []);
  if (!attempt.allowed) throw new Error(SIGN_IN_THROTTLED);
  const user = password.length > 200 ? null : await verifyStaffPassword(prisma, email, password);
  // An account with a second factor needs its code too (a TOTP code not used before, or a recovery code). Without
  // one the form asks for it (nothing counted); a wrong one counts as a failed sign-in, like a wrong password.
  let secondFactor: "totp" | "recovery" | null | undefined;
  if (user?.totpSecret) {
    if (!code) throw new Error(SECOND_FACTOR_NEEDED);
    secondFactor =
      code.length > 40 ? null : await checkSecondFactor(prisma, { id: user.id, totpSecret: user.totpSecret }, code);
  }
  if (user && secondFactor !== null) {
    await signInSucceeded(prisma, email, address);
    if (secondFactor === "recovery") await auditedAccount(prisma, user, "staff.recovery_code_used", { address });
    return user;
  }
  const outcome = await signInFailed(prisma, keys, THROTTLE_POLICY);
  const failures = Object.fromEntries(outcome.map((o) => [o.key.split(":")[0], o.failures]));
  await auditedSignIn(
    prisma,
    "staff.signin_failed",
    { email, address },
    user ? { failures, reason: "second_factor" } : { failures },
  );
  for (const lock of outcome.filter((o) => o.lockedUntil)) {
    await auditedSignIn(
      prisma,
      "staff.signin_locked",
      { email, address },
      { lockedKey: lock.key.split(":")[0], failures: lock.failures, lockedUntil: lock.lockedUntil },
    );
  }
  // A wrong code: the form keeps asking for one (the password was right; the failure is counted all the same).
  if (user) throw new Error(SECOND_FACTOR_NEEDED);
  return null;
}

export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  // maxAge is the idle limit (the token is re-issued on use); the session row holds the absolute end.
  session: { strategy: "jwt", maxAge: config().STAFF_SESSION_IDLE_SECONDS },
  pages: { signIn: "/signin" },
  providers: [
    CredentialsProvider({
      name: "Staff account",
      credentials: {
        email: { label: "E-mail", type: "email" },
        password: { label: "Password", type: "password" },
        code: { label: "Code from your authenticator app, or a recovery code", type: "text" },
      },
      authorize: async (credentials, req) => {
        if (typeof credentials?.email !== "string" || typeof credentials.password !== "string" || !credentials.email)
          return null;
        const code = typeof credentials.code === "string" ? credentials.code.trim() : "";
        const user = await authorizeStaff(
          credentials.email,
          credentials.password,
          code,
          (req?.headers ?? {}) as Record<string, string>,
        );
        return user ? { id: user.id, email: user.email, name: user.name ?? user.email } : null;
      },
    }),
  ],
  callbacks: {
    jwt: async ({ token, user }) => {
      if (user) {
        token.staffId = user.id;
        token.sid = await createStaffSession(await db(), user.id, config().STAFF_SESSION_MAX_AGE_SECONDS);
        return token;
      }
      // Every read of the session (pages, JSON routes, /api/auth/session) passes here: an ended session is refused
      // and next-auth clears its cookie instead of re-issuing it.
      if (!(await isStaffSessionLive(await db(), token.sid, token.staffId))) throw new StaffSessionEnded();
      return token;
    },
    session: ({ session, token }) => ({ ...session, staffId: token.staffId as string }),
    // Only this app's own pages: a malformed, foreign, protocol-relative or javascript: callbackUrl goes home.
    redirect: ({ url, baseUrl }) => sameOriginOr(url, baseUrl),
  },
  events: {
    signOut: async ({ token }) => revokeStaffSession(await db(), token?.sid),
  },
  logger: {
    error: (code, metadata) => {
      // An ended session is an expected outcome, not an error worth a stack trace.
      if ((metadata as { name?: string } | undefined)?.name === "StaffSessionEnded") return;
      console.error(`[next-auth][error][${code}]`, metadata);
    },
  },
};

/** `url` when it is on `baseUrl`'s origin (relative paths resolved against it), else `baseUrl`. */
export function sameOriginOr(url: string, baseUrl: string): string {
  try {
    const target = new URL(url, baseUrl);
    return target.origin === new URL(baseUrl).origin ? target.href : baseUrl;
  } catch {
    return baseUrl;
  }
}
