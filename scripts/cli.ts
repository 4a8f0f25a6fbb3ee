/**
 * Admin CLI for operators and automation: `npm run --silent loyalty -- <noun> <verb> [--flags]`.
 * The last line of stdout is always one JSON object: the result, or {"error":{...}} with a non-zero exit.
 */
import { z } from "zod";
import { db, disconnectDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { DatabaseLockedError } from "@/lib/db/pglite-lock";
import { createApiKey, RATE_LIMIT, revokeApiKey } from "@/lib/domain/api-keys";
import { createStaff, PASSWORD_LENGTH, setStaffPassword } from "@/lib/domain/staff";
import { ROLES, type Role } from "@/lib/domain/vocabulary";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import { seedDemo } from "./seed/demo";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { parseFlowParamsFlag, type FlowParamInput } from "@/lib/domain/flow-params";
import { recalculateDueTiers } from "@/lib/domain/tiers-engine";
import { expireDuePoints } from "@/lib/domain/points";
import { getProgram, updateProgram } from "@/lib/domain/programs";
import { createReward, updateReward } from "@/lib/domain/rewards";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { createWebhook, resendDelivery, setPushEndpoint } from "@/lib/domain/webhooks";
import { runOutbox } from "@/lib/jobs/outbox";
import { createReadStream } from "node:fs";
import { parse as parseCsv } from "csv-parse";
import { formatPath } from "@/lib/api/problem";
import { ImageUrl, MAX_POINTS } from "@/lib/api/schemas/common";

const Name = z.string().trim().min(1).max(255);
const Password = z.string().min(PASSWORD_LENGTH.min).max(PASSWORD_LENGTH.max);
const Uuid = z.uuid();
const Int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

type Command = { usage: string; flags: z.ZodType; run: (flags: never) => Promise<unknown> };

const commands: Record<string, Command> = {
  "program create": {
    usage: "--name N [--tier-period-months 12]",
    flags: z.strictObject({ name: Name, "tier-period-months": Int(1, 120).optional() }),
    run: async (f: { name: string; "tier-period-months"?: number }) =>
      createProgram(await db(), { name: f.name, tierPeriodMonths: f["tier-period-months"] }),
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
      const key = await createApiKey(await db(), { programId: f.program, name: f.name, rateLimitPerSec: f["rate-limit"], rateLimitBurst: f.burst });
      return { id: key.id, key: key.key, prefix: key.prefix, rateLimitPerSec: key.rateLimitPerSec, rateLimitBurst: key.rateLimitBurst };
    },
  },
  "apikey revoke": {
    usage: "--id ID",
    flags: z.strictObject({ id: Uuid }),
    run: async (f: { id: string }) => revokeApiKey(await db(), f.id),
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
    run: async (f: { program: string; name: string; "required-points": number; factor: number; content?: string; image?: string }) =>
      createTier(await db(), {
        programId: f.program,
        name: f.name,
        requiredPoints: f["required-points"],
        factor: f.factor,
        content: f.content,
        image: f.image,
      }),
  },
  "program show": {
    usage: "--id ID",
    flags: z.strictObject({ id: Uuid }),
    run: async (f: { id: string }) => getProgram(await db(), f.id),
  },
  "program update": {
    usage:
      "--id ID [--name N] [--tier-period-months M] [--points-expiry-months M|off] [--adjust-ceiling-support P|off] [--adjust-ceiling-manager P|off]",
    flags: z.strictObject({
      id: Uuid,
      name: Name.optional(),
      "tier-period-months": Int(1, 120).optional(),
      "points-expiry-months": z.union([z.literal("off"), Int(1, 120)]).optional(),
      "adjust-ceiling-support": z.union([z.literal("off"), Int(0, MAX_POINTS)]).optional(),
      "adjust-ceiling-manager": z.union([z.literal("off"), Int(0, MAX_POINTS)]).optional(),
    }),
    run: async (f: {
      id: string;
      name?: string;
      "tier-period-months"?: number;
      "points-expiry-months"?: number | "off";
      "adjust-ceiling-support"?: number | "off";
      "adjust-ceiling-manager"?: number | "off";
    }) => {
      // "off" is no ceiling (null); a flag left out leaves the setting as it is (undefined).
      const offIsNull = <T>(v: T | "off") => (v === "off" ? null : v);
      return updateProgram(await db(), f.id, {
        name: f.name,
        tierPeriodMonths: f["tier-period-months"],
        pointsExpiryMonths: offIsNull(f["points-expiry-months"]),
        adjustCeilingSupport: offIsNull(f["adjust-ceiling-support"]),
        adjustCeilingManager: offIsNull(f["adjust-ceiling-manager"]),
      });
    },
  },
  "tiers recalculate": {
    usage: "--program ID [--now ISO]",
    flags: z.strictObject({ program: Uuid, now: z.iso.datetime().optional() }),
    run: async (f: { program: string; now?: string }) =>
      recalculateDueTiers(await db(), { programId: f.program, now: f.now ? new Date(f.now) : undefined }),
  },
  "points expire": {
    usage: "--program ID [--now ISO]",
    flags: z.strictObject({ program: Uuid, now: z.iso.datetime().optional() }),
    run: async (f: { program: string; now?: string }) =>
      expireDuePoints(await db(), { programId: f.program, now: f.now ? new Date(f.now) : undefined }),
  },
  "earning-flow create": {
    usage:
      "--program ID --key K (--points N | --points-per-unit N --param amount) [--params 'amount:0..100000,store?:1..9999'] " +
      "[--name N] [--cap-per-day N] [--cap-total N] [--once]",
    flags: z
      .strictObject({
        program: Uuid,
        key: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must be lower-case letters, digits, - or _"),
        name: Name.optional(),
        points: Int(1, 1_000_000_000).optional(),
        "points-per-unit": z.coerce.number().positive().max(1_000_000).optional(),
        param: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/).optional(),
        // What a run may send: name[?][:min..max], comma-separated (? = optional; bounds default to 0..1000000000).
        params: z
          .string()
          .transform((text, ctx) => {
            const parsed = parseFlowParamsFlag(text);
            if ("message" in parsed) {
              ctx.addIssue({ code: "custom", message: parsed.message });
              return z.NEVER;
            }
            return parsed.params;
          })
          .optional(),
        "cap-per-day": Int(1, 1_000_000_000).optional(),
        "cap-total": Int(1, 1_000_000_000).optional(),
        once: z.boolean().optional(),
      })
      .refine((f) => (f.points === undefined) !== (f["points-per-unit"] === undefined), {
        message: "give either --points or --points-per-unit",
        path: ["points"],
      })
      .refine((f) => f["points-per-unit"] === undefined || f.param !== undefined, {
        message: "--points-per-unit needs --param",
        path: ["param"],
      }),
    run: async (f: {
      program: string;
      key: string;
      name?: string;
      points?: number;
      "points-per-unit"?: number;
      param?: string;
      params?: FlowParamInput[];
      "cap-per-day"?: number;
      "cap-total"?: number;
      once?: boolean;
    }) =>
      createEarningFlow(await db(), {
        programId: f.program,
        key: f.key,
        name: f.name,
        points: f.points,
        pointsPerUnit: f["points-per-unit"],
        param: f.param,
        params: f.params,
        capPerDay: f["cap-per-day"],
        capTotal: f["cap-total"],
        once: f.once,
      }),
  },
  "reward create": {
    usage: "--program ID --name N --cost-points P [--stock S] [--description D] [--image URL] [--inactive]",
    flags: z.strictObject({
      program: Uuid,
      name: Name,
      "cost-points": Int(1, 1_000_000_000),
      stock: Int(0, 1_000_000_000).optional(),
      description: z.string().max(2000).optional(),
      image: ImageUrl.optional(),
      inactive: z.boolean().optional(),
    }),
    run: async (f: { program: string; name: string; "cost-points": number; stock?: number; description?: string; image?: string; inactive?: boolean }) =>
      createReward(await db(), {
        programId: f.program,
        name: f.name,
        costPoints: f["cost-points"],
        stock: f.stock ?? null,
        description: f.description,
        image: f.image,
        active: !f.inactive,
      }),
  },
  "reward update": {
    usage: "--program ID --id ID [--name N] [--cost-points P] [--stock S|unlimited] [--description D] [--image URL] [--active true|false]",
    flags: z.strictObject({
      program: Uuid,
      id: Uuid,
      name: Name.optional(),
      "cost-points": Int(1, 1_000_000_000).optional(),
      stock: z.union([z.literal("unlimited"), Int(0, 1_000_000_000)]).optional(),
      description: z.string().max(2000).optional(),
      image: ImageUrl.optional(),
      active: z.enum(["true", "false"]).optional(),
    }),
    run: async (f: { program: string; id: string; name?: string; "cost-points"?: number; stock?: number | "unlimited"; description?: string; image?: string; active?: "true" | "false" }) =>
      updateReward(await db(), f.program, f.id, {
        name: f.name,
        costPoints: f["cost-points"],
        stock: f.stock === "unlimited" ? null : f.stock,
        description: f.description,
        image: f.image,
        active: f.active === undefined ? undefined : f.active === "true",
      }),
  },
  "coupon-pool create": {
    usage: "--program ID --name N [--valid-days D]",
    flags: z.strictObject({ program: Uuid, name: Name, "valid-days": Int(1, 3650).optional() }),
    run: async (f: { program: string; name: string; "valid-days"?: number }) =>
      createCouponPool(await db(), { programId: f.program, name: f.name, validDays: f["valid-days"] }),
  },
  "coupon-pool import": {
    usage: "--pool ID --file codes.csv   (one code per line; an optional header line `code`)",
    flags: z.strictObject({ pool: Uuid, file: z.string().min(1) }),
    run: async (f: { pool: string; file: string }) => {
      const started = Date.now();
      const rows = createReadStream(f.file).pipe(parseCsv({ skip_empty_lines: true, trim: true, relax_column_count: true }));
      async function* codes() {
        let first = true;
        for await (const row of rows as AsyncIterable<string[]>) {
          const code = row[0] ?? "";
          if (first && code.toLowerCase() === "code") {
            first = false;
            continue;
          }
          first = false;
          yield code;
        }
      }
      const result = await importCoupons(await db(), f.pool, codes(), (p) =>
        console.error(`imported ${p.imported} of ${p.read} codes read (${((Date.now() - started) / 1000).toFixed(1)} s)`),
      );
      return { ...result, seconds: Number(((Date.now() - started) / 1000).toFixed(2)) };
    },
  },
  "webhook create": {
    usage: "--program ID --url U",
    flags: z.strictObject({ program: Uuid, url: z.url() }),
    run: async (f: { program: string; url: string }) => createWebhook(await db(), { programId: f.program, url: f.url }),
  },
  "push-endpoint set": {
    usage: "--program ID --url U|off",
    flags: z.strictObject({ program: Uuid, url: z.union([z.literal("off"), z.url()]) }),
    run: async (f: { program: string; url: string }) =>
      setPushEndpoint(await db(), { programId: f.program, url: f.url === "off" ? null : f.url }),
  },
  "outbox run": {
    usage: "(one pass of the webhook and push delivery worker)",
    flags: z.strictObject({}),
    run: async () => runOutbox(await db()),
  },
  "delivery resend": {
    usage: "--program ID --id DELIVERY_ID   (queue a webhook or push delivery again, for an attempt now)",
    flags: z.strictObject({ program: Uuid, id: Uuid }),
    run: async (f: { program: string; id: string }) => resendDelivery(await db(), f.program, f.id),
  },
  "staff create": {
    usage: "--email E --password P --program ID --role owner|manager|support|viewer [--name N]",
    flags: z.strictObject({ email: z.email(), password: Password, program: Uuid, role: z.enum(ROLES), name: Name.optional() }),
    run: async (f: { email: string; password: string; program: string; role: Role; name?: string }) =>
      createStaff(await db(), { email: f.email, password: f.password, programId: f.program, role: f.role, name: f.name }),
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

/** `noun verb --flag value --flag=value --switch`: a flag not followed by a value is `true`. */
function parseFlags(args: string[]) {
  const positionals: string[] = [];
  const values: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    if (eq > 0) values[arg.slice(2, eq)] = arg.slice(eq + 1);
    else if (i + 1 < args.length && !args[i + 1]!.startsWith("--")) values[arg.slice(2)] = args[++i]!;
    else values[arg.slice(2)] = true;
  }
  return { positionals, values };
}

