/**
 * TenniS op -> standard ONNX nodes, one translation per op. The semantics follow TenniS's CPU kernels
 * (TenniS-Open/TenniS src/backend/base, src/backend/zoo, src/kernels/cpu), restated here:
 *
 *  pooling2d / pooling2d_v2   output = ceil((H + pt + pb - k) / s) + 1 (ceil mode); windows start at o*s - pt and
 *                             are clipped to the image; MAX takes the max of what is inside; AVG with padding_type
 *                             BLACK (0) divides by the number of pixels inside, WHITE (3) by kh*kw. Written as an
 *                             explicit Pad (-inf; bottom/right padding + s - 1 for the ceil) and an unpadded MaxPool;
 *                             AVG = window sums (a ones-kernel Conv, zero padding) / kh*kw (WHITE) or / the same
 *                             sums over a map of ones (BLACK), so no count_include_pad subtlety (ORT's AveragePool
 *                             refuses pads >= kernel, which TenniS allows). The ones kernel is a ConstantOfShape, so
 *                             the model does not grow with the kernel size.
 *  _onnx_pooling2d_padding    (auto_pad NOTSET or VALID) feeding pooling2d_v2: the dynamic bottom/right padding it
 *                             computes turns the ceil formula into floor((H + pt + pb - k) / s) + 1 with the same
 *                             window starts, so pooling2d_v2 pools in floor mode with the static padding.
 *  conv2d                     ONNX Conv (floor output size, zero padding), NCHW or NHWC (transposed around).
 *  add_bias / prelu /         per-channel vectors along `dim` (add_bias: `dim`, else the C of `format`), reshaped
 *  batch_scale / batch_norm   to [C, 1, ...]; batch_norm = (x - mean) / sqrt(var + epsilon).
 *  inner_prod                 lhs reshaped to [size0, -1]; lhs @ rhs, or lhs @ rhs^T with transpose.
 *  flatten(dim)               keeps dims before `dim` and multiplies the rest: [d0..d(dim-1), prod] (not ONNX's
 *                             Flatten, which makes 2-D); pads with 1s when the rank is smaller.
 *  _reshape                   0 keeps the input dim, -1 is inferred: ONNX Reshape as is.
 *  _limit(shape)              dims (right-aligned) larger than a positive limit are centre-cropped to it:
 *                             top = trunc((limit - x) / 2), bottom the rest.
 *  crop_nd(x, size)           pads/crops every dim with size > 0 to size, top = trunc((size - x) / 2) (or -shift).
 *  _resize2d(x, size)         size -1 keeps a dim; LINEAR = half-pixel bilinear clamped at the borders, integer
 *                             inputs truncated back; NEAREST = half-pixel, round half up; HARD = floor(x * in/out).
 *  sample2d(scale, type)      affine resampling by 1/scale with outer value 0: source index floor (HARD) or round
 *                             (NEAREST) of x/scale, and any source index >= size - 1 gives 0 (TenniS's own border).
 *  shape_index_patch          for each landmark (x, y in 0..1), the patch of int(origin_patch * H / origin + 0.5)
 *                             pixels starting at int(y*(H-1) - (ph-1)/2 + 0.5), zero outside: [N, C, ph, L, pw].
 *  yolo                       sigmoid of x, y, objectness and class scores (w, h untouched).
 *  yolo_poster                darknet boxes (col + x)/W, (row + y)/H, exp(w)*anchor/netW, exp(h)*anchor/netH, kept
 *                             when objectness > thresh, prob = obj * class (0 when <= thresh), clamped to [0, 1],
 *                             per-class greedy NMS (IoU > nms suppresses), rows [left, top, w, h, score, label] in
 *                             detection order then class order. Batch item 0 (the network input must declare batch 1).
 *  add (3 or more inputs)     TenniS refuses it at run time (ElementWiseReduce takes two); ONNX allows an n-ary
 *                             Sum with broadcasting, which is what the graph says, so that is what is written.
 */
import type { DType } from "../../tensor.js";
import { tsmDTypeCode, tsmDTypeName } from "../../formats/tsm/dtypes.js";
import type { OnnxAttributeValue } from "../../formats/onnx/builder.js";
import {
  type OnnxContext,
  type Translation,
  type Value,
  Unconvertible,
  constNumbers,
  numbers,
  onnxDType,
} from "./onnx-context.js";
import type { TsmGraphNode } from "../../formats/tsm/graph.js";

type Read = (v: Value) => string;

function attr(node: TsmGraphNode, key: string): unknown {
  return node.attrs[key];
}

function intAttr(node: TsmGraphNode, key: string, fallback?: number): number {
  const v = attr(node, key);
  if (v === undefined) {
    if (fallback === undefined) throw new Unconvertible(`missing attribute ${key}`);
    return fallback;
  }
  const list = integers(numbers(v, key), key);
  if (list.length !== 1) throw new Unconvertible(`${key} is not a scalar`);
  return list[0]!;
}

/** Integer settings as TenniS reads them (tensor::cast to INT32 truncates); non-finite or huge values are refused. */
function integers(list: number[], key: string): number[] {
  return list.map((v) => {
    if (!Number.isFinite(v) || Math.abs(v) > 2 ** 31) throw new Unconvertible(`${key} has a value out of range (${v})`);
    return Math.trunc(v);
  });
}

function intsAttr(node: TsmGraphNode, key: string, length?: number, fallback?: number[]): number[] {
  const v = attr(node, key);
  if (v === undefined) {
    if (!fallback) throw new Unconvertible(`missing attribute ${key}`);
    return fallback;
  }
  const list = integers(numbers(v, key), key);
  if (length !== undefined && list.length !== length)
    throw new Unconvertible(`${key} has ${list.length} values, not ${length}`);
  return list;
}

function stringAttr(node: TsmGraphNode, key: string, fallback?: string): string {
  const v = attr(node, key);
  if (v === undefined) {
    if (fallback === undefined) throw new Unconvertible(`missing attribute ${key}`);
    return fallback;
  }
  if (typeof v !== "string") throw new Unconvertible(`${key} is not a string`);
  return v;
}

function boolAttr(node: TsmGraphNode, key: string, fallback: boolean): boolean {
  const v = attr(node, key);
  if (v === undefined) return fallback;
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v === "1" || v.toLowerCase() === "true";
  return numbers(v, key)[0] !== 0;
}

function formatAttr(node: TsmGraphNode): "NCHW" | "NHWC" {
  const format = stringAttr(node, "format");
  if (format !== "NCHW" && format !== "NHWC") throw new Unconvertible(`format ${format} is neither NCHW nor NHWC`);
  return format;
}

