/**
 * A simple shape inference of the common ONNX ops, for edge labels where the model declares no type: elementwise
 * ops with broadcasting, MatMul, Gemm, Conv/ConvTranspose/pooling, Reshape with a known shape, Transpose, Concat,
 * Slice, Gather, Unsqueeze/Squeeze, Flatten, Cast, Shape, reductions, Expand, Tile, Pad, Split, Resize, Range,
 * LSTM/GRU/RNN, and the unary ops. Small integer values (constants, `Shape` outputs and what Gather, Slice, Concat,
 * Unsqueeze, Reshape, Transpose and Cast make of them) are followed too, so `Shape → Gather → Concat → Reshape`
 * chains get their shapes.
 *
 * One pass over the nodes in producer order (linear time). It never guesses: a dimension it cannot settle is `null`
 * (`?`), a symbolic dimension keeps its name, and a value whose rank it cannot settle gets no entry at all. Declared
 * types always win: values in `known` are never inferred again.
 */
import type { OnnxGraph, OnnxNode } from "../../../bindings/formats/onnx.js";

/** What ends an inferred edge label (`float32 ⟨1×64⟩*`): the shape was inferred by tensorfile, not declared. */
export const INFERRED_MARK = "*";

/** A dimension: a size, a symbolic name, or null when unknown. */
export type Dim = number | string | null;

/** A value's element type (TensorProto.DataType; undefined when unknown) and shape (undefined: rank unknown). */
export interface ValueShape {
  elemType: number | undefined;
  dims: Dim[] | undefined;
}

const FLOAT = 1;
const INT64 = 7;
const BOOL = 9;

const UNARY = new Set(
  (
    "Abs Neg Exp Log Sqrt Reciprocal Sigmoid Tanh Relu Erf Sin Cos Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh " +
    "Floor Ceil Round Sign Softplus Softsign HardSigmoid HardSwish LeakyRelu Elu Selu Celu Gelu Mish ThresholdedRelu " +
    "Identity Softmax LogSoftmax Hardmax Clip Not BatchNormalization InstanceNormalization LayerNormalization " +
    "LpNormalization MeanVarianceNormalization PRelu Dropout Shrink CumSum Trilu BitwiseNot"
  ).split(" "),
);
const BROADCAST = new Set(
  "Add Sub Mul Div Pow Mod Max Min Sum Mean BitShift BitwiseAnd BitwiseOr BitwiseXor".split(" "),
);
const COMPARE = new Set("Equal Less Greater LessOrEqual GreaterOrEqual And Or Xor".split(" "));
const REDUCE = new Set(
  "ReduceMean ReduceSum ReduceMax ReduceMin ReduceProd ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceSumSquare".split(
    " ",
  ),
);
const POOL = new Set(["MaxPool", "AveragePool", "LpPool"]);
const GLOBAL_POOL = new Set(["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"]);

/** The two dims broadcast together (numpy rules); undefined when they cannot broadcast (the model is wrong there). */
function broadcastDim(a: Dim, b: Dim): Dim | undefined {
  if (a === 1) return b;
  if (b === 1) return a;
  if (typeof a === "number" && typeof b === "number") return a === b ? a : undefined;
  if (typeof a === "number") return a; // b symbolic or unknown: b must be a or 1
  if (typeof b === "number") return b;
  return a !== null && a === b ? a : null;
}

/** Multidirectional broadcasting of shapes; undefined when a rank is unknown or the shapes cannot broadcast. */
export function broadcastShapes(shapes: readonly (Dim[] | undefined)[]): Dim[] | undefined {
  if (shapes.length === 0 || shapes.some((s) => s === undefined)) return undefined;
  const rank = Math.max(...shapes.map((s) => s!.length));
  const out: Dim[] = [];
  for (let k = 0; k < rank; k++) {
    let dim: Dim = 1;
    for (const s of shapes) {
      const j = s!.length - rank + k;
      const merged = broadcastDim(dim, j >= 0 ? s![j]! : 1);
      if (merged === undefined) return undefined;
      dim = merged;
    }
    out.push(dim);
  }
  return out;
}

