/**
 * TenniS pooling, convolution, dense and per-channel ops -> ONNX (semantics: the header of onnx-ops.ts).
 */
import type { DType } from "../../tensor.js";
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
import {
  type Read,
  attr,
  intAttr,
  integers,
  intsAttr,
  stringAttr,
  boolAttr,
  formatAttr,
  MAX_KERNEL_TAPS,
  needRank,
  needFloat,
  needOrtType,
  sameDType,
  inputCount,
  scalarOf,
  channelVector,
  inNCHW,
} from "./onnx-op-helpers.js";

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

export const pooling2d: Translation = (ctx, node, inputs, read) => {
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

export const pooling2dV2: Translation = (ctx, node, inputs, read) => {
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

export const onnxPoolingPadding: Translation = (_ctx, node, inputs) => {
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

export const conv2d: Translation = (ctx, node, inputs, read) => {
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

export const innerProd: Translation = (ctx, node, inputs, read) => {
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

export const addBias: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "add_bias");
  const [x, b] = inputs as [Value, Value];
  sameDType(inputs, "add_bias");
  needOrtType(x, "Arithmetic", "add_bias");
  ctx.final("Add", [read(x), channelVector(ctx, read(b), channelDim(node), needRank(x, "add_bias"))]);
};

export const prelu: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 2, "prelu");
  const [x, slope] = inputs as [Value, Value];
  sameDType(inputs, "prelu");
  needOrtType(x, "PRelu", "prelu");
  ctx.final("PRelu", [read(x), channelVector(ctx, read(slope), intAttr(node, "dim"), needRank(x, "prelu"))]);
};

export const batchScale: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 3, "batch_scale");
  const [x, scale, bias] = inputs as [Value, Value, Value];
  sameDType(inputs, "batch_scale");
  needOrtType(x, "Arithmetic", "batch_scale");
  const rank = needRank(x, "batch_scale");
  const dim = intAttr(node, "dim");
  const scaled = ctx.add("Mul", [read(x), channelVector(ctx, read(scale), dim, rank)]);
  ctx.final("Add", [scaled, channelVector(ctx, read(bias), dim, rank)]);
};

export const batchNorm: Translation = (ctx, node, inputs, read) => {
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