/** Ranks beyond this are refused (no real model has them; the translations build per-axis lists). */
const MAX_RANK = 64;
/** Pooling kernels beyond this many taps are refused (the average pooling's ones kernel is that big at run time). */
const MAX_KERNEL_TAPS = 1 << 20;

function needRank(v: Value, what: string): number {
  if (v.rank === undefined)
    throw new Unconvertible(`${what}: the rank of "${v.node.name}" is unknown (declare the input's shape)`);
  if (v.rank > MAX_RANK) throw new Unconvertible(`${what}: rank ${v.rank} (at most ${MAX_RANK})`);
  return v.rank;
}

function needFloat(v: Value, what: string): void {
  if (v.dtype !== "float32" && v.dtype !== "float64" && v.dtype !== "float16")
    throw new Unconvertible(`${what} needs a float input, "${v.node.name}" is ${v.dtype}`);
}

/**
 * The element types onnxruntime (CPU and web) has kernels for, per ONNX op as written here (checked by loading
 * one-node models): a converted model must load, so a TenniS value of another dtype is refused, not written.
 */
const FLOATS: readonly DType[] = ["float32", "float16", "float64"];
const ORT_TYPES = {
  Sum: FLOATS,
  Relu: [...FLOATS, "int8", "int32"],
  Sigmoid: FLOATS,
  Softmax: FLOATS,
  PRelu: [...FLOATS, "int32", "int64"],
  Conv: ["float32", "float16"],
  Gemm: FLOATS,
  Resize: ["float32", "float16", "int8", "uint8", "int32"],
  Pad: [...FLOATS, "int8", "uint8", "int32", "uint32", "int64", "uint64", "bool"],
  Arithmetic: [...FLOATS, "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"],
} satisfies Record<string, readonly DType[]>;

function needOrtType(v: Value, op: keyof typeof ORT_TYPES, what: string): void {
  if (!(ORT_TYPES[op] as readonly DType[]).includes(v.dtype))
    throw new Unconvertible(`${what} of ${v.dtype} ("${v.node.name}"): onnxruntime has no ${op} for it`);
}

/** Inputs of different dtypes are refused: TenniS checks they agree (e.g. add_bias: x.dtype() == b.dtype()), ONNX needs one. */
function sameDType(inputs: readonly Value[], what: string): void {
  const first = inputs[0];
  for (const v of inputs) {
    if (first && v.dtype !== first.dtype)
      throw new Unconvertible(
        `${what} of ${first.dtype} "${first.node.name}" and ${v.dtype} "${v.node.name}" (they must agree, in TenniS as in ONNX)`,
      );
  }
}

/**
 * TenniS's element-wise add/sub/mul of two dtypes computes in the dtype its upcast table gives
 * (base/element_wise_reduce.cpp upcast_dtype, indexed by TenniS dtype codes; 0: it refuses the pair).
 */
const UPCAST: readonly string[] = [
  "0000000000000000000000",
  "0113355779ab0135000001",
  "0123356779ab0135000002",
  "0333355779ab0335000003",
  "0333456789ab0335000004",
  "055555577aab0555000005",
  "056565678aab0555000006",
  "077777777bbb0777000007",
  "077787878bbb0777000008",
  "09999aabb9ab099a000009",
  "0aaaaaabbaab0aab00000a",
  "0bbbbbbbbbbb0bbb00000b",
  "0000000000000000000000",
  "0113355779ab0def00000d",
  "0333355779ab0eef00000e",
  "055555577abb0fff00000f",
  "0123456789ab0def00000l",
  "0000000000000000000000",
  "0000000000000000000000",
  "0000000000000000000000",
  "0000000000000000000000",
  "0123456789ab0def00000l",
];

function upcast(a: DType, b: DType): DType | undefined {
  if (a === b) return a;
  const [ca, cb] = [tsmDTypeCode(a), tsmDTypeCode(b)];
  // (uncorr_cast_dtype: VOID, PTR and the codes past CHAR32 but BOOLEAN are never cast)
  const castable = (code: number | undefined): code is number =>
    code !== undefined && code !== 0 && code !== 12 && (code <= 15 || code === 21);
  if (!castable(ca) || !castable(cb)) return undefined;
  const code = parseInt(UPCAST[ca]![cb]!, 36);
  return code === 0 ? undefined : tsmDTypeName(code);
}

function inputCount(inputs: Value[], n: number, op: string): void {
  if (inputs.length !== n) throw new Unconvertible(`${op} takes ${n} inputs, this node has ${inputs.length}`);
}

/** A scalar of `dtype` with value `v`. */
function scalarOf(ctx: OnnxContext, dtype: DType, v: number): string {
  const onnx = onnxDType(dtype);
  if (onnx === "float32") return ctx.float([v], true);
  if (onnx === "float64") return ctx.tensor("float64", [], new Float64Array([v]));
  if (onnx === "int64") return ctx.int64([v], true);
  if (onnx === "int32") return ctx.tensor("int32", [], new Int32Array([v]));
  if (onnx === "uint8") return ctx.tensor("uint8", [], new Uint8Array([v]));
  throw new Unconvertible(`no ${dtype} constant`);
}

/** A per-channel vector (shape [C]) reshaped to broadcast along `dim` of a rank-`rank` tensor. */
function channelVector(ctx: OnnxContext, vector: string, dim: number, rank: number): string {
  if (dim < 0 || dim >= rank) throw new Unconvertible(`dim ${dim} is outside a rank-${rank} input`);
  const trailing = rank - 1 - dim;
  if (trailing === 0) return ctx.add("Reshape", [vector, ctx.int64([-1])]);
  return ctx.add("Reshape", [vector, ctx.int64([-1, ...Array<number>(trailing).fill(1)])]);
}

/** Shape(x)[axis] as an int64 scalar. */
function dimOf(ctx: OnnxContext, x: string, axis: number): string {
  return ctx.add("Gather", [ctx.add("Shape", [x]), ctx.int64([axis], true)], { axis: 0 });
}

const TO_NCHW = [0, 3, 1, 2];
const TO_NHWC = [0, 2, 3, 1];

/** Emits `op` in NCHW: for an NHWC node, transposes in and out; the last node is the TenniS node's. */
function inNCHW(
  ctx: OnnxContext,
  format: "NCHW" | "NHWC",
  x: string,
  body: (nchw: string, last: (op: string, inputs: string[], attrs?: Record<string, unknown>) => string) => string,
): string {
  if (format === "NCHW") return body(x, (op, inputs, attrs) => ctx.final(op, inputs, attrs as never));
  const nchw = ctx.add("Transpose", [x], { perm: TO_NCHW });
  return body(nchw, (op, inputs, attrs) =>
    ctx.final("Transpose", [ctx.add(op, inputs, attrs as never)], { perm: TO_NHWC }),
  );
}

