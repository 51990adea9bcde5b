/**
 * ONNX precision changes, the weight-only modes: bf16 (bfloat16 storage with a Cast in front) and i8 (int8 per
 * output channel with a float32 scale and a DequantizeLinear in front).
 */
import * as kernels from "../../kernels/index.js";
import { makeTensor } from "./edit.js";
import type { OnnxAttribute, OnnxNode, OnnxTensor } from "./model.js";
import { BFLOAT16, FLOAT, INT8, MIN_WEIGHT_ELEMENTS, type QuantizeReport } from "./quantize-types.js";
import { Analysis, DATA_MOVEMENT, type Source, isDefault } from "./quantize-analysis.js";
import {
  type WeightAccess,
  asBytes,
  castNode,
  convertedTensor,
  elementCount,
  toBfloat16,
  unreadable,
} from "./quantize-tensors.js";

// ---------------------------------------------------------------------------------------------- bf16

/** float32 weights a weight-only mode may change: readable, not a graph input, large enough, not sizes. */
function weightCandidates(a: Analysis, report: QuantizeReport, accept: (s: Source) => string | undefined): Source[] {
  const out: Source[] = [];
  for (const [name, s] of a.sources) {
    const why =
      unreadable(s.tensor) ??
      (elementCount(s.tensor) < MIN_WEIGHT_ELEMENTS ? `fewer than ${MIN_WEIGHT_ELEMENTS} elements` : undefined) ??
      (a.indexLike.has(name) ? "sizes or scales" : undefined) ??
      (a.isMainOutput(name) ? "a graph output" : undefined) ??
      accept(s);
    if (why) report.tensorsKept.push({ name, reason: why });
    else out.push(s);
  }
  return out;
}

/** Puts the weight's stored form under a new name and a node computing the original name from it. */
function storeBehind(
  a: Analysis,
  s: Source,
  stored: OnnxTensor,
  makeNodes: (storedName: string) => OnnxNode[],
): number {
  const storedName = a.freshName(stored.name);
  stored.name = storedName;
  const g = s.ctx.graph;
  if (s.kind === "initializer") {
    g.initializers[g.initializers.indexOf(s.tensor)] = stored;
    const nodes = makeNodes(storedName);
    g.nodes.unshift(...nodes);
    return nodes.length;
  }
  // a Constant: it now gives the stored form, under the new name
  s.attr!.t = stored;
  s.node!.outputs[0] = storedName;
  const nodes = makeNodes(storedName);
  g.nodes.splice(g.nodes.indexOf(s.node!) + 1, 0, ...nodes);
  return nodes.length;
}

export function bf16(a: Analysis, report: QuantizeReport, access: WeightAccess): void {
  for (const s of weightCandidates(a, report, () => undefined)) {
    const read = { name: s.name, tensor: s.tensor, kind: s.kind };
    const stored = convertedTensor(
      access,
      { name: `${s.name}_bf16`, dataType: BFLOAT16, dims: s.tensor.dims, docString: s.tensor.docString },
      elementCount(s.tensor) * 2,
      function* () {
        for (const piece of access.pieces(read)) yield asBytes(toBfloat16(piece, report));
      },
    );
    report.nodesAdded += storeBehind(a, s, stored, (storedName) => [
      castNode(a.freshName(`${s.name}_cast`), storedName, s.name, FLOAT),
    ]);
    report.tensorsConverted++;
  }
}

// ------------------------------------------------------------------------------------------------ i8

/** The output-channel axis of a weight read by `node` at `index`, or undefined when the op is not one i8 changes. */
function channelAxis(node: OnnxNode, index: number, rank: number): number | undefined {
  if (!isDefault(node)) return undefined;
  switch (node.opType) {
    case "MatMul":
      return index === 1 && rank >= 2 ? rank - 1 : undefined;
    case "Gemm":
      return index === 1 && rank === 2 ? (node.attributes.find((x) => x.name === "transB")?.i ? 0 : 1) : undefined;
    case "Conv":
      return index === 1 ? 0 : undefined;
    case "ConvTranspose":
      return index === 1 ? 1 : undefined;
    case "LSTM":
    case "GRU":
    case "RNN":
      return index === 1 || index === 2 ? 1 : undefined;
    default:
      return undefined;
  }
}

/** Where a weight's channels are: `channels` runs of `inner` elements, repeated (axis undefined: one channel). */
interface ChannelLayout {
  channels: number;
  inner: number;
}

