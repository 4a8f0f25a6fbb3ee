/**
 * The bench's output: a table on stdout, bench/results/latest.json (everything), and bench/results/latest.md (the
 * Markdown tables bench/README.md pastes), each target with PASS or FAIL.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TARGETS } from "./config";
import type { Results, Row } from "./context";
import type { Figures } from "./load";

const n0 = (x: number) => Math.round(x).toLocaleString("en");
const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const verdict = (pass: boolean | undefined) => (pass === undefined ? "" : pass ? "PASS" : "FAIL");
const cell = (f: Figures) => `${n0(f.rps)} req/s, ${ms(f.p50)}/${ms(f.p99)} ms`;

export interface Header {
  title: string;
  settings: string;
}

/** The verdicts of the issue's targets: null when the row did not run. */
export function targets(results: Results) {
  const find = (family: string, prefix: string) =>
    results.rows.find(
      (r) => r.family === family && r.name.startsWith(prefix) && r.target && !r.target.startsWith("reference"),
    );
  const pass = (r: Row | undefined) => (r ? (r.pass ?? null) : null);
  return {
    getRatio: pass(find("get", "GET")),
    increaseRatio: pass(find("increase", "POST")),
    getP99At300: pass(find("latency", "GET")),
    increaseP99At300: pass(find("latency", "POST")),
    batch1000: results.batch1000?.pass ?? null,
    /** The same two ratios on Node 24 (the node24 row), and RSS per runtime measured. */
    getRatio24: pass(find("node24", "GET")),
    increaseRatio24: pass(find("node24", "POST")),
    memory: results.memory.map((m) => ({ node: m.node, pass: m.pass })),
  };
}

export function printTable(header: Header, results: Results): string {
  const width = 58;
  const lines = ["", header.title, header.settings, ""];
  lines.push(
    `${"row".padEnd(width)} ${"load".padStart(6)}  ${"ours: req/s   p50   p99".padEnd(24)}  ratio         verdict / references`,
  );
  for (const r of results.rows) {
    const o = `${n0(r.ours.rps).padStart(11)} ${ms(r.ours.p50).padStart(5)} ${ms(r.ours.p99).padStart(5)}`;
    const ratio = r.ratio === undefined ? "" : `${r.ratio.toFixed(2)} ÷${r.ratioOf}`;
    const v = r.target ? `${verdict(r.pass)} (${r.target})` : "";
    lines.push(`${r.name.padEnd(width)} ${r.load.padStart(6)}  ${o.padEnd(24)}  ${ratio.padEnd(13)} ${v}`);
    for (const ref of r.refs) lines.push(`${"".padEnd(width + 10)}${ref.label}: ${cell(ref.figures)}`);
    if (r.note) lines.push(`${"".padEnd(width + 10)}${r.note}`);
  }
  const b = results.batch1000;
  if (b)
    lines.push(
      `one 1,000-item batch, median of 5: ours ${ms(b.ours.median)} ms, bare ${ms(b.baseline.median)} ms: ${verdict(b.pass)} (${b.target})`,
    );
  for (const m of results.memory)
    lines.push(
      `RSS (${m.server}): ${m.rssAfterFirstMiB} MiB after ${n0(m.firstRequests)} requests; ${m.rounds.map((x) => `${x.rssMiB} MiB after ${n0(x.requests)} (${(100 * x.growth).toFixed(1)}%)`).join(", ")}: ${verdict(m.pass)} (${m.target})`,
    );
  if (results.couponImport)
    lines.push(
      `coupon CSV import through the CLI: ${n0(results.couponImport.codes)} codes in ${results.couponImport.seconds} s (process start included)`,
    );
  const c = results.clockAdvance;
  if (c)
    lines.push(
      `clock advance of a test program, ${n0(c.customers)} customers by one year: ${c.seconds} s in ${c.steps} steps (${verdict(c.pass)}, ${c.target}); the live sweeps of the same work ${c.sweepSeconds} s (CLI, process start included)`,
    );
  const bd = results.birthdays;
  if (bd)
    lines.push(
      `daily birthday sweep, ${n0(bd.customers)} customers: ${n0(bd.birthdays)} birthdays fired in ${bd.seconds} s (CLI, process start included; the same sweep with nothing left ${bd.idleSeconds} s); the day's birthdays by index ${bd.indexedMs} ms vs a scan ${bd.scanMs} ms; at 1,000,000 customers ≈ ${n0(bd.birthdaysAtMillion)} birthdays ≈ ${bd.extrapolatedSeconds} s (${verdict(bd.pass)}, ${bd.target}, extrapolated)`,
    );
  lines.push(
    "",
    "latencies in ms (p50/p99); ratio = ours req/s ÷ the named reference's, measured in alternating slices.",
  );
  const t = targets(results);
  const show = (x: boolean | null) => (x === null ? "not run" : x ? "PASS" : "FAIL");
  const rss = t.memory.length ? t.memory.map((m) => `${show(m.pass)} on Node ${m.node}`).join(", ") : "not run";
  lines.push(
    `targets (Node ${process.version}): GET ÷ bare ${show(t.getRatio)}; increase ÷ bare ${show(t.increaseRatio)}; GET p99 at 300/s ${show(t.getP99At300)}; increase p99 at 300/s ${show(t.increaseP99At300)}; 1,000-item batch ${show(t.batch1000)}`,
    `targets on Node 24 (node24 row): GET ÷ bare ${show(t.getRatio24)}; increase ÷ bare ${show(t.increaseRatio24)}`,
    `RSS, every memory round within ${100 * TARGETS.rssGrowth}% of the first reading: ${rss}`,
  );
  for (const note of results.notes) lines.push(`note: ${note}`);
  return lines.join("\n");
}

