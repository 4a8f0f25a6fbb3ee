import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { notFound, validationFailed, type FieldProblem } from "@/lib/errors";
import { isIsoTime } from "./campaigns/conditions";
import { RESERVED_CUSTOMER_NAMES, type CustomerAttributes, type CustomerAttributeType } from "./campaigns/definition";
import { requireProgram } from "./programs";

/**
 * Declared customer attributes (API.md "Customer attributes"): per program, a name and a type (number, string,
 * boolean, datetime), as event attributes are declared. The user item's `customAttributes` object is checked
 * against them (every problem by path); they are stored in `Customer.customAttributes` (a JSON object, merged: a
 * key set to null removes it), shown by the customer's GET, cleared by erasure, and read by campaign conditions and
 * segment filters as `customer.<name>`.
 */

export interface CustomerAttributeView {
  name: string;
  type: CustomerAttributeType;
  createdAt: string;
  updatedAt: string;
}

type Row = { name: string; type: string; createdAt: Date; updatedAt: Date };
const view = (r: Row): CustomerAttributeView => ({
  name: r.name,
  type: r.type as CustomerAttributeType,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** Declares (or retypes) a customer attribute. Values already stored keep their JSON; conditions read them as typed. */
export async function putCustomerAttribute(
  tx: Tx,
  input: { programId: string; name: string; type: CustomerAttributeType; now: Date },
): Promise<CustomerAttributeView> {
  if ((RESERVED_CUSTOMER_NAMES as readonly string[]).includes(input.name))
    throw validationFailed([{ path: "name", message: "is a customer field of its own; choose another name" }]);
  await requireProgram(tx, input.programId);
  const row = await tx.customerAttribute.upsert({
    where: { programId_name: { programId: input.programId, name: input.name } },
    create: {
      programId: input.programId,
      name: input.name,
      type: input.type,
      createdAt: input.now,
      updatedAt: input.now,
    },
    update: { type: input.type, updatedAt: input.now },
  });
  return view(row);
}

export async function getCustomerAttribute(db: Db, programId: string, name: string): Promise<CustomerAttributeView> {
  const row = await db.customerAttribute.findUnique({ where: { programId_name: { programId, name } } });
  if (!row) throw notFound("customer attribute");
  return view(row);
}

export async function listCustomerAttributes(db: Db, programId: string): Promise<CustomerAttributeView[]> {
  return (await db.customerAttribute.findMany({ where: { programId }, orderBy: { name: "asc" } })).map(view);
}

/** The program's declared customer attributes, type by name. */
export async function customerAttributeTypes(db: Db, programId: string): Promise<CustomerAttributes> {
  const rows = await db.customerAttribute.findMany({ where: { programId }, select: { name: true, type: true } });
  return Object.fromEntries(rows.map((r) => [r.name, r.type as CustomerAttributeType]));
}

/** Every problem of a `customAttributes` object against the declarations, by path under `prefix`. Pure. */
export function checkCustomAttributes(
  declared: CustomerAttributes,
  values: Record<string, unknown>,
  prefix: string,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [name, v] of Object.entries(values)) {
    const path = `${prefix}.${name}`;
    const type = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (!type) problems.push({ path, message: "is not a declared customer attribute" });
    else if (v === null) continue;
    else if (type === "number" && (typeof v !== "number" || !Number.isFinite(v)))
      problems.push({ path, message: "must be a number" });
    else if (type === "string" && (typeof v !== "string" || v.length > 1000))
      problems.push({ path, message: "must be a string of at most 1000 characters" });
    else if (type === "boolean" && typeof v !== "boolean") problems.push({ path, message: "must be true or false" });
    else if (type === "datetime" && (typeof v !== "string" || !isIsoTime(v)))
      problems.push({ path, message: "must be an ISO 8601 time" });
  }
  return problems;
}

/**
 * 400 `validation_failed` naming every custom attribute of the batch that the program does not declare or that
 * does not have its declared type (`[i].payload.customAttributes.<name>`). Reads the declarations only when some
 * item carries custom attributes.
 */
export async function requireDeclaredCustomAttributes(
  db: Db,
  programId: string,
  items: { payload: { customAttributes?: Record<string, unknown> | null } }[],
): Promise<void> {
  if (!items.some((i) => i.payload.customAttributes)) return;
  const declared = await customerAttributeTypes(db, programId);
  const problems = items.flatMap((item, i) =>
    item.payload.customAttributes
      ? checkCustomAttributes(declared, item.payload.customAttributes, `[${i}].payload.customAttributes`)
      : [],
  );
  if (problems.length) throw validationFailed(problems);
}