const isSize = (d: Dim | undefined): d is number => typeof d === "number";

/** The product of dims, or null when one is not a size. */
function product(dims: readonly Dim[]): number | null {
  let p = 1;
  for (const d of dims) {
    if (!isSize(d)) return null;
    p *= d;
  }
  return p;
}

function attribute(node: OnnxNode, name: string) {
  return node.attributes.find((a) => a.name === name);
}
function intAttr(node: OnnxNode, name: string, fallback: number): number {
  const a = attribute(node, name);
  return a?.i !== undefined ? Number(a.i) : fallback;
}
function intsAttr(node: OnnxNode, name: string): number[] | undefined {
  return attribute(node, name)?.ints?.map(Number);
}
function stringAttr(node: OnnxNode, name: string, fallback: string): string {
  return attribute(node, name)?.s ?? fallback;
}

/** An axis made non-negative for `rank`; undefined when out of range. */
function axisOf(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return a >= 0 && a < rank ? a : undefined;
}

/** Pooling and convolution output sizes (auto_pad, pads, strides, dilations, ceil_mode), one per spatial dim. */
function windowDims(node: OnnxNode, spatial: readonly Dim[], kernel: readonly number[], ceilMode: boolean): Dim[] {
  const n = spatial.length;
  const strides = intsAttr(node, "strides") ?? new Array<number>(n).fill(1);
  const dilations = intsAttr(node, "dilations") ?? new Array<number>(n).fill(1);
  const pads = intsAttr(node, "pads") ?? new Array<number>(2 * n).fill(0);
  const autoPad = stringAttr(node, "auto_pad", "NOTSET");
  return spatial.map((d, k) => {
    const s = strides[k] ?? 1;
    const effective = (dilations[k] ?? 1) * ((kernel[k] ?? 1) - 1) + 1;
    if (!isSize(d) || s <= 0) return null;
    if (autoPad === "SAME_UPPER" || autoPad === "SAME_LOWER") return Math.ceil(d / s);
    const padded = autoPad === "VALID" ? d : d + (pads[k] ?? 0) + (pads[k + n] ?? 0);
    let out = (ceilMode ? Math.ceil : Math.floor)((padded - effective) / s) + 1;
    // ceil_mode: a last window that would start in the end padding is dropped
    if (ceilMode && autoPad !== "VALID" && (out - 1) * s >= d + (pads[k] ?? 0)) out--;
    return out > 0 ? out : null;
  });
}

/**
 * Infers the types of the values the graph's nodes produce. `known`: declared types of values visible in the graph
 * (its inputs, outputs, value_info, initializers, and those of enclosing graphs, inferred ones included);
 * `constants`: the elements of small integer constants by value name. Returns the inferred types of values that
 * `known` does not declare with a shape.
 */
export function inferShapes(
  graph: OnnxGraph,
  known: ReadonlyMap<string, ValueShape>,
  constants: ReadonlyMap<string, readonly number[]>,
  floats: ReadonlyMap<string, readonly number[]> = new Map(),
): Map<string, ValueShape> {
  const types = new Map(known);
  const values = new Map<string, Dim[]>();
  for (const [name, v] of constants) values.set(name, [...v]);
  const inferred = new Map<string, ValueShape>();
  const set = (name: string | undefined, type: ValueShape | undefined) => {
    if (!name || !type) return;
    const declared = types.get(name);
    if (declared?.dims !== undefined) return; // declared shapes win
    const merged: ValueShape = { elemType: declared?.elemType ?? type.elemType, dims: type.dims };
    if (merged.dims === undefined && merged.elemType === undefined) return;
    types.set(name, merged);
    if (merged.dims !== undefined) inferred.set(name, merged);
  };
  for (const node of producerOrder(graph)) {
    try {
      inferNode(node, types, values, floats, set);
    } catch {
      // a malformed attribute (a wrong type, a huge list): the node's outputs stay unlabelled
    }
  }
  return inferred;
}

