import { z } from "zod";
import { invalidInput } from "@/lib/errors";
import { db } from "@/lib/db/client";
import { ImageUrl, MAX_POINTS } from "@/lib/api/schemas/common";
import { createApiKey, RATE_LIMIT, revokeApiKey } from "@/lib/domain/api-keys";
import { fireDueLifecycle } from "@/lib/domain/campaigns/lifecycle";
import { expireDuePoints } from "@/lib/domain/points";
import { createProgram, getProgram, updateProgram } from "@/lib/domain/programs";
import { createStaff, setStaffPassword } from "@/lib/domain/staff";
import { createStaffLink } from "@/lib/domain/staff-links";
import { config } from "@/lib/config";
import { createTier } from "@/lib/domain/tiers";
import { recalculateDueTiers } from "@/lib/domain/tiers-engine";
import { ROLES, type Role } from "@/lib/domain/vocabulary";
import { isTimeZone } from "@/lib/domain/time-zones";
import { getPointsPolicy, updatePointsPolicy } from "@/lib/domain/points-policy";
import { EXPIRY_POLICIES, EXPIRY_ROUNDINGS, type ExpiryPolicy, type ExpiryRounding } from "@/lib/domain/expiry-rules";

const YesNo = z.enum(["yes", "no"]);
import { MAX_CANCEL_HOURS } from "@/lib/staff/forms/program";
import { seedDemo } from "../seed/demo";
import { dateOrNow, Int, Name, Now, Password, Uuid, type Command } from "./command";

/** `--allowed-origins a,b`: the list; "none" (or empty): no origin; left out: unchanged. */
const originList = (flag: string | undefined) =>
  flag === undefined
    ? undefined
    : flag.trim() === "none"
      ? []
      : flag
          .split(",")
          .map((o) => o.trim())
          .filter((o) => o !== "");

