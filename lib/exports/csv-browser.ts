import { stringify } from "csv-stringify/browser/esm/sync";
import { CSV_OPTIONS, type CsvCell } from "./csv-options";

/**
 * Records as CSV text in the browser (a chart's data saved as a file), with the same options as the server's
 * exports. csv-stringify's browser build brings its own Buffer, which the main build expects from Node.
 */
export const toCsvInBrowser = (records: readonly (readonly CsvCell[])[]): string =>
  stringify(records as CsvCell[][], CSV_OPTIONS);

/** Saves `text` as a file named `fileName` through a temporary link (the browser's own download). */
export function saveTextFile(fileName: string, text: string | Blob, type = "text/csv;charset=utf-8") {
  const blob = typeof text === "string" ? new Blob([text], { type }) : text;
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
