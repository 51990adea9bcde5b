/**
 * The tensor table's view model: one row per tensorInfos() entry (in file order), statistics merged in as they
 * arrive, sort, filter and group by dtype with totals. Pure: the DOM code only draws what tableItems() returns.
 */
import type { TensorInfo } from "../../../bindings/index.js";
import type { TensorStats } from "../compute.js";
import { elementsOf, shapeText } from "./format.js";

export interface TensorRow {
  /** Position in tensorInfos(). */
  index: number;
  name: string;
  dtype: string;
  shape: number[];
  elements: number;
  bytes: number;
  stats?: TensorStats | undefined;
  /** Why there are no statistics (a format-specific dtype, a read error). */
  statsNote?: string | undefined;
}

export type SortKey =
  | "index"
  | "name"
  | "dtype"
  | "shape"
  | "elements"
  | "bytes"
  | "min"
  | "max"
  | "mean"
  | "std"
  | "nan"
  | "inf"
  | "zeros";

export const SORT_KEYS: readonly SortKey[] = [
  "index",
  "name",
  "dtype",
  "shape",
  "elements",
  "bytes",
  "min",
  "max",
  "mean",
  "std",
  "nan",
  "inf",
  "zeros",
];

export interface TableOptions {
  sort: SortKey;
  descending: boolean;
  filter: string;
  groupByDtype: boolean;
  /** Group by layer-name prefix (the name without its last `.`, `/` or `:` part) instead; wins over dtype. */
  groupByLayer?: boolean | undefined;
}

export const DEFAULT_TABLE_OPTIONS: TableOptions = {
  sort: "index",
  descending: false,
  filter: "",
  groupByDtype: false,
};

export interface GroupItem {
  kind: "group";
  dtype: string;
  /** Set when grouping by layer: the prefix ("" for names without one). */
  layer?: string | undefined;
  count: number;
  elements: number;
  bytes: number;
}

export interface RowItem {
  kind: "row";
  row: TensorRow;
}

export type TableItem = GroupItem | RowItem;

export function rowsFromInfos(infos: readonly TensorInfo[]): TensorRow[] {
  return infos.map((info, index) => ({
    index,
    name: info.name,
    dtype: info.dtype,
    shape: info.shape.slice(),
    elements: elementsOf(info.shape),
    bytes: info.byteLength,
  }));
}

/** The number a row sorts by (undefined sorts last whatever the direction). */
function sortValue(row: TensorRow, key: SortKey): number | string | undefined {
  const s = row.stats;
  switch (key) {
    case "index":
      return row.index;
    case "name":
      return row.name;
    case "dtype":
      return row.dtype;
    case "shape":
      return row.shape.length * 1e15 + row.elements;
    case "elements":
      return row.elements;
    case "bytes":
      return row.bytes;
    case "min":
      return s && !Number.isNaN(s.min) ? s.min : undefined;
    case "max":
      return s && !Number.isNaN(s.max) ? s.max : undefined;
    case "mean":
      return s && !Number.isNaN(s.mean) ? s.mean : undefined;
    case "std":
      return s && !Number.isNaN(s.std) ? s.std : undefined;
    case "nan":
      return s?.nan;
    case "inf":
      return s ? s.posInf + s.negInf : undefined;
    case "zeros":
      return s && s.count > 0 ? s.zeros / s.count : undefined;
  }
}

export function sortRows(rows: readonly TensorRow[], key: SortKey, descending = false): TensorRow[] {
  const direction = descending ? -1 : 1;
  return rows.slice().sort((a, b) => {
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    if (x === undefined || y === undefined) {
      if (x === undefined && y === undefined) return a.index - b.index;
      return x === undefined ? 1 : -1;
    }
    const order = typeof x === "string" ? x.localeCompare(y as string, "en", { numeric: true }) : x - (y as number);
    return order !== 0 ? order * direction : a.index - b.index;
  });
}

/**
 * Rows whose name, dtype or shape contain every space-separated term (case-insensitive). A term
 * "dtype:float16" or "shape:[3, 4]"-style "shape:3,4" matches that column only.
 */
export function filterRows(rows: readonly TensorRow[], query: string): TensorRow[] {
  const terms = query
    .toLowerCase()
    .split(/\s+/)
    .filter((t) => t !== "");
  if (terms.length === 0) return rows.slice();
  return rows.filter((row) => {
    const name = row.name.toLowerCase();
    const shape = shapeText(row.shape).replace(/\s/g, "");
    return terms.every((term) => {
      if (term.startsWith("dtype:")) return row.dtype === term.slice(6);
      if (term.startsWith("shape:")) return shape === `[${term.slice(6).replace(/^\[|\]$/g, "")}]`;
      return name.includes(term) || row.dtype === term || shape.includes(term);
    });
  });
}