// ---------------------------------------------------------------------------------------------------------
// pooling

interface PoolSpec {
  type: number;
  paddingType: number;
  /** [top, bottom, left, right] */
  padding: number[];
  kernel: number[];
  stride: number[];
  ceil: boolean;
}

function spatial(format: "NCHW" | "NHWC"): [number, number] {
  return format === "NCHW" ? [2, 3] : [1, 2];
}

/** A 2-D op's input must be 4-D (ONNX's Conv and pools take the spatial rank from it). */
function need4D(x: Value, what: string): void {
  if (x.rank !== undefined && x.rank !== 4)
    throw new Unconvertible(`${what} needs a 4-D input, "${x.node.name}" has rank ${x.rank}`);
}

function pool(ctx: OnnxContext, x: Value, read: Read, format: "NCHW" | "NHWC", spec: PoolSpec): void {
  needFloat(x, "pooling");
  need4D(x, "pooling");
  const [pt, pb, pl, pr] = spec.padding as [number, number, number, number];
  const [kh, kw] = spec.kernel as [number, number];
  const [sh, sw] = spec.stride as [number, number];
  if ([pt, pb, pl, pr].some((p) => p < 0)) throw new Unconvertible("negative pooling padding");
  if (kh < 1 || kw < 1 || sh < 1 || sw < 1) throw new Unconvertible("kernel and stride must be positive");
  if (kh * kw > MAX_KERNEL_TAPS) throw new Unconvertible(`a ${kh} x ${kw} kernel (at most ${MAX_KERNEL_TAPS} taps)`);
  if (spec.type !== 0 && spec.type !== 1) throw new Unconvertible(`pooling type ${spec.type} (only MAX 0 and AVG 1)`);
  if (spec.paddingType !== 0 && spec.paddingType !== 3)
    throw new Unconvertible(`padding_type ${spec.paddingType} (only BLACK 0 and WHITE 3, as TenniS's CPU kernel)`);
  const bottom = spec.ceil ? pb + sh - 1 : pb;
  const right = spec.ceil ? pr + sw - 1 : pr;
  const padded = pt + bottom + pl + right > 0;
  const poolAttrs = { kernel_shape: [kh, kw], strides: [sh, sw] };
  inNCHW(ctx, format, read(x), (src, last) => {
    if (spec.type === 0) {
      const input = padded
        ? ctx.add("Pad", [src, ctx.int64([0, 0, pt, pl, 0, 0, bottom, right]), scalarOf(ctx, x.dtype, -Infinity)], {
            mode: "constant",
          })
        : src;
      return last("MaxPool", [input], poolAttrs);
    }
    if (!padded) return last("AveragePool", [src], poolAttrs);
    // Window sums as a convolution with a ones kernel over [N*C, 1, H, W]: Conv takes any zero padding (ORT's pools
    // refuse pads >= kernel, and it fuses a zero Pad into the pool that follows).
    // The ones kernel is made at run time from its shape: a stored [kh, kw] kernel would make the ONNX (and the
    // memory of every onnxSupport() check, so of `inspect`) grow with the kernel size a few attribute bytes name.
    // One per dtype and kernel shape, shared by the nodes that pool alike.
    const ones = ctx.shared(`ones ${x.dtype} ${kh}x${kw}`, () =>
      ctx.add("ConstantOfShape", [ctx.int64([1, 1, kh, kw])], { value: onesValue(x.dtype) }),
    );
    const convAttrs = { kernel_shape: [kh, kw], strides: [sh, sw], pads: [pt, pl, bottom, right] };
    const planes = ctx.add("Reshape", [src, ctx.int64([-1, 1, 0, 0])]);
    const sums = ctx.add("Conv", [planes, ones], convAttrs);
    const shape = ctx.add(
      "Concat",
      [
        ctx.add("Slice", [ctx.add("Shape", [src]), ctx.int64([0]), ctx.int64([2])]),
        ctx.add("Slice", [ctx.add("Shape", [sums]), ctx.int64([2]), ctx.int64([4])]),
      ],
      { axis: 0 },
    );
    const sum = ctx.add("Reshape", [sums, shape]);
    if (spec.paddingType === 3) return last("Div", [sum, scalarOf(ctx, x.dtype, kh * kw)]);
    // BLACK: divide by the pixels inside the image, the same convolution over a map of ones
    const hw = ctx.add("Slice", [ctx.add("Shape", [src]), ctx.int64([2]), ctx.int64([4])]);
    const onesShape = ctx.add("Concat", [ctx.int64([1, 1]), hw], { axis: 0 });
    const map = ctx.add("ConstantOfShape", [onesShape], { value: onesValue(x.dtype) });
    const count = ctx.add("Conv", [map, ones], convAttrs);
    const safe = ctx.add("Max", [count, scalarOf(ctx, x.dtype, 0.5)]);
    return last("Div", [sum, safe]);
  });
}

/** ConstantOfShape's `value` attribute for a tensor of ones of `dtype`. */
function onesValue(dtype: DType): OnnxAttributeValue {
  const one = dtype === "float64" ? new Float64Array([1]) : dtype === "float32" ? new Float32Array([1]) : undefined;
  if (!one) throw new Unconvertible(`average pooling of ${dtype}`);
  return { type: "tensor", value: { dtype: onnxDType(dtype), dims: [1], data: one } };
}

function poolFromAttrs(
  node: TsmGraphNode,
  format: "NCHW" | "NHWC",
  padding8: number[],
  ksize4: number[],
  stride4: number[],
  ceil: boolean,
): PoolSpec {
  const [h, w] = spatial(format);
  return {
    type: intAttr(node, "type", node.op === "pooling2d" ? undefined : 0),
    paddingType: intAttr(node, "padding_type", 0),
    padding: [padding8[2 * h]!, padding8[2 * h + 1]!, padding8[2 * w]!, padding8[2 * w + 1]!],
    kernel: [ksize4[h]!, ksize4[w]!],
    stride: [stride4[h]!, stride4[w]!],
    ceil,
  };
}

const pooling2d: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "pooling2d");
  const format = formatAttr(node);
  const spec = poolFromAttrs(
    node,
    format,
    intsAttr(node, "padding", 8),
    intsAttr(node, "ksize", 4),
    intsAttr(node, "stride", 4),
    true,
  );
  pool(ctx, inputs[0]!, read, format, spec);
  return { rank: 4 };
};