function channelLayout(dims: readonly number[], axis: number | undefined): ChannelLayout {
  if (axis === undefined) return { channels: 1, inner: dims.reduce((x, y) => x * y, 1) || 1 };
  return { channels: dims[axis]!, inner: dims.slice(axis + 1).reduce((x, y) => x * y, 1) };
}

/** Adds the largest |w| per channel of a piece of the weight that starts at element `start` to `max`. */
function channelMax(piece: Float32Array, start: number, layout: ChannelLayout, max: Float32Array): void {
  const { channels, inner } = layout;
  for (let i = 0; i < piece.length; i++) {
    const c = channels === 1 ? 0 : Math.floor((start + i) / inner) % channels;
    const v = Math.abs(piece[i]!);
    if (v > max[c]!) max[c] = v;
  }
}

/** Scales from the largest |w| per channel: max / 127 as float32 (1 for an all-zero channel). */
function scalesFrom(max: Float32Array): Float32Array {
  return max.map((m) => Math.fround(m > 0 ? m / 127 : 1));
}

/** Buffers quantizePiece reuses from one piece of a weight to the next. */
interface PieceScratch {
  order: Int32Array;
  grouped: Float32Array;
  groupedQ: Int8Array;
}

function scratchFor(scratch: Partial<PieceScratch>, n: number): PieceScratch {
  if (!scratch.order || scratch.order.length < n) {
    scratch.order = new Int32Array(n);
    scratch.grouped = new Float32Array(n);
    scratch.groupedQ = new Int8Array(n);
  }
  return scratch as PieceScratch;
}

/**
 * The int8 steps of a piece of the weight that starts at element `start`, with the quantizeI8 kernel, channel by
 * channel (the kernel works element by element, so a piece gives the steps the whole weight gives).
 */
function quantizePiece(
  piece: Float32Array,
  start: number,
  layout: ChannelLayout,
  scales: Float32Array,
  reuse: Partial<PieceScratch>,
): Int8Array {
  const q = new Int8Array(piece.length);
  const { channels, inner } = layout;
  if (channels === 1) {
    kernels.quantizeI8(piece, scales[0]!, 0, q);
    return q;
  }
  // the piece's elements grouped by channel (counting sort), quantized group by group, put back
  const channelOf = (i: number) => Math.floor((start + i) / inner) % channels;
  const counts = new Int32Array(channels + 1);
  for (let i = 0; i < piece.length; i++) counts[channelOf(i) + 1]!++;
  for (let c = 0; c < channels; c++) counts[c + 1]! += counts[c]!;
  const { order, grouped, groupedQ } = scratchFor(reuse, piece.length);
  const next = counts.slice(0, channels);
  for (let i = 0; i < piece.length; i++) order[next[channelOf(i)]!++] = i;
  for (let k = 0; k < piece.length; k++) grouped[k] = piece[order[k]!]!;
  for (let c = 0; c < channels; c++) {
    const from = counts[c]!;
    const to = counts[c + 1]!;
    if (to > from) kernels.quantizeI8(grouped.subarray(from, to), scales[c]!, 0, groupedQ.subarray(from, to));
  }
  for (let k = 0; k < piece.length; k++) q[order[k]!] = groupedQ[k]!;
  return q;
}