/** The graph's nodes in producer order (Kahn's algorithm over the values they read; a cycle's nodes come last). */
function producerOrder(graph: OnnxGraph): OnnxNode[] {
  const producer = new Map<string, number>();
  graph.nodes.forEach((node, i) => {
    for (const o of node.outputs) if (o !== "" && !producer.has(o)) producer.set(o, i);
  });
  const waiting = graph.nodes.map(() => 0);
  const readers: number[][] = graph.nodes.map(() => []);
  graph.nodes.forEach((node, i) => {
    for (const input of node.inputs) {
      const p = producer.get(input);
      if (p !== undefined && p !== i) {
        waiting[i]!++;
        readers[p]!.push(i);
      }
    }
  });
  const order: number[] = [];
  waiting.forEach((w, i) => {
    if (w === 0) order.push(i);
  });
  for (let k = 0; k < order.length; k++) for (const r of readers[order[k]!]!) if (--waiting[r]! === 0) order.push(r);
  const placed = new Set(order);
  graph.nodes.forEach((_, i) => {
    if (!placed.has(i)) order.push(i);
  });
  return order.map((i) => graph.nodes[i]!);
}

function inferNode(
  node: OnnxNode,
  types: Map<string, ValueShape>,
  values: Map<string, Dim[]>,
  floats: ReadonlyMap<string, readonly number[]>,
  set: (name: string | undefined, type: ValueShape | undefined) => void,
): void {
  if (node.domain !== "" && node.domain !== "ai.onnx") return;
  const input = (k: number): ValueShape | undefined => {
    const name = node.inputs[k];
    return name ? types.get(name) : undefined;
  };
  const dimsOf = (k: number) => input(k)?.dims;
  const value = (k: number): Dim[] | undefined => {
    const name = node.inputs[k];
    return name ? values.get(name) : undefined;
  };
  const intValue = (k: number): number[] | undefined => {
    const v = value(k);
    return v?.every(isSize) ? v : undefined;
  };
  const out = (dims: Dim[] | undefined, elemType = input(0)?.elemType, k = 0) => {
    if (dims !== undefined) set(node.outputs[k], { elemType, dims });
  };
  const setValue = (v: Dim[] | undefined, k = 0) => {
    const name = node.outputs[k];
    if (name && v && v.length <= 64) values.set(name, v);
  };
  const x = dimsOf(0);
  const op = node.opType;

  if (UNARY.has(op)) {
    out(x);
    if (op === "Dropout") out(x, BOOL, 1);
    if (op === "Identity") setValue(value(0));
    return;
  }
  if (op === "IsNaN" || op === "IsInf") return out(x, BOOL);
  if (BROADCAST.has(op) || COMPARE.has(op)) {
    const dims = broadcastShapes(node.inputs.map((_, k) => dimsOf(k)));
    out(dims, COMPARE.has(op) ? BOOL : input(0)?.elemType);
    const a = value(0);
    const b = value(1);
    const small = (dims: Dim[] | undefined) => dims !== undefined && dims.length <= 1;
    if (
      a &&
      b &&
      small(dimsOf(0)) &&
      small(dimsOf(1)) &&
      node.inputs.length === 2 &&
      (a.length === b.length || a.length === 1 || b.length === 1)
    ) {
      const n = Math.max(a.length, b.length);
      const arithmetic: Record<string, (p: number, q: number) => number> = {
        Add: (p, q) => p + q,
        Sub: (p, q) => p - q,
        Mul: (p, q) => p * q,
        Div: (p, q) => (q !== 0 ? Math.trunc(p / q) : NaN),
      };
      const f = arithmetic[op];
      const isInt = input(0)?.elemType === INT64 || input(0)?.elemType === 6;
      if (f && isInt)
        setValue(
          Array.from({ length: n }, (_, k) => {
            const p = a[a.length === 1 ? 0 : k]!;
            const q = b[b.length === 1 ? 0 : k]!;
            const r = isSize(p) && isSize(q) ? f(p, q) : null;
            return r !== null && Number.isFinite(r) ? r : null;
          }),
        );
    }
    return;
  }
  if (op === "Where") return out(broadcastShapes([dimsOf(0), dimsOf(1), dimsOf(2)]), input(1)?.elemType);
  switch (op) {
    case "Cast":
      out(x, intAttr(node, "to", 0) || undefined);
      setValue(value(0));
      return;
    case "CastLike":
      out(x, input(1)?.elemType);
      return;
    case "Shape": {
      if (!x) return;
      const rank = x.length;
      const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + rank : v, 0), rank);
      const start = clamp(intAttr(node, "start", 0));
      const end = clamp(intAttr(node, "end", rank));
      const dims = x.slice(start, Math.max(start, end));
      out([dims.length], INT64);
      setValue(dims);
      return;
    }
    case "Size":
      out([], INT64);
      setValue(x ? [product(x)] : undefined);
      return;
    case "MatMul":
    case "MatMulInteger": {
      const a = x;
      const b = dimsOf(1);
      if (!a || !b || a.length === 0 || b.length === 0) return;
      const a2 = a.length === 1 ? [1, a[0]!] : a;
      const b2 = b.length === 1 ? [b[0]!, 1] : b;
      const batch = broadcastShapes([a2.slice(0, -2), b2.slice(0, -2)]);
      if (!batch) return;
      const dims = [
        ...batch,
        ...(a.length === 1 ? [] : [a2[a2.length - 2]!]),
        ...(b.length === 1 ? [] : [b2[b2.length - 1]!]),
      ];
      out(dims, op === "MatMulInteger" ? 6 : input(0)?.elemType);
      return;
    }
    case "Gemm": {
      const a = x;
      const b = dimsOf(1);
      if (a?.length !== 2 || b?.length !== 2) return;
      const m = intAttr(node, "transA", 0) ? a[1]! : a[0]!;
      const n = intAttr(node, "transB", 0) ? b[0]! : b[1]!;
      out([m, n]);
      return;
    }
    case "Conv":
    case "ConvInteger": {
      const w = dimsOf(1);
      if (!x || !w || x.length < 3 || w.length !== x.length) return;
      const kernel = intsAttr(node, "kernel_shape") ?? w.slice(2).map((d) => (isSize(d) ? d : NaN));
      if (kernel.some((k) => !Number.isFinite(k))) return;
      out([x[0]!, w[0]!, ...windowDims(node, x.slice(2), kernel, false)], op === "ConvInteger" ? 6 : undefined);
      return;
    }
    case "ConvTranspose": {
      const w = dimsOf(1);
      if (!x || !w || x.length < 3 || w.length !== x.length) return;
      const n = x.length - 2;
      const group = intAttr(node, "group", 1);
      const channels = isSize(w[1]) ? w[1] * group : null;
      const outputShape = intsAttr(node, "output_shape");
      if (outputShape) {
        if (outputShape.length !== n) return;
        return out([x[0]!, channels, ...outputShape]);
      }
      const kernel = intsAttr(node, "kernel_shape") ?? w.slice(2).map((d) => (isSize(d) ? d : NaN));
      const strides = intsAttr(node, "strides") ?? new Array<number>(n).fill(1);
      const dilations = intsAttr(node, "dilations") ?? new Array<number>(n).fill(1);
      const pads = intsAttr(node, "pads") ?? new Array<number>(2 * n).fill(0);
      const outputPadding = intsAttr(node, "output_padding") ?? new Array<number>(n).fill(0);
      const autoPad = stringAttr(node, "auto_pad", "NOTSET");
      const spatial = x.slice(2).map((d, k) => {
        const s = strides[k] ?? 1;
        if (!isSize(d) || !Number.isFinite(kernel[k])) return null;
        if (autoPad === "SAME_UPPER" || autoPad === "SAME_LOWER") return d * s;
        const pad = autoPad === "VALID" ? 0 : (pads[k] ?? 0) + (pads[k + n] ?? 0);
        const o = s * (d - 1) + (outputPadding[k] ?? 0) + ((kernel[k]! - 1) * (dilations[k] ?? 1) + 1) - pad;
        return o > 0 ? o : null;
      });
      out([x[0]!, channels, ...spatial]);
      return;
    }
    case "MaxPool":
    case "AveragePool":
    case "LpPool": {
      const kernel = intsAttr(node, "kernel_shape");
      if (!x || !kernel || x.length !== kernel.length + 2 || !POOL.has(op)) return;
      const dims = [x[0]!, x[1]!, ...windowDims(node, x.slice(2), kernel, intAttr(node, "ceil_mode", 0) === 1)];
      out(dims);
      if (op === "MaxPool") out(dims, INT64, 1);
      return;
    }
    case "Reshape": {
      const shape = value(1);
      if (!shape || !x) return;
      const allowZero = intAttr(node, "allowzero", 0) === 1;
      const dims: Dim[] = shape.map((d, k) => (d === 0 && !allowZero ? (x[k] ?? null) : d === -1 ? -1 : d));
      if (dims.some((d) => isSize(d) && d < -1)) return;
      const free = dims.indexOf(-1);
      if (free >= 0) {
        if (dims.indexOf(-1, free + 1) >= 0) return;
        const total = product(x);
        const rest = product(dims.filter((_, k) => k !== free));
        dims[free] = total !== null && rest !== null && rest > 0 && total % rest === 0 ? total / rest : null;
        // a symbolic dim passed through whole: [N, -1] of [N, 4, 8] is [N, 32]
        if (dims[free] === null) dims[free] = reshapeRest(x, dims, free);
      }
      out(dims);
      setValue(value(0)); // row-major elements do not move
      return;
    }
    case "Flatten": {
      if (!x) return;
      const axis = intAttr(node, "axis", 1);
      const a = axis < 0 ? axis + x.length : axis;
      if (a < 0 || a > x.length) return;
      const head = x.slice(0, a);
      const tail = x.slice(a);
      const dim = (part: Dim[]) => (part.length === 1 ? part[0]! : product(part));
      out([dim(head) ?? (head.length === 0 ? 1 : null), dim(tail) ?? (tail.length === 0 ? 1 : null)]);
      setValue(value(0));
      return;
    }
    case "Transpose": {
      if (!x) return;
      const perm = intsAttr(node, "perm") ?? x.map((_, k) => x.length - 1 - k);
      if (perm.length !== x.length || perm.some((p) => !(p >= 0 && p < x.length))) return;
      out(perm.map((p) => x[p]!));
      const data = value(0);
      if (data && x.every(isSize) && (product(x) ?? Infinity) <= 64) {
        const strides = stridesOf(x);
        setValue(
          pick(
            data,
            perm.map((p) => strides[p]!),
            perm.map((p) => Array.from({ length: x[p]! }, (_, i) => i)),
          ),
        );
      }
      return;
    }
    case "Concat": {
      const shapes = node.inputs.map((_, k) => dimsOf(k));
      if (shapes.length === 0 || shapes.some((s) => s === undefined)) return;
      const rank = shapes[0]!.length;
      const axis = axisOf(intAttr(node, "axis", 0), rank);
      if (axis === undefined || shapes.some((s) => s!.length !== rank)) return;
      const dims = shapes[0]!.map((_, k) => {
        if (k === axis) {
          const sizes = shapes.map((s) => s![k]!);
          return sizes.every(isSize) ? sizes.reduce((p, q) => p + q, 0) : null;
        }
        return shapes.map((s) => s![k]!).find(isSize) ?? sameName(shapes.map((s) => s![k]!));
      });
      out(dims);
      if (rank === 1) {
        const parts = node.inputs.map((_, k) => value(k));
        if (parts.every((p) => p !== undefined)) setValue(parts.flat());
      }
      return;
    }
    case "Unsqueeze": {
      const axes = intsAttr(node, "axes") ?? intValue(1);
      if (!x || !axes) return;
      const rank = x.length + axes.length;
      const at = axes.map((a) => axisOf(a, rank));
      if (at.some((a) => a === undefined) || new Set(at).size !== at.length) return;
      const dims: Dim[] = [];
      let k = 0;
      for (let i = 0; i < rank; i++) dims.push(at.includes(i) ? 1 : x[k++]!);
      out(dims);
      setValue(value(0));
      return;
    }
    case "Squeeze": {
      if (!x) return;
      const axes = intsAttr(node, "axes") ?? (node.inputs[1] ? intValue(1) : undefined);
      if (axes === undefined && node.inputs[1]) return;
      if (axes === undefined) {
        if (x.some((d) => !isSize(d))) return; // a symbolic dim might be 1
        out(x.filter((d) => d !== 1));
      } else {
        const at = axes.map((a) => axisOf(a, x.length));
        if (at.some((a) => a === undefined)) return;
        out(x.filter((_, i) => !at.includes(i)));
      }
      setValue(value(0));
      return;
    }
    case "Gather": {
      const indices = dimsOf(1);
      if (!x || !indices) return;
      const axis = axisOf(intAttr(node, "axis", 0), x.length);
      if (axis === undefined) return;
      out([...x.slice(0, axis), ...indices, ...x.slice(axis + 1)]);
      const data = value(0);
      const picks = intValue(1);
      if (data && picks && x.length === 1 && axis === 0)
        setValue(picks.map((p) => data[p < 0 ? p + data.length : p] ?? null));
      return;
    }
    case "Slice": {
      if (!x) return;
      const fromAttrs = attribute(node, "starts") !== undefined;
      const starts = fromAttrs ? intsAttr(node, "starts") : intValue(1);
      const ends = fromAttrs ? intsAttr(node, "ends") : intValue(2);
      const axes =
        (fromAttrs ? intsAttr(node, "axes") : node.inputs[3] ? intValue(3) : undefined) ?? starts?.map((_, k) => k);
      const steps = (fromAttrs ? undefined : node.inputs[4] ? intValue(4) : undefined) ?? starts?.map(() => 1);
      if (!fromAttrs && ((node.inputs[3] && !intValue(3)) || (node.inputs[4] && !intValue(4)))) return;
      if (!starts || !ends || !axes || !steps || ends.length !== starts.length || axes.length !== starts.length) return;
      const dims = [...x];
      const ranges: ({ first: number; step: number; length: number } | undefined)[] = x.map((d) =>
        isSize(d) ? { first: 0, step: 1, length: d } : undefined,
      );
      for (let k = 0; k < axes.length; k++) {
        const axis = axisOf(axes[k]!, x.length);
        if (axis === undefined) return;
        const d = x[axis]!;
        const step = steps[k]!;
        if (step === 0) return;
        if (!isSize(d)) {
          // the whole axis (start 0, end past any size, step 1) keeps a symbolic dim
          dims[axis] = starts[k] === 0 && ends[k]! >= 2 ** 31 - 1 && step === 1 ? d : null;
          continue;
        }
        const range = sliceRange(starts[k]!, ends[k]!, step, d);
        ranges[axis] = range;
        dims[axis] = range.length;
      }
      const data = value(0);
      const small = data !== undefined && x.every(isSize) && (product(x) ?? Infinity) <= 64;
      const sliced =
        small && ranges.every((r) => r !== undefined) ? pick(data, stridesOf(x), ranges.map(indicesOf)) : undefined;
      out(dims);
      setValue(sliced);
      return;
    }
    case "Expand": {
      const shape = value(1);
      if (!x || !shape) return;
      out(broadcastShapes([x, shape.map((d) => (isSize(d) && d < 0 ? null : d))]));
      return;
    }
    case "Tile": {
      const repeats = value(1);
      if (!x || !repeats || repeats.length !== x.length) return;
      out(x.map((d, k) => (isSize(d) && isSize(repeats[k]) ? d * repeats[k] : repeats[k] === 1 ? d : null)));
      return;
    }
    case "Pad": {
      const pads = intsAttr(node, "pads") ?? intValue(1);
      if (!x || !pads) return;
      const axesGiven = node.inputs[3] ? intValue(3) : undefined;
      if (node.inputs[3] && !axesGiven) return;
      const axes = (axesGiven ?? x.map((_, k) => k)).map((a) => axisOf(a, x.length));
      if (axes.some((a) => a === undefined) || pads.length !== 2 * axes.length) return;
      const dims = [...x];
      axes.forEach((a, k) => {
        const d = dims[a!]!;
        dims[a!] = isSize(d)
          ? d + pads[k]! + pads[k + axes.length]!
          : pads[k] === 0 && pads[k + axes.length] === 0
            ? d
            : null;
      });
      out(dims);
      return;
    }
    case "Range": {
      const [start, limit, delta] = [intValue(0), intValue(1), intValue(2)];
      if (!start || !limit || !delta || start.length !== 1 || limit.length !== 1 || delta.length !== 1) return;
      if (delta[0] === 0) return;
      const n = Math.max(Math.ceil((limit[0]! - start[0]!) / delta[0]!), 0);
      out([n]);
      if (n <= 64) setValue(Array.from({ length: n }, (_, i) => start[0]! + i * delta[0]!));
      return;
    }
    case "Resize":
    case "Upsample": {
      if (!x || attribute(node, "axes") !== undefined) return;
      if (stringAttr(node, "coordinate_transformation_mode", "") === "tf_crop_and_resize") return;
      const sizes = op === "Resize" && node.inputs[3] ? intValue(3) : undefined;
      if (sizes) {
        const policy = stringAttr(node, "keep_aspect_ratio_policy", "stretch");
        if (sizes.length === x.length && policy === "stretch") out(sizes);
        return;
      }
      const scalesName = op === "Resize" && node.inputs.length > 2 ? node.inputs[2] : node.inputs[1];
      const scales = (scalesName ? floats.get(scalesName) : undefined) ?? attribute(node, "scales")?.floats;
      if (!scales || scales.length !== x.length) return;
      // as onnxruntime computes it: float32 scale times the size, truncated
      out(
        x.map((d, k) => {
          const scale = Math.fround(scales[k]!);
          if (isSize(d)) return Math.trunc(Math.fround(scale * Math.fround(d)));
          return scale === 1 ? d : null;
        }),
      );
      return;
    }
    case "ConstantOfShape": {
      const shape = value(0);
      const t = attribute(node, "value")?.t;
      if (shape) out(shape, t?.dataType ?? FLOAT);
      return;
    }
    case "ArgMax":
    case "ArgMin":
      return out(reduceDims(x, [intAttr(node, "axis", 0)], intAttr(node, "keepdims", 1) === 1, false), INT64);
    case "Split": {
      if (!x) return;
      const axis = axisOf(intAttr(node, "axis", 0), x.length);
      if (axis === undefined) return;
      const sizes = intsAttr(node, "split") ?? (node.inputs[1] ? intValue(1) : undefined);
      if (node.inputs[1] && !sizes) return;
      const d = x[axis]!;
      const n = node.outputs.length;
      node.outputs.forEach((_, k) => {
        let size: Dim;
        if (sizes) size = sizes[k] ?? null;
        else if (isSize(d) && d % n === 0) size = d / n;
        else return;
        out(
          x.map((v, i) => (i === axis ? size : v)),
          undefined,
          k,
        );
      });
      return;
    }
    case "LSTM":
    case "GRU":
    case "RNN": {
      if (!x || x.length !== 3) return;
      const hidden = intAttr(node, "hidden_size", 0) || null;
      const directions = stringAttr(node, "direction", "forward") === "bidirectional" ? 2 : 1;
      const batchFirst = intAttr(node, "layout", 0) === 1;
      const [seq, batch] = batchFirst ? [x[1]!, x[0]!] : [x[0]!, x[1]!];
      out(batchFirst ? [batch, seq, directions, hidden] : [seq, directions, batch, hidden]);
      const state = batchFirst ? [batch, directions, hidden] : [directions, batch, hidden];
      out(state, undefined, 1);
      if (op === "LSTM") out(state, undefined, 2);
      return;
    }
    default:
      if (GLOBAL_POOL.has(op)) {
        if (x && x.length >= 3) out([x[0]!, x[1]!, ...x.slice(2).map(() => 1)]);
        return;
      }
      if (REDUCE.has(op)) {
        const fromAttr = intsAttr(node, "axes");
        const axes = fromAttr ?? (node.inputs[1] ? intValue(1) : undefined);
        if (!fromAttr && node.inputs[1] && !axes) return;
        const noop = intAttr(node, "noop_with_empty_axes", 0) === 1;
        out(reduceDims(x, axes ?? [], intAttr(node, "keepdims", 1) === 1, noop));
      }
  }
}

