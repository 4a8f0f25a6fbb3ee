import { stringify } from "csv-stringify/sync";
import { CSV_OPTIONS, type CsvCell } from "./csv-options";

/** Records as CSV text (lib/exports/csv-options.ts), on the server: each streamed batch of an export is one call. */
export const toCsv = (records: readonly (readonly CsvCell[])[]): string =>
  stringify(records as CsvCell[][], CSV_OPTIONS);
