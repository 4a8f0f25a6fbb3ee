// ESLint 9 flat config built on eslint-config-next 16's flat presets.
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      // A leading underscore marks a binding as intentionally unused (e.g. `const { secret: _secret, ...rest } = x`).
      "@typescript-eslint/no-unused-vars": [
        "warn",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Every error code has one factory in lib/errors.ts, where its status is chosen once.
    files: ["app/**", "components/**", "lib/**", "scripts/**", "bench/**"],
    ignores: ["lib/errors.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: "NewExpression[callee.name='AppError']", message: "Use (or add) a factory in lib/errors.ts." },
      ],
    },
  },
  {
    // Components take their data from their page: a page (or route) reads the database, a component renders props.
    files: ["components/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/lib/db/*", "@/lib/staff/queries/*", "@/lib/staff/operations/*"],
              allowTypeImports: true,
              message: "Read the data in the page and pass it as props (a component does not query the database).",
            },
          ],
        },
      ],
    },
  },
  {
    // The domain knows nothing of HTTP: routes and their answers live above it (lib/api, app/v1), never below.
    files: ["lib/domain/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/lib/api", "@/lib/api/**", "../api", "../api/**", "**/lib/api", "**/lib/api/**"],
              message: "lib/domain must not import lib/api: expose what changed and let the API layer answer.",
            },
          ],
        },
      ],
    },
  },
  {
    // Operations (logging, metrics, readiness) sit below the layers that report to them: lib/db and lib/api use
    // lib/ops, never the other way round (test/unit/import-graph.test.ts checks the same on the resolved graph).
    files: ["lib/ops/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "@/lib/api",
                "@/lib/api/**",
                "@/lib/staff/**",
                "@/lib/domain/**",
                "@/lib/jobs/**",
                "@/lib/exports/**",
                "../api/**",
                "../staff/**",
                "../domain/**",
                "../jobs/**",
                "../exports/**",
              ],
              message:
                "lib/ops is below lib/api, lib/staff, lib/domain, lib/jobs and lib/exports: move what both need below both.",
            },
          ],
        },
      ],
    },
  },
  globalIgnores([
    ".next/**",
    "out/**",
    "build/**",
    "dist/**",
    "next-env.d.ts",
    "lib/generated/**",
    "sdk/generated/**",
    "sdk/dist/**",
    "node_modules/**",
    ".data/**",
    "test-results/**",
    "playwright-report/**",
    "bench/results/**",
    "e2e/screenshots/**",
  ]),
]);