/**
 * Elements of a small value picked along each axis: output axis k walks `ranges[k]` (indices into the input) with
 * the input stride `strides[k]` (row-major; Slice keeps the axes, Transpose permutes them).
 */
function pick(data: readonly Dim[], strides: readonly number[], ranges: readonly number[][]): Dim[] | undefined {
  if (ranges.reduce((p, r) => p * r.length, 1) > 64) return undefined;
  const out: Dim[] = [];
  const walk = (axis: number, offset: number) => {
    if (axis === ranges.length) {
      out.push(data[offset] ?? null);
      return;
    }
    for (const i of ranges[axis]!) walk(axis + 1, offset + i * strides[axis]!);
  };
  walk(0, 0);
  return out;
}

/** Row-major strides of sizes. */
function stridesOf(dims: readonly number[]): number[] {
  const strides = dims.map(() => 1);
  for (let k = dims.length - 2; k >= 0; k--) strides[k] = strides[k + 1]! * dims[k + 1]!;
  return strides;
}

/** What a Slice keeps of a dim of size `d` (ONNX clamping rules): the first index, the step and the count. */
function sliceRange(
  start: number,
  end: number,
  step: number,
  d: number,
): { first: number; step: number; length: number } {
  const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
  let s = start < 0 ? start + d : start;
  let e = end < 0 ? end + d : end;
  if (step > 0) {
    s = clamp(s, 0, d);
    e = clamp(e, 0, d);
  } else {
    s = clamp(s, -1, d - 1);
    e = clamp(e, -1, d - 1);
  }
  const length = step > 0 ? Math.ceil((e - s) / step) : Math.ceil((s - e) / -step);
  return { first: s, step, length: Math.max(0, length) };
}