export interface GroupTotals {
  dtype: string;
  count: number;
  elements: number;
  bytes: number;
}

/** Count, elements and bytes per dtype, biggest first. */
export function dtypeTotals(rows: readonly TensorRow[]): GroupTotals[] {
  const groups = new Map<string, GroupTotals>();
  for (const row of rows) {
    const g = groups.get(row.dtype) ?? { dtype: row.dtype, count: 0, elements: 0, bytes: 0 };
    g.count++;
    g.elements += row.elements;
    g.bytes += row.bytes;
    groups.set(row.dtype, g);
  }
  return [...groups.values()].sort((a, b) => b.bytes - a.bytes || a.dtype.localeCompare(b.dtype));
}

/** A tensor name's layer: the name without its last part (`encoder.layers.0.weight` → `encoder.layers.0`). */
export function layerPrefix(name: string): string {
  const cut = Math.max(name.lastIndexOf("."), name.lastIndexOf("/"), name.lastIndexOf(":"));
  return cut > 0 ? name.slice(0, cut) : "";
}

/** Count, elements (parameters) and bytes per layer prefix, in the order the layers first appear in `rows`. */
export function layerTotals(rows: readonly TensorRow[]): (GroupTotals & { layer: string })[] {
  const groups = new Map<string, GroupTotals & { layer: string }>();
  for (const row of rows) {
    const layer = layerPrefix(row.name);
    const g = groups.get(layer) ?? { layer, dtype: "", count: 0, elements: 0, bytes: 0 };
    g.count++;
    g.elements += row.elements;
    g.bytes += row.bytes;
    g.dtype = g.dtype === "" || g.dtype === row.dtype ? row.dtype : "mixed";
    groups.set(layer, g);
  }
  return [...groups.values()];
}

/** What the table shows, in order: rows filtered and sorted, each group headed by its totals when grouping. */
export function tableItems(rows: readonly TensorRow[], options: TableOptions): TableItem[] {
  const shown = sortRows(filterRows(rows, options.filter), options.sort, options.descending);
  if (options.groupByLayer) {
    const items: TableItem[] = [];
    const byLayer = new Map<string, TensorRow[]>();
    for (const row of shown) {
      const layer = layerPrefix(row.name);
      const list = byLayer.get(layer) ?? [];
      list.push(row);
      byLayer.set(layer, list);
    }
    for (const group of layerTotals(shown)) {
      items.push({ kind: "group", ...group });
      for (const row of byLayer.get(group.layer)!) items.push({ kind: "row", row });
    }
    return items;
  }
  if (!options.groupByDtype) return shown.map((row) => ({ kind: "row", row }));
  const items: TableItem[] = [];
  for (const group of dtypeTotals(shown)) {
    items.push({ kind: "group", ...group });
    for (const row of shown) if (row.dtype === group.dtype) items.push({ kind: "row", row });
  }
  return items;
}

/** Totals of rows (the footer line). */
export function totals(rows: readonly TensorRow[]): { count: number; elements: number; bytes: number } {
  return rows.reduce((t, r) => ({ count: t.count + 1, elements: t.elements + r.elements, bytes: t.bytes + r.bytes }), {
    count: 0,
    elements: 0,
    bytes: 0,
  });
}

/**
 * The row index to select after a key press in the table (ArrowUp/Down, PageUp/Down, Home/End), given the
 * currently shown items and selected tensor index; undefined when the key does not move the selection.
 */
export function moveSelection(
  items: readonly TableItem[],
  selected: number | undefined,
  key: string,
  pageRows = 20,
): number | undefined {
  const rows = items.filter((i): i is RowItem => i.kind === "row").map((i) => i.row.index);
  if (rows.length === 0) return undefined;
  const at = selected === undefined ? -1 : rows.indexOf(selected);
  let next: number;
  switch (key) {
    case "ArrowDown":
    case "j":
      next = at < 0 ? 0 : at + 1;
      break;
    case "ArrowUp":
    case "k":
      next = at < 0 ? 0 : at - 1;
      break;
    case "PageDown":
      next = (at < 0 ? 0 : at) + pageRows;
      break;
    case "PageUp":
      next = (at < 0 ? 0 : at) - pageRows;
      break;
    case "Home":
      next = 0;
      break;
    case "End":
      next = rows.length - 1;
      break;
    default:
      return undefined;
  }
  return rows[Math.max(0, Math.min(rows.length - 1, next))];
}

/** The selected row if the shown items hold it, else undefined (a filter hid it: Enter must not open it). */
export function visibleSelection(items: readonly TableItem[], selected: number | undefined): number | undefined {
  if (selected === undefined) return undefined;
  return items.some((i) => i.kind === "row" && i.row.index === selected) ? selected : undefined;
}
