/**
 * The page's worker (the same script as the page, started from a Blob URL of its own text): opens the file(s)
 * again from the File or URL the page passes (headers only), and does everything that reads tensor data:
 * statistics streamed tensor by tensor, a tensor's histogram, heatmap slices, exact value regions, the diff of
 * two files, and graph layout with dagre. Requests run one at a time in order; the page cancels by terminating
 * the worker and starting a new one.
 */
import {
  type AnyLazyFile,
  type ByteSource,
  type TensorInfo,
  fromBlob,
  fromUrl,
  readFromAny,
} from "../../../bindings/index.js";
import { type TensorStats, diffTensors, mergeStats } from "../compute.js";
import { clampSlice, extractSlice, normalizeColumns, reduce } from "../model/heatmap.js";
import { cachingSource } from "../model/caching-source.js";
import { layoutGraph } from "../model/layout.js";
import { lineEnvelope } from "../model/line-plot.js";
import { differenceMatrix } from "../model/diff.js";
import { streamedRegion, streamedSlice } from "../model/streamed-slice.js";
import { errorModel } from "../model/summary.js";
import { handleEdit } from "../editor/handler.js";
import {
  type TensorSource,
  hasStatistics,
  histogramRange,
  loadValues,
  noStatisticsReason,
  numbersOf,
  rawReadable,
  statsAndHistogram,
  tensorHistogram,
  tensorStats,
} from "../model/tensor-data.js";
import type { Envelope, OpenInput, ReplyBody, Request, SliceWindow, Slot } from "./protocol.js";

/**
 * A tensor larger than this (stored bytes or elements) is not decoded whole for heatmaps: its values would not fit
 * comfortably in a worker. Plainly stored ones are then sliced straight from the file (streamed-slice.ts); the
 * others (format-coded bytes) get no heatmap.
 */
export const HEATMAP_MAX_BYTES = 512 * 1024 * 1024;
export const HEATMAP_MAX_ELEMENTS = 128 * 1024 * 1024;

interface Opened {
  file: AnyLazyFile;
  source: ByteSource;
  from: TensorSource;
}

interface WorkerScope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

const files = new Map<Slot, Opened>();
/** The last tensor decoded for heatmaps (slider moves reuse it). */
let cached: { slot: Slot; name: string; values: Float64Array | Float32Array } | undefined;

/** Files are read lazily; URL sources keep what they read, so a tensor's bytes cross the network once per view. */
function openSource(input: OpenInput): ByteSource {
  return "blob" in input ? fromBlob(input.blob, input.name) : cachingSource(fromUrl(input.url));
}

function opened(slot: Slot): Opened {
  const file = files.get(slot);
  if (!file) throw new Error(`no file is open in slot ${slot}`);
  return file;
}

function info(file: Opened, name: string): TensorInfo {
  const found = file.file.tensorInfos().find((i) => i.name === name);
  if (!found) throw new RangeError(`no tensor named "${name}"`);
  return found;
}

/** True when a tensor is too large to decode whole for heatmaps. */
function overCap(tensorInfo: TensorInfo): boolean {
  const elements = tensorInfo.shape.reduce((a, b) => a * b, 1);
  return tensorInfo.byteLength > HEATMAP_MAX_BYTES || elements > HEATMAP_MAX_ELEMENTS;
}

/** Heatmaps of this tensor are read from the file slice by slice instead of from its decoded values. */
function streamed(slot: Slot, name: string): { file: Opened; info: TensorInfo } | undefined {
  const file = opened(slot);
  const tensorInfo = info(file, name);
  return hasStatistics(tensorInfo.dtype) && overCap(tensorInfo) && rawReadable(tensorInfo)
    ? { file, info: tensorInfo }
    : undefined;
}

