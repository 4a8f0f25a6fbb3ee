/**
 * The typed client as an npm package (sdk/package.json): `npm pack` in sdk/ gives ESM JavaScript and declarations,
 * the generated types inside; a consumer project compiles against the packed tarball under `moduleResolution`
 * NodeNext and Bundler (the repository's own TypeScript, no network), and the compiled NodeNext consumer runs:
 * it imports the package's JavaScript and verifies a webhook signature with it.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");

const CONSUMER = `import {
  createCustomerClient,
  createLoyaltyClient,
  isLoyaltyApiError,
  verifyWebhook,
  type components,
  type WebhookEvent,
} from "@loyalty/client";

type Customer = components["schemas"]["Customer"];

export async function balanceOf(baseUrl: string, apiKey: string, programId: string, email: string): Promise<number> {
  const loyalty = createLoyaltyClient({ baseUrl, apiKey });
  try {
    const customer: Customer = await loyalty.GET("/v1/programs/{programId}/customers/{email}", {
      params: { path: { programId, email } },
    });
    return customer.loyaltyData.balance;
  } catch (err) {
    if (isLoyaltyApiError(err, "getCustomerByEmail") && err.code === "customer_not_found") return 0;
    throw err;
  }
}

export const widget = (customerToken: string) => createCustomerClient({ baseUrl: "https://loyalty.example.com", customerToken });

export async function received(body: string, header: string, secret: string): Promise<string> {
  const event: WebhookEvent = await verifyWebhook(body, header, secret, { toleranceSeconds: 300 });
  return \`\${event.type}:\${String(event.sequence)}\`;
}
`;

const RESOLUTIONS = {
  nodenext: { module: "nodenext", moduleResolution: "nodenext" },
  bundler: { module: "esnext", moduleResolution: "bundler" },
} as const;

describe("the client package", () => {
  let work: string;
  let tarball: string;
  before(() => {
    work = mkdtempSync(path.join(os.tmpdir(), "loyalty-sdk-pack-"));
    // prepack generates the types from the document, compiles with tsc and copies them in; postpack cleans up.
    execFileSync("npm", ["pack", "--silent", "--pack-destination", work], {
      cwd: path.join(ROOT, "sdk"),
      stdio: ["ignore", "pipe", "inherit"],
    });
    tarball = path.join(
      work,
      readdirSync(work).find((f) => f.endsWith(".tgz"))!,
    );
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test("npm pack gives ESM JavaScript and declarations, the generated types inside", () => {
    const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").sort();
    for (const f of [
      "package/package.json",
      "package/README.md",
      "package/dist/index.js",
      "package/dist/index.d.ts",
      "package/dist/webhooks.js",
      "package/dist/generated/openapi.d.ts",
      "package/dist/generated/operations.js",
    ])
      assert.ok(files.includes(f), `${f} in ${files.join(", ")}`);
    assert.ok(!files.some((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")), "no TypeScript sources");
  });

  for (const [name, options] of Object.entries(RESOLUTIONS)) {
    test(`a consumer compiles against the tarball under moduleResolution ${name}`, async () => {
      const dir = path.join(work, name);
      const modules = path.join(dir, "node_modules");
      mkdirSync(path.join(modules, "@loyalty", "client"), { recursive: true });
      execFileSync("tar", ["-xzf", tarball, "-C", path.join(modules, "@loyalty", "client"), "--strip-components=1"]);
      // The package's one dependency, from this repository's node_modules (no network).
      for (const dep of ["openapi-fetch", "openapi-typescript-helpers"])
        symlinkSync(path.join(ROOT, "node_modules", dep), path.join(modules, dep), "dir");
      writeFileSync(
        path.join(dir, "package.json"),
        JSON.stringify({ name: "consumer", type: "module", private: true }),
      );
      writeFileSync(path.join(dir, "consumer.ts"), CONSUMER);
      const tsconfig = {
        compilerOptions: {
          ...options,
          target: "es2022",
          lib: ["es2022", "dom"],
          types: [],
          strict: true,
          outDir: "out",
          skipLibCheck: false,
        },
        files: ["consumer.ts"],
      };
      writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
      try {
        execFileSync(process.execPath, [TSC, "-p", dir], { encoding: "utf8" });
      } catch (err) {
        assert.fail(`tsc (${name}): ${(err as { stdout?: string }).stdout}`);
      }
      if (name !== "nodenext") return;
      // The compiled consumer runs on Node, loading the package's JavaScript.
      const consumer = (await import(pathToFileURL(path.join(dir, "out", "consumer.js")).href)) as {
        received(body: string, header: string, secret: string): Promise<string>;
      };
      const secret = "whsec_0123456789abcdef";
      const body = JSON.stringify({
        id: "e1",
        type: "balance.changed",
        programId: "p",
        createdAt: "x",
        sequence: 7,
        data: {},
      });
      const t = Math.floor(Date.now() / 1000);
      const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
      assert.equal(await consumer.received(body, `t=${t},v1=${v1}`, secret), "balance.changed:7");
      await assert.rejects(consumer.received(body, `t=${t},v1=${v1}`, "whsec_other"), /no v1 signature matches/);
    });
  }
});