const pooling2dV2: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 4, "pooling2d_v2");
  const format = formatAttr(node);
  const [x, padding, ksize, stride] = inputs as [Value, Value, Value, Value];
  let padding8: number[];
  let ceil = true;
  if (padding.poolPadding) {
    if (format !== "NCHW") throw new Unconvertible("_onnx_pooling2d_padding works on NCHW only");
    padding8 = padding.poolPadding.padding;
    ceil = false;
  } else {
    padding8 = integers(constNumbers(padding, "pooling2d_v2 padding"), "padding");
  }
  if (padding8.length !== 8) throw new Unconvertible("padding must be [4, 2]");
  const spec = poolFromAttrs(
    node,
    format,
    padding8,
    integers(constNumbers(ksize, "pooling2d_v2 ksize"), "ksize"),
    integers(constNumbers(stride, "pooling2d_v2 stride"), "stride"),
    ceil,
  );
  pool(ctx, x, read, format, spec);
  return { rank: 4 };
};

const onnxPoolingPadding: Translation = (_ctx, node, inputs) => {
  inputCount(inputs, 3, "_onnx_pooling2d_padding");
  const autoPad = stringAttr(node, "auto_pad", "NOTSET");
  if (autoPad !== "NOTSET" && autoPad !== "VALID")
    throw new Unconvertible(`auto_pad ${autoPad} (only NOTSET and VALID)`);
  const padding = intsAttr(node, "padding", 8, [0, 0, 0, 0, 0, 0, 0, 0]);
  for (const consumer of node.consumers) {
    if (consumer.op !== "pooling2d_v2" || consumer.inputs[1] !== node)
      throw new Unconvertible(`its output feeds ${consumer.op} "${consumer.name}" (only pooling2d_v2's padding)`);
  }
  return { poolPadding: { autoPad, padding }, dtype: "int32", rank: 2 };
};

// ---------------------------------------------------------------------------------------------------------
// convolution, dense, per-channel

const conv2d: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "conv2d");
  sameDType(inputs, "conv2d");
  needOrtType(inputs[0]!, "Conv", "conv2d");
  need4D(inputs[0]!, "conv2d");
  const format = formatAttr(node);
  const padding = intsAttr(node, "padding", 8);
  const stride = intsAttr(node, "stride", 4);
  const dilation = intsAttr(
    node,
    attr(node, "dilation") === undefined && attr(node, "dialations") !== undefined ? "dialations" : "dilation",
    4,
  );
  if (attr(node, "padding_value") !== undefined && numbers(attr(node, "padding_value"), "padding_value")[0] !== 0) {
    throw new Unconvertible("padding_value other than 0");
  }
  const [h, w] = spatial(format);
  const pads = [padding[2 * h]!, padding[2 * w]!, padding[2 * h + 1]!, padding[2 * w + 1]!];
  if (pads.some((p) => p < 0)) throw new Unconvertible("negative convolution padding");
  const weights = read(inputs[1]!);
  inNCHW(ctx, format, read(inputs[0]!), (x, last) =>
    last("Conv", [x, weights], { pads, strides: [stride[h]!, stride[w]!], dilations: [dilation[h]!, dilation[w]!] }),
  );
  return { rank: 4 };
};

const innerProd: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "inner_prod");
  const [x, w] = inputs as [Value, Value];
  sameDType(inputs, "inner_prod");
  needOrtType(x, "Gemm", "inner_prod");
  if (x.rank === 0) throw new Unconvertible("the left-hand side is a scalar");
  if (w.rank !== undefined && w.rank !== 2) throw new Unconvertible("the right-hand side is not 2-D");
  const lhs = x.rank === 2 ? read(x) : ctx.add("Flatten", [read(x)], { axis: 1 });
  ctx.final("Gemm", [lhs, read(w)], { transB: boolAttr(node, "transpose", false) ? 1 : 0 });
  return { rank: 2 };
};

function channelDim(node: TsmGraphNode): number {
  if (attr(node, "dim") !== undefined) return intAttr(node, "dim");
  if (attr(node, "format") === undefined) throw new Unconvertible("neither dim nor format is set");
  return formatAttr(node) === "NHWC" ? 3 : 1;
}

const addBias: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "add_bias");
  const [x, b] = inputs as [Value, Value];
  sameDType(inputs, "add_bias");
  needOrtType(x, "Arithmetic", "add_bias");
  ctx.final("Add", [read(x), channelVector(ctx, read(b), channelDim(node), needRank(x, "add_bias"))]);
};

const prelu: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "prelu");
  const [x, slope] = inputs as [Value, Value];
  sameDType(inputs, "prelu");
  needOrtType(x, "PRelu", "prelu");
  ctx.final("PRelu", [read(x), channelVector(ctx, read(slope), intAttr(node, "dim"), needRank(x, "prelu"))]);
};

const batchScale: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 3, "batch_scale");
  const [x, scale, bias] = inputs as [Value, Value, Value];
  sameDType(inputs, "batch_scale");
  needOrtType(x, "Arithmetic", "batch_scale");
  const rank = needRank(x, "batch_scale");
  const dim = intAttr(node, "dim");
  const scaled = ctx.add("Mul", [read(x), channelVector(ctx, read(scale), dim, rank)]);
  ctx.final("Add", [scaled, channelVector(ctx, read(bias), dim, rank)]);
};

const batchNorm: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 3, "batch_norm");
  const [x, mean, variance] = inputs as [Value, Value, Value];
  needFloat(x, "batch_norm");
  sameDType(inputs, "batch_norm");
  const rank = needRank(x, "batch_norm");
  const dim = intAttr(node, "dim");
  const epsilon = attr(node, "epsilon") === undefined ? 1e-5 : numbers(attr(node, "epsilon"), "epsilon")[0]!;
  const centred = ctx.add("Sub", [read(x), channelVector(ctx, read(mean), dim, rank)]);
  const std = ctx.add("Sqrt", [
    ctx.add("Add", [channelVector(ctx, read(variance), dim, rank), scalarOf(ctx, x.dtype, epsilon)]),
  ]);
  ctx.final("Div", [centred, std]);
};

// ---------------------------------------------------------------------------------------------------------
// element-wise, activations, shapes

function unary(op: "Relu" | "Sigmoid"): Translation {
  return (ctx, node, inputs, read) => {
    inputCount(inputs, 1, op);
    needOrtType(inputs[0]!, op, node.op);
    ctx.final(op, [read(inputs[0]!)]);
  };
}

function maxRank(inputs: Value[]): number | undefined {
  let rank = 0;
  for (const v of inputs) {
    if (v.rank === undefined) return undefined;
    rank = Math.max(rank, v.rank);
  }
  return rank;
}

/** The static shape of an input or a constant, when every dim is a known number. */
function staticShape(v: Value): number[] | undefined {
  const shape = v.constFields?.length === 1 ? v.constFields[0]!.shape : v.shape;
  return shape?.every((d): d is number => typeof d === "number") ? shape : undefined;
}