async function values(slot: Slot, name: string): Promise<{ values: Float64Array | Float32Array; info: TensorInfo }> {
  const file = opened(slot);
  const tensorInfo = info(file, name);
  if (cached && cached.slot === slot && cached.name === name) return { values: cached.values, info: tensorInfo };
  if (!hasStatistics(tensorInfo.dtype)) throw new RangeError(`${noStatisticsReason(tensorInfo.dtype)}: no heatmap`);
  if (overCap(tensorInfo))
    throw new RangeError(
      `the tensor is over ${HEATMAP_MAX_BYTES / 2 ** 20} MiB or ${HEATMAP_MAX_ELEMENTS / 2 ** 20}M elements and its format codes its bytes: no heatmap (statistics and the histogram work at any size)`,
    );
  cached = undefined;
  const tensor = await loadValues(file.from, tensorInfo);
  const numbers = numbersOf(tensor, tensorInfo);
  cached = { slot, name, values: numbers };
  return { values: numbers, info: tensorInfo };
}

/** A zoom window clamped to the slice (at least one row and column). */
function cropWindow(w: SliceWindow, rows: number, cols: number): SliceWindow {
  const row0 = Math.max(0, Math.min(rows - 1, Math.floor(w.row0)));
  const col0 = Math.max(0, Math.min(cols - 1, Math.floor(w.col0)));
  return {
    row0,
    col0,
    row1: Math.max(row0 + 1, Math.min(rows, Math.ceil(w.row1))),
    col1: Math.max(col0 + 1, Math.min(cols, Math.ceil(w.col1))),
  };
}

function crop(
  matrix: { rows: number; cols: number; data: Float64Array },
  w: SliceWindow,
): { rows: number; cols: number; data: Float64Array } {
  const rows = w.row1 - w.row0;
  const cols = w.col1 - w.col0;
  const data = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++)
    data.set(matrix.data.subarray((w.row0 + r) * matrix.cols + w.col0, (w.row0 + r) * matrix.cols + w.col1), r * cols);
  return { rows, cols, data };
}

