/** How the page writes numbers, sizes and shapes (pure functions, shared by every view). */

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

/** 1536 -> "1.5 KiB"; exact bytes below 1 KiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${UNITS[unit]}`;
}

/** 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A value for a table cell: 5 significant digits, exponent form for very large or small magnitudes. */
export function formatValue(v: number | undefined): string {
  if (v === undefined) return "";
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "−Inf";
  if (v === 0) return "0";
  const magnitude = Math.abs(v);
  if (magnitude >= 1e6 || magnitude < 1e-3) return v.toExponential(3).replace("e+", "e");
  return Number(v.toPrecision(5)).toString();
}

/** "[3, 4]"; a scalar is "[]". */
export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

/** Elements of a shape ([] is a scalar: 1). */
export function elementsOf(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** A percentage with one decimal ("12.5%"); "" when the whole is 0. */
export function formatPercent(part: number, whole: number): string {
  if (whole === 0) return "";
  const p = (100 * part) / whole;
  return `${p === 0 || p === 100 || p >= 10 ? p.toFixed(p % 1 === 0 ? 0 : 1) : p.toFixed(p < 0.1 ? 3 : 1)}%`;
}

/** A meta value on one line (bigints as digits, objects as JSON), cut at `max` characters. */
export function valueText(value: unknown, max = 160): string {
  if (value === null || value === undefined) return "";
  const text =
    typeof value === "string"
      ? value
      : (JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ??
        String(value as symbol | (() => unknown))); // JSON has no text for these two
  const line = text.replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Seconds as "0.25 s" / "1 min 5 s" for the time axis and progress. */
export function formatSeconds(s: number): string {
  if (s < 60) return `${Number(s.toPrecision(3))} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - 60 * m)} s`;
}

/**
 * A long name cut in the middle, keeping its head and, longer, its tail (`encoder.layers.11.self_attn.k_proj.weight`
 * → `encoder.lay…self_attn.k_proj.weight`): tensors of one model share their prefix, their tails tell them apart.
 */
export function middleCut(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const keep = Math.max(2, max - 1);
  const head = Math.max(1, Math.floor(keep / 3));
  const tail = keep - head;
  return `${chars.slice(0, head).join("")}…${chars.slice(chars.length - tail).join("")}`;
}