/** bench/README.md's tables: saturation with references, latency at fixed rates, and the single figures. */
export function markdown(header: Header, results: Results): string {
  const out = [`<!-- written by npm run bench: ${header.title} -->`, "", header.settings, ""];
  const saturation = results.rows.filter((r) => r.family !== "latency");
  if (saturation.length) {
    out.push(
      "| Run | Conns | Ours req/s | p50 / p99 ms | References in the same run (req/s, p50/p99 ms) | Ratio | Target | Verdict |",
      "|---|---|---|---|---|---|---|---|",
    );
    for (const r of saturation) {
      const refs = r.refs.map((x) => `${x.label}: ${cell(x.figures)}`).join("; ");
      const ratio = r.ratio === undefined ? "" : `${r.ratio.toFixed(2)} (÷ ${r.ratioOf})`;
      const note = r.note ? ` (${r.note})` : "";
      out.push(
        `| ${r.name}${note} | ${r.load} | ${n0(r.ours.rps)} | ${ms(r.ours.p50)} / ${ms(r.ours.p99)} | ${refs} | ${ratio} | ${r.target ?? ""} | ${verdict(r.pass)} |`,
      );
    }
    out.push("");
  }
  const latency = results.rows.filter((r) => r.family === "latency");
  if (latency.length) {
    out.push(
      "| Latency at a constant rate | Ours p50 / p99 ms | Bare p50 / p99 ms | Saturation (32 conns) | Target | Verdict |",
      "|---|---|---|---|---|---|",
    );
    for (const r of latency) {
      const bare = r.refs[0] ? `${ms(r.refs[0].figures.p50)} / ${ms(r.refs[0].figures.p99)}` : "";
      out.push(
        `| ${r.name} | ${ms(r.ours.p50)} / ${ms(r.ours.p99)} | ${bare} | ${r.note ?? ""} | ${r.target ?? ""} | ${verdict(r.pass)} |`,
      );
    }
    out.push("");
  }
  const single: string[] = [];
  const b = results.batch1000;
  if (b)
    single.push(
      `| One 1,000-item batch upsert (median of 5) | ours ${ms(b.ours.median)} ms, bare ${ms(b.baseline.median)} ms | ${b.target} | ${verdict(b.pass)} |`,
    );
  for (const m of results.memory)
    single.push(
      `| RSS, ${m.server} | ${m.rssAfterFirstMiB} MiB after ${n0(m.firstRequests)} GET; ${m.rounds.map((x) => `${x.rssMiB} MiB after ${n0(x.requests)}`).join(", ")} | ${m.target} | ${verdict(m.pass)} |`,
    );
  if (results.couponImport)
    single.push(
      `| Coupon CSV import through the CLI | ${n0(results.couponImport.codes)} codes in ${results.couponImport.seconds} s | | |`,
    );
  const clock = results.clockAdvance;
  if (clock)
    single.push(
      `| Advance a test program of ${n0(clock.customers)} customers by one year (${clock.steps} steps; live sweeps of the same work: ${clock.sweepSeconds} s) | ${clock.seconds} s | ${clock.target} | ${verdict(clock.pass)} |`,
    );
  const birthdays = results.birthdays;
  if (birthdays)
    single.push(
      `| Daily birthday sweep, ${n0(birthdays.customers)} customers (${n0(birthdays.birthdays)} birthdays; index ${birthdays.indexedMs} ms vs scan ${birthdays.scanMs} ms) | ${birthdays.seconds} s; ≈ ${birthdays.extrapolatedSeconds} s at 1,000,000 (extrapolated) | ${birthdays.target} | ${verdict(birthdays.pass)} |`,
    );
  if (single.length) out.push("| Measure | Result | Target | Verdict |", "|---|---|---|---|", ...single, "");
  for (const note of results.notes) out.push(`Note: ${note}`, "");
  return out.join("\n");
}

export function writeResults(root: string, json: unknown, md: string) {
  const dir = path.join(root, "bench/results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "latest.json"), JSON.stringify(json, null, 2));
  writeFileSync(path.join(dir, "latest.md"), md);
  return dir;
}
