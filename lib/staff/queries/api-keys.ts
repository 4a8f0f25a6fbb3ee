import "server-only";
import type { Db } from "@/lib/db/types";

/** The API keys page: every key of the program, newest first (never its hash). */
export async function apiKeys(db: Db, programId: string) {
  return db.apiKey.findMany({
    where: { programId },
    orderBy: { createdAt: "desc" },
    select: {
      id: true,
      name: true,
      prefix: true,
      rateLimitPerSec: true,
      rateLimitBurst: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
      updatedAt: true,
    },
  });
}
