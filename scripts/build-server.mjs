/**
 * `npm run build:server` (part of `npm run build`, after `next build`): bundles the production front (server/main.ts)
 * and the migration runner (scripts/db.ts) into dist/main.mjs and dist/db.mjs, plain ES modules that run with `node`
 * alone, in the repository (`npm start`) and in the standalone image (Dockerfile, scripts/standalone.sh). Next, the
 * database drivers and Prisma stay outside the bundle: they load WebAssembly or native files from node_modules, and
 * the standalone output carries them.
 */
import { build } from "esbuild";

await build({
  entryPoints: { main: "server/main.ts", db: "scripts/db.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  tsconfig: "tsconfig.json",
  external: ["next", "next/*", "pg", "@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/*"],
  // Bundled CommonJS code may call require(); ES modules have none of their own.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: "warning",
});
