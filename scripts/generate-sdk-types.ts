/**
 * The one place where the client's types (sdk/) are generated from the OpenAPI document: `npm run sdk:generate`,
 * run by postinstall, typecheck and build, so the types always describe the document the code serves. It writes
 * into sdk/generated/ (git-ignored):
 *
 *  - openapi.d.ts: openapi-typescript's `paths`, `operations` and `components` for the whole document;
 *  - operations.ts: what openapi-typescript leaves out, read from the same document: the error `code`s each
 *    operation names (the `enum` on `code` of its problem responses, however they are composed) and each operation's
 *    id by method and path, so that an error can say which operation failed and narrow its code to that operation's.
 *
 * The document comes from openApiDocument() (lib/api/openapi/document.ts), the same function /v1/openapi.json serves.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { openApiDocument } from "@/lib/api/openapi/document";

const OUT_DIR = path.join(import.meta.dirname, "..", "sdk", "generated");
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
/** Response keys of error answers: a 4xx/5xx status, a range, or `default`. */
const ERROR_STATUS = /^(?:[45](?:\d\d|XX)|default)$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The node a local `$ref` (`#/components/...`) points at. */
function pointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported, got ${ref}`);
  return ref
    .slice(2)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), doc);
}

/** Follows `$ref`s to the node they end at (a response or media object may itself be a reference). */
function deref(doc: Json, node: unknown, seen = new Set<string>()): unknown {
  while (isObject(node) && typeof node.$ref === "string" && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    node = pointer(doc, node.$ref);
  }
  return node;
}

/**
 * The values a problem schema allows for `code`: every `enum`/`const` on a `code` property, through `$ref` (and its
 * siblings, which OpenAPI 3.1 allows), `allOf`, `anyOf` and `oneOf`. Empty when `code` is an unconstrained string.
 */
function codesOf(doc: Json, schema: unknown, seen = new Set<unknown>()): Set<string> {
  const codes = new Set<string>();
  if (!isObject(schema) || seen.has(schema)) return codes;
  seen.add(schema);
  const add = (from: Iterable<string>) => {
    for (const c of from) codes.add(c);
  };
  if (typeof schema.$ref === "string") add(codesOf(doc, pointer(doc, schema.$ref), seen));
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) for (const part of parts) add(codesOf(doc, part, seen));
  }
  const code = isObject(schema.properties) ? deref(doc, schema.properties.code) : undefined;
  if (isObject(code)) {
    if (Array.isArray(code.enum)) add(code.enum.filter((c): c is string => typeof c === "string"));
    if (typeof code.const === "string") codes.add(code.const);
    for (const key of ["anyOf", "oneOf"] as const) {
      const parts = code[key];
      if (Array.isArray(parts))
        for (const part of parts.map((p) => deref(doc, p)))
          if (isObject(part)) {
            if (Array.isArray(part.enum)) add(part.enum.filter((c): c is string => typeof c === "string"));
            if (typeof part.const === "string") codes.add(part.const);
          }
    }
  }
  return codes;
}

interface Operation {
  id: string;
  method: string;
  path: string;
  /** The codes its error responses name; null when one of them leaves `code` open (any code of the document). */
  codes: Set<string> | null;
}

function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [pathName, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const pathItem = deref(doc, item);
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const op = pathItem[method];
      if (!isObject(op)) continue;
      if (typeof op.operationId !== "string") throw new Error(`${method.toUpperCase()} ${pathName} has no operationId`);
      let codes: Set<string> | null = new Set();
      for (const [status, response] of Object.entries(isObject(op.responses) ? op.responses : {})) {
        if (!ERROR_STATUS.test(status)) continue;
        const content = deref(doc, response);
        for (const media of Object.values(isObject(content) && isObject(content.content) ? content.content : {})) {
          const found = codesOf(doc, isObject(media) ? media.schema : undefined);
          if (found.size === 0) codes = null;
          else if (codes) found.forEach((c) => codes?.add(c));
        }
      }
      operations.push({ id: op.operationId, method: method.toUpperCase(), path: pathName, codes });
    }
  }
  return operations;
}

const union = (codes: Iterable<string>) =>
  [...codes]
    .sort()
    .map((c) => JSON.stringify(c))
    .join(" | ") || "never";

const HEADER = (what: string) =>
  `/**\n * ${what}\n * Generated by scripts/generate-sdk-types.ts from the OpenAPI document (openApiDocument() in lib/api/openapi/document.ts,\n * served at /v1/openapi.json). Do not edit: run \`npm run sdk:generate\`.\n */\n`;

function operationsModule(doc: Json): string {
  const operations = operationsOf(doc);
  const all = new Set<string>();
  for (const op of operations) op.codes?.forEach((c) => all.add(c));
  const problem = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas.Problem : null;
  codesOf(doc, problem).forEach((c) => all.add(c));
  if (all.size === 0) throw new Error("no problem response of the document names its codes (an `enum` on `code`)");
  const open = operations.filter((op) => op.codes === null).map((op) => op.id);
  if (open.length > 0)
    console.warn(`sdk:generate: ${open.join(", ")}: a problem response leaves \`code\` open; typed as any ErrorCode`);
  return [
    HEADER("What the client needs beyond openapi-typescript's types: error codes by operation, operations by route."),
    "/** Every `code` a problem answer of the document may carry. */",
    `export type ErrorCode = ${union(all)};`,
    "",
    "/** The codes of each operation's problem answers, by operationId. */",
    "export interface OperationErrorCodes {",
    ...operations.map((op) => `  ${op.id}: ${op.codes ? union(op.codes) : "ErrorCode"};`),
    "}",
    "",
    "/** Each operation's id, by `METHOD path` (the path template as the document writes it). */",
    "export const OPERATION_IDS = {",
    ...operations.map((op) => `  ${JSON.stringify(`${op.method} ${op.path}`)}: ${JSON.stringify(op.id)},`),
    "} as const;",
    "",
    "export type OperationId = keyof OperationErrorCodes;",
    "",
  ].join("\n");
}

/** Writes `text` unless the file already holds it (so an unchanged document leaves the files, and tsc's cache, alone). */
function write(file: string, text: string) {
  const target = path.join(OUT_DIR, file);
  let current: string | undefined;
  try {
    current = readFileSync(target, "utf8");
  } catch {
    current = undefined;
  }
  if (current !== text) writeFileSync(target, text);
}

const doc = JSON.parse(openApiDocument()) as Json;
const types = astToString(await openapiTS(doc as unknown as OpenAPI3));
mkdirSync(OUT_DIR, { recursive: true });
write("openapi.d.ts", HEADER("The /v1 API's types, by openapi-typescript.") + types);
write("operations.ts", operationsModule(doc));
