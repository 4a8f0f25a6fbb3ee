import { expect, test, type APIRequestContext } from "@playwright/test";
import { noHorizontalOverflow, seed, shot, signIn } from "./helpers";

// Issue 23: a manager declares an event type, builds "double points on weekends for Gold" in the browser (a refusal
// at its field first, the JSON view), tries it on a Gold customer on a Saturday and on a Monday, activates it, and
// sees the points of a real Saturday purchase on the customer's timeline with the campaign named. The weekend is made
// deterministic by the event's own time (occurredAt: the last Saturday, noon UTC), never by today's weekday.

const DOUBLE = "Double points on weekends for Gold";

/** The last Saturday noon UTC before now, and the Monday before it (both within the chart's 30 days). */
function weekend() {
  const now = new Date();
  const saturday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 12));
  saturday.setUTCDate(saturday.getUTCDate() - ((saturday.getUTCDay() + 1) % 7));
  if (saturday > now) saturday.setUTCDate(saturday.getUTCDate() - 7);
  const monday = new Date(saturday);
  monday.setUTCDate(monday.getUTCDate() - 5);
  const local = (d: Date) => d.toISOString().slice(0, 16); // the browser runs in UTC (timezoneId below)
  return { saturday, monday, local };
}

/** A Gold customer (6,000 points earned) and a base campaign, 1 point per euro, made through the API. */
async function setUp(request: APIRequestContext) {
  const { programId, apiKey } = seed();
  const headers = { "api-key": apiKey };
  const v1 = `/v1/programs/${programId}`;
  const email = `gold.${Date.now()}@example.com`;
  const created = await request.post(`${v1}/integrations/api`, {
    headers,
    data: [{ email, feature: "user", payload: { firstName: "Gloria", lastName: "Gold" } }],
  });
  expect(created.status()).toBe(201);
  const at = `${v1}/customers/${encodeURIComponent(email)}`;
  expect((await request.post(`${at}/balance/increase`, { headers, data: { points: 6000 } })).status()).toBe(200);
  const customer = (await (await request.get(at, { headers })).json()) as { id: string };
  return { programId, headers, v1, email, at, customerId: customer.id };
}

test.use({ timezoneId: "UTC" });

