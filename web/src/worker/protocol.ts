/** Messages between the page and its workers (structured-clone safe: no class instances, no functions). */
import type { DiffResult, Histogram, TensorStats } from "../compute.js";
import type { Reduced, SliceSpec } from "../model/heatmap.js";
import type { LayoutInput } from "../model/layout.js";
import type { LineEnvelope } from "../model/line-plot.js";
import type { DifferenceMatrix } from "../model/diff.js";
import type { Positioned } from "../model/graph.js";
import type { ErrorModel } from "../model/summary.js";
import type { EditRequest, EditResult } from "../editor/protocol.js";

export type Slot = "a" | "b";

export type OpenInput = { blob: Blob; name: string } | { url: string; name: string };

export type Request =
  | { kind: "open"; slot: Slot; input: OpenInput }
  | { kind: "stats"; slot: Slot; names: string[] }
  | { kind: "detail"; slot: Slot; name: string; bins: number; stats?: TensorStats | undefined }
  | {
      kind: "slice";
      slot: Slot;
      name: string;
      spec: SliceSpec;
      maxRows: number;
      maxCols: number;
      normalize: boolean;
      window?: SliceWindow | undefined;
    }
  | {
      kind: "region";
      slot: Slot;
      name: string;
      spec: SliceSpec;
      row0: number;
      col0: number;
      rows: number;
      cols: number;
    }
  | { kind: "diff"; atol: number; rtol: number }
  | { kind: "pair"; name: string; bins: number }
  | { kind: "layout"; input: LayoutInput }
  | { kind: "line"; slot: Slot; name: string; start: number; end: number; columns: number }
  | { kind: "pairDiff"; name: string; maxRows: number; maxCols: number }
  | EditRequest;

export interface StatsPartial {
  name: string;
  stats?: TensorStats | undefined;
  note?: string | undefined;
}

export interface DetailResult {
  stats: TensorStats;
  histogram: Histogram;
}

/** A zoom window of a slice: rows [row0, row1) and columns [col0, col1) at full resolution. */
export interface SliceWindow {
  row0: number;
  row1: number;
  col0: number;
  col1: number;
}

export interface SliceResult extends Reduced {
  /** Rows and columns of the slice (of its zoom window) before reduction. */
  fullRows: number;
  fullCols: number;
  /** Where the zoom window starts in the slice (0 when not zoomed). */
  rowOffset?: number | undefined;
  colOffset?: number | undefined;
  /** The whole slice's size (zooming is offered when the worker holds the tensor's values). */
  sliceRows?: number | undefined;
  sliceCols?: number | undefined;
}

export interface RegionResult {
  row0: number;
  col0: number;
  rows: number;
  cols: number;
  data: Float64Array;
}

export interface PairResult {
  a: Histogram;
  b: Histogram;
}

/** The value each request kind resolves with. */
export interface Results {
  open: { tensors: number; format: string };
  stats: null;
  detail: DetailResult;
  slice: SliceResult;
  region: RegionResult;
  diff: DiffResult;
  pair: PairResult;
  layout: Positioned;
  line: LineEnvelope;
  pairDiff: DifferenceMatrix;
  edit: EditResult;
}

export type Envelope = Request & { id: number };

export type Reply =
  | { id: number; kind: "progress"; done: number; total: number; label: string }
  | { id: number; kind: "partial"; value: StatsPartial }
  | { id: number; kind: "done"; value: unknown }
  | { id: number; kind: "error"; error: ErrorModel };

/** A reply without its id (Omit distributed over the union). */
export type ReplyBody = Reply extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never;