/** The indices of a slice range (only for small values). */
function indicesOf(range: { first: number; step: number; length: number }): number[] {
  return Array.from({ length: range.length }, (_, i) => range.first + i * range.step);
}

/** A reduction's output dims; empty axes reduce every axis (unless noop_with_empty_axes). */
function reduceDims(
  x: Dim[] | undefined,
  axes: readonly number[],
  keepDims: boolean,
  noop: boolean,
): Dim[] | undefined {
  if (!x) return undefined;
  if (axes.length === 0 && noop) return x;
  const at = axes.length === 0 ? x.map((_, k) => k) : axes.map((a) => axisOf(a, x.length));
  if (at.some((a) => a === undefined)) return undefined;
  return keepDims ? x.map((d, k) => (at.includes(k) ? 1 : d)) : x.filter((_, k) => !at.includes(k));
}

/** One symbolic name shared by every entry, else unknown. */
function sameName(dims: readonly Dim[]): Dim {
  const first = dims[0] ?? null;
  return typeof first === "string" && dims.every((d) => d === first) ? first : null;
}

/**
 * Reshape's -1 when sizes alone cannot settle it: equal dims of the input and of the output's other dims cancel
 * (a symbolic one by name); then the input's sizes left over divided by the output's (`[N, 4, 6]` to `[N, -1, 3]`:
 * 8), or the one input dim left over when the output has nothing left (`[N, 76, 32]` to `[-1, 1, 76, 32]`: N).
 */
function reshapeRest(x: readonly Dim[], dims: readonly Dim[], free: number): Dim {
  const rest = [...x];
  const others: Dim[] = [];
  for (let k = 0; k < dims.length; k++) {
    if (k === free) continue;
    const d = dims[k]!;
    if (d === null) return null;
    const at = rest.indexOf(d); // equal factors cancel from both products, sizes and names alike
    if (at >= 0) rest.splice(at, 1);
    else others.push(d);
  }
  const left = rest.filter((d) => d !== 1);
  const right = others.filter((d) => d !== 1);
  if (right.length === 0 && left.length === 1) return left[0]!;
  const total = product(left);
  const part = product(right);
  return total !== null && part !== null && part > 0 && total % part === 0 ? total / part : null;
}
