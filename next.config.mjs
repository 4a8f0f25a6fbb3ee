/** @type {import('next').NextConfig} */
const nextConfig = {
  // WebAssembly and native database drivers must load from node_modules at run time, not be bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/adapter-pg", "pg", "@prisma/client"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
