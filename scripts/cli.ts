/**
 * Admin CLI for operators and automation: `npm run --silent loyalty -- <noun> <verb> [--flags]`.
 * The last line of stdout is always one JSON object: the result, or {"error":{...}} with a non-zero exit.
 * `--stdin` runs one command per input line (a JSON array of its arguments) in one process: see runLines.
 */
import { createInterface } from "node:readline";
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

/** A command's refusal: its JSON error, printed as the result. */
class Refused extends Error {
  constructor(readonly error: { code: string; message: string; [k: string]: unknown }) {
    super(error.message);
  }
}

function refuse(code: string, message: string, errors?: unknown): never {
  throw new Refused({ code, message, ...(errors ? { errors } : {}) });
}

const usageList = () =>
  Object.entries(commands)
    .map(([n, c]) => `  ${n} ${c.usage}`)
    .join("\n");

/** Runs one command line; answers its result, or `{ error }` (the caller decides the exit code). */
async function runCommand(args: string[]): Promise<{ ok: boolean; result: unknown }> {
  try {
    const { positionals, values } = parseFlags(args);
    const name = positionals.slice(0, 2).join(" ");
    const command = commands[name];
    // `--help` (or `help`) is a question, not a mistake: the usage, and exit 0.
    if (values.help !== undefined || positionals[0] === "help") {
      if (command) console.error(`usage: npm run --silent loyalty -- ${name} ${command.usage}`);
      else console.error(`usage: npm run --silent loyalty -- <noun> <verb> [--flags]\n${usageList()}`);
      return {
        ok: true,
        result: command ? { command: name, usage: command.usage } : { commands: Object.keys(commands) },
      };
    }
    if (!command) {
      console.error(`usage: npm run --silent loyalty -- <noun> <verb> [--flags]\n${usageList()}`);
      refuse("unknown_command", name ? `unknown command "${name}"` : "no command given");
    }
    const parsed = command.flags.safeParse(values);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((i) => ({ flag: `--${formatPath(i.path)}`, message: i.message }));
      refuse(
        "invalid_flags",
        `${name}: ${errors.map((e) => `${e.flag} ${e.message}`).join("; ")} (usage: ${command.usage})`,
        errors,
      );
    }
    // A command on a test program acts at that program's clock (lib/domain/clock.ts), as the API and dashboard do.
    const programId = (parsed.data as { program?: unknown }).program;
    const clockAt = typeof programId === "string" ? await readProgramClock(await db(), programId) : null;
    return {
      ok: true,
      result: await onProgramClock(String(programId), clockAt, () => command.run(parsed.data as never)),
    };
  } catch (err) {
    return { ok: false, result: { error: errorOf(err) } };
  }
}

function errorOf(err: unknown): Record<string, unknown> {
  if (err instanceof Refused) {
    console.error(`error: ${err.message}`);
    return err.error;
  }
  if (err instanceof AppError) {
    console.error(`error: ${err.message}`);
    return { code: err.code, message: err.message };
  }
  if (err instanceof DatabaseLockedError) {
    console.error(`error: ${err.message}`);
    return { code: "database_locked", message: err.message, pid: err.holder.pid };
  }
  console.error(err);
  return { code: "internal", message: String((err as Error)?.message ?? err) };
}

/**
 * `--stdin`: one command per line, each a JSON array of its arguments, answered by one JSON line each, in one
 * process and on one database connection (a setup script of many commands without a process start per command).
 * Exit code 1 when any command failed.
 */
async function runLines(): Promise<boolean> {
  let allOk = true;
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    let args: unknown;
    try {
      args = JSON.parse(line);
    } catch {
      args = null;
    }
    const { ok, result } =
      Array.isArray(args) && args.every((a) => typeof a === "string")
        ? await runCommand(args)
        : { ok: false, result: { error: { code: "invalid_line", message: "a line is a JSON array of strings" } } };
    allOk &&= ok;
    console.log(JSON.stringify(result));
  }
  return allOk;
}

async function main(): Promise<boolean> {
  const args = process.argv.slice(2);
  if (args.length === 1 && args[0] === "--stdin") return runLines();
  const { ok, result } = await runCommand(args);
  console.log(JSON.stringify(result));
  return ok;
}

main()
  .catch((err) => {
    console.log(JSON.stringify({ error: errorOf(err) }));
    return false;
  })
  .then(async (ok) => {
    // PGlite (Emscripten) sets process.exitCode itself when it opens (99) and closes (0): decide it last.
    await disconnectDb();
    process.exitCode = ok ? 0 : 1;
  });