function fail(code: string, message: string, errors?: unknown): never {
  console.error(`error: ${message}`);
  console.log(JSON.stringify({ error: { code, message, ...(errors ? { errors } : {}) } }));
  process.exitCode = 1;
  throw new Error("handled");
}

async function main() {
  const { positionals, values } = parseFlags(process.argv.slice(2));
  const name = positionals.slice(0, 2).join(" ");
  const command = commands[name];
  if (!command) {
    const list = Object.entries(commands).map(([n, c]) => `  ${n} ${c.usage}`).join("\n");
    console.error(`usage: npm run --silent loyalty -- <noun> <verb> [--flags]\n${list}`);
    fail("unknown_command", name ? `unknown command "${name}"` : "no command given");
  }
  const parsed = command.flags.safeParse(values);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ flag: `--${formatPath(i.path)}`, message: i.message }));
    fail("invalid_flags", `${name}: ${errors.map((e) => `${e.flag} ${e.message}`).join("; ")} (usage: ${command.usage})`, errors);
  }
  const result = await command.run(parsed.data as never);
  console.log(JSON.stringify(result));
}

main()
  .catch((err) => {
    if (err instanceof Error && err.message === "handled") return;
    if (err instanceof AppError) {
      console.error(`error: ${err.message}`);
      console.log(JSON.stringify({ error: { code: err.code, message: err.message } }));
    } else if (err instanceof DatabaseLockedError) {
      console.error(`error: ${err.message}`);
      console.log(JSON.stringify({ error: { code: "database_locked", message: err.message, pid: err.holder.pid } }));
    } else {
      console.error(err);
      console.log(JSON.stringify({ error: { code: "internal", message: String((err as Error)?.message ?? err) } }));
    }
    process.exitCode = 1;
  })
  .finally(async () => {
    // PGlite (Emscripten) sets process.exitCode itself when it opens (99) and closes (0): decide it last.
    const failed = process.exitCode === 1;
    await disconnectDb();
    process.exitCode = failed ? 1 : 0;
  });
