import { z } from "zod";
import { createReadStream } from "node:fs";
import { parse as parseCsv } from "csv-parse";
import { db } from "@/lib/db/client";
import { ImageUrl } from "@/lib/api/schemas/common";
import { createCouponPool, importCoupons } from "@/lib/domain/coupons";
import { createEarningFlow } from "@/lib/domain/earning-flows";
import { MAX_PENDING_DAYS } from "@/lib/domain/pending-rules";
import { EARNING_FLOW_KEY } from "@/lib/domain/vocabulary";
import { parseFlowParamsFlag, type FlowParamInput } from "@/lib/domain/flow-params";
import { createReward, updateReward } from "@/lib/domain/rewards";
import { Int, Name, Uuid, type Command } from "./command";

/** CLI commands for what customers earn and get: earning flows, rewards, coupon pools and their codes. */
export const catalogueCommands: Record<string, Command> = {
  "earning-flow create": {
    usage:
      "--program ID --key K (--points N | --points-per-unit N --param amount) [--params 'amount:0..100000,store?:1..9999'] " +
      "[--name N] [--cap-per-day N] [--cap-total N] [--once] [--pending-days N | --pending-until-confirmed]",
    flags: z
      .strictObject({
        program: Uuid,
        key: z.string().regex(EARNING_FLOW_KEY, "must be lower-case letters, digits, - or _"),
        name: Name.optional(),
        points: Int(1, 1_000_000_000).optional(),
        "points-per-unit": z.coerce.number().positive().max(1_000_000).optional(),
        param: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/)
          .optional(),
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
        // Overrides the program's pending setting for this flow's points (lib/domain/pending-rules.ts).
        "pending-days": Int(0, MAX_PENDING_DAYS).optional(),
        "pending-until-confirmed": z.boolean().optional(),
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
      "pending-days"?: number;
      "pending-until-confirmed"?: boolean;
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
        pendingDays: f["pending-days"],
        pending: f["pending-until-confirmed"] ? "until_confirmed" : null,
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
    run: async (f: {
      program: string;
      name: string;
      "cost-points": number;
      stock?: number;
      description?: string;
      image?: string;
      inactive?: boolean;
    }) =>
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
    usage:
      "--program ID --id ID [--name N] [--cost-points P] [--stock S|unlimited] [--description D] [--image URL] [--active true|false]",
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
    run: async (f: {
      program: string;
      id: string;
      name?: string;
      "cost-points"?: number;
      stock?: number | "unlimited";
      description?: string;
      image?: string;
      active?: "true" | "false";
    }) =>
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
      const rows = createReadStream(f.file).pipe(
        parseCsv({ skip_empty_lines: true, trim: true, relax_column_count: true }),
      );
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
        console.error(
          `imported ${p.imported} of ${p.read} codes read (${((Date.now() - started) / 1000).toFixed(1)} s)`,
        ),
      );
      return { ...result, seconds: Number(((Date.now() - started) / 1000).toFixed(2)) };
    },
  },
};
