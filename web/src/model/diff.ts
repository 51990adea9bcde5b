/**
 * The diff view's model: the rows of a diffTensors result (changed first, then equal), names only in one file,
 * and a one-line verdict.
 */
import type { DiffResult, TensorDiff } from "../compute.js";
import { formatValue, shapeText } from "./format.js";

export interface DiffRow {
  name: string;
  status: TensorDiff["status"] | "onlyA" | "onlyB";
  /** "float32 [3, 4]" or "float32 → float16" / "[3, 4] → [4, 3]". */
  change: string;
  elements: number;
  /** null when no values were compared (shapes differ). */
  differing: number | null;
  maxAbs: string;
  maxRel: string;
  cosine: string;
  /** The numbers as diffTensors (and `tensorfile diff --json`) gives them, for data attributes. */
  raw?: TensorDiff | undefined;
}

const ORDER: Record<DiffRow["status"], number> = { shape: 0, dtype: 1, different: 2, onlyA: 3, onlyB: 4, equal: 5 };

export function diffRows(result: DiffResult): DiffRow[] {
  const rows: DiffRow[] = result.tensors.map((t) => ({
    name: t.name,
    status: t.status,
    change:
      t.status === "shape"
        ? `${shapeText(t.shapeA)} → ${shapeText(t.shapeB)}`
        : t.status === "dtype"
          ? `${t.dtypeA} → ${t.dtypeB} ${shapeText(t.shapeA)}`
          : `${t.dtypeA} ${shapeText(t.shapeA)}`,
    elements: t.elements,
    differing: t.differing,
    maxAbs: t.maxAbs === null ? "" : formatValue(t.maxAbs),
    maxRel: t.maxRel === null ? "" : formatValue(t.maxRel),
    cosine: t.cosine === null || Number.isNaN(t.cosine) ? "" : t.cosine.toFixed(6),
    raw: t,
  }));
  for (const name of result.onlyA)
    rows.push({
      name,
      status: "onlyA",
      change: "only in A",
      elements: 0,
      differing: 0,
      maxAbs: "",
      maxRel: "",
      cosine: "",
    });
  for (const name of result.onlyB)
    rows.push({
      name,
      status: "onlyB",
      change: "only in B",
      elements: 0,
      differing: 0,
      maxAbs: "",
      maxRel: "",
      cosine: "",
    });
  return rows.sort((a, b) => ORDER[a.status] - ORDER[b.status]);
}

export function diffVerdict(result: DiffResult): string {
  const count = (status: TensorDiff["status"]) => result.tensors.filter((t) => t.status === status).length;
  if (result.equal) return `equal: ${result.tensors.length} tensors match`;
  const parts: string[] = [];
  if (count("different") > 0) parts.push(`${count("different")} differ in value`);
  if (count("dtype") > 0) parts.push(`${count("dtype")} change dtype`);
  if (count("shape") > 0) parts.push(`${count("shape")} change shape`);
  if (result.onlyA.length > 0) parts.push(`${result.onlyA.length} only in A`);
  if (result.onlyB.length > 0) parts.push(`${result.onlyB.length} only in B`);
  parts.push(`${count("equal")} equal`);
  return `different: ${parts.join(", ")}`;
}

export interface MetadataDifference {
  /** `format`, `version` or `meta.<key>`. */
  key: string;
  /** One-line values; undefined where a side has no such key. */
  a: string | undefined;
  b: string | undefined;
}

function oneLine(value: unknown): string {
  const text =
    typeof value === "string"
      ? value
      : (JSON.stringify(value, (_k, v: unknown) =>
          typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? `<${v.length} bytes>` : v,
        ) ?? String(value));
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The header differences of two files: format, version and every `meta` key that is missing in one or differs. */
export function metadataDifferences(
  a: { format: string; version: unknown; meta: Record<string, unknown> },
  b: { format: string; version: unknown; meta: Record<string, unknown> },
): { differences: MetadataDifference[]; compared: number } {
  const differences: MetadataDifference[] = [];
  const pairs: [string, unknown, unknown][] = [
    ["format", a.format, b.format],
    ["version", a.version, b.version],
  ];
  const keys = [...new Set([...Object.keys(a.meta), ...Object.keys(b.meta)])];
  const own = (meta: Record<string, unknown>, key: string) => (Object.hasOwn(meta, key) ? meta[key] : undefined); // keys from the files
  for (const key of keys) pairs.push([`meta.${key}`, own(a.meta, key), own(b.meta, key)]);
  for (const [key, va, vb] of pairs) {
    const ta = va === undefined ? undefined : oneLine(va);
    const tb = vb === undefined ? undefined : oneLine(vb);
    if (ta !== tb) differences.push({ key, a: ta, b: tb });
  }
  return { differences, compared: pairs.length };
}

export interface DifferenceMatrix {
  rows: number;
  cols: number;
  /** a − b per cell: of each block of source elements, the difference with the largest magnitude (so one changed
   * element is not averaged away); NaN where a and b disagree on NaN or infinity. */
  data: Float64Array;
  rowStep: number;
  colStep: number;
  /** Largest |a − b| over the finite differences (0 when none). */
  maxAbs: number;
}

/**
 * The difference of two tensors of one shape as a matrix (axis 0 down, the other axes flattened across; a 1-D
 * tensor is one row), reduced to at most maxRows × maxCols blocks.
 */
export function differenceMatrix(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  shape: readonly number[],
  maxRows: number,
  maxCols: number,
): DifferenceMatrix {
  const total = a.length;
  if (b.length !== total) throw new RangeError(`the tensors have ${a.length} and ${b.length} elements`);
  const rows = shape.length >= 2 ? shape[0]! : 1;
  const cols = rows > 0 ? Math.round(total / rows) : 0;
  const rowStep = Math.max(1, Math.ceil(rows / Math.max(1, maxRows)));
  const colStep = Math.max(1, Math.ceil(cols / Math.max(1, maxCols)));
  const outRows = Math.ceil(rows / rowStep);
  const outCols = Math.ceil(cols / colStep);
  const data = new Float64Array(outRows * outCols);
  const bad = new Uint8Array(outRows * outCols);
  let maxAbs = 0;
  for (let r = 0; r < rows; r++) {
    const outRow = Math.floor(r / rowStep) * outCols;
    for (let c = 0; c < cols; c++) {
      const x = a[r * cols + c]!;
      const y = b[r * cols + c]!;
      const k = outRow + Math.floor(c / colStep);
      let d: number;
      if (Number.isNaN(x) && Number.isNaN(y)) d = 0;
      else if (x === y) d = 0;
      else d = x - y;
      if (!Number.isFinite(d)) {
        bad[k] = 1;
        continue;
      }
      if (Math.abs(d) > Math.abs(data[k]!)) data[k] = d;
      if (Math.abs(d) > maxAbs) maxAbs = Math.abs(d);
    }
  }
  for (let k = 0; k < data.length; k++) if (bad[k]) data[k] = NaN;
  return { rows: outRows, cols: outCols, data, rowStep, colStep, maxAbs };
}