/** Numpy broadcasting of static shapes (a `what` error when they do not broadcast, as ONNX refuses the model). */
function broadcast(shapes: number[][], what: string): number[] {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out = Array<number>(rank).fill(1);
  for (const shape of shapes) {
    shape.forEach((d, i) => {
      const k = rank - shape.length + i;
      if (d !== 1 && out[k] !== 1 && out[k] !== d)
        throw new Unconvertible(`${what}: shapes [${shapes.map((s) => s.join(", ")).join("], [")}] do not broadcast`);
      if (d !== 1) out[k] = d;
    });
  }
  return out;
}

function binary(op: string, nary?: string): Translation {
  return (ctx, node, inputs, read) => {
    if (inputs.length < 2 || (inputs.length > 2 && !nary))
      throw new Unconvertible(`${node.op} takes 2 inputs, this node has ${inputs.length}`);
    let dtype = inputs[0]!.dtype;
    if (inputs.length === 2) {
      // two dtypes: both cast to the one TenniS computes in
      const common = upcast(inputs[0]!.dtype, inputs[1]!.dtype);
      if (!common)
        throw new Unconvertible(
          `${node.op} of ${inputs[0]!.dtype} and ${inputs[1]!.dtype} (TenniS cannot reduce that pair)`,
        );
      dtype = common;
    } else {
      sameDType(inputs, node.op);
    }
    needOrtType({ ...inputs[0]!, dtype }, inputs.length === 2 ? "Arithmetic" : "Sum", node.op);
    const shapes = inputs.map(staticShape);
    const shape = shapes.every((s) => s !== undefined) ? broadcast(shapes as number[][], node.op) : undefined;
    const operands = inputs.map((v) =>
      v.dtype === dtype ? read(v) : ctx.add("Cast", [read(v)], { to: ONNX_CODE[onnxDType(dtype)]! }),
    );
    ctx.final(inputs.length === 2 ? op : nary!, operands);
    return { rank: maxRank(inputs), shape, dtype };
  };
}

const softmax: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "softmax");
  const x = inputs[0]!;
  needOrtType(x, "Softmax", "softmax");
  const dim = intAttr(node, "dim");
  // TenniS (base/base_softmax.cpp) refuses a dim outside [-rank, rank) when it runs; a negative one counts from the end
  if (x.rank !== undefined && (dim < -x.rank || dim >= x.rank))
    throw new Unconvertible(`dim ${dim} is outside [-${x.rank}, ${x.rank}) (TenniS refuses it)`);
  if (x.rank === undefined && Math.abs(dim) > MAX_RANK) throw new Unconvertible(`dim ${dim} is out of range`);
  ctx.final("Softmax", [read(x)], { axis: dim });
};

const toFloat: Translation = (ctx, _node, inputs, read) => {
  inputCount(inputs, 1, "to_float");
  ctx.final("Cast", [read(inputs[0]!)], { to: 1 });
  return { dtype: "float32" };
};

const copy: Translation = (ctx, _node, inputs, read) => {
  inputCount(inputs, 1, "_copy");
  ctx.final("Identity", [read(inputs[0]!)]);
};

const flatten: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "flatten");
  const x = inputs[0]!;
  let dim = intAttr(node, "dim", 1);
  if (dim < 0) dim += needRank(x, "flatten with a negative dim");
  if (dim < 0 || dim >= MAX_RANK) throw new Unconvertible("dim is out of range");
  const need = dim + 1;
  if (x.rank !== undefined && x.rank < need) {
    ctx.final("Reshape", [
      read(x),
      ctx.int64([...Array<number>(x.rank).fill(0), ...Array<number>(need - x.rank).fill(1)]),
    ]);
  } else {
    ctx.final("Reshape", [read(x), ctx.int64([...Array<number>(dim).fill(0), -1])]);
  }
  return { rank: need };
};

const reshape: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "_reshape");
  const shape = intsAttr(node, "shape");
  ctx.final("Reshape", [read(inputs[0]!), ctx.int64(shape)]);
  return { rank: shape.length };
};

const transpose: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "_transpose");
  const x = inputs[0]!;
  // (without permute TenniS builds an invalid one, [.., n-1, n-1]: refused as a missing attribute)
  const permute = intsAttr(node, "permute");
  if ([...permute].sort((a, b) => a - b).some((v, i) => v !== i))
    throw new Unconvertible(`permute [${permute.join(", ")}] is not a permutation`);
  if (x.rank !== undefined && x.rank > permute.length)
    throw new Unconvertible(`permute has ${permute.length} axes, the input has ${x.rank}`);
  let input = read(x);
  // TenniS puts leading 1s in front of a smaller input
  if (x.rank !== undefined && x.rank < permute.length)
    input = ctx.add("Unsqueeze", [input, ctx.int64(Array.from({ length: permute.length - x.rank }, (_, i) => i))]);
  ctx.final("Transpose", [input], { perm: permute });
  return { rank: permute.length };
};

const concat: Translation = (ctx, node, inputs, read) => {
  if (inputs.length < 1) throw new Unconvertible("concat without inputs");
  sameDType(inputs, "concat");
  ctx.final("Concat", inputs.map(read), { axis: intAttr(node, "dim") });
};

const BIG = Number.MAX_SAFE_INTEGER;

/** Pads (negative = crops) `x` with the int64 [r] tensors `top` and `bottom`. */
function padBy(ctx: OnnxContext, x: string, top: string, bottom: string): string {
  return ctx.final("Pad", [x, ctx.add("Concat", [top, bottom], { axis: 0 })], { mode: "constant" });
}

const limit: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "_limit");
  const x = inputs[0]!;
  const shape = intsAttr(node, "shape");
  const rank = needRank(x, "_limit");
  needOrtType(x, "Pad", "_limit");
  if (rank < shape.length) throw new Unconvertible(`the input has rank ${rank}, the limit ${shape.length} dims`);
  const limits = [...Array<number>(rank - shape.length).fill(-1), ...shape];
  if (limits.every((l) => l <= 0)) {
    ctx.final("Identity", [read(x)]);
    return;
  }
  const xs = read(x);
  const dims = ctx.add("Shape", [xs]);
  const target = ctx.add("Min", [dims, ctx.int64(limits.map((l) => (l > 0 ? l : BIG)))]);
  const excess = ctx.add("Sub", [dims, target]);
  const half = ctx.add("Div", [excess, ctx.int64([2], true)]);
  const top = ctx.add("Neg", [half]);
  const bottom = ctx.add("Sub", [half, excess]);
  padBy(ctx, xs, top, bottom);
};

