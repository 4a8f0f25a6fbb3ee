/**
 * Admin CLI for operators and automation: `npm run --silent loyalty -- <noun> <verb> [--flags]`.
 * The last line of stdout is always one JSON object: the result, or {"error":{...}} with a non-zero exit.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { db, disconnectDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { createApiKey, revokeApiKey } from "@/lib/domain/api-keys";
import { createProgram } from "@/lib/domain/programs";
import { createTier } from "@/lib/domain/tiers";
import { seedDemo } from "@/lib/domain/demo";
import { formatPath } from "@/lib/api/problem";

const Name = z.string().trim().min(1).max(255);
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
    usage: "--program ID --name N [--rate-limit PER_SECOND]",
    flags: z.strictObject({ program: Uuid, name: Name, "rate-limit": Int(1, 1_000_000).optional() }),
    run: async (f: { program: string; name: string; "rate-limit"?: number }) => {
      const key = await createApiKey(await db(), { programId: f.program, name: f.name, rateLimitPerSec: f["rate-limit"] });
      return { id: key.id, key: key.key, prefix: key.prefix };
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
      image: z.url().max(2000).optional(),
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
  "seed demo": {
    usage: "[--customers 1000]",
    flags: z.strictObject({ customers: Int(1, 1_000_000).optional() }),
    run: async (f: { customers?: number }) => seedDemo(await db(), f.customers ?? 1000),
  },
};

function fail(code: string, message: string, errors?: unknown): never {
  console.error(`error: ${message}`);
  console.log(JSON.stringify({ error: { code, message, ...(errors ? { errors } : {}) } }));
  process.exitCode = 1;
  throw new Error("handled");
}

async function main() {
  const { positionals, values } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, strict: false });
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
    } else {
      console.error(err);
      console.log(JSON.stringify({ error: { code: "internal", message: String((err as Error)?.message ?? err) } }));
    }
    process.exitCode = 1;
  })
  .finally(() => disconnectDb());
