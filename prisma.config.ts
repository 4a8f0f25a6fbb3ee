import { defineConfig } from "prisma/config";

// The Prisma CLI is used only for `prisma generate` here; migrations run through scripts/db.ts
// (the WebAssembly schema engine), so no datasource URL is needed at generate time.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
