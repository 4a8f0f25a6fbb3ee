/**
 * Next.js calls this once per server process, before it serves requests. Everything it does needs Node.js, so it
 * lives in instrumentation-node.ts, imported only under the nodejs runtime: Next inlines NEXT_RUNTIME, so the Edge
 * compilation of this file never sees Node-only code (process.exit), and the build prints no Edge-runtime warning.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") await (await import("./instrumentation-node")).registerNode();
}
