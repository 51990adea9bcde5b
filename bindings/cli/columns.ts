/**
 * Tables that fit the terminal: when standard output is a terminal, the name column of a table is shortened in
 * the middle ("encoder.layers.…attention.weight") so that each line fits COLUMNS (or the terminal's width), as
 * ls and git do; when it is not a terminal (a pipe, a file), names are printed whole so scripts see them exactly.
 */
import type { ProgressStream } from "./progress.js";

/** The narrowest a shortened name is made (its head, the ellipsis and its tail stay readable). */
const MIN_NAME = 8;

/**
 * The width to fit tables to: undefined (print whole) unless `stream` is a terminal; then a positive integer
 * COLUMNS from the environment, else the terminal's own width, else 80.
 */
export function tableWidth(
  stream: ProgressStream,
  env: Readonly<Record<string, string | undefined>> = process.env,
): number | undefined {
  if (!stream.isTTY) return undefined;
  const columns = Number(env.COLUMNS);
  if (Number.isInteger(columns) && columns > 0) return columns;
  return stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
}

/** `text` cut to at most `max` characters (code points) by an ellipsis in the middle; the tail keeps one more. */
export function shortenMiddle(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  if (max <= 1) return "…";
  const head = Math.floor((max - 1) / 2);
  const tail = max - 1 - head;
  return `${chars.slice(0, head).join("")}…${chars.slice(chars.length - tail).join("")}`;
}

/** Length in code points (what shortenMiddle counts). */
function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Shortens column `column` of `rows` (the header row included) in place so that a line of the table, laid out as
 * `indent` spaces then the cells joined by `gap` spaces, fits `width`; a no-op when `width` is undefined or the
 * table already fits. Rows with fewer cells (notes spanning a line) count only the cells they have.
 */
export function fitColumn(rows: string[][], column: number, width: number | undefined, indent = 2, gap = 2): void {
  if (width === undefined || rows.length === 0) return;
  const cells = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: cells }, (_, i) =>
    rows.reduce((w, r) => (r[i] === undefined ? w : Math.max(w, length(r[i]!))), 0),
  );
  const total = indent + widths.reduce((a, b) => a + b, 0) + gap * (cells - 1);
  if (total <= width) return;
  const max = Math.max(MIN_NAME, widths[column]! - (total - width));
  for (const row of rows) if (row[column] !== undefined) row[column] = shortenMiddle(row[column]!, max);
}
