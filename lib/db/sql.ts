import "server-only";
import type { Db, RawQueries } from "./types";

/** A placeholder named in a statement built once, at module load, and bound on each run (`params`). */
export class Param {
  constructor(
    readonly name: string,
    /** Its `$n`. */
    readonly position: number,
  ) {}

  /** A param written into text other than `sql`'s (a plain template string) is a mistake: said at module load. */
  toString(): never {
    throw new TypeError(`Sql: param ${this.name} outside the sql tag`);
  }
}

/**
 * SQL written as a tagged template: `sql\`SELECT … WHERE id = ${id}\``. Every interpolated value is bound as a
 * `$n` parameter, never written into the text; an interpolated `Sql` (a fragment) is spliced in with its values,
 * renumbered after the ones before it. The same statement runs through Prisma's raw calls (`query`, `execute`) and
 * through the pg pool (`direct(statement.text, statement.values)`), so both paths share one way of writing SQL.
 * Equal structure gives equal text, so a statement is prepared once per connection whatever its values
 * (lib/db/adapter.ts names statements after their text).
 */
export class Sql {
  /** The text between the values: always one more than `values`. */
  readonly strings: readonly string[];
  readonly values: readonly unknown[];
  /** Whether the text holds `Param` placeholders (and so no value of its own: see `params`). */
  readonly parameterised: boolean;
  #text: string | undefined;

  constructor(strings: readonly string[], values: readonly unknown[]) {
    if (strings.length !== values.length + 1) throw new TypeError("Sql: expected one more string than values");
    const flat = [strings[0]!];
    const flatValues: unknown[] = [];
    let parameterised = false;
    values.forEach((value, i) => {
      if (value instanceof Param) {
        // A placeholder of a statement built once: its `$n` is part of the constant text, bound on each run.
        flat[flat.length - 1] += `$${value.position}${strings[i + 1]!}`;
        parameterised = true;
      } else if (value instanceof Sql) {
        flat[flat.length - 1] += value.strings[0]!;
        flat.push(...value.strings.slice(1));
        flatValues.push(...value.values);
        flat[flat.length - 1] += strings[i + 1]!;
        parameterised ||= value.parameterised;
      } else {
        // `undefined` is a forgotten argument, not NULL: say so here rather than bind it.
        if (value === undefined) throw new TypeError(`Sql: value ${i + 1} is undefined (bind null for NULL)`);
        flatValues.push(value);
        flat.push(strings[i + 1]!);
      }
    });
    // Numbered placeholders and values numbered in order cannot share a text: their `$n` would collide.
    if (parameterised && flatValues.length > 0) throw new TypeError("Sql: a statement with params binds no values");
    this.strings = flat;
    this.values = flatValues;
    this.parameterised = parameterised;
  }

  /** The text with its values as `$1`, `$2`, … in order. */
  get text(): string {
    this.#text ??= this.strings.reduce((text, part, i) => `${text}$${i}${part}`);
    return this.#text;
  }
}

/**
 * Named placeholders for a statement built once (at module load) and run many times, as the hot writes are: its text
 * must not change with its values (it is prepared once per connection under a name made from its text). Interpolated
 * into `sql`, `p.name` writes `$n` into the text (numbered from `first`: after the keyed statement's own, say) and
 * binds nothing; `values(args)` gives the arguments in their order, on each run. A statement holds params or values,
 * never both.
 *
 *     const p = params(["programId", "points"] as const);
 *     const STATEMENT = sql\`UPDATE … SET balance = balance + ${p.sql.points}::int WHERE "programId" = ${p.sql.programId}::uuid\`;
 *     db.$queryRawUnsafe(STATEMENT.text, ...p.values({ programId, points }));
 */
export function params<N extends string>(names: readonly N[], first = 1) {
  const placeholders = Object.fromEntries(names.map((n, i) => [n, new Param(n, first + i)])) as Record<N, Param>;
  return { sql: placeholders, values: (args: Record<N, unknown>) => names.map((n) => args[n]) };
}

/** A constant integer of the code (a limit, a window) written into the text: never a value from a request or a row. */
export function int(n: number): Sql {
  if (!Number.isSafeInteger(n)) throw new TypeError(`Sql: ${n} is not an integer`);
  return raw(String(n));
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql(strings, values);
}

/**
 * Text written into the statement as it is, for trusted constant text only (an identifier, a column expression
 * built from constants): never for anything a request or a row supplies.
 */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

export const empty = raw("");

/**
 * The comment that marks a statement as planned for its values on every run (`customPlan`): lib/db/adapter.ts sends
 * a statement holding it as the protocol's unnamed statement instead of preparing it by name.
 */
export const CUSTOM_PLAN_MARK = "/* custom plan */";

/**
 * `statement`, planned for its actual values each time it runs. Statements are prepared once per connection under a
 * name (lib/db/adapter.ts), and PostgreSQL switches a prepared statement to a generic plan after five runs, planned
 * without the values: right for the hot paths, wrong where the best plan depends on them ("%example%", every row,
 * needs a scan that stops at LIMIT; "%smith.12345%", one row, the trigram index). A marked statement goes unnamed
 * (parse, bind, execute in one round trip), and PostgreSQL plans an unnamed statement with its bound values every
 * time: no transaction and no `SET LOCAL plan_cache_mode` needed. PGlite sends every statement unnamed already.
 */
export function customPlan(statement: Sql): Sql {
  return sql`${raw(CUSTOM_PLAN_MARK)} ${statement}`;
}

/** The fragments one after the other with `separator` (constant text) between them. */
export function join(fragments: readonly Sql[], separator = ", "): Sql {
  if (fragments.length === 0) return empty;
  const between = fragments.slice(1).map(() => separator);
  return new Sql(["", ...between, ""], fragments);
}

/** The rows of a statement through Prisma's raw query, a transaction's, or the pool's (`HotDb.raw`). */
export function query<T>(db: RawQueries, statement: Sql): Promise<T[]> {
  return db.$queryRawUnsafe<T[]>(statement.text, ...statement.values);
}

/** Runs a statement through Prisma and returns how many rows it changed. */
export function execute(db: Db, statement: Sql): Promise<number> {
  return db.$executeRawUnsafe(statement.text, ...statement.values);
}
