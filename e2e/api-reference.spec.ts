import { expect, test, type Page } from "@playwright/test";
import { seed, shot, signIn } from "./helpers";

// /docs and the dashboard's API reference show what /v1/openapi.json says: its tags as headings, its examples as
// captioned JSON blocks, each problem response's codes as a list, its webhooks. Each check runs when the document
// has the thing it checks (fetched first), so the test follows the document rather than a copy of it.

type Example = { summary?: string; value?: unknown };
type Media = Record<string, { examples?: Record<string, Example> }>;
type Op = {
  summary?: string;
  tags?: string[];
  requestBody?: { content?: Media };
  responses?: Record<
    string,
    { content?: Media & Record<string, { schema?: { properties?: { code?: { enum?: string[] } } } }> }
  >;
};
type Doc = {
  info: { description?: string };
  tags?: { name: string }[];
  paths: Record<string, Record<string, Op>>;
  webhooks?: Record<string, unknown>;
};

/** The first example in the document (a request's or a response's) and the caption the reference gives it. */
function firstExampleCaption(ops: Op[]): string | undefined {
  for (const op of ops) {
    const media = [op.requestBody?.content, ...Object.values(op.responses ?? {}).map((r) => r.content)];
    for (const content of media) {
      for (const m of Object.values(content ?? {})) {
        const [name, example] = Object.entries(m.examples ?? {})[0] ?? [];
        if (name) return `Example: ${example?.summary ?? name}`;
      }
    }
  }
}

async function expectDocumentShown(page: Page, doc: Doc) {
  const ops = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  // Backticks in descriptions are code, not literal backticks.
  if (doc.info.description?.includes("`")) {
    const header = page.locator("header", { has: page.getByRole("heading", { level: 1 }) });
    await expect(header.locator("p code").first()).toBeVisible();
    await expect(header).not.toContainText("`");
  }

  const tag = ops.find((op) => op.tags?.length)?.tags?.[0];
  if (tag) await expect(page.getByRole("heading", { level: 2, name: tag, exact: true })).toBeVisible();

  const caption = firstExampleCaption(ops);
  if (caption) {
    const figure = page
      .locator("figure")
      .filter({ has: page.getByText(caption, { exact: true }) })
      .first();
    await expect(figure.locator("pre")).toBeVisible();
    JSON.parse((await figure.locator("pre").textContent()) ?? ""); // the block is JSON a reader can copy as is
  }

  const problem = ops
    .flatMap((op) => Object.entries(op.responses ?? {}).map(([status, r]) => ({ op, status, r })))
    .find(({ r }) => r.content?.["application/problem+json"]?.schema?.properties?.code?.enum?.length);
  if (problem) {
    const codes = problem.r.content!["application/problem+json"]!.schema!.properties!.code!.enum!;
    const list = page.getByRole("list", { name: `Error codes of ${problem.status}, ${problem.op.summary}` });
    for (const code of codes) await expect(list.locator("code", { hasText: code }).first()).toBeVisible();
  }

  if (doc.webhooks && Object.keys(doc.webhooks).length > 0) {
    const section = page.getByRole("region", { name: "Webhooks" });
    await expect(section.getByRole("heading", { level: 2, name: "Webhooks" })).toBeVisible();
    for (const event of Object.keys(doc.webhooks)) {
      await expect(section.getByRole("heading", { level: 3, name: event, exact: true })).toBeVisible();
    }
  }
  return caption;
}

/** Viewport screenshots of the first example and of the webhooks, where the document has them. */
async function closeUps(page: Page, name: string) {
  for (const [part, target] of [
    ["example", page.locator("figure").first()],
    ["errors", page.getByRole("list", { name: /^Error codes of / }).first()],
    ["webhooks", page.locator("#webhooks")],
  ] as const) {
    if ((await target.count()) === 0) continue;
    await target.scrollIntoViewIfNeeded();
    await shot(page, `${name}-${part}`, { fullPage: false });
  }
}

test("/docs and the dashboard's API reference show the document's tags, examples, error codes and webhooks", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const doc = (await (await request.get("/v1/openapi.json")).json()) as Doc;

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/docs");
  const caption = await expectDocumentShown(page, doc);
  await shot(page, "docs-desktop");
  await closeUps(page, "docs-desktop");

  // On a phone the page does not scroll sideways: tables scroll in their box, examples wrap.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/docs");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, "docs-phone");
  await closeUps(page, "docs-phone");

  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "viewer");
  await page.goto(`/dashboard/${seed().programId}/api-reference`);
  await expectDocumentShown(page, doc);
  if (caption) await expect(page.getByText(caption, { exact: true }).first()).toBeVisible();
});
