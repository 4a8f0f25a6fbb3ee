/**
 * The one place for how fixture specs compose: a spec is parts (fixtures.ts) made one after the other on a migrated
 * database by one CLI process, each `.then(…)` after the parts before it, on what they built.
 * What a part builds must be JSON: on PGlite it is stored with the template (template-cache.ts), keyed on the parts'
 * `key` and code.
 */
import type { CliSession } from "./cli";

/** What a fixture part may use: the CLI, and `together`. */
export interface FixtureTools {
  loyalty(...args: string[]): Promise<Record<string, unknown>>;
  /** Runs the tasks (one after the other: they share one CLI process). */
  together<T extends unknown[]>(...tasks: { [K in keyof T]: () => Promise<T[K]> }): Promise<T>;
}

/** One step of a spec: what it adds to the fixtures `In` built before it. */
export interface FixturePart<In, Out> {
  /** What the part builds (its options), as text: with its code, part of the template's key. */
  key: string;
  make(tools: FixtureTools, built: In): Promise<Out>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyPart = FixturePart<any, any>;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** What the parts `P` build together. */
type Built<P extends AnyPart[]> = UnionToIntersection<
  { [K in keyof P]: P[K] extends FixturePart<never, infer O> ? O : never }[number]
>;

export interface FixtureSpec<F> {
  /** Names the PGlite template of these fixtures. */
  name: string;
  /** Everything the fixtures depend on besides the migrations, lib/ and the CLI: the parts' keys and code. */
  key: string;
  make(tools: FixtureTools): Promise<F>;
  /** These fixtures, then `parts` at once on what they built. */
  then<P extends FixturePart<F, unknown>[]>(...parts: P): FixtureSpec<F & Built<P>>;
}

function spec<F>(name: string, key: string, make: (tools: FixtureTools) => Promise<F>): FixtureSpec<F> {
  return {
    name,
    key,
    make,
    then<P extends FixturePart<F, unknown>[]>(...parts: P) {
      return spec<F & Built<P>>(name, key + partsKey(parts), async (tools) => {
        const built = await make(tools);
        const added = await tools.together(...parts.map((part) => () => part.make(tools, built)));
        return Object.assign({}, built, ...added);
      });
    },
  };
}

const partsKey = (parts: AnyPart[]) => parts.map((p) => `\n${p.key}\n${p.make.toString()}`).join("");

/** A spec of `parts`, made at once on a migrated database; `name` names its template. */
export function fixtures<P extends FixturePart<unknown, unknown>[]>(name: string, ...parts: P): FixtureSpec<Built<P>> {
  return spec<unknown>(name, "", async () => ({})).then(...parts) as FixtureSpec<Built<P>>;
}

/**
 * The tools on one CLI process (`loyalty --stdin` on the template's database): its commands run one after the other,
 * so `together` does too (a command takes milliseconds there; a process start per command took seconds).
 */
export function toolsFor(cli: CliSession): FixtureTools {
  return {
    loyalty: (...args) => cli.loyalty(args),
    together: async <T extends unknown[]>(...tasks: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> => {
      const out: unknown[] = [];
      for (const t of tasks) out.push(await t());
      return out as T;
    },
  };
}
