import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { db } from "@/lib/db/client";
import { verifyStaffPassword } from "@/lib/domain/staff";

/**
 * The session-signing secret: NEXTAUTH_SECRET when set (set it when several instances serve the dashboard,
 * so they all accept each other's sessions), else 32 random bytes generated on first start and kept in
 * .data/auth-secret (mode 600, git-ignored; AUTH_SECRET_FILE moves it), so a single instance needs no
 * configuration and no secret ever lives in the repository. Deleting the file signs everyone out.
 */
function authSecret(): string {
  if (process.env.NEXTAUTH_SECRET) return process.env.NEXTAUTH_SECRET;
  const file = path.resolve(process.env.AUTH_SECRET_FILE ?? ".data/auth-secret");
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (err) {
      // Another process starting at the same moment wrote it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return readFileSync(file, "utf8").trim();
}

// Without NEXTAUTH_URL the public origin comes from the Host header (set NEXTAUTH_URL behind a proxy).
if (!process.env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";

export const SESSION_MAX_AGE_SECONDS = 8 * 3600;

export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: "/signin" },
  providers: [
    CredentialsProvider({
      name: "Staff account",
      credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
      authorize: async (credentials) => {
        if (!credentials?.email || !credentials.password || credentials.password.length > 200) return null;
        const user = await verifyStaffPassword(await db(), credentials.email, credentials.password);
        return user ? { id: user.id, email: user.email, name: user.name ?? user.email } : null;
      },
    }),
  ],
  callbacks: {
    jwt: ({ token, user }) => {
      if (user) token.staffId = user.id;
      return token;
    },
    session: ({ session, token }) => ({ ...session, staffId: token.staffId as string }),
  },
};