export function i8(a: Analysis, opset: number, report: QuantizeReport, access: WeightAccess): void {
  // opset 13+: DequantizeLinear with axis; 10-12: DequantizeLinear with one scale per tensor (no axis before
  // 13); below 10 (no DequantizeLinear): Cast to float and Mul by the scales (the same values), per channel
  const castMul = opset < 10;
  const perChannel = opset >= 13 || castMul;
  if (!perChannel)
    report.notes.push(`opset ${opset} < 13: DequantizeLinear has no axis there, so one scale per tensor`);
  if (castMul)
    report.notes.push(
      `opset ${opset} < 10 has no DequantizeLinear: each int8 weight is widened by Cast and Mul by its per-channel scales`,
    );
  const axes = new Map<string, number>();
  // a weight qualifies when every path from it (through ops that only move elements) ends in a weight input
  const weightOnly = (name: string, rank: number, depth: number): { axis?: number; why?: string } => {
    const uses = a.uses.get(name) ?? [];
    if (a.isMainOutput(name)) return { why: "a graph output" };
    let axis: number | undefined;
    for (const { ctx, k } of a.branchOutputs.get(name) ?? []) {
      // an If branch's output: what its If gives
      const outer = ctx.owner?.opType === "If" ? ctx.owner.outputs[k] : undefined;
      if (!outer || depth >= 8) return { why: "a subgraph output" };
      const found = weightOnly(outer, rank, depth + 1);
      if (found.why) return found;
      axis ??= 0;
    }
    if (uses.length === 0 && axis === undefined) return { why: "not used" };
    for (const u of uses) {
      const node = u.ref.node;
      const direct = channelAxis(node, u.index, rank);
      if (direct !== undefined) {
        axis ??= depth === 0 ? direct : 0;
        continue;
      }
      if (
        isDefault(node) &&
        DATA_MOVEMENT.has(node.opType) &&
        (u.index === 0 || node.opType === "Concat") &&
        depth < 8
      ) {
        for (const o of node.outputs) {
          if (o === "") continue;
          const inner = weightOnly(o, rank, depth + 1);
          if (inner.why) return inner;
        }
        axis ??= 0;
        continue;
      }
      return { why: `read by ${node.opType} (input ${u.index}), not a MatMul/Gemm/Conv/LSTM weight` };
    }
    return { axis: axis ?? 0 };
  };
  const candidates = weightCandidates(a, report, (s) => {
    if (s.tensor.dims.length < 2) return "not a matrix (rank < 2)";
    const found = weightOnly(s.name, s.tensor.dims.length, 0);
    if (found.why) return found.why;
    axes.set(s.name, found.axis!);
    return undefined;
  });
  for (const s of candidates) {
    const read = { name: s.name, tensor: s.tensor, kind: s.kind };
    const axis = perChannel ? axes.get(s.name) : undefined;
    const dims = s.tensor.dims;
    // the scales are needed now (a tensor of their own); a deferred int8 tensor reads the weight again when written
    const layout = channelLayout(dims, axis);
    const max = new Float32Array(layout.channels);
    let start = 0;
    for (const piece of access.pieces(read)) {
      channelMax(piece, start, layout, max);
      start += piece.length;
    }
    const scales = scalesFrom(max);
    const stored = convertedTensor(
      access,
      { name: `${s.name}_quantized`, dataType: INT8, dims, docString: s.tensor.docString },
      elementCount(s.tensor),
      function* () {
        let at = 0;
        const reuse: Partial<PieceScratch> = {};
        for (const piece of access.pieces(read)) {
          const q = quantizePiece(piece, at, layout, scales, reuse);
          for (let i = 0; i < piece.length; i++) if (piece[i] !== 0 && q[i] === 0) report.flushed++;
          at += piece.length;
          yield asBytes(q);
        }
      },
    );
    const scaleName = a.freshName(`${s.name}_scale`);
    const rank = s.tensor.dims.length;
    const scaleDims =
      axis === undefined
        ? []
        : castMul
          ? [scales.length, ...new Array<number>(rank - axis - 1).fill(1)]
          : [scales.length];
    const scaleTensor = makeTensor({ name: scaleName, dtype: FLOAT, dims: scaleDims, data: scales });
    report.nodesAdded += storeBehind(a, s, stored, (storedName) => {
      const nodes: OnnxNode[] = [];
      if (s.kind === "initializer") s.ctx.graph.initializers.push(scaleTensor);
      else
        nodes.push({
          name: a.freshName(`${scaleName}_constant`),
          opType: "Constant",
          domain: "",
          inputs: [],
          outputs: [scaleName],
          attributes: [{ name: "value", type: "TENSOR", t: scaleTensor }],
          docString: "",
        });
      if (castMul) {
        const widened = a.freshName(`${s.name}_widened`);
        nodes.push(castNode(a.freshName(`${widened}_cast`), storedName, widened, FLOAT));
        nodes.push({
          name: a.freshName(`${s.name}_scale_mul`),
          opType: "Mul",
          domain: "",
          inputs: [widened, scaleName],
          outputs: [s.name],
          attributes: [],
          docString: "",
        });
        return nodes;
      }
      const attributes: OnnxAttribute[] = axis === undefined ? [] : [{ name: "axis", type: "INT", i: axis }];
      nodes.push({
        name: a.freshName(`${s.name}_dequantize`),
        opType: "DequantizeLinear",
        domain: "",
        inputs: [storedName, scaleName],
        outputs: [s.name],
        attributes,
        docString: "",
      });
      return nodes;
    });
    report.tensorsConverted++;
  }
}