test("a manager builds double points on weekends for Gold, tries it, activates it and sees it on the timeline", async ({
  page,
}) => {
  test.slow(); // a whole journey at two widths (what viewers see: test/integration/dashboard-config.test.ts)
  await page.setViewportSize({ width: 1440, height: 900 });
  const c = await setUp(page.request);
  const { saturday, monday, local } = weekend();
  await signIn(page, "manager");
  await page.goto(`/dashboard/${c.programId}/campaigns`);
  await expect(page.getByRole("heading", { level: 1, name: "Campaigns" })).toBeVisible();

  // The event type, declared on its card.
  const declare = page.getByRole("form", { name: "Declare an event type" });
  await declare.getByLabel("Type", { exact: true }).fill("purchase");
  await declare.getByLabel("Name of attribute 1").fill("total");
  await declare.getByLabel("Type of attribute 1").selectOption("number");
  await declare.getByRole("checkbox", { name: "required attribute 1" }).check();
  await declare.getByRole("button", { name: "Declare event type" }).click();
  await expect(page.getByTestId("event-type-purchase")).toContainText("total number (required)");

  // The base campaign the double multiplies: 1 point per euro, through the API, active.
  const base = await page.request.post(`${c.v1}/campaigns`, {
    headers: c.headers,
    data: {
      name: "1 point per euro",
      trigger: { event: "purchase" },
      effects: [{ type: "award_points", per: "event.total", rate: 1, round: "down" }],
    },
  });
  expect(base.status()).toBe(201);
  const baseId = ((await base.json()) as { id: string }).id;
  expect((await page.request.post(`${c.v1}/campaigns/${baseId}/activate`, { headers: c.headers })).status()).toBe(200);
  await page.reload();

  // The builder: a condition row, an effect row, the weekend days.
  const builder = page.getByRole("form", { name: "New campaign" });
  await builder.getByLabel("Name").fill(DOUBLE);
  await builder.getByLabel("Trigger", { exact: true }).selectOption("purchase");
  await builder.getByRole("button", { name: "Add condition", exact: true }).click();
  await builder.getByLabel("Attribute of condition 1").selectOption("customer.tier");
  await builder.getByLabel("Operator of condition 1").selectOption("eq");
  await builder.getByLabel("Value of condition 1").fill("Gold");
  await builder.getByLabel("Kind of effect 1").selectOption("multiply");
  for (const day of ["Sat", "Sun"]) await builder.getByRole("checkbox", { name: day, exact: true }).check();
  // Refused at its field: the factor is missing.
  await builder.getByRole("button", { name: "Create campaign" }).click();
  await expect(builder.getByTestId("effect-1").getByRole("alert")).toBeVisible();
  await builder.getByLabel("Factor of effect 1").fill("2");
  // The JSON view shows the same body; back to the fields, nothing lost.
  await builder.getByRole("button", { name: "JSON", exact: true }).click();
  const json = builder.getByLabel("Campaign as JSON (the /v1 campaign body)");
  await expect(json).toHaveValue(/"multiply_points"/);
  await expect(json).toHaveValue(/"daysOfWeek": \[\s*6,\s*7\s*\]/);
  await builder.getByRole("button", { name: "Fields", exact: true }).click();
  await expect(builder.getByLabel("Value of condition 1")).toHaveValue("Gold");
  await shot(page, "campaign-builder");
  await builder.getByRole("button", { name: "Create campaign" }).click();

  // The campaign's page: a draft; try it on a Saturday and on a Monday.
  await expect(page.getByRole("heading", { level: 1, name: DOUBLE })).toBeVisible();
  await expect(page.getByText("not activated yet")).toBeVisible();
  const tryIt = page.getByRole("form", { name: "Try it" });
  await tryIt.getByLabel("Customer e-mail").fill(c.email);
  await tryIt.getByLabel("When (your time zone)").fill(local(saturday));
  await tryIt.getByLabel("total (required)").fill("100");
  await tryIt.getByRole("button", { name: "Try it" }).click();
  const result = page.getByTestId("try-result");
  // Gold's factor 1.5: the base gives 150, the draft doubles it with 150 more.
  await expect(result).toContainText("1 point per euro (v1): award 150 points");
  await expect(result).toContainText(`${DOUBLE} (v1, draft): multiplied 150 points`);
  await result.scrollIntoViewIfNeeded();
  await shot(page, "campaign-try-it", { fullPage: false });
  await tryIt.getByLabel("When (your time zone)").fill(local(monday));
  await tryIt.getByRole("button", { name: "Try it" }).click();
  await expect(result).toContainText("outside its schedule");
  await expect(result).not.toContainText("multiplied");
  // A dry run stores nothing: the customer's balance is what the API says it was.
  const balance = (await (await page.request.get(`${c.at}/balance`, { headers: c.headers })).json()) as {
    balance: number;
  };
  expect(balance.balance).toBe(6000);

  // Activate: version 1 runs.
  await page.getByRole("button", { name: "Activate", exact: true }).click();
  await expect(page.getByText("runs version 1")).toBeVisible();
  await expect(page.getByTestId("version-1")).toContainText('customer.tier is "Gold"');

  // A real purchase on that Saturday, through the API: the campaign's points are on the customer's timeline.
  const event = await page.request.post(`${c.at}/events`, {
    headers: { ...c.headers, "idempotency-key": `e2e-double-${Date.now()}` },
    data: { type: "purchase", occurredAt: saturday.toISOString(), attributes: { total: 100 } },
  });
  expect(event.status()).toBe(200);
  const outcome = (await event.json()) as { effects: { type: string; points: number }[]; balance: number };
  expect(outcome.effects.map((e) => `${e.type} ${e.points}`).sort()).toEqual([
    "award_points 150",
    "multiply_points 150",
  ]);
  expect(outcome.balance).toBe(6300);
  await page.reload();
  const stat = (label: string) =>
    page
      .locator("p", { hasText: new RegExp(`^${label}$`) })
      .first()
      .locator("..");
  await expect(stat("Events matched")).toHaveText(/Events matched\s*1\s*Events it applied to/);
  await expect(stat("Points issued")).toHaveText(/Points issued\s*150\s*Before reversals/);
  await shot(page, "campaign-page");
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalOverflow(page);
  await shot(page, "campaign-page-phone");
  await page.setViewportSize({ width: 1440, height: 900 });

  await page.goto(`/dashboard/${c.programId}/customers/${c.customerId}`);
  const entry = page.getByRole("row").filter({ hasText: `campaign: ${DOUBLE} (v1)` });
  await expect(entry).toBeVisible();
  await expect(entry).toContainText("+150");
  await entry.scrollIntoViewIfNeeded();
  await shot(page, "campaign-timeline", { fullPage: false });

  // The campaigns list on a phone: the status and budget columns fit.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/dashboard/${c.programId}/campaigns`);
  await expect(page.getByRole("link", { name: DOUBLE })).toBeVisible();
  await noHorizontalOverflow(page);
  await shot(page, "campaigns-phone");
});
