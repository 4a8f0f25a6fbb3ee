/**
 * The one place where a real answer of the server is checked against the OpenAPI 3.1 document it serves
 * (test/integration/openapi-conformance.test.ts): the operation is found by method and path template, then
 *  - the status must be declared for the operation (no `default`, no `4XX` ranges in our document, but both honoured);
 *  - the content type must be one of the response's media types, and a body must be there exactly when one is declared;
 *  - the body must validate against the media type's schema with a JSON Schema 2020-12 validator (Ajv2020 with
 *    ajv-formats, strict), every schema CLOSED: a schema that lists `properties` and says nothing about the others
 *    gets `unevaluatedProperties: false`, so an undeclared property fails (free-form maps declare
 *    `additionalProperties` and stay as they are);
 *  - every header of the answer, bar transport and security headers (IGNORED_HEADERS), must be declared for the
 *    response and match its schema; every declared `required` header must be present;
 *  - a problem's `code` must be within the enum the response declares for it, and its `requestId` the x-request-id.
 * Each failure is a Violation; the suite decides which are known gaps. Nothing here loosens a check.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import SECURITY_HEADERS from "@/lib/security-headers.json";

// ajv-formats is CommonJS with a default export; under tsx the namespace object may be what the import yields.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule;

/** Headers the document need not declare: transport (RFC 9110/9112), caching, and the security headers of every answer. */
export const IGNORED_HEADERS = new Set([
  "date",
  "connection",
  "keep-alive",
  "content-length",
  "content-type",
  "content-encoding",
  "transfer-encoding",
  "vary",
  "cache-control",
  ...Object.values(SECURITY_HEADERS).flatMap((group) => Object.keys(group).map((h) => h.toLowerCase())),
]);

export type Json = Record<string, unknown>;

export interface Violation {
  /** The operationId, or `METHOD /path` for an answer no operation covers. */
  operation: string;
  status: string;
  /** What is wrong, in a stable wording a known gap can name: `header x-request-id undeclared`, `status undeclared`… */
  what: string;
  /** Particulars (the body, the validator's message) for the failure report. */
  detail?: string;
}

export interface Answer {
  method: string;
  /** The request's path, without the query. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

interface Operation {
  id: string;
  method: string;
  template: string;
  matcher: RegExp;
  op: Json;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const COMPONENTS_ID = "https://conformance.test/components.json";

const mediaType = (contentType: string | null) => (contentType ?? "").split(";")[0]!.trim().toLowerCase();

/** Keywords whose value is a schema, an array of schemas, or a map of schemas (JSON Schema 2020-12). */
const ONE_SCHEMA = ["items", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems"];
const ONE_SCHEMA_OR_BOOLEAN = ["additionalProperties", "unevaluatedProperties"];
const SCHEMA_ARRAYS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "dependentSchemas"];

/**
 * A copy of `schema` in which every object schema that declares `properties` and neither `additionalProperties`,
 * `unevaluatedProperties` nor `patternProperties` is closed, and every `#/components/schemas/X` reference points into
 * the components schema that the validator holds.
 */
export function closedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const s = schema as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/"))
      out[k] = `${COMPONENTS_ID}#/$defs/${v.slice("#/components/schemas/".length)}`;
    else if (ONE_SCHEMA.includes(k) || (ONE_SCHEMA_OR_BOOLEAN.includes(k) && typeof v === "object"))
      out[k] = closedSchema(v);
    else if (SCHEMA_ARRAYS.includes(k) && Array.isArray(v)) out[k] = v.map(closedSchema);
    else if (SCHEMA_MAPS.includes(k) && v && typeof v === "object")
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, closedSchema(sub)]));
    else out[k] = v;
  }
  const open = !("additionalProperties" in s || "unevaluatedProperties" in s || "patternProperties" in s);
  if ("properties" in s && open) out.unevaluatedProperties = false;
  return out;
}

