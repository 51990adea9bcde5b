/**
 * What the TenniS op translations share: reading a node's attributes, refusing inputs ONNX or TenniS would refuse
 * (ranks, dtypes, counts), and small ONNX building blocks (scalars, per-channel vectors, NHWC <-> NCHW).
 */
import type { DType } from "../../tensor.js";
import { tsmDTypeCode, tsmDTypeName } from "../../formats/tsm/dtypes.js";
import { type OnnxContext, type Value, Unconvertible, numbers, onnxDType } from "./onnx-context.js";
import type { TsmGraphNode } from "../../formats/tsm/graph.js";

export type Read = (v: Value) => string;

export function attr(node: TsmGraphNode, key: string): unknown {
  return node.attrs[key];
}

export function intAttr(node: TsmGraphNode, key: string, fallback?: number): number {
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
export function integers(list: number[], key: string): number[] {
  return list.map((v) => {
    if (!Number.isFinite(v) || Math.abs(v) > 2 ** 31) throw new Unconvertible(`${key} has a value out of range (${v})`);
    return Math.trunc(v);
  });
}

export function intsAttr(node: TsmGraphNode, key: string, length?: number, fallback?: number[]): number[] {
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

export function stringAttr(node: TsmGraphNode, key: string, fallback?: string): string {
  const v = attr(node, key);
  if (v === undefined) {
    if (fallback === undefined) throw new Unconvertible(`missing attribute ${key}`);
    return fallback;
  }
  if (typeof v !== "string") throw new Unconvertible(`${key} is not a string`);
  return v;
}

export function boolAttr(node: TsmGraphNode, key: string, fallback: boolean): boolean {
  const v = attr(node, key);
  if (v === undefined) return fallback;
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v === "1" || v.toLowerCase() === "true";
  return numbers(v, key)[0] !== 0;
}

export function formatAttr(node: TsmGraphNode): "NCHW" | "NHWC" {
  const format = stringAttr(node, "format");
  if (format !== "NCHW" && format !== "NHWC") throw new Unconvertible(`format ${format} is neither NCHW nor NHWC`);
  return format;
}

/** Ranks beyond this are refused (no real model has them; the translations build per-axis lists). */
export const MAX_RANK = 64;
/** Pooling kernels beyond this many taps are refused (the average pooling's ones kernel is that big at run time). */
export const MAX_KERNEL_TAPS = 1 << 20;

export function needRank(v: Value, what: string): number {
  if (v.rank === undefined)
    throw new Unconvertible(`${what}: the rank of "${v.node.name}" is unknown (declare the input's shape)`);
  if (v.rank > MAX_RANK) throw new Unconvertible(`${what}: rank ${v.rank} (at most ${MAX_RANK})`);
  return v.rank;
}

export function needFloat(v: Value, what: string): void {
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

export function needOrtType(v: Value, op: keyof typeof ORT_TYPES, what: string): void {
  if (!(ORT_TYPES[op] as readonly DType[]).includes(v.dtype))
    throw new Unconvertible(`${what} of ${v.dtype} ("${v.node.name}"): onnxruntime has no ${op} for it`);
}

/** Inputs of different dtypes are refused: TenniS checks they agree (e.g. add_bias: x.dtype() == b.dtype()), ONNX needs one. */
export function sameDType(inputs: readonly Value[], what: string): void {
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

export function upcast(a: DType, b: DType): DType | undefined {
  if (a === b) return a;
  const [ca, cb] = [tsmDTypeCode(a), tsmDTypeCode(b)];
  // (uncorr_cast_dtype: VOID, PTR and the codes past CHAR32 but BOOLEAN are never cast)
  const castable = (code: number | undefined): code is number =>
    code !== undefined && code !== 0 && code !== 12 && (code <= 15 || code === 21);
  if (!castable(ca) || !castable(cb)) return undefined;
  const code = parseInt(UPCAST[ca]![cb]!, 36);
  return code === 0 ? undefined : tsmDTypeName(code);
}

export function inputCount(inputs: Value[], n: number, op: string): void {
  if (inputs.length !== n) throw new Unconvertible(`${op} takes ${n} inputs, this node has ${inputs.length}`);
}

/** A scalar of `dtype` with value `v`. */
export function scalarOf(ctx: OnnxContext, dtype: DType, v: number): string {
  const onnx = onnxDType(dtype);
  if (onnx === "float32") return ctx.float([v], true);
  if (onnx === "float64") return ctx.tensor("float64", [], new Float64Array([v]));
  if (onnx === "int64") return ctx.int64([v], true);
  if (onnx === "int32") return ctx.tensor("int32", [], new Int32Array([v]));
  if (onnx === "uint8") return ctx.tensor("uint8", [], new Uint8Array([v]));
  throw new Unconvertible(`no ${dtype} constant`);
}

/** A per-channel vector (shape [C]) reshaped to broadcast along `dim` of a rank-`rank` tensor. */
export function channelVector(ctx: OnnxContext, vector: string, dim: number, rank: number): string {
  if (dim < 0 || dim >= rank) throw new Unconvertible(`dim ${dim} is outside a rank-${rank} input`);
  const trailing = rank - 1 - dim;
  if (trailing === 0) return ctx.add("Reshape", [vector, ctx.int64([-1])]);
  return ctx.add("Reshape", [vector, ctx.int64([-1, ...Array<number>(trailing).fill(1)])]);
}

/** Shape(x)[axis] as an int64 scalar. */
export function dimOf(ctx: OnnxContext, x: string, axis: number): string {
  return ctx.add("Gather", [ctx.add("Shape", [x]), ctx.int64([axis], true)], { axis: 0 });
}

const TO_NCHW = [0, 3, 1, 2];
const TO_NHWC = [0, 2, 3, 1];

/** Emits `op` in NCHW: for an NHWC node, transposes in and out; the last node is the TenniS node's. */
export function inNCHW(
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

/** ONNX TensorProto.DataType codes (Cast's `to`). */
export const ONNX_CODE: Record<string, number> = {
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
