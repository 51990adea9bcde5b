/**
 * TenniS shape ops (flatten, reshape, transpose, concat, limit, crop) -> ONNX (semantics: the header of onnx-ops.ts).
 */
import { type OnnxContext, type Translation, type Value, Unconvertible, constNumbers } from "./onnx-context.js";
import {
  attr,
  intAttr,
  integers,
  intsAttr,
  MAX_RANK,
  needRank,
  needOrtType,
  sameDType,
  inputCount,
} from "./onnx-op-helpers.js";

export const flatten: Translation = (ctx, node, inputs, read) => {
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

export const reshape: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "_reshape");
  const shape = intsAttr(node, "shape");
  ctx.final("Reshape", [read(inputs[0]!), ctx.int64(shape)]);
  return { rank: shape.length };
};

export const transpose: Translation = (ctx, node, inputs, read) => {
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

export const concat: Translation = (ctx, node, inputs, read) => {
  if (inputs.length < 1) throw new Unconvertible("concat without inputs");
  sameDType(inputs, "concat");
  ctx.final("Concat", inputs.map(read), { axis: intAttr(node, "dim") });
};

const BIG = Number.MAX_SAFE_INTEGER;

/** Pads (negative = crops) `x` with the int64 [r] tensors `top` and `bottom`. */
function padBy(ctx: OnnxContext, x: string, top: string, bottom: string): string {
  return ctx.final("Pad", [x, ctx.add("Concat", [top, bottom], { axis: 0 })], { mode: "constant" });
}

export const limit: Translation = (ctx, node, inputs, read) => {
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

export const cropNd: Translation = (ctx, node, inputs, read) => {
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
