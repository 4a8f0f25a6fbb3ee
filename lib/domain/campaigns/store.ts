import "server-only";
import type { Db, Tx } from "@/lib/db/types";
import { Prisma } from "@/lib/generated/prisma/client";
import { findRow } from "@/lib/db/require-row";
import { conflict, invalidInput, notFound, validationFailed } from "@/lib/errors";
import { decodeCursor, encodeCursor } from "../cursor";
import { requireProgram } from "../programs";
import { attrTypesOf, type FieldProblem } from "./conditions";
import {
  isLifecycle,
  LIFECYCLE_ATTRIBUTES,
  SEGMENT_ATTR,
  type CampaignBody,
  type CampaignDefinition,
  type CampaignStatus,
  type Condition,
  type EventAttributes,
} from "./definition";
import { customerAttributeTypes } from "../customer-attributes";
import { checkCampaign } from "./validate";
import { budgetsUsed, createSlices, lockBudgets } from "./budget";

/**
 * Event types and campaigns as a program declares them (API.md "Campaigns and events"): the one place a campaign
 * changes status or gets a version. Lifecycle: a new campaign is a `draft`; `activate` freezes its draft as version
 * N (immutable, CampaignVersion) and makes it `active`; a change to an activated campaign is kept as its draft,
 * and becomes version N+1 at the next `activate` (until then version N keeps running); `pause` and `resume` stop
 * and restart it; `end` is final. Every definition is checked against its trigger's event type, as declared at
 * the time of the check (at creation, at every change and again at activation).
 */

export interface EventTypeView {
  type: string;
  attributes: EventAttributes;
  createdAt: string;
  updatedAt: string;
}

