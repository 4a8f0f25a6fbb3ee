/**
 * Assembles the container's app directory from a build (`npm run build`): `node scripts/standalone.mjs <dir>`.
 *
 * <dir> gets what Next's `output: "standalone"` traced (.next/standalone: the server files and the node_modules they
 * load), the static files it leaves out (.next/static, public/), the front and the migration runner (dist/), the
 * migrations (prisma/), and the packages the two bundles load at run time (traced with @vercel/nft: pg, PGlite, the
 * Prisma adapters, the schema engine's WebAssembly). The Dockerfile runs exactly this, and
 * test/integration/front-standalone.test.ts runs the image's entry command on its result, outside the repository so
 * that nothing resolves from the repository's own node_modules.
 */
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { nodeFileTrace } from "@vercel/nft";

const ROOT = path.resolve(import.meta.dirname, "..");
const target = process.argv[2];
if (!target) {
  console.error("usage: node scripts/standalone.mjs <dir>");
  process.exit(2);
}
const out = path.resolve(target);
const from = (...p) => path.join(ROOT, ...p);
for (const needed of [".next/standalone/server.js", "dist/main.mjs", "dist/db.mjs"]) {
  if (!existsSync(from(needed))) {
    console.error(
      `error: ${needed} is missing: run \`npm run build\` first (next.config.mjs has output: "standalone")`,
    );
    process.exit(1);
  }
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const copy = (src, dest = src) => cpSync(from(src), path.join(out, dest), { recursive: true, dereference: true });

// Next's output links its hashed external packages (.next/node_modules/pg-<hash> → node_modules/pg): the links stay
// links, as Docker's COPY keeps them, so that each package is loaded once (a second copy of pg would make
// @prisma/adapter-pg ignore the app's pool).
cpSync(from(".next/standalone"), out, { recursive: true, verbatimSymlinks: true });
copy(".next/static");
if (existsSync(from("public"))) copy("public");
copy("dist");
copy("prisma/schema.prisma");
copy("prisma/migrations");

// Next's own files are in its output already (and the bundles read .next/ at run time, which is not a dependency).
const { fileList } = await nodeFileTrace([from("dist/main.mjs"), from("dist/db.mjs")], {
  base: ROOT,
  ignore: (file) => file.startsWith(".next/") || file.startsWith("node_modules/next/"),
});
let added = 0;
for (const file of fileList) {
  if (!file.startsWith("node_modules/") || existsSync(path.join(out, file))) continue;
  mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
  cpSync(from(file), path.join(out, file), { dereference: true });
  added++;
}
// The schema engine imports its .wasm as an ES module, which the tracer does not follow: the whole package.
copy("node_modules/@prisma/schema-engine-wasm");
console.log(`standalone: ${out} (${added} traced files added to Next's output)`);