const cropNd: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "crop_nd");
  const [x, sizeValue] = inputs as [Value, Value];
  const size = integers(constNumbers(sizeValue, "crop_nd size"), "size");
  needOrtType(x, "Pad", "crop_nd");
  if (x.rank !== undefined && x.rank !== size.length)
    throw new Unconvertible(`size has ${size.length} dims, the input ${x.rank}`);
  const shift = attr(node, "shift") === undefined ? undefined : intsAttr(node, "shift", size.length);
  const xs = read(x);
  const dims = ctx.add("Shape", [xs]);
  // d = size - x where size > 0, else 0
  const d = ctx.add("Mul", [
    ctx.add("Sub", [ctx.int64(size.map((s) => (s > 0 ? s : 0))), dims]),
    ctx.int64(size.map((s) => (s > 0 ? 1 : 0))),
  ]);
  let top: string;
  if (shift) {
    top = ctx.int64(shift.map((s) => -s));
    padBy(ctx, xs, top, ctx.add("Add", [d, ctx.int64(shift)]));
  } else {
    // trunc(d / 2) for either sign
    top = ctx.add("Mul", [ctx.add("Sign", [d]), ctx.add("Div", [ctx.add("Abs", [d]), ctx.int64([2], true)])]);
    padBy(ctx, xs, top, ctx.add("Sub", [d, top]));
  }
  return { rank: size.length };
};

const resize2d: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "_resize2d");
  const [x, sizeValue] = inputs as [Value, Value];
  const size = integers(constNumbers(sizeValue, "_resize2d size"), "size");
  if (size.some((s) => s === 0)) throw new Unconvertible("a size of 0");
  if (x.rank !== undefined && x.rank !== size.length)
    throw new Unconvertible(`size has ${size.length} dims, the input ${x.rank}`);
  const type = intAttr(node, "type", 0);
  const xs = read(x);
  const keep = ctx.add("Mul", [ctx.add("Shape", [xs]), ctx.int64(size.map((s) => (s > 0 ? 0 : 1)))]);
  const sizes = ctx.add("Add", [keep, ctx.int64(size.map((s) => (s > 0 ? s : 0)))]);
  const isFloat = x.dtype === "float32" || x.dtype === "float16" || x.dtype === "float64";
  // LINEAR of an integer input resizes its float32 cast; every other resize is of the input's own dtype
  if (type !== 0 || isFloat) needOrtType(x, "Resize", "_resize2d");
  if (type === 0) {
    const linear = { mode: "linear", coordinate_transformation_mode: "half_pixel" };
    if (isFloat) ctx.final("Resize", [xs, "", "", sizes], linear);
    else {
      // TenniS computes in double and truncates back to the integer type
      // (ORT has no float64 Resize: computed in float32, so a value TenniS's double lands within ~1e-5 under an
      // integer may come out 1 higher)
      const resized = ctx.add("Resize", [ctx.add("Cast", [xs], { to: 1 }), "", "", sizes], linear);
      ctx.final("Cast", [ctx.add("Floor", [resized])], { to: ONNX_CODE[onnxDType(x.dtype)]! });
    }
  } else if (type === 2) {
    ctx.final("Resize", [xs, "", "", sizes], {
      mode: "nearest",
      coordinate_transformation_mode: "half_pixel",
      nearest_mode: "round_prefer_ceil",
    });
  } else if (type === 3) {
    ctx.final("Resize", [xs, "", "", sizes], {
      mode: "nearest",
      coordinate_transformation_mode: "asymmetric",
      nearest_mode: "floor",
    });
  } else {
    throw new Unconvertible(
      `resize type ${type} (${type === 1 ? "CUBIC, with TenniS's own border rule" : "unknown"}); LINEAR 0, NEAREST 2 and HARD 3 convert`,
    );
  }
  return { rank: size.length };
};

const ONNX_CODE: Record<string, number> = {
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  float64: 11,
  uint32: 12,
  uint64: 13,
};

const sample2d: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "sample2d");
  const x = inputs[0]!;
  needFloat(x, "sample2d");
  const scale = numbers(attr(node, "scale"), "scale")[0];
  if (scale === undefined || !(scale >= 1e-5)) throw new Unconvertible("scale must be at least 1e-5");
  const type = intAttr(node, "type", 2);
  if (type !== 2 && type !== 3) throw new Unconvertible(`sample type ${type} (NEAREST 2 and HARD 3 convert)`);
  const rank = needRank(x, "sample2d");
  let dim = intAttr(node, "dim", -2);
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank - 1) throw new Unconvertible(`dim must be in [-${rank}, ${rank - 1})`);
  const scale32 = Math.fround(scale);
  const inverse = Math.fround(1 / scale32);
  let current = read(x);
  const valids: string[] = [];
  for (const axis of [dim, dim + 1]) {
    const n = dimOf(ctx, read(x), axis);
    const outN = ctx.add(
      "Cast",
      [ctx.add("Floor", [ctx.add("Mul", [ctx.add("Cast", [n], { to: 1 }), ctx.float([scale32], true)])])],
      { to: 7 },
    );
    const position = ctx.add("Mul", [
      ctx.add("Cast", [ctx.add("Range", [ctx.int64([0], true), outN, ctx.int64([1], true)])], { to: 1 }),
      ctx.float([inverse], true),
    ]);
    const rounded =
      type === 3
        ? ctx.add("Floor", [position])
        : ctx.add("Floor", [ctx.add("Add", [position, ctx.float([0.5], true)])]);
    const source = ctx.add("Cast", [rounded], { to: 7 });
    const last = ctx.add("Sub", [n, ctx.int64([1], true)]);
    valids.push(ctx.add("Less", [source, last]));
    current = ctx.add("Gather", [current, ctx.add("Min", [source, last])], { axis });
  }
  let mask = ctx.add("And", [
    ctx.add("Unsqueeze", [valids[0]!, ctx.int64([1])]),
    ctx.add("Unsqueeze", [valids[1]!, ctx.int64([0])]),
  ]);
  const trailing = rank - dim - 2;
  if (trailing > 0) mask = ctx.add("Unsqueeze", [mask, ctx.int64(Array.from({ length: trailing }, (_, i) => 2 + i))]);
  ctx.final("Where", [mask, current, scalarOf(ctx, x.dtype, 0)]);
};

