import "server-only";
import type { Db } from "./types";

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
  #text: string | undefined;

  constructor(strings: readonly string[], values: readonly unknown[]) {
    if (strings.length !== values.length + 1) throw new TypeError("Sql: expected one more string than values");
    const flat = [strings[0]!];
    const flatValues: unknown[] = [];
    values.forEach((value, i) => {
      if (value instanceof Sql) {
        flat[flat.length - 1] += value.strings[0]!;
        flat.push(...value.strings.slice(1));
        flatValues.push(...value.values);
        flat[flat.length - 1] += strings[i + 1]!;
      } else {
        // `undefined` is a forgotten argument, not NULL: say so here rather than bind it.
        if (value === undefined) throw new TypeError(`Sql: value ${i + 1} is undefined (bind null for NULL)`);
        flatValues.push(value);
        flat.push(strings[i + 1]!);
      }
    });
    this.strings = flat;
    this.values = flatValues;
  }

  /** The text with its values as `$1`, `$2`, … in order. */
  get text(): string {
    this.#text ??= this.strings.reduce((text, part, i) => `${text}$${i}${part}`);
    return this.#text;
  }
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

/** The fragments one after the other with `separator` (constant text) between them. */
export function join(fragments: readonly Sql[], separator = ", "): Sql {
  if (fragments.length === 0) return empty;
  const between = fragments.slice(1).map(() => separator);
  return new Sql(["", ...between, ""], fragments);
}

/** The rows of a statement through Prisma's raw query (or `hotDb`'s, which goes straight to the pool). */
export function query<T>(db: Db, statement: Sql): Promise<T[]> {
  return db.$queryRawUnsafe<T[]>(statement.text, ...statement.values);
}

/** Runs a statement through Prisma and returns how many rows it changed. */
export function execute(db: Db, statement: Sql): Promise<number> {
  return db.$executeRawUnsafe(statement.text, ...statement.values);
}
