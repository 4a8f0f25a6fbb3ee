/**
 * What `import "server-only"` loads outside Next (tsconfig.json `paths`): tsx runs of the unit and integration
 * tests, the admin CLI and db:migrate, and tsc. Those are server processes, so the marker has nothing to check
 * there; the real package throws unless the `react-server` export condition is set, which only Next sets. Inside
 * Next the marker is Next's own (next/dist/compiled/server-only), so `next build` still fails when a client
 * component imports a server-only module.
 */
export {};
