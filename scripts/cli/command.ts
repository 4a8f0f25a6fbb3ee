import { z } from "zod";
import { PASSWORD_LENGTH } from "@/lib/domain/staff";

/**
 * What a CLI command is (scripts/cli.ts runs them), and the flag schemas several commands share. Flags arrive
 * as text, so numbers are coerced here; the domain function the command calls checks its own rules again.
 */

export type Command = { usage: string; flags: z.ZodType; run: (flags: never) => Promise<unknown> };

export const Name = z.string().trim().min(1).max(255);
export const Password = z.string().min(PASSWORD_LENGTH.min).max(PASSWORD_LENGTH.max);
export const Uuid = z.uuid();
export const Int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** `--now ISO`, for jobs replayed at a chosen time. */
export const Now = z.iso.datetime().optional();
export const dateOrNow = (now?: string) => (now ? new Date(now) : undefined);
