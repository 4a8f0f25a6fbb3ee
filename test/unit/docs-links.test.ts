/**
 * Every relative link in the documents resolves in a clone: README.md, docs/ and bench/README.md link only to files
 * inside the repository, and a link's `#anchor` names a heading of the document it points to (GitHub's heading ids).
 * Links in code (fenced blocks, inline code) and absolute URLs are not checked.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(full);
    return entry.name.endsWith(".md") ? [full] : [];
  });
}

const DOCUMENTS = [
  path.join(ROOT, "README.md"),
  path.join(ROOT, "bench/README.md"),
  ...markdownUnder(path.join(ROOT, "docs")),
];

/** The text with fenced blocks and inline code blanked out, so that a link shown as code is not read as one. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "``");
}

/** The ids GitHub gives a document's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutCode(markdown.replace(/`/g, "")).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** The relative link targets of a document: `[text](target)`, not in code, not a URL with a scheme. */
function relativeLinks(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with one link of `file`, or null when it resolves. */
function brokenBecause(file: string, target: string): string | null {
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
  const relative = path.relative(ROOT, resolved);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return "points outside the repository";
  if (!existsSync(resolved)) return "no such file";
  if (anchor === undefined || !resolved.endsWith(".md") || statSync(resolved).isDirectory()) return null;
  return headingIds(readFileSync(resolved, "utf8")).has(anchor) ? null : `no heading #${anchor} there`;
}

test("the documents are found", () => {
  assert.ok(DOCUMENTS.length >= 8, `documents: ${DOCUMENTS.map((f) => path.relative(ROOT, f)).join(", ")}`);
  for (const file of DOCUMENTS) assert.ok(existsSync(file), path.relative(ROOT, file));
});

test("every relative link in README.md, docs/ and bench/README.md resolves inside the repository", () => {
  const broken = DOCUMENTS.flatMap((file) =>
    relativeLinks(readFileSync(file, "utf8")).flatMap((target) => {
      const why = brokenBecause(file, target);
      return why ? [`${path.relative(ROOT, file)}: (${target}) ${why}`] : [];
    }),
  );
  assert.deepEqual(broken, []);
});

test("heading ids and link extraction follow GitHub's rules", () => {
  assert.deepEqual(
    [...headingIds("# Health, readiness, metrics and logs\n## What a `loyalty` item does\n## 4. Points\n## 4. Points")],
    ["health-readiness-metrics-and-logs", "what-a-loyalty-item-does", "4-points", "4-points-1"],
  );
  assert.deepEqual(relativeLinks("[a](b.md#c) `[x](y.md)` [u](https://example.com) [s](#top)\n```\n[z](w.md)\n```"), [
    "b.md#c",
    "#top",
  ]);
});
