/**
 * The one place for reading /v1/openapi.json for the reference pages: the shapes of the document this app
 * generates (lib/api/openapi.ts), schema anchors, and a schema's limits and defaults in words.
 */
import { openApiDocument } from "@/lib/api/openapi";

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
  pattern?: string;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
};
export type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
export type Media = Record<string, { schema?: Schema }>;
export type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content: Media };
  responses: Record<string, { description: string; content?: Media }>;
  security?: Record<string, string[]>[];
};
export type Doc = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes?: Record<
      string,
      { type: string; in?: string; name?: string; scheme?: string; description?: string }
    >;
  };
};

export const refName = (ref: string) => ref.split("/").at(-1)!;
export const anchor = (name: string) => `schema-${name}`;

/** The document, parsed, with its operations in document order. */
export function loadDocument() {
  const doc = JSON.parse(openApiDocument()) as Doc;
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op, id: op.operationId ?? `${method}-${path}` })),
  );
  return { doc, operations };
}
export type OperationEntry = ReturnType<typeof loadDocument>["operations"][number];

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
  // A format (date-time, email…) says it better than the regular expression zod derives from it.
  if (inner.pattern && !inner.format) out.push(`pattern ${inner.pattern}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  const example = schema.example ?? schema.examples?.[0] ?? inner.example ?? inner.examples?.[0];
  if (example !== undefined) out.push(`e.g. ${typeof example === "string" ? example : JSON.stringify(example)}`);
  return out;
}
