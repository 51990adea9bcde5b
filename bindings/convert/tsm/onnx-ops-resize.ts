/**
 * TenniS resampling ops (_resize2d, sample2d, shape_index_patch) -> ONNX (semantics: the header of onnx-ops.ts).
 */
import { type Translation, type Value, Unconvertible, constNumbers, numbers, onnxDType } from "./onnx-context.js";
import {
  attr,
  intAttr,
  integers,
  intsAttr,
  needRank,
  needFloat,
  needOrtType,
  inputCount,
  scalarOf,
  dimOf,
  ONNX_CODE,
} from "./onnx-op-helpers.js";

export const resize2d: Translation = (ctx, node, inputs, read) => {
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

export const sample2d: Translation = (ctx, node, inputs, read) => {
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

export const shapeIndexPatch: Translation = (ctx, node, inputs, read) => {
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