export class OpenApiConformance {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Statuses seen per operationId. */
  readonly seen = new Map<string, Set<string>>();

  constructor(readonly doc: Json) {
    // Strict about what the schemas say (an unknown keyword or a malformed schema is an error, not ignored), not about
    // how they say it: `strictTypes` would refuse `{ $ref, properties }` without a `type`, which is valid 2020-12.
    this.ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    addFormats(this.ajv);
    // The OpenAPI 3.1 dialect's own schema keywords.
    this.ajv.addVocabulary(["example", "discriminator", "xml", "externalDocs"]);
    const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
    this.ajv.addSchema({
      $id: COMPONENTS_ID,
      $defs: Object.fromEntries(Object.entries(components).map(([id, s]) => [id, closedSchema(s)])),
    });
    for (const [template, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
      const pattern = template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("");
      for (const method of METHODS) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        const id = String(op.operationId ?? `${method.toUpperCase()} ${template}`);
        this.operations.push({ id, method: method.toUpperCase(), template, matcher: new RegExp(`^${pattern}$`), op });
        this.seen.set(id, new Set());
      }
    }
  }

  /** Every operation of the document, by operationId. */
  get operationIds(): string[] {
    return this.operations.map((o) => o.id);
  }

  /** The statuses each operation declares. */
  declaredStatuses(operationId: string): string[] {
    const op = this.operations.find((o) => o.id === operationId);
    return Object.keys((op?.op.responses ?? {}) as Json);
  }