const shapeIndexPatch: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "shape_index_patch");
  const [x, pos] = inputs as [Value, Value];
  needFloat(x, "shape_index_patch");
  if (x.rank !== undefined && x.rank !== 4) throw new Unconvertible("the feature map is not 4-D");
  const [patchH, patchW] = intsAttr(node, "origin_patch", 2) as [number, number];
  const [originH, originW] = intsAttr(node, "origin", 2) as [number, number];
  const xs = read(x);
  const f = (v: string): string => ctx.add("Cast", [v], { to: 1 });
  const i64 = (v: string): string => ctx.add("Cast", [v], { to: 7 });
  const one = ctx.int64([1], true);
  const zero = ctx.int64([0], true);
  const axisStart = (size: string, patch: number, origin: number, coordinate: string) => {
    // patch = int(patch * size / float(origin) + 0.5); start = int(coordinate * (size - 1) - (patch - 1) / 2 + 0.5)
    const p = i64(
      ctx.add("Add", [
        ctx.add("Div", [f(ctx.add("Mul", [ctx.int64([patch], true), size])), ctx.float([origin], true)]),
        ctx.float([0.5], true),
      ]),
    );
    const radius = ctx.add("Div", [f(ctx.add("Sub", [p, one])), ctx.float([2], true)]);
    const start = i64(
      ctx.add("Add", [
        ctx.add("Sub", [ctx.add("Mul", [coordinate, f(ctx.add("Sub", [size, one]))]), radius]),
        ctx.float([0.5], true),
      ]),
    );
    const index = ctx.add("Add", [ctx.add("Unsqueeze", [start, ctx.int64([2])]), ctx.add("Range", [zero, p, one])]); // [N, L, p]
    const inside = ctx.add("And", [ctx.add("GreaterOrEqual", [index, zero]), ctx.add("Less", [index, size])]);
    const clamped = ctx.add("Max", [ctx.add("Min", [index, ctx.add("Sub", [size, one])]), zero]);
    return { clamped, inside };
  };
  const H = dimOf(ctx, xs, 2);
  const W = dimOf(ctx, xs, 3);
  const points = ctx.add("Reshape", [read(pos), ctx.int64([0, -1, 2])]); // [N, L, 2] as (x, y)
  const px = ctx.add("Gather", [points, ctx.int64([0], true)], { axis: 2 });
  const py = ctx.add("Gather", [points, ctx.int64([1], true)], { axis: 2 });
  const rows = axisStart(H, patchH, originH, py);
  const cols = axisStart(W, patchW, originW, px);
  const flat = ctx.add("Add", [
    ctx.add("Mul", [ctx.add("Unsqueeze", [rows.clamped, ctx.int64([3])]), W]),
    ctx.add("Unsqueeze", [cols.clamped, ctx.int64([2])]),
  ]); // [N, L, ph, pw]
  const inside = ctx.add("And", [
    ctx.add("Unsqueeze", [rows.inside, ctx.int64([3])]),
    ctx.add("Unsqueeze", [cols.inside, ctx.int64([2])]),
  ]);
  const pixels = ctx.add("Transpose", [ctx.add("Reshape", [xs, ctx.int64([0, 0, -1])])], { perm: [0, 2, 1] }); // [N, H*W, C]
  const gathered = ctx.add("GatherND", [pixels, ctx.add("Reshape", [flat, ctx.int64([0, -1, 1])])], { batch_dims: 1 }); // [N, L*ph*pw, C]
  const patches = ctx.add("Reshape", [
    gathered,
    ctx.add("Concat", [ctx.add("Shape", [inside]), ctx.int64([-1])], { axis: 0 }),
  ]); // [N, L, ph, pw, C]
  const masked = ctx.add("Where", [ctx.add("Unsqueeze", [inside, ctx.int64([4])]), patches, scalarOf(ctx, x.dtype, 0)]);
  ctx.final("Transpose", [masked], { perm: [0, 4, 2, 1, 3] });
  return { rank: 5 };
};

// ---------------------------------------------------------------------------------------------------------
// darknet yolo

const yolo: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "yolo");
  const x = inputs[0]!;
  needFloat(x, "yolo");
  const classes = intAttr(node, "classes");
  const mask = intsAttr(node, "mask");
  const anchors = intsAttr(node, "anchors");
  for (const m of mask) if (2 * m + 1 >= anchors.length || m < 0) throw new Unconvertible(`mask ${m} has no anchor`);
  for (const consumer of node.consumers)
    if (consumer.op !== "yolo_poster")
      throw new Unconvertible(`its output feeds ${consumer.op} "${consumer.name}" (only yolo_poster)`);
  const entries = 5 + classes;
  const xs = read(x);
  const grouped = ctx.add("Reshape", [xs, ctx.int64([0, mask.length, entries, -1])]);
  const part = (from: number, to: number) =>
    ctx.add("Slice", [grouped, ctx.int64([from]), ctx.int64([to]), ctx.int64([2])]);
  const activated = ctx.add(
    "Concat",
    [ctx.add("Sigmoid", [part(0, 2)]), part(2, 4), ctx.add("Sigmoid", [part(4, entries)])],
    { axis: 2 },
  );
  ctx.final("Reshape", [activated, ctx.add("Shape", [xs])]);
  return { yolo: { map: ctx.out, classes, mask, anchors }, rank: 4 };
};