async function handle(request: Request, reply: (message: ReplyBody) => void): Promise<unknown> {
  switch (request.kind) {
    case "open": {
      const source = openSource(request.input);
      const file = await readFromAny(source);
      const from: TensorSource = { source, loadTensor: (i, o) => file.loadTensor(i, o) };
      files.set(request.slot, { file, source, from });
      if (cached?.slot === request.slot) cached = undefined;
      return { tensors: file.tensorInfos().length, format: file.format };
    }
    case "stats": {
      const file = opened(request.slot);
      const infos = request.names.map((n) => info(file, n));
      const total = infos.reduce((a, i) => a + i.byteLength, 0);
      let before = 0;
      for (const tensorInfo of infos) {
        reply({ kind: "progress", done: before, total, label: tensorInfo.name });
        if (!hasStatistics(tensorInfo.dtype)) {
          reply({ kind: "partial", value: { name: tensorInfo.name, note: noStatisticsReason(tensorInfo.dtype) } });
        } else {
          try {
            const stats: TensorStats = await tensorStats(file.from, tensorInfo, {
              onProgress: (done) => reply({ kind: "progress", done: before + done, total, label: tensorInfo.name }),
            });
            reply({ kind: "partial", value: { name: tensorInfo.name, stats } });
          } catch (error) {
            reply({ kind: "partial", value: { name: tensorInfo.name, note: errorModel(error).message } });
          }
        }
        before += tensorInfo.byteLength;
      }
      reply({ kind: "progress", done: total, total, label: "" });
      return null;
    }
    case "detail": {
      const file = opened(request.slot);
      const tensorInfo = info(file, request.name);
      if (!hasStatistics(tensorInfo.dtype)) throw new RangeError(noStatisticsReason(tensorInfo.dtype));
      return statsAndHistogram(
        file.from,
        tensorInfo,
        request.bins,
        {
          onProgress: (done) => reply({ kind: "progress", done, total: tensorInfo.byteLength, label: tensorInfo.name }),
        },
        request.stats,
      );
    }
    case "slice": {
      const big = streamed(request.slot, request.name);
      if (big) {
        const spec = clampSlice(big.info.shape, request.spec);
        return streamedSlice(big.file.from, big.info, spec, request.maxRows, request.maxCols, {
          normalize: request.normalize,
          onProgress: (done) => reply({ kind: "progress", done, total: big.info.byteLength, label: big.info.name }),
        });
      }
      const { values: numbers, info: tensorInfo } = await values(request.slot, request.name);
      const spec = clampSlice(tensorInfo.shape, request.spec);
      let matrix = extractSlice(numbers, tensorInfo.shape, spec);
      if (request.normalize) matrix = normalizeColumns(matrix);
      const sliceRows = matrix.rows;
      const sliceCols = matrix.cols;
      const window = request.window ? cropWindow(request.window, sliceRows, sliceCols) : undefined;
      if (window) matrix = crop(matrix, window);
      const reduced = reduce(matrix, request.maxRows, request.maxCols);
      return {
        ...reduced,
        fullRows: matrix.rows,
        fullCols: matrix.cols,
        rowOffset: window?.row0 ?? 0,
        colOffset: window?.col0 ?? 0,
        sliceRows,
        sliceCols,
      };
    }
    case "region": {
      const big = streamed(request.slot, request.name);
      if (big) {
        const spec = clampSlice(big.info.shape, request.spec);
        const data = await streamedRegion(
          big.file.from,
          big.info,
          spec,
          request.row0,
          request.col0,
          request.rows,
          request.cols,
        );
        return { row0: request.row0, col0: request.col0, rows: request.rows, cols: request.cols, data };
      }
      const { values: numbers, info: tensorInfo } = await values(request.slot, request.name);
      const spec = clampSlice(tensorInfo.shape, request.spec);
      const matrix = extractSlice(numbers, tensorInfo.shape, spec);
      const data = new Float64Array(request.rows * request.cols);
      for (let r = 0; r < request.rows; r++) {
        for (let c = 0; c < request.cols; c++)
          data[r * request.cols + c] = matrix.data[(request.row0 + r) * matrix.cols + request.col0 + c] ?? NaN;
      }
      return { row0: request.row0, col0: request.col0, rows: request.rows, cols: request.cols, data };
    }
    case "diff": {
      const a = opened("a");
      const b = opened("b");
      return diffTensors(a.file, b.file, {
        atol: request.atol,
        rtol: request.rtol,
        onProgress: (p) => reply({ kind: "progress", done: p.done, total: p.total, label: p.name }),
      });
    }
    case "pair": {
      const a = opened("a");
      const b = opened("b");
      const infoA = info(a, request.name);
      const infoB = info(b, request.name);
      const statsA = await tensorStats(a.from, infoA);
      const statsB = await tensorStats(b.from, infoB);
      const { lo, hi } = histogramRange(mergeStats(statsA, statsB));
      return {
        a: await tensorHistogram(a.from, infoA, 64, lo, hi),
        b: await tensorHistogram(b.from, infoB, 64, lo, hi),
      };
    }
    case "layout":
      return layoutGraph(request.input);
    case "pairDiff": {
      const a = opened("a");
      const b = opened("b");
      const infoA = info(a, request.name);
      const infoB = info(b, request.name);
      for (const i of [infoA, infoB]) {
        if (!hasStatistics(i.dtype)) throw new RangeError(`${noStatisticsReason(i.dtype)}: no difference heatmap`);
        if (overCap(i)) throw new RangeError("the tensor is too big to hold twice for a difference heatmap");
      }
      const valuesA = numbersOf(await loadValues(a.from, infoA), infoA);
      const valuesB = numbersOf(await loadValues(b.from, infoB), infoB);
      return differenceMatrix(valuesA, valuesB, infoA.shape, request.maxRows, request.maxCols);
    }
    case "line": {
      const { values: numbers } = await values(request.slot, request.name);
      return lineEnvelope(numbers, request.start, request.end, request.columns);
    }
    case "edit":
      return handleEdit(request);
  }
}

/** Starts answering requests (called when the bundle runs inside a worker). */
export function startWorker(scope: WorkerScope): void {
  let queue: Promise<void> = Promise.resolve();
  scope.onmessage = (event: MessageEvent) => {
    const envelope = event.data as Envelope;
    const reply = (message: ReplyBody) => scope.postMessage({ ...message, id: envelope.id });
    queue = queue.then(async () => {
      try {
        const value = await handle(envelope, reply);
        reply({ kind: "done", value });
      } catch (error) {
        reply({ kind: "error", error: errorModel(error) });
      }
    });
  };
}