  /** The operation that serves `method path`, if the document has one (a literal segment wins over a template). */
  operationFor(method: string, path: string): Operation | undefined {
    const matches = this.operations.filter((o) => o.method === method.toUpperCase() && o.matcher.test(path));
    const literal = (o: Operation) => o.template.replace(/\{[^}]+\}/g, "").length;
    return matches.sort((a, b) => literal(b) - literal(a))[0];
  }

  /** A local `$ref` to a component other than a schema (a response, a header), followed. */
  private deref<T>(value: T): T {
    let v = value as Json;
    for (let hops = 0; v && typeof v.$ref === "string" && hops < 10; hops++) {
      const ref = v.$ref as string;
      if (!ref.startsWith("#/")) throw new Error(`only local references are supported: ${ref}`);
      v = ref
        .slice(2)
        .split("/")
        .reduce<Json>((at, key) => at?.[key.replace(/~1/g, "/").replace(/~0/g, "~")] as Json, this.doc);
    }
    return v as T;
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.compile(closedSchema(schema) as Json);
      this.compiled.set(key, fn);
    }
    return fn;
  }

  /** Every way `answer` departs from the document (empty when it conforms). */
  check(answer: Answer): Violation[] {
    const status = String(answer.status);
    const operation = this.operationFor(answer.method, answer.path);
    if (!operation) {
      return [{ operation: `${answer.method} ${answer.path}`, status, what: "no operation for this method and path" }];
    }
    this.seen.get(operation.id)!.add(status);
    const out: Violation[] = [];
    const fail = (what: string, detail?: string) => out.push({ operation: operation.id, status, what, detail });
    const responses = (operation.op.responses ?? {}) as Json;
    const declared = this.deref(
      (responses[status] ?? responses[`${status[0]}XX`] ?? responses.default) as Json | undefined,
    );
    if (!declared) {
      fail("status undeclared", answer.text.slice(0, 300));
      return out;
    }

    // Content type and body.
    const content = (declared.content ?? {}) as Record<string, Json>;
    const type = mediaType(answer.headers.get("content-type"));
    let body: unknown;
    if (Object.keys(content).length === 0) {
      if (answer.text !== "") fail("body present where none is declared", answer.text.slice(0, 300));
    } else if (!(type in content)) {
      fail(`content-type ${type || "(none)"} undeclared`, `declared: ${Object.keys(content).join(", ")}`);
    } else {
      try {
        body = answer.text === "" ? undefined : JSON.parse(answer.text);
      } catch {
        fail("body is not JSON", answer.text.slice(0, 300));
      }
      const schema = content[type]!.schema;
      if (body === undefined) fail("body absent where one is declared");
      else if (schema !== undefined) {
        const validate = this.validator(`${operation.id} ${status} ${type}`, schema);
        if (!validate(body)) {
          for (const e of validate.errors ?? []) {
            const extra = e.keyword === "unevaluatedProperties" ? ` ${String(e.params.unevaluatedProperty)}` : "";
            fail(`body${e.instancePath} ${e.keyword}${extra}`, `${e.message} (${e.schemaPath})`);
          }
        }
        if (type === "application/problem+json") this.checkProblem(schema, body, answer, fail);
      }
    }

    // Headers.
    const declaredHeaders = new Map(
      Object.entries((declared.headers ?? {}) as Json).map(([name, h]) => [name.toLowerCase(), this.deref(h as Json)]),
    );
    for (const [name, value] of answer.headers) {
      if (IGNORED_HEADERS.has(name)) continue;
      const header = declaredHeaders.get(name);
      if (!header) {
        fail(`header ${name} undeclared`, value);
        continue;
      }
      const schema = header.schema as Json | undefined;
      if (schema) {
        const validate = this.validator(`header ${operation.id} ${status} ${name}`, schema);
        const typed = ["integer", "number"].includes(String(schema?.type)) && value !== "" ? Number(value) : value;
        if (!validate(typed))
          fail(`header ${name} value does not match its schema`, `${value}: ${validate.errors?.[0]?.message}`);
      }
    }
    for (const [name, header] of declaredHeaders)
      if (header.required === true && !answer.headers.has(name)) fail(`header ${name} required but absent`);
    return out;
  }

  /**
   * An answer that no operation covers (OPTIONS, 405, an unknown path: the edge's, described in `info.description`):
   * it must still be problem+json, valid against the closed `Problem` component, with the x-request-id in its body.
   */
  problemViolations(answer: Omit<Answer, "method" | "path">): string[] {
    const out: string[] = [];
    const type = mediaType(answer.headers.get("content-type"));
    if (type !== "application/problem+json") out.push(`content-type ${type} is not application/problem+json`);
    const body = JSON.parse(answer.text) as { requestId?: unknown };
    const validate = this.validator("Problem", { $ref: "#/components/schemas/Problem" });
    if (!validate(body)) out.push(...(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message}`));
    if (body.requestId !== answer.headers.get("x-request-id")) out.push("problem requestId differs from x-request-id");
    return out;
  }

  /** A problem's `code` within the response's declared enum, and its requestId the answer's x-request-id. */
  private checkProblem(schema: unknown, body: unknown, answer: Answer, fail: (what: string, detail?: string) => void) {
    const problem = body as { code?: unknown; requestId?: unknown };
    const codes = codeEnum(schema, (ref) => this.deref({ $ref: ref }));
    if (!codes) fail("problem code is not an enum");
    else if (!codes.includes(problem.code))
      fail(`problem code ${String(problem.code)} not in the enum`, codes.join(", "));
    if (problem.requestId !== answer.headers.get("x-request-id"))
      fail("problem requestId differs from x-request-id", `${String(problem.requestId)}`);
  }
}

/** The enum declared on `code` by a problem schema: on its own `properties`, or through `$ref`/`allOf`. */
function codeEnum(schema: unknown, resolve: (ref: string) => unknown, depth = 0): unknown[] | undefined {
  if (!schema || typeof schema !== "object" || depth > 10) return undefined;
  const s = schema as Json;
  const own = ((s.properties as Json | undefined)?.code as Json | undefined)?.enum;
  if (Array.isArray(own)) return own;
  for (const sub of [...((s.allOf as unknown[]) ?? []), ...(typeof s.$ref === "string" ? [resolve(s.$ref)] : [])]) {
    const found = codeEnum(sub, resolve, depth + 1);
    if (found) return found;
  }
  return undefined;
}