const eventTypeView = (row: {
  type: string;
  attributes: unknown;
  createdAt: Date;
  updatedAt: Date;
}): EventTypeView => ({
  type: row.type,
  attributes: row.attributes as EventAttributes,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** Declares (or redeclares) an event type. Activated campaign versions keep the attribute types they were checked with. */
export async function putEventType(
  tx: Tx,
  input: { programId: string; type: string; attributes: EventAttributes; now: Date },
): Promise<{ eventType: EventTypeView; created: boolean }> {
  await requireProgram(tx, input.programId);
  const existing = await tx.eventType.findUnique({
    where: { programId_type: { programId: input.programId, type: input.type } },
    select: { id: true },
  });
  const row = await tx.eventType.upsert({
    where: { programId_type: { programId: input.programId, type: input.type } },
    create: {
      programId: input.programId,
      type: input.type,
      attributes: input.attributes as object,
      createdAt: input.now,
      updatedAt: input.now,
    },
    update: { attributes: input.attributes as object, updatedAt: input.now },
  });
  return { eventType: eventTypeView(row), created: !existing };
}

export async function getEventType(db: Db, programId: string, type: string): Promise<EventTypeView> {
  const row = await db.eventType.findUnique({ where: { programId_type: { programId, type } } });
  if (!row) throw notFound("event type");
  return eventTypeView(row);
}

export async function listEventTypes(db: Db, programId: string): Promise<EventTypeView[]> {
  const rows = await db.eventType.findMany({ where: { programId }, orderBy: { type: "asc" } });
  return rows.map(eventTypeView);
}

/** The declaration of an event type, or null when the program has not declared it. */
export async function eventTypeAttributes(db: Db, programId: string, type: string): Promise<EventAttributes | null> {
  const row = await db.eventType.findUnique({
    where: { programId_type: { programId, type } },
    select: { attributes: true },
  });
  return row ? (row.attributes as unknown as EventAttributes) : null;
}

export interface CampaignVersionView {
  version: number;
  name: string;
  definition: CampaignDefinition;
  activatedAt: string;
}

export interface CampaignView {
  id: string;
  name: string;
  status: CampaignStatus;
  /** The version it runs (null before the first activation). */
  version: number | null;
  /** The change waiting for the next activation (null: none). */
  draft: CampaignBody | null;
  budgetUsed: number;
  createdAt: string;
  updatedAt: string;
  versions?: CampaignVersionView[];
}

const definitionOf = ({ name, ...definition }: CampaignBody): [string, CampaignDefinition] => [name, definition];

/**
 * Every problem of a campaign body against the program's declarations: the trigger's event type must be declared
 * (a lifecycle trigger declares its own attributes, definition.ts LIFECYCLE_ATTRIBUTES; `tier_reached` must name a
 * tier of the program), its conditions and `per` must fit it, each coupon pool must be the program's.
 */
async function checkBody(db: Db, programId: string, body: CampaignBody) {
  const { trigger } = body;
  const declared = isLifecycle(trigger)
    ? LIFECYCLE_ATTRIBUTES[trigger.lifecycle]
    : await eventTypeAttributes(db, programId, trigger.event);
  if (!declared) throw validationFailed([{ path: "trigger.event", message: "is not a declared event type" }]);
  const customer = await customerAttributeTypes(db, programId);
  const problems: FieldProblem[] = checkCampaign(definitionOf(body)[1], declared, customer);
  problems.push(...(await unknownSegments(db, programId, body.conditions)));
  if (isLifecycle(trigger) && trigger.lifecycle === "tier_reached") {
    const tier = await db.tier.findFirst({ where: { programId, name: trigger.tier }, select: { id: true } });
    if (!tier) problems.push({ path: "trigger.tier", message: "is not the name of a tier of this program" });
  }
  for (const [i, e] of body.effects.entries()) {
    if (e.type !== "assign_coupon") continue;
    const pool = await findRow(e.couponPoolId, (id) =>
      db.couponPool.findFirst({ where: { id, programId }, select: { id: true } }),
    );
    if (!pool) problems.push({ path: `effects[${i}].couponPoolId`, message: "is not a coupon pool of this program" });
  }
  if (problems.length) throw validationFailed(problems);
  return { declared, customer };
}

/** `customer.segment` values that name no segment of the program (by id or name), by path. */
async function unknownSegments(db: Db, programId: string, tree: Condition | null): Promise<FieldProblem[]> {
  const leaves: { path: string; value: unknown[] }[] = [];
  const visit = (n: Condition, at: string) => {
    if ("all" in n) n.all.forEach((c, i) => visit(c, `${at}.all[${i}]`));
    else if ("any" in n) n.any.forEach((c, i) => visit(c, `${at}.any[${i}]`));
    else if ("not" in n) visit(n.not, `${at}.not`);
    else if (n.attr === SEGMENT_ATTR && Array.isArray(n.value)) leaves.push({ path: `${at}.value`, value: n.value });
  };
  if (tree) visit(tree, "conditions");
  if (leaves.length === 0) return [];
  const segments = await db.segment.findMany({ where: { programId }, select: { id: true, name: true } });
  const known = new Set(segments.flatMap((s) => [s.id, s.name]));
  return leaves.flatMap((l) =>
    l.value.flatMap((v, i) =>
      known.has(v as string) ? [] : [{ path: `${l.path}[${i}]`, message: "names no segment of the program" }],
    ),
  );
}

type CampaignRow = {
  id: string;
  name: string;
  status: string;
  draft: unknown;
  version: number | null;
  budgetUsed: number;
  createdAt: Date;
  updatedAt: Date;
};

const campaignView = (row: CampaignRow): CampaignView => ({
  id: row.id,
  name: row.name,
  status: row.status as CampaignStatus,
  version: row.version,
  draft: (row.draft as CampaignBody | null) ?? null,
  budgetUsed: row.budgetUsed,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** A campaign's view with the points its budget gave (its row's count less its slices' room: budget.ts). */
const exactView = async (db: Db, row: CampaignRow) =>
  campaignView({ ...row, budgetUsed: (await budgetsUsed(db, [row.id])).get(row.id) ?? row.budgetUsed });

export async function createCampaign(tx: Tx, input: { programId: string; body: CampaignBody; now: Date }) {
  await requireProgram(tx, input.programId);
  await checkBody(tx, input.programId, input.body);
  const row = await tx.campaign.create({
    data: {
      programId: input.programId,
      name: input.body.name,
      draft: input.body as object,
      createdAt: input.now,
      updatedAt: input.now,
    },
  });
  await createSlices(tx, input.programId, row.id);
  return campaignView(row);
}

/** The program's campaign, locked for the rest of the transaction (status changes are serialised per campaign). */
async function lockCampaign(tx: Tx, programId: string, campaignId: string): Promise<CampaignRow> {
  const row = await findRow(campaignId, async (id) => {
    const rows = await tx.$queryRawUnsafe<CampaignRow[]>(
      `SELECT id::text AS id, name, status, draft, version, "budgetUsed", "createdAt", "updatedAt" FROM "Campaign"
       WHERE id = $1::uuid AND "programId" = $2::uuid FOR UPDATE`,
      id,
      programId,
    );
    return rows[0];
  });
  if (!row) throw notFound("campaign");
  return row;
}

/** Replaces the campaign's draft (a new campaign's definition, or the change that becomes its next version). */
export async function updateCampaignDraft(
  tx: Tx,
  input: { programId: string; campaignId: string; body: CampaignBody; now: Date },
) {
  const current = await lockCampaign(tx, input.programId, input.campaignId);
  if (current.status === "ended") throw conflict("The campaign has ended: it can no longer change.");
  await checkBody(tx, input.programId, input.body);
  const row = await tx.campaign.update({
    where: { id: current.id },
    data: {
      draft: input.body as object,
      // Before its first activation the draft is all there is of it; afterwards the name changes with the version.
      ...(current.version === null ? { name: input.body.name } : {}),
      updatedAt: input.now,
    },
  });
  return exactView(tx, row);
}

/** Freezes the draft as the next version and runs it (`active`). */
export async function activateCampaign(tx: Tx, input: { programId: string; campaignId: string; now: Date }) {
  // The new version may have another budget: the room its slices hold goes back to it first (budget.ts; the slices
  // are locked before the row, as the events lock them).
  const known = await findRow(input.campaignId, (id) =>
    tx.campaign.findFirst({ where: { id, programId: input.programId }, select: { id: true } }),
  );
  if (!known) throw notFound("campaign");
  await lockBudgets(tx, [known.id]);
  const current = await lockCampaign(tx, input.programId, input.campaignId);
  if (current.status === "ended") throw conflict("The campaign has ended: it cannot be activated.");
  const body = current.draft as CampaignBody | null;
  if (!body) throw conflict("The campaign has no change to activate: its current version already runs.");
  const { declared, customer } = await checkBody(tx, input.programId, body);
  const [name, definition] = definitionOf(body);
  const version = (current.version ?? 0) + 1;
  await tx.campaignVersion.create({
    data: {
      campaignId: current.id,
      version,
      programId: input.programId,
      name,
      definition: definition as object,
      attrTypes: attrTypesOf(definition.conditions, declared, customer),
      activatedAt: input.now,
    },
  });
  const row = await tx.campaign.update({
    where: { id: current.id },
    data: { status: "active", version, name, draft: Prisma.DbNull, updatedAt: input.now },
  });
  return campaignView(row);
}

const MOVES: Record<"pause" | "resume" | "end", { from: CampaignStatus[]; to: CampaignStatus }> = {
  pause: { from: ["active"], to: "paused" },
  resume: { from: ["paused"], to: "active" },
  end: { from: ["draft", "active", "paused"], to: "ended" },
};

/** Pauses an active campaign, resumes a paused one, or ends one for good; any other move is 409 `conflict`. */
export async function moveCampaign(
  tx: Tx,
  input: { programId: string; campaignId: string; move: keyof typeof MOVES; now: Date },
) {
  const current = await lockCampaign(tx, input.programId, input.campaignId);
  const move = MOVES[input.move];
  if (!move.from.includes(current.status as CampaignStatus))
    throw conflict(`A ${current.status} campaign cannot ${input.move}.`);
  const row = await tx.campaign.update({
    where: { id: current.id },
    data: { status: move.to, updatedAt: input.now },
  });
  return exactView(tx, row);
}

/** One campaign with every version, oldest first. */
export async function getCampaign(db: Db, programId: string, campaignId: string): Promise<CampaignView> {
  const row = await findRow(campaignId, (id) => db.campaign.findFirst({ where: { id, programId } }));
  if (!row) throw notFound("campaign");
  const versions = await db.campaignVersion.findMany({ where: { campaignId: row.id }, orderBy: { version: "asc" } });
  return {
    ...(await exactView(db, row)),
    versions: versions.map((v) => ({
      version: v.version,
      name: v.name,
      definition: v.definition as unknown as CampaignDefinition,
      activatedAt: v.activatedAt.toISOString(),
    })),
  };
}

/**
 * A page of the program's campaigns, newest first (keyset on createdAt, id: `cursor` is the last row's position,
 * lib/domain/cursor.ts); `nextCursor` null on the last page. A cursor that is not one of ours is 400.
 */
export async function listCampaigns(
  db: Db,
  programId: string,
  page: { limit: number; cursor?: string | null },
): Promise<{ data: CampaignView[]; nextCursor: string | null }> {
  const after = page.cursor ? decodeCursor(page.cursor) : null;
  if (page.cursor && !after)
    throw invalidInput("The cursor is not valid.", [{ path: "cursor", message: "is not a cursor from this API" }]);
  const at = after ? new Date(after.at) : null;
  const rows = await db.campaign.findMany({
    where: {
      programId,
      ...(after && at ? { OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit + 1,
  });
  const data = rows.slice(0, page.limit);
  const last = data.at(-1);
  const used = await budgetsUsed(
    db,
    data.map((r) => r.id),
  );
  return {
    data: data.map((r) => campaignView({ ...r, budgetUsed: used.get(r.id) ?? r.budgetUsed })),
    nextCursor: rows.length > page.limit && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}
