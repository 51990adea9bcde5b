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
import { type Translation, type Value, Unconvertible, numbers } from "./onnx-context.js";
import { attr, intAttr, intsAttr, needFloat, inputCount, dimOf } from "./onnx-op-helpers.js";
import {
  pooling2d,
  pooling2dV2,
  onnxPoolingPadding,
  conv2d,
  innerProd,
  addBias,
  prelu,
  batchScale,
  batchNorm,
} from "./onnx-ops-pool-conv.js";
import { unary, binary, softmax, toFloat, copy } from "./onnx-ops-elementwise.js";
import { flatten, reshape, transpose, concat, limit, cropNd } from "./onnx-ops-shape.js";
import { resize2d, sample2d, shapeIndexPatch } from "./onnx-ops-resize.js";

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
