/**
 * Admin CLI for operators and automation: `npm run --silent loyalty -- <noun> <verb> [--flags]`.
 * The last line of stdout is always one JSON object: the result, or {"error":{...}} with a non-zero exit.
 */
import { db, disconnectDb } from "@/lib/db/client";
import { onProgramClock } from "@/lib/domain/clock";
import { readProgramClock } from "@/lib/domain/program-clock-read";
import { AppError } from "@/lib/errors";
import { DatabaseLockedError } from "@/lib/db/pglite-lock";
import { formatPath } from "@/lib/api/problem";
import type { Command } from "./cli/command";
import { catalogueCommands } from "./cli/catalogue-commands";
import { deliveryCommands } from "./cli/delivery-commands";
import { exportCommands } from "./cli/export-commands";
import { programCommands } from "./cli/program-commands";
import { redemptionCommands } from "./cli/redemption-commands";
import { correctionCommands } from "./cli/correction-commands";
import { referralCommands } from "./cli/referral-commands";
import { tokenCommands } from "./cli/token-commands";

/** The command table: one entry per `noun verb`, each a zod schema for its flags and a call into lib/domain. */
const commands: Record<string, Command> = {
  ...programCommands,
  ...catalogueCommands,
  ...deliveryCommands,
  ...exportCommands,
  ...redemptionCommands,
  ...correctionCommands,
  ...referralCommands,
  ...tokenCommands,
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
  const list = Object.entries(commands)
    .map(([n, c]) => `  ${n} ${c.usage}`)
    .join("\n");
  // `--help` (or `help`) is a question, not a mistake: the usage, and exit 0.
  if (values.help !== undefined || positionals[0] === "help") {
    if (command) console.error(`usage: npm run --silent loyalty -- ${name} ${command.usage}`);
    else console.error(`usage: npm run --silent loyalty -- <noun> <verb> [--flags]\n${list}`);
    console.log(
      JSON.stringify(command ? { command: name, usage: command.usage } : { commands: Object.keys(commands) }),
    );
    return;
  }
  if (!command) {
    console.error(`usage: npm run --silent loyalty -- <noun> <verb> [--flags]\n${list}`);
    fail("unknown_command", name ? `unknown command "${name}"` : "no command given");
  }
  const parsed = command.flags.safeParse(values);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ flag: `--${formatPath(i.path)}`, message: i.message }));
    fail(
      "invalid_flags",
      `${name}: ${errors.map((e) => `${e.flag} ${e.message}`).join("; ")} (usage: ${command.usage})`,
      errors,
    );
  }
  // A command on a test program acts at that program's clock (lib/domain/clock.ts), as the API and dashboard do.
  const programId = (parsed.data as { program?: unknown }).program;
  const clockAt = typeof programId === "string" ? await readProgramClock(await db(), programId) : null;
  const result = await onProgramClock(String(programId), clockAt, () => command.run(parsed.data as never));
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
