/**
 * The one place for how the app writes CSV (exports streamed by the server, chart data saved in the browser):
 * RFC 4180 (CRLF between records, a field quoted when it holds a comma, a quote or a line break, quotes doubled)
 * and guarded against formula injection: a text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return
 * is written with a leading `'`, so a spreadsheet shows it as text instead of running it (OWASP "CSV Injection").
 * Numbers are written as numbers: -50 points stays -50. The writing itself is csv-stringify's (the sibling of
 * csv-parse): its `escape_formulas` is that guard. Client-safe: options only.
 */
export const CSV_OPTIONS = {
  escape_formulas: true,
  record_delimiter: "\r\n",
  // csv-stringify quotes a field holding the record delimiter (\r\n) but not a lone \r or \n: RFC 4180 wants both.
  quoted_match: /[\r\n]/,
  cast: { boolean: (value: boolean) => (value ? "true" : "false") },
} as const;

/** A cell: text, a number, a boolean, or empty (null). */
export type CsvCell = string | number | boolean | null | undefined;

/** The file name of an export: what it holds and the day it was taken, e.g. `ledger-2026-11-24.csv`. */
export const csvFileName = (what: string, day = new Date().toISOString().slice(0, 10)) =>
  `${what.replace(/[^a-z0-9-]+/gi, "-")}-${day}.csv`;
