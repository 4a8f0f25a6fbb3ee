/**
 * lib/domain has no import cycle, type-only imports included: each module can be read, tested and drawn on its own,
 * and what two modules share lives in a third that both import (customer-lookup.ts, customer-read.ts,
 * balance-lock.ts, balance-change.ts), not in one of them. A new cycle fails here with its modules in order.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DOMAIN = "lib/domain";

/** Every `import … from` and `export … from` specifier of a source text, and bare `import "…"`. */
const specifiers = (source: string) =>
  [...source.matchAll(/^\s*(?:import|export)\b[^'"]*?(?:from\s+)?["']([^"']+)["']/gm)].map((m) => m[1]!);

/** The lib/domain module a specifier names, or null for anything outside lib/domain. */
function domainTarget(from: string, specifier: string): string | null {
  const base = specifier.startsWith("@/")
    ? specifier.slice(2)
    : specifier.startsWith(".")
      ? path.posix.join(path.posix.dirname(from), specifier)
      : null;
  if (!base?.startsWith(`${DOMAIN}/`)) return null;
  const file = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((f) => existsSync(path.join(ROOT, f)));
  return file ?? null;
}

function domainGraph(): Map<string, string[]> {
  const files = readdirSync(path.join(ROOT, DOMAIN), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => `${DOMAIN}/${f.split(path.sep).join("/")}`);
  return new Map(
    files.map((file) => [
      file,
      specifiers(readFileSync(path.join(ROOT, file), "utf8"))
        .map((s) => domainTarget(file, s))
        .filter((t): t is string => t !== null),
    ]),
  );
}

/** One cycle of the graph as the path that closes it, or null. */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const trail: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    trail.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") return [...trail.slice(trail.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    trail.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of graph.keys()) {
    if (state.has(node)) continue;
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

test("the cycle finder sees a cycle, type-only and relative imports included", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a"]],
  ]);
  assert.deepEqual(findCycle(graph), ["a", "b", "c", "a"]);
  assert.deepEqual(specifiers('import type { X } from "./ledger";\nexport { y } from "@/lib/domain/points";'), [
    "./ledger",
    "@/lib/domain/points",
  ]);
});

test("lib/domain has no import cycle", () => {
  const graph = domainGraph();
  assert.ok(graph.size > 30, `expected the domain's modules, found ${graph.size}`);
  assert.equal(findCycle(graph)?.join(" → ") ?? null, null);
});