/** CLI commands for a program and who may use it: settings, tiers, API keys, staff, the periodic jobs, demo data. */
export const programCommands: Record<string, Command> = {
  // Pending points and the expiry policy (lib/domain/points-policy.ts); no flag but --program: shows them.
  "program points-policy": {
    usage:
      "--program ID [--pending-days D] [--pending-until-confirmed yes|no] [--pending-counts-for-tier yes|no] [--expiry-policy rolling|calendar|inactivity|none] [--expiry-months M|off] [--expiry-rounding none|month|quarter|year] [--expiry-calendar-date MM-DD|off] [--expiry-calendar-years Y] [--expiry-inactivity-days D|off] [--expiry-warning-days D|off]",
    flags: z.strictObject({
      program: Uuid,
      "pending-days": Int(0, 365).optional(),
      "pending-until-confirmed": YesNo.optional(),
      "pending-counts-for-tier": YesNo.optional(),
      "expiry-policy": z.enum(EXPIRY_POLICIES).optional(),
      "expiry-months": z.union([z.literal("off"), Int(1, 120)]).optional(),
      "expiry-rounding": z.enum(EXPIRY_ROUNDINGS).optional(),
      "expiry-calendar-date": z.string().max(5).optional(),
      "expiry-calendar-years": Int(1, 10).optional(),
      "expiry-inactivity-days": z.union([z.literal("off"), Int(1, 3650)]).optional(),
      "expiry-warning-days": z.union([z.literal("off"), Int(1, 365)]).optional(),
    }),
    run: async (f: {
      program: string;
      "pending-days"?: number;
      "pending-until-confirmed"?: "yes" | "no";
      "pending-counts-for-tier"?: "yes" | "no";
      "expiry-policy"?: ExpiryPolicy;
      "expiry-months"?: number | "off";
      "expiry-rounding"?: ExpiryRounding;
      "expiry-calendar-date"?: string;
      "expiry-calendar-years"?: number;
      "expiry-inactivity-days"?: number | "off";
      "expiry-warning-days"?: number | "off";
    }) => {
      const offIsNull = <T>(v: T | "off") => (v === "off" ? null : v);
      const yes = (v: "yes" | "no" | undefined) => (v === undefined ? undefined : v === "yes");
      const database = await db();
      if (Object.keys(f).length === 1) return getPointsPolicy(database, f.program);
      return updatePointsPolicy(database, f.program, {
        pendingDays: f["pending-days"],
        pendingUntilConfirmed: yes(f["pending-until-confirmed"]),
        pendingCountsForTier: yes(f["pending-counts-for-tier"]),
        expiryPolicy: f["expiry-policy"],
        pointsExpiryMonths: offIsNull(f["expiry-months"]),
        expiryRounding: f["expiry-rounding"],
        expiryCalendarDate: offIsNull(f["expiry-calendar-date"]),
        expiryCalendarYears: f["expiry-calendar-years"],
        expiryInactivityDays: offIsNull(f["expiry-inactivity-days"]),
        expiryWarningDays: offIsNull(f["expiry-warning-days"]),
      });
    },
  },
  "program create": {
    usage: "--name N [--tier-period-months 12] [--test [--clock ISO]]",
    flags: z.strictObject({
      name: Name,
      "tier-period-months": Int(1, 120).optional(),
      // A test program (fixed at creation): lk_test_ keys, livemode false, a clock moved by POST …/clock/advance.
      test: z.literal(true).optional(),
      clock: z.iso.datetime({ offset: true }).optional(),
    }),
    run: async (f: { name: string; "tier-period-months"?: number; test?: true; clock?: string }) => {
      if (f.clock && !f.test) throw invalidInput("--clock is the starting time of a test program: add --test");
      return createProgram(await db(), {
        name: f.name,
        tierPeriodMonths: f["tier-period-months"],
        test: f.test ?? false,
        clockAt: f.clock ? new Date(f.clock) : undefined,
      });
    },
  },
  "program show": {
    usage: "--id ID",
    flags: z.strictObject({ id: Uuid }),
    run: async (f: { id: string }) => getProgram(await db(), f.id),
  },
  "program update": {
    usage:
      "--id ID [--name N] [--tier-period-months M] [--points-expiry-months M|off] [--time-zone IANA] [--adjust-ceiling-support P|off] [--adjust-ceiling-manager P|off] [--redemption-cancel-hours H|any] [--allowed-origins 'https://shop.example.com,https://…'|none]",
    flags: z.strictObject({
      id: Uuid,
      name: Name.optional(),
      "tier-period-months": Int(1, 120).optional(),
      "points-expiry-months": z.union([z.literal("off"), Int(1, 120)]).optional(),
      "time-zone": z.string().refine(isTimeZone, "must be an IANA time zone, e.g. Europe/Madrid").optional(),
      "adjust-ceiling-support": z.union([z.literal("off"), Int(0, MAX_POINTS)]).optional(),
      "adjust-ceiling-manager": z.union([z.literal("off"), Int(0, MAX_POINTS)]).optional(),
      "redemption-cancel-hours": z.union([z.literal("any"), Int(0, MAX_CANCEL_HOURS)]).optional(),
      // Comma-separated; "none" allows no origin. Checked by updateProgram (lib/domain/web-origins.ts).
      "allowed-origins": z.string().max(10_000).optional(),
    }),
    run: async (f: {
      id: string;
      name?: string;
      "tier-period-months"?: number;
      "points-expiry-months"?: number | "off";
      "time-zone"?: string;
      "adjust-ceiling-support"?: number | "off";
      "adjust-ceiling-manager"?: number | "off";
      "redemption-cancel-hours"?: number | "any";
      "allowed-origins"?: string;
    }) => {
      // "off" is no ceiling (null); a flag left out leaves the setting as it is (undefined).
      const offIsNull = <T>(v: T | "off") => (v === "off" ? null : v);
      return updateProgram(await db(), f.id, {
        name: f.name,
        tierPeriodMonths: f["tier-period-months"],
        pointsExpiryMonths: offIsNull(f["points-expiry-months"]),
        timeZone: f["time-zone"],
        adjustCeilingSupport: offIsNull(f["adjust-ceiling-support"]),
        adjustCeilingManager: offIsNull(f["adjust-ceiling-manager"]),
        // 0 turns cancelling off; "any": no time limit (null).
        redemptionCancelHours: f["redemption-cancel-hours"] === "any" ? null : f["redemption-cancel-hours"],
        allowedOrigins: originList(f["allowed-origins"]),
      });
    },
  },
  "tier create": {
    usage: "--program ID --name N --required-points P --factor F [--content TEXT] [--image URL]",
    flags: z.strictObject({
      program: Uuid,
      name: Name,
      "required-points": Int(0, 1_000_000_000),
      factor: z.coerce.number().min(0).max(100),
      content: z.string().max(2000).optional(),
      image: ImageUrl.optional(),
    }),
    run: async (f: {
      program: string;
      name: string;
      "required-points": number;
      factor: number;
      content?: string;
      image?: string;
    }) =>
      createTier(await db(), {
        programId: f.program,
        name: f.name,
        requiredPoints: f["required-points"],
        factor: f.factor,
        content: f.content,
        image: f.image,
      }),
  },
  "tiers recalculate": {
    usage: "--program ID [--now ISO]",
    flags: z.strictObject({ program: Uuid, now: Now }),
    run: async (f: { program: string; now?: string }) =>
      recalculateDueTiers(await db(), { programId: f.program, now: dateOrNow(f.now) }),
  },
  "points expire": {
    usage: "--program ID [--now ISO]",
    flags: z.strictObject({ program: Uuid, now: Now }),
    run: async (f: { program: string; now?: string }) =>
      expireDuePoints(await db(), { programId: f.program, now: dateOrNow(f.now) }),
  },
  "lifecycle fire": {
    usage: "--program ID [--now ISO]",
    flags: z.strictObject({ program: Uuid, now: Now }),
    run: async (f: { program: string; now?: string }) =>
      fireDueLifecycle(await db(), { programId: f.program, now: dateOrNow(f.now) }),
  },
  "apikey create": {
    usage: "--program ID --name N [--rate-limit PER_SECOND (50)] [--burst AT_ONCE (2 × rate)]",
    flags: z.strictObject({
      program: Uuid,
      name: Name,
      "rate-limit": Int(1, RATE_LIMIT.maxPerSec).optional(),
      burst: Int(1, RATE_LIMIT.maxBurst).optional(),
    }),
    run: async (f: { program: string; name: string; "rate-limit"?: number; burst?: number }) => {
      const key = await createApiKey(await db(), {
        programId: f.program,
        name: f.name,
        rateLimitPerSec: f["rate-limit"],
        rateLimitBurst: f.burst,
      });
      return {
        id: key.id,
        key: key.key,
        prefix: key.prefix,
        rateLimitPerSec: key.rateLimitPerSec,
        rateLimitBurst: key.rateLimitBurst,
      };
    },
  },
  "apikey revoke": {
    usage: "--id ID",
    flags: z.strictObject({ id: Uuid }),
    run: async (f: { id: string }) => revokeApiKey(await db(), f.id),
  },
  "staff create": {
    usage: `--email E --password P --program ID --role ${ROLES.join("|")} [--name N]`,
    flags: z.strictObject({
      email: z.email(),
      password: Password,
      program: Uuid,
      role: z.enum(ROLES),
      name: Name.optional(),
    }),
    run: async (f: { email: string; password: string; program: string; role: Role; name?: string }) =>
      createStaff(await db(), {
        email: f.email,
        password: f.password,
        programId: f.program,
        role: f.role,
        name: f.name,
      }),
  },
  "staff invite": {
    usage: `--email E --program ID --role ${ROLES.join("|")} [--name N] [--base-url https://loyalty.example.com]`,
    flags: z.strictObject({
      email: z.email(),
      program: Uuid,
      role: z.enum(ROLES),
      name: Name.optional(),
      "base-url": z.url().optional(),
    }),
    // A one-time link (72 h, single use) that sets the password; printed once, only its hash is stored. The link's
    // origin: --base-url, else NEXTAUTH_URL, else http://localhost:$PORT.
    run: async (f: { email: string; program: string; role: Role; name?: string; "base-url"?: string }) => {
      const prisma = await db();
      const email = f.email.trim().toLowerCase();
      return prisma.$transaction(async (tx) => {
        await getProgram(tx, f.program);
        if (await tx.staffUser.findUnique({ where: { email }, select: { id: true } }))
          throw invalidInput("This e-mail has an account already: use `staff create` to add it to the program.");
        const link = await createStaffLink(tx, {
          kind: "invite",
          email,
          programId: f.program,
          role: f.role,
          name: f.name ?? null,
          createdById: null,
        });
        await tx.auditLog.create({
          data: {
            programId: f.program,
            staffEmail: "cli",
            action: "staff.invite",
            entityType: "staff_invite",
            after: { email, role: f.role, expiresAt: link.expiresAt.toISOString(), by: "cli" },
          },
        });
        const origin = f["base-url"] ?? config().NEXTAUTH_URL ?? `http://localhost:${config().PORT}`;
        return { email, role: f.role, link: new URL(link.path, origin).href, expiresAt: link.expiresAt };
      });
    },
  },
  "staff password": {
    usage: "--email E --password P",
    flags: z.strictObject({ email: z.email(), password: Password }),
    run: async (f: { email: string; password: string }) => setStaffPassword(await db(), f),
  },
  "seed demo": {
    usage: "[--customers 1000]",
    flags: z.strictObject({ customers: Int(1, 1_000_000).optional() }),
    run: async (f: { customers?: number }) => seedDemo(await db(), f.customers ?? 1000),
  },
};
