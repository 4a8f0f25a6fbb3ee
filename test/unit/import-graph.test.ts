/**
 * The shape of lib/: no import cycle (type-only imports included: a cycle of types is still a tangle a reader must
 * hold at once), and nothing in lib/domain imports from the layers above it. The graph is read with TypeScript's own
 * pre-processor and module resolution (the tsconfig's `@/` paths), so it sees what the compiler sees.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return rel === path.join("lib", "generated") ? [] : sourceFiles(rel);
    return /\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

const config = ts.parseJsonConfigFileContent(
  ts.readConfigFile(path.join(ROOT, "tsconfig.json"), ts.sys.readFile).config,
  ts.sys,
  ROOT,
);

/** The files of the tree that `file` imports or re-exports, type-only imports included. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), "utf8"), true, true);
  return info.importedFiles.flatMap(({ fileName }) => {
    const resolved = ts.resolveModuleName(fileName, path.join(ROOT, file), config.options, ts.sys).resolvedModule;
    if (!resolved || resolved.isExternalLibraryImport) return [];
    const rel = path.relative(ROOT, resolved.resolvedFileName);
    return rel.startsWith("..") ? [] : [rel];
  });
}

/** The graph of lib/: each file with the lib/ files it imports. */
export function libGraph(): Map<string, string[]> {
  const files = sourceFiles("lib");
  const inLib = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f).filter((t) => inLib.has(t))]));
}

/** Strongly connected components of more than one file, or of one file importing itself (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The imports of the files under `from` that point at `above`, as `file -> target`. */
function upward(graph: Map<string, string[]>, from: string, above: RegExp): string[] {
  return [...graph]
    .filter(([file]) => file.startsWith(from))
    .flatMap(([file, targets]) => targets.filter((t) => above.test(t)).map((t) => `${file} -> ${t}`));
}

const OPS_ABOVE = /^lib\/(api|staff|domain|jobs|exports)\//;

describe("the import graph of lib/", () => {
  const graph = libGraph();

  test("is read: the domain's ledger imports its neighbours", () => {
    // Guards the reader itself: a resolver that found nothing would make the tests below pass vacuously.
    assert.ok((graph.get("lib/domain/ledger.ts") ?? []).some((f) => f.startsWith("lib/db/")));
  });

  test("has no cycle", () => {
    assert.deepEqual(cycles(graph), []);
  });

  test("finds a planted cycle", () => {
    // One of the ledger's own imports made to import the ledger back.
    const planted = new Map(graph);
    const neighbour = graph.get("lib/domain/ledger.ts")![0]!;
    planted.set(neighbour, [...(graph.get(neighbour) ?? []), "lib/domain/ledger.ts"]);
    assert.ok(cycles(planted).some((c) => c.includes(neighbour) && c.includes("lib/domain/ledger.ts")));
  });

  test("lib/domain imports nothing from the layers above it (lib/api, lib/staff, lib/jobs, lib/exports)", () => {
    assert.deepEqual(upward(graph, "lib/domain/", /^lib\/(api|staff|jobs|exports)\//), []);
  });

  test("lib/ops imports nothing from the layers that use it (lib/api, lib/staff, lib/domain, lib/jobs, lib/exports)", () => {
    // Logging, metrics and readiness sit below every layer that reports to them (lib/db records hand-overs,
    // lib/api times requests): what answers HTTP (the /metrics endpoint, route labels from the /v1 table) is lib/api's.
    assert.deepEqual(upward(graph, "lib/ops/", OPS_ABOVE), []);
  });

  test("finds a planted upward import of lib/ops", () => {
    // lib/ops/metrics.ts made to import the edge guard, as route-pattern.ts did when it lived in lib/ops.
    const planted = new Map(graph);
    planted.set("lib/ops/metrics.ts", [...(graph.get("lib/ops/metrics.ts") ?? []), "lib/api/edge-guard.ts"]);
    assert.deepEqual(upward(planted, "lib/ops/", OPS_ABOVE), ["lib/ops/metrics.ts -> lib/api/edge-guard.ts"]);
  });
});