const yoloPoster: Translation = (ctx, node, inputs, read) => {
  if (inputs.length < 2) throw new Unconvertible("yolo_poster needs the network input and at least one yolo");
  const [net, ...layers] = inputs as [Value, ...Value[]];
  if (!net.shape || net.shape[0] !== 1)
    throw new Unconvertible(
      `the network input "${net.node.name}" must declare batch 1 (TenniS gives one packed field per batch item)`,
    );
  const thresh = Math.fround(numbers(attr(node, "thresh"), "thresh")[0]!);
  const nms = Math.fround(numbers(attr(node, "nms"), "nms")[0]!);
  const infos = layers.map((l) => {
    if (!l.yolo) throw new Unconvertible(`input "${l.node.name}" is not a yolo output`);
    return l.yolo;
  });
  const classes = infos[infos.length - 1]!.classes;
  if (infos.some((i) => i.classes !== classes)) throw new Unconvertible("yolo inputs have different class counts");
  const netValue = read(net);
  const netH = ctx.add("Cast", [dimOf(ctx, netValue, 2)], { to: 1 });
  const netW = ctx.add("Cast", [dimOf(ctx, netValue, 3)], { to: 1 });
  const entries = 5 + classes;
  const f = (v: string): string => ctx.add("Cast", [v], { to: 1 });
  const column = (d: string, k: number): string => ctx.add("Gather", [d, ctx.int64([k], true)], { axis: 1 });
  const boxes: string[] = [];
  const objectness: string[] = [];
  const probabilities: string[] = [];
  for (const info of infos) {
    const n = info.mask.length;
    const map = ctx.add("Gather", [info.map, ctx.int64([0], true)], { axis: 0 }); // [n*entries, H, W]
    const h = dimOf(ctx, map, 1);
    const w = dimOf(ctx, map, 2);
    const rowsOut = ctx.add("Reshape", [
      ctx.add("Transpose", [ctx.add("Reshape", [map, ctx.int64([n, entries, -1])])], { perm: [2, 0, 1] }),
      ctx.int64([-1, entries]),
    ]); // [HW*n, entries]
    const r = ctx.add("Range", [ctx.int64([0], true), dimOf(ctx, rowsOut, 0), ctx.int64([1], true)]);
    const location = ctx.add("Div", [r, ctx.int64([n], true)]);
    const anchor = ctx.add("Mod", [r, ctx.int64([n], true)]);
    const col = ctx.add("Mod", [location, w]);
    const row = ctx.add("Div", [location, w]);
    const bx = ctx.add("Div", [ctx.add("Add", [f(col), column(rowsOut, 0)]), f(w)]);
    const by = ctx.add("Div", [ctx.add("Add", [f(row), column(rowsOut, 1)]), f(h)]);
    const anchorW = ctx.add("Gather", [ctx.float(info.mask.map((m) => info.anchors[2 * m]!)), anchor], { axis: 0 });
    const anchorH = ctx.add("Gather", [ctx.float(info.mask.map((m) => info.anchors[2 * m + 1]!)), anchor], { axis: 0 });
    const bw = ctx.add("Div", [ctx.add("Mul", [ctx.add("Exp", [column(rowsOut, 2)]), anchorW]), netW]);
    const bh = ctx.add("Div", [ctx.add("Mul", [ctx.add("Exp", [column(rowsOut, 3)]), anchorH]), netH]);
    const obj = column(rowsOut, 4);
    const cls = ctx.add("Slice", [rowsOut, ctx.int64([5]), ctx.int64([entries]), ctx.int64([1])]);
    const prob = ctx.add("Mul", [ctx.add("Unsqueeze", [obj, ctx.int64([1])]), cls]);
    const threshold = ctx.float([thresh], true);
    probabilities.push(ctx.add("Where", [ctx.add("Greater", [prob, threshold]), prob, ctx.float([0], true)]));
    boxes.push(
      ctx.add(
        "Concat",
        [bx, by, bw, bh].map((c) => ctx.add("Unsqueeze", [c, ctx.int64([1])])),
        { axis: 1 },
      ),
    );
    objectness.push(obj);
  }
  const cat = (list: string[]): string => (list.length === 1 ? list[0]! : ctx.add("Concat", list, { axis: 0 }));
  const kept = ctx.add("Reshape", [
    ctx.add("NonZero", [ctx.add("Greater", [cat(objectness), ctx.float([thresh], true)])]),
    ctx.int64([-1]),
  ]);
  const b = ctx.add("Gather", [cat(boxes), kept], { axis: 0 }); // [K, 4] centre x, y, w, h
  const p = ctx.add("Gather", [cat(probabilities), kept], { axis: 0 }); // [K, C]
  const zero = ctx.float([0], true);
  const oneF = ctx.float([1], true);
  const halfF = ctx.float([2], true);
  const cx = column(b, 0);
  const cy = column(b, 1);
  const halfW = ctx.add("Div", [column(b, 2), halfF]);
  const halfH = ctx.add("Div", [column(b, 3), halfF]);
  const clip = (v: string): string => ctx.add("Clip", [v, zero, oneF]);
  const left = clip(ctx.add("Sub", [cx, halfW]));
  const right = clip(ctx.add("Add", [cx, halfW]));
  const top = clip(ctx.add("Sub", [cy, halfH]));
  const bottom = clip(ctx.add("Add", [cy, halfH]));
  const width = ctx.add("Sub", [right, left]);
  const height = ctx.add("Sub", [bottom, top]);
  const ccx = ctx.add("Add", [left, ctx.add("Div", [width, halfF])]);
  const ccy = ctx.add("Add", [top, ctx.add("Div", [height, halfF])]);
  const clamped = ctx.add(
    "Concat",
    [ccx, ccy, width, height].map((c) => ctx.add("Unsqueeze", [c, ctx.int64([1])])),
    { axis: 1 },
  );
  const selected = ctx.add(
    "NonMaxSuppression",
    [
      ctx.add("Unsqueeze", [clamped, ctx.int64([0])]),
      ctx.add("Unsqueeze", [ctx.add("Transpose", [p], { perm: [1, 0] }), ctx.int64([0])]),
      ctx.int64([2 ** 31 - 1]),
      ctx.float([nms]),
      ctx.float([thresh]),
    ],
    { center_point_box: 1 },
  ); // [S, 3] (batch, class, box)
  const cls = column(selected, 1);
  const box = column(selected, 2);
  const key = ctx.add("Add", [ctx.add("Mul", [box, ctx.int64([classes], true)]), cls]);
  const [, order] = ctx.addN("TopK", [key, ctx.add("Shape", [key])], 2, { largest: 0, sorted: 1, axis: 0 }) as [
    string,
    string,
  ];
  const sortedBox = ctx.add("Gather", [box, order], { axis: 0 });
  const sortedClass = ctx.add("Gather", [cls, order], { axis: 0 });
  const chosen = ctx.add("Gather", [clamped, sortedBox], { axis: 0 });
  const score = ctx.add("GatherND", [
    p,
    ctx.add(
      "Concat",
      [ctx.add("Unsqueeze", [sortedBox, ctx.int64([1])]), ctx.add("Unsqueeze", [sortedClass, ctx.int64([1])])],
      { axis: 1 },
    ),
  ]);
  const w = column(chosen, 2);
  const h = column(chosen, 3);
  const x0 = ctx.add("Sub", [column(chosen, 0), ctx.add("Div", [w, halfF])]);
  const y0 = ctx.add("Sub", [column(chosen, 1), ctx.add("Div", [h, halfF])]);
  const columns = [x0, y0, w, h, score, f(sortedClass)].map((c) => ctx.add("Unsqueeze", [c, ctx.int64([1])]));
  ctx.final("Concat", columns, { axis: 1 });
  return { rank: 2, dtype: "float32" };
};

/** Every op tsm.toOnnx translates (besides <param> and <const>). */
export const TRANSLATIONS: Record<string, Translation> = {
  conv2d,
  add_bias: addBias,
  relu: unary("Relu"),
  prelu,
  sigmoid: unary("Sigmoid"),
  softmax,
  pooling2d,
  pooling2d_v2: pooling2dV2,
  _onnx_pooling2d_padding: onnxPoolingPadding,
  inner_prod: innerProd,
  flatten,
  _reshape: reshape,
  _transpose: transpose,
  _copy: copy,
  _limit: limit,
  to_float: toFloat,
  add: binary("Add", "Sum"),
  sub: binary("Sub"),
  mul: binary("Mul"),
  concat,
  crop_nd: cropNd,
  _resize2d: resize2d,
  batch_norm: batchNorm,
  batch_scale: batchScale,
  sample2d,
  shape_index_patch: shapeIndexPatch,
  yolo,
  yolo_poster: yoloPoster,
};
