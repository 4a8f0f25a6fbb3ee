/**
 * The one place for reading /v1/openapi.json for the reference pages: the shapes of the document this app
 * generates (lib/api/openapi/document.ts), `$ref`s to its components, schema anchors, and a schema's limits in words.
 * Everything beyond paths and schemas (tags, examples, headers, webhooks) is optional: the reference shows what
 * the document has.
 */
import { openApiDocument } from "@/lib/api/openapi/document";

export type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  required?: string[];
  description?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  pattern?: string;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
};
/** Any object of the document may instead be a `$ref` to one under #/components (see `deref`). */
type Ref = { $ref?: string };
export type Example = Ref & { summary?: string; description?: string; value?: unknown };
export type Parameter = Ref & { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
export type Header = Ref & { description?: string; required?: boolean; schema?: Schema };
export type Media = Record<string, { schema?: Schema; example?: unknown; examples?: Record<string, Example> }>;
export type Response = Ref & { description: string; headers?: Record<string, Header>; content?: Media };
export type Operation = {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: Ref & { required?: boolean; description?: string; content: Media };
  responses?: Record<string, Response>;
  security?: Record<string, string[]>[];
};
export type Tag = { name: string; description?: string };
export type Doc = {
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  security?: Record<string, string[]>[];
  tags?: Tag[];
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes?: Record<
      string,
      { type: string; in?: string; name?: string; scheme?: string; description?: string }
    >;
  } & Record<string, Record<string, unknown> | undefined>;
};

export const refName = (ref: string) => ref.split("/").at(-1)!;
export const anchor = (name: string) => `schema-${name}`;
/** An id made of a name (a tag, an event type): lower case, dashes for anything else. */
export const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-");

/** The object a `$ref` names under #/components (headers, parameters, responses, examples…), or the object itself. */
export function deref<T extends Ref>(doc: Doc, value: T): T {
  const [, kind, name] = value.$ref?.match(/^#\/components\/([^/]+)\/([^/]+)$/) ?? [];
  if (!kind || !name) return value;
  const target = doc.components[kind]?.[name] as T | undefined;
  return target ? deref(doc, target) : value;
}

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** The operations of `paths` (or `webhooks`), in document order. */
export function operationsOf(items: Doc["paths"] | undefined, idPrefix = "") {
  return Object.entries(items ?? {}).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => ({ path, method, op, id: idPrefix + (op.operationId ?? slug(`${method}-${path}`)) })),
  );
}
export type OperationEntry = ReturnType<typeof operationsOf>[number];

/** The document this app serves, parsed, with its operations in document order. */
export function loadDocument() {
  const doc = JSON.parse(openApiDocument()) as Doc;
  return { doc, operations: operationsOf(doc.paths) };
}

/** Limits and defaults, in words. */
export function constraints(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const inner = schema.anyOf?.find((s) => s.type !== "null") ?? schema;
  const out: string[] = [];
  if (inner.minLength !== undefined && inner.maxLength !== undefined)
    out.push(`${inner.minLength}–${inner.maxLength} characters`);
  else if (inner.maxLength !== undefined) out.push(`at most ${inner.maxLength} characters`);
  else if (inner.minLength !== undefined) out.push(`at least ${inner.minLength} characters`);
  if (inner.minimum !== undefined) out.push(`≥ ${inner.minimum.toLocaleString("en-US")}`);
  if (inner.maximum !== undefined) out.push(`≤ ${inner.maximum.toLocaleString("en-US")}`);
  if (inner.minItems !== undefined) out.push(`at least ${inner.minItems} items`);
  if (inner.maxItems !== undefined) out.push(`at most ${inner.maxItems} items`);
  if (inner.maxProperties !== undefined) out.push(`at most ${inner.maxProperties} keys`);
  // A format (date-time, email…) says it better than the regular expression zod derives from it.
  if (inner.pattern && !inner.format) out.push(`pattern ${inner.pattern}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  const example = schema.example ?? schema.examples?.[0] ?? inner.example ?? inner.examples?.[0];
  if (example !== undefined) out.push(`e.g. ${typeof example === "string" ? example : JSON.stringify(example)}`);
  return out;
}
