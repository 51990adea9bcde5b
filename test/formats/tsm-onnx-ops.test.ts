/**
 * tsm.toOnnx op by op: each TenniS op in a one-node module, converted, run with onnxruntime-web, and compared with
 * a reference written here in plain TypeScript from TenniS's kernel semantics (or hand-computed values), so a
 * failure names the op. Edge cases: asymmetric padding, ceil-mode pooling, strides larger than the kernel, NHWC,
 * every interpolation mode the converter accepts, centre crops of odd sizes, zero borders.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as tsm from "../../bindings/formats/tsm.js";
import type { TsmFieldInput, TsmNodeInput } from "../../bindings/formats/tsm.js";
import type { DType, TypedArray } from "../../bindings/tensor.js";
import { ort, runOnnx } from "../helpers/ort.js";
import { randomNormal } from "../helpers/rng.js";
import { fromBytes } from "../../bindings/io/source.js";

const i32 = (shape: number[], values: number[]): TsmFieldInput => ({
  dtype: "int32",
  shape,
  data: new Int32Array(values),
});
const f32 = (shape: number[], values: ArrayLike<number>): TsmFieldInput => ({
  dtype: "float32",
  shape,
  data: Float32Array.from(values),
});
const scalarI = (v: number): TsmFieldInput => i32([], [v]);
const scalarF = (v: number): TsmFieldInput => f32([], [v]);
const bool = (v: boolean): TsmFieldInput => ({ dtype: "bool", shape: [], data: new Uint8Array([v ? 1 : 0]) });
const pad8 = (p: number[][]): TsmFieldInput => i32([4, 2], p.flat());

interface Input {
  name: string;
  dtype?: DType;
  shape: number[];
  data: TypedArray;
}

/** Builds <param> inputs + consts + one op node named "y", converts, runs; returns the output and its dims. */
async function runOp(
  op: string,
  params: Record<string, TsmFieldInput>,
  inputs: Input[],
  consts: { name: string; value: TsmFieldInput }[] = [],
  inputOrder?: string[],
): Promise<{ data: ArrayLike<number>; dims: number[] }> {
  const nodes: TsmNodeInput[] = [
    ...inputs.map((i) => ({
      op: "<param>",
      name: i.name,
      params: { "#shape": i32([i.shape.length], i.shape), "#dtype": scalarI(dtypeCode(i.dtype ?? "float32")) },
    })),
    ...consts.map((c) => ({ op: "<const>", name: c.name, value: c.value })),
    { op, name: "y", inputs: inputOrder ?? [...inputs.map((i) => i.name), ...consts.map((c) => c.name)], params },
  ];
  const module = tsm.create({ nodes, inputs: inputs.map((i) => i.name), outputs: ["y"] });
  const bytes = tsm.toOnnx(module);
  const feeds: Record<string, ort.Tensor> = {};
  for (const i of inputs)
    feeds[i.name] = new ort.Tensor((i.dtype ?? "float32") as "float32", i.data as Float32Array, i.shape);
  const { outputs, messages } = await runOnnx(bytes, feeds);
  if (messages.length) console.log(messages);
  expect(messages).toEqual([]);
  const y = outputs.y!;
  return { data: y.data as ArrayLike<number>, dims: Array.from(y.dims) };
}

function dtypeCode(dtype: DType): number {
  return tsm.tsmDTypeCode(dtype)!;
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (Math.abs(actual[i]! - expected[i]!) > tolerance) {
      throw new Error(
        `element ${i}: got ${actual[i]}, expected ${expected[i]} (all: ${Array.from(actual).slice(0, 40).join(", ")})`,
      );
    }
  }
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const iota = (n: number, scale = 1, offset = 0): Float32Array => Float32Array.from(range(n), (i) => i * scale + offset);

// ----------------------------------------------------------------------------------------------------------
// TypeScript references (TenniS CPU semantics)

/** NCHW pooling as TenniS's cpu pooling2d_core: ceil output size, windows clipped to the image. */
function refPool(
  x: Float32Array,
  [n = 0, c = 0, h = 0, w = 0]: number[],
  kind: "max" | "avg-black" | "avg-white",
  [pt = 0, pb = 0, pl = 0, pr = 0]: number[],
  [kh = 0, kw = 0]: number[],
  [sh = 0, sw = 0]: number[],
  ceil = true,
): { data: Float32Array; dims: number[] } {
  const size = (len: number, a: number, b: number, k: number, s: number) =>
    ceil ? Math.ceil((len + a + b - k) / s) + 1 : Math.floor((len + a + b - k) / s) + 1;
  const oh = size(h, pt, pb, kh, sh);
  const ow = size(w, pl, pr, kw, sw);
  const out = new Float32Array(n * c * oh * ow);
  for (let b = 0; b < n * c; b++) {
    for (let y = 0; y < oh; y++) {
      for (let xo = 0; xo < ow; xo++) {
        const y0 = y * sh - pt;
        const x0 = xo * sw - pl;
        let max = -Infinity;
        let sum = 0;
        let count = 0;
        for (let yy = Math.max(y0, 0); yy < Math.min(y0 + kh, h); yy++) {
          for (let xx = Math.max(x0, 0); xx < Math.min(x0 + kw, w); xx++) {
            const v = x[b * h * w + yy * w + xx]!;
            max = Math.max(max, v);
            sum += v;
            count++;
          }
        }
        out[b * oh * ow + y * ow + xo] =
          kind === "max" ? max : kind === "avg-black" ? (count === 0 ? 0 : sum / count) : sum / (kh * kw);
      }
    }
  }
  return { data: out, dims: [n, c, oh, ow] };
}

function refConv(
  x: Float32Array,
  [n = 0, c = 0, h = 0, w = 0]: number[],
  wt: Float32Array,
  [o = 0, , kh = 0, kw = 0]: number[],
  [pt = 0, pb = 0, pl = 0, pr = 0]: number[],
  [sh = 0, sw = 0]: number[],
  [dh = 0, dw = 0]: number[],
): { data: Float32Array; dims: number[] } {
  const oh = Math.floor((h + pt + pb - (dh * (kh - 1) + 1)) / sh) + 1;
  const ow = Math.floor((w + pl + pr - (dw * (kw - 1) + 1)) / sw) + 1;
  const out = new Float32Array(n * o * oh * ow);
  for (let b = 0; b < n; b++)
    for (let oc = 0; oc < o; oc++)
      for (let y = 0; y < oh; y++)
        for (let xo = 0; xo < ow; xo++) {
          let s = 0;
          for (let ic = 0; ic < c; ic++)
            for (let ky = 0; ky < kh; ky++)
              for (let kx = 0; kx < kw; kx++) {
                const yy = y * sh - pt + ky * dh;
                const xx = xo * sw - pl + kx * dw;
                if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                s += x[((b * c + ic) * h + yy) * w + xx]! * wt[((oc * c + ic) * kh + ky) * kw + kx]!;
              }
          out[((b * o + oc) * oh + y) * ow + xo] = s;
        }
  return { data: out, dims: [n, o, oh, ow] };
}

function nchwToNhwc(x: Float32Array, [n = 0, c = 0, h = 0, w = 0]: number[]): Float32Array {
  const out = new Float32Array(x.length);
  for (let b = 0; b < n; b++)
    for (let ch = 0; ch < c; ch++)
      for (let y = 0; y < h; y++)
        for (let xx = 0; xx < w; xx++) out[((b * h + y) * w + xx) * c + ch] = x[((b * c + ch) * h + y) * w + xx]!;
  return out;
}

/** TenniS Resize2d_ResizeImageLinear on one H x W plane. */
function refResizeLinear(
  src: ArrayLike<number>,
  h: number,
  w: number,
  oh: number,
  ow: number,
  truncate = false,
): number[] {
  const out: number[] = [];
  const sx = w / ow;
  const sy = h / oh;
  for (let y = 0; y < oh; y++)
    for (let x = 0; x < ow; x++) {
      let fx = sx * x + (sx / 2 - 0.5);
      let fy = sy * y + (sy / 2 - 0.5);
      fx = fx >= 0 ? fx : 0;
      fx = fx < w - 1 ? fx : w - 1 - 1e-5;
      fy = fy >= 0 ? fy : 0;
      fy = fy < h - 1 ? fy : h - 1 - 1e-5;
      const ix = Math.trunc(fx);
      const iy = Math.trunc(fy);
      const ax = fx - ix;
      const ay = fy - iy;
      const v =
        (1 - ay) * (1 - ax) * src[iy * w + ix]! +
        (1 - ay) * ax * src[iy * w + ix + 1]! +
        ay * (1 - ax) * src[(iy + 1) * w + ix]! +
        ay * ax * src[(iy + 1) * w + ix + 1]!;
      out.push(truncate ? Math.trunc(v) : v);
    }
  return out;
}

// ----------------------------------------------------------------------------------------------------------

describe("tsm.toOnnx op translations (onnxruntime-web vs TypeScript references)", () => {
  const x4 = randomNormal(1, 2 * 3 * 5 * 7);
  const shape4 = [2, 3, 5, 7];

  it("conv2d: asymmetric padding, stride 2, dilation 2 (NCHW)", async () => {
    const wt = randomNormal(2, 4 * 3 * 3 * 2);
    const got = await runOp(
      "conv2d",
      {
        format: "NCHW",
        padding: pad8([
          [0, 0],
          [0, 0],
          [1, 0],
          [0, 2],
        ]),
        stride: i32([4], [1, 1, 2, 2]),
        dilation: i32([4], [1, 1, 2, 1]),
        padding_value: scalarI(0),
      },
      [{ name: "x", shape: shape4, data: x4 }],
      [{ name: "w", value: f32([4, 3, 3, 2], wt) }],
    );
    const ref = refConv(x4, shape4, wt, [4, 3, 3, 2], [1, 0, 0, 2], [2, 2], [2, 1]);
    expect(got.dims).toEqual(ref.dims);
    expectClose(got.data, ref.data, 1e-4);
  });

  it("conv2d: NHWC input, padding given in NHWC order", async () => {
    const wt = randomNormal(3, 2 * 3 * 3 * 3);
    const got = await runOp(
      "conv2d",
      {
        format: "NHWC",
        padding: pad8([
          [0, 0],
          [1, 1],
          [2, 0],
          [0, 0],
        ]),
        stride: i32([4], [1, 1, 2, 1]),
        dialations: i32([4], [1, 1, 1, 1]), // TenniS's misspelt alias
      },
      [{ name: "x", shape: [2, 5, 7, 3], data: nchwToNhwc(x4, shape4) }],
      [{ name: "w", value: f32([2, 3, 3, 3], wt) }],
    );
    const ref = refConv(x4, shape4, wt, [2, 3, 3, 3], [1, 1, 2, 0], [1, 2], [1, 1]);
    expect(got.dims).toEqual([ref.dims[0], ref.dims[2], ref.dims[3], ref.dims[1]]);
    expectClose(got.data, nchwToNhwc(ref.data, ref.dims), 1e-4);
  });

  const poolCases: {
    title: string;
    type: number;
    paddingType: number;
    kind: "max" | "avg-black" | "avg-white";
    pad: number[];
    k: number[];
    s: number[];
  }[] = [
    {
      title: "MAX, ceil mode (5x7, k2 s2: last window clipped)",
      type: 0,
      paddingType: 0,
      kind: "max",
      pad: [0, 0, 0, 0],
      k: [2, 2],
      s: [2, 2],
    },
    {
      title: "MAX, asymmetric padding, k3 s2",
      type: 0,
      paddingType: 0,
      kind: "max",
      pad: [1, 0, 0, 2],
      k: [3, 3],
      s: [2, 2],
    },
    {
      title: "MAX, stride larger than the kernel (k2 s3)",
      type: 0,
      paddingType: 0,
      kind: "max",
      pad: [0, 0, 0, 0],
      k: [2, 2],
      s: [3, 3],
    },
    {
      title: "AVG BLACK (divides by the pixels inside), padding 1, ceil",
      type: 1,
      paddingType: 0,
      kind: "avg-black",
      pad: [1, 1, 1, 0],
      k: [3, 2],
      s: [2, 2],
    },
    {
      title: "AVG BLACK without padding (ceil overhang only)",
      type: 1,
      paddingType: 0,
      kind: "avg-black",
      pad: [0, 0, 0, 0],
      k: [3, 3],
      s: [2, 2],
    },
    {
      title: "AVG WHITE (divides by kh*kw), padding 1, ceil",
      type: 1,
      paddingType: 3,
      kind: "avg-white",
      pad: [1, 0, 1, 1],
      k: [2, 3],
      s: [2, 2],
    },
    {
      title: "AVG BLACK, stride larger than the kernel (k1 s3)",
      type: 1,
      paddingType: 0,
      kind: "avg-black",
      pad: [0, 0, 0, 0],
      k: [1, 1],
      s: [3, 3],
    },
  ];
  for (const c of poolCases) {
    it(`pooling2d: ${c.title}`, async () => {
      const got = await runOp(
        "pooling2d",
        {
          format: "NCHW",
          type: scalarI(c.type),
          padding_type: scalarI(c.paddingType),
          padding: pad8([
            [0, 0],
            [0, 0],
            [c.pad[0]!, c.pad[1]!],
            [c.pad[2]!, c.pad[3]!],
          ]),
          ksize: i32([4], [1, 1, ...c.k]),
          stride: i32([4], [1, 1, ...c.s]),
        },
        [{ name: "x", shape: shape4, data: x4 }],
      );
      const ref = refPool(x4, shape4, c.kind, c.pad, c.k, c.s);
      expect(got.dims).toEqual(ref.dims);
      expectClose(got.data, ref.data);
    });
  }

  it("pooling2d: hand-computed 1x1x3x3 MAX k2 s2 ceil -> 2x2 with clipped windows", async () => {
    const got = await runOp(
      "pooling2d",
      {
        format: "NCHW",
        type: scalarI(0),
        padding: pad8([
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 0],
        ]),
        ksize: i32([4], [1, 1, 2, 2]),
        stride: i32([4], [1, 1, 2, 2]),
      },
      [{ name: "x", shape: [1, 1, 3, 3], data: Float32Array.from([1, 5, 2, -1, 0, 7, 3, -4, -9]) }],
    );
    expect(got.dims).toEqual([1, 1, 2, 2]);
    expect(Array.from(got.data)).toEqual([5, 7, 3, -9]);
  });

  it("pooling2d: NHWC input", async () => {
    const got = await runOp(
      "pooling2d",
      {
        format: "NHWC",
        type: scalarI(1),
        padding: pad8([
          [0, 0],
          [1, 0],
          [0, 1],
          [0, 0],
        ]),
        ksize: i32([4], [1, 3, 2, 1]),
        stride: i32([4], [1, 2, 2, 1]),
      },
      [{ name: "x", shape: [2, 5, 7, 3], data: nchwToNhwc(x4, shape4) }],
    );
    const ref = refPool(x4, shape4, "avg-black", [1, 0, 0, 1], [3, 2], [2, 2]);
    expect(got.dims).toEqual([ref.dims[0], ref.dims[2], ref.dims[3], ref.dims[1]]);
    expectClose(got.data, nchwToNhwc(ref.data, ref.dims));
  });

  it("pooling2d_v2 + _onnx_pooling2d_padding (NOTSET): floor mode with the static padding", async () => {
    const nodes: TsmNodeInput[] = [
      { op: "<param>", name: "x", params: { "#shape": i32([4], shape4) } },
      { op: "<const>", name: "k", value: i32([4], [1, 1, 2, 2]) },
      { op: "<const>", name: "s", value: i32([4], [1, 1, 2, 2]) },
      {
        op: "_onnx_pooling2d_padding",
        name: "p",
        inputs: ["x", "k", "s"],
        params: {
          auto_pad: "NOTSET",
          padding: pad8([
            [0, 0],
            [0, 0],
            [0, 1],
            [0, 1],
          ]),
        },
      },
      {
        op: "pooling2d_v2",
        name: "y",
        inputs: ["x", "p", "k", "s"],
        params: { format: "NCHW", type: scalarI(0), padding_type: scalarI(0) },
      },
    ];
    const bytes = tsm.toOnnx(tsm.create({ nodes, inputs: ["x"], outputs: ["y"] }));
    const { outputs, messages } = await runOnnx(bytes, { x: new ort.Tensor("float32", x4, shape4) });
    expect(messages).toEqual([]);
    // TenniS: bottom = 1 - (5 + 0 + 1 - 2) % 2 = 1, right = 1 - (7 + 1 - 2) % 2 = 1 -> ceil((5+1-2)/2)+1 = 3, ceil((7+1-2)/2)+1 = 4
    const ref = refPool(x4, shape4, "max", [0, 1, 0, 1], [2, 2], [2, 2], false);
    expect(Array.from(outputs.y!.dims)).toEqual(ref.dims);
    expectClose(outputs.y!.data as Float32Array, ref.data);
  });

  it("pooling2d_v2 with a <const> padding: ceil mode", async () => {
    const got = await runOp(
      "pooling2d_v2",
      { format: "NCHW", type: scalarI(0) },
      [{ name: "x", shape: shape4, data: x4 }],
      [
        {
          name: "p",
          value: pad8([
            [0, 0],
            [0, 0],
            [0, 0],
            [1, 0],
          ]),
        },
        { name: "k", value: i32([4], [1, 1, 3, 3]) },
        { name: "s", value: i32([4], [1, 1, 2, 2]) },
      ],
    );
    const ref = refPool(x4, shape4, "max", [0, 0, 1, 0], [3, 3], [2, 2]);
    expect(got.dims).toEqual(ref.dims);
    expectClose(got.data, ref.data);
  });

  it("add_bias: dim 1 on NCHW, and format NHWC alone (channel = last)", async () => {
    const bias = [10, 20, 30];
    const a = await runOp(
      "add_bias",
      { dim: scalarI(1) },
      [{ name: "x", shape: shape4, data: x4 }],
      [{ name: "b", value: f32([3], bias) }],
    );
    expectClose(
      a.data,
      Array.from(x4, (v, i) => v + bias[Math.floor(i / 35) % 3]!),
    );
    const b = await runOp(
      "add_bias",
      { format: "NHWC" },
      [{ name: "x", shape: [2, 5, 7, 3], data: x4 }],
      [{ name: "b", value: f32([3], bias) }],
    );
    expectClose(
      b.data,
      Array.from(x4, (v, i) => v + bias[i % 3]!),
    );
  });

  it("prelu, relu, sigmoid, softmax(dim)", async () => {
    const slope = [0.1, -2, 0.5];
    const p = await runOp(
      "prelu",
      { dim: scalarI(1) },
      [{ name: "x", shape: shape4, data: x4 }],
      [{ name: "s", value: f32([3], slope) }],
    );
    expectClose(
      p.data,
      Array.from(x4, (v, i) => (v >= 0 ? v : v * slope[Math.floor(i / 35) % 3]!)),
    );
    const r = await runOp("relu", {}, [{ name: "x", shape: shape4, data: x4 }]);
    expectClose(
      r.data,
      Array.from(x4, (v) => Math.max(v, 0)),
    );
    const s = await runOp("sigmoid", {}, [{ name: "x", shape: shape4, data: x4 }]);
    expectClose(
      s.data,
      Array.from(x4, (v) => 1 / (1 + Math.exp(-v))),
    );
    const m = await runOp("softmax", { dim: scalarI(1), smooth: bool(true) }, [
      { name: "x", shape: [2, 3], data: Float32Array.from([1, 2, 3, 0, 0, Math.log(2)]) },
    ]);
    const e = Math.exp(1) + Math.exp(2) + Math.exp(3);
    expectClose(m.data, [Math.exp(1) / e, Math.exp(2) / e, Math.exp(3) / e, 0.25, 0.25, 0.5]);
  });

  it("inner_prod: 4-D lhs reshaped to [n, -1], with and without transpose", async () => {
    const lhs = iota(2 * 2 * 1 * 2, 1, 1); // [[1,2,3,4],[5,6,7,8]]
    const w = Float32Array.from([1, 0, 0, 1, 1, 1, 2, -1]); // [4, 2]
    const plain = await runOp(
      "inner_prod",
      { transpose: bool(false) },
      [{ name: "x", shape: [2, 2, 1, 2], data: lhs }],
      [{ name: "w", value: f32([4, 2], w) }],
    );
    expect(plain.dims).toEqual([2, 2]);
    expectClose(plain.data, [1 + 3 + 8, 2 + 3 - 4, 5 + 7 + 16, 6 + 7 - 8]);
    const transposed = await runOp(
      "inner_prod",
      { transpose: bool(true) },
      [{ name: "x", shape: [2, 4], data: lhs }],
      [{ name: "w", value: f32([2, 4], w) }],
    );
    expectClose(transposed.data, [1 + 4, 1 + 2 + 6 - 4, 5 + 8, 5 + 6 + 14 - 8]);
  });

  it("flatten: TenniS keeps the dims before `dim` ([N, C, H*W] for dim 2) and pads with 1s", async () => {
    const a = await runOp("flatten", { dim: scalarI(2) }, [{ name: "x", shape: shape4, data: x4 }]);
    expect(a.dims).toEqual([2, 3, 35]);
    expectClose(a.data, x4);
    const b = await runOp("flatten", { dim: scalarI(3) }, [{ name: "x", shape: [2, 3], data: iota(6) }]);
    expect(b.dims).toEqual([2, 3, 1, 1]);
    const c = await runOp("flatten", {}, [{ name: "x", shape: shape4, data: x4 }]);
    expect(c.dims).toEqual([2, 105]);
  });

  it("_reshape (0 keeps a dim, -1 inferred), _transpose, _copy, to_float (uint8)", async () => {
    const r = await runOp("_reshape", { shape: i32([3], [0, -1, 5]) }, [{ name: "x", shape: shape4, data: x4 }]);
    expect(r.dims).toEqual([2, 21, 5]);
    const t = await runOp("_transpose", { permute: i32([3], [2, 0, 1]) }, [
      { name: "x", shape: [2, 3, 4], data: iota(24) },
    ]);
    expect(t.dims).toEqual([4, 2, 3]);
    expect(Array.from(t.data).slice(0, 6)).toEqual([0, 4, 8, 12, 16, 20]);
    const lifted = await runOp("_transpose", { permute: i32([3], [2, 0, 1]) }, [
      { name: "x", shape: [2, 3], data: iota(6) },
    ]);
    // TenniS reads [2, 3] as [1, 2, 3] for a 3-axis permute
    expect(lifted.dims).toEqual([3, 1, 2]);
    expect(Array.from(lifted.data)).toEqual([0, 3, 1, 4, 2, 5]);
    const c = await runOp("_copy", {}, [{ name: "x", shape: [3], data: iota(3) }]);
    expect(Array.from(c.data)).toEqual([0, 1, 2]);
    const f = await runOp("to_float", {}, [
      { name: "x", dtype: "uint8", shape: [3], data: Uint8Array.from([0, 7, 255]) },
    ]);
    expect(f.data).toBeInstanceOf(Float32Array);
    expect(Array.from(f.data)).toEqual([0, 7, 255]);
  });

  it("_limit: dims over a positive limit are centre-cropped (odd excess: top gets the smaller half)", async () => {
    const got = await runOp("_limit", { shape: i32([2], [4, -1]) }, [{ name: "x", shape: [1, 7, 2], data: iota(14) }]);
    // rows 0..6, limit 4: excess 3, top = trunc(-3/2) = -1, bottom = -2 -> rows 1..4
    expect(got.dims).toEqual([1, 4, 2]);
    expect(Array.from(got.data)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const same = await runOp("_limit", { shape: i32([1], [9]) }, [{ name: "x", shape: [2, 3], data: iota(6) }]);
    expect(Array.from(same.data)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("add / sub / mul with broadcasting; add of 3 inputs becomes Sum", async () => {
    const a = iota(6);
    const add = await runOp(
      "add",
      {},
      [{ name: "x", shape: [2, 3], data: a }],
      [{ name: "c", value: f32([3], [10, 20, 30]) }],
    );
    expect(Array.from(add.data)).toEqual([10, 21, 32, 13, 24, 35]);
    const sub = await runOp(
      "sub",
      {},
      [{ name: "x", shape: [2, 3], data: a }],
      [{ name: "c", value: f32([2, 1], [1, 2]) }],
    );
    expect(Array.from(sub.data)).toEqual([-1, 0, 1, 1, 2, 3]);
    const mul = await runOp("mul", {}, [{ name: "x", shape: [2, 3], data: a }], [{ name: "c", value: scalarF(0.5) }]);
    expect(Array.from(mul.data)).toEqual([0, 0.5, 1, 1.5, 2, 2.5]);
    const sum = await runOp(
      "add",
      {},
      [
        { name: "x", shape: [3], data: Float32Array.from([1, 2, 3]) },
        { name: "z", shape: [3], data: Float32Array.from([10, 20, 30]) },
      ],
      [{ name: "c", value: f32([3], [100, 200, 300]) }],
    );
    expect(Array.from(sum.data)).toEqual([111, 222, 333]);
  });

  it("concat along a negative dim", async () => {
    const got = await runOp(
      "concat",
      { dim: scalarI(-1) },
      [{ name: "x", shape: [2, 1], data: Float32Array.from([1, 2]) }],
      [{ name: "c", value: f32([2, 2], [3, 4, 5, 6]) }],
    );
    expect(got.dims).toEqual([2, 3]);
    expect(Array.from(got.data)).toEqual([1, 3, 4, 2, 5, 6]);
  });

  it("crop_nd: pads up (zeros) and crops down around the centre, -1 keeps a dim; with shift", async () => {
    const grow = await runOp(
      "crop_nd",
      {},
      [{ name: "x", shape: [2, 3], data: iota(6, 1, 1) }],
      [{ name: "size", value: i32([2], [-1, 6]) }],
    );
    // width 3 -> 6: top = trunc(3/2) = 1, bottom 2
    expect(grow.dims).toEqual([2, 6]);
    expect(Array.from(grow.data)).toEqual([0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0]);
    const shrink = await runOp(
      "crop_nd",
      {},
      [{ name: "x", shape: [1, 6], data: iota(6) }],
      [{ name: "size", value: i32([2], [-1, 3]) }],
    );
    // 6 -> 3: d = -3, top = trunc(-3/2) = -1 -> columns 1..3
    expect(Array.from(shrink.data)).toEqual([1, 2, 3]);
    const shifted = await runOp(
      "crop_nd",
      { shift: i32([2], [0, 2]) },
      [{ name: "x", shape: [1, 6], data: iota(6) }],
      [{ name: "size", value: i32([2], [-1, 3]) }],
    );
    expect(Array.from(shifted.data)).toEqual([2, 3, 4]);
  });

  it("_resize2d LINEAR (half-pixel, clamped) up and down, NCHW; NHWC uint8 truncated", async () => {
    const src = randomNormal(5, 3 * 4);
    const up = await runOp(
      "_resize2d",
      { type: scalarI(0) },
      [{ name: "x", shape: [1, 1, 3, 4], data: src }],
      [{ name: "size", value: i32([4], [-1, -1, 5, 7]) }],
    );
    expect(up.dims).toEqual([1, 1, 5, 7]);
    expectClose(up.data, refResizeLinear(src, 3, 4, 5, 7), 1e-4);
    const down = await runOp(
      "_resize2d",
      { type: scalarI(0) },
      [{ name: "x", shape: [1, 1, 3, 4], data: src }],
      [{ name: "size", value: i32([4], [-1, -1, 2, 3]) }],
    );
    expectClose(down.data, refResizeLinear(src, 3, 4, 2, 3), 1e-4);
    const bytes = Uint8Array.from(range(12), (i) => (i * 37) % 256);
    const u8 = await runOp(
      "_resize2d",
      {},
      [{ name: "x", dtype: "uint8", shape: [1, 3, 4, 1], data: bytes }],
      [{ name: "size", value: i32([4], [-1, 5, 6, -1]) }],
    );
    expect(u8.dims).toEqual([1, 5, 6, 1]);
    // TenniS interpolates in double, ORT in float32: a truncated value may differ by 1 where the double result sits
    // just under an integer; everything else is equal
    const want = refResizeLinear(bytes, 3, 4, 5, 6, true);
    const off = Array.from(u8.data).filter((v, i) => v !== want[i]);
    expect(Array.from(u8.data).every((v, i) => Math.abs(v - want[i]!) <= 1)).toBe(true);
    expect(off.length).toBeLessThanOrEqual(2);
  });

  it("_resize2d NEAREST (half-pixel, round) and HARD (floor of x * in/out)", async () => {
    const src = iota(12);
    const nearest = await runOp(
      "_resize2d",
      { type: scalarI(2) },
      [{ name: "x", shape: [1, 1, 3, 4], data: src }],
      [{ name: "size", value: i32([4], [-1, -1, 2, 6]) }],
    );
    // rows: round((y + .5) * 1.5 - .5) = 1, 2 (0.25 -> 0? no: y=0: 0.25 -> 0; y=1: 1.75 -> 2); cols: (x+.5)*4/6-.5 = -.17,.5,1.17,1.83,2.5,3.17 -> 0,1,1,2,3,3
    expect(Array.from(nearest.data)).toEqual([0, 1, 1, 2, 3, 3, 8, 9, 9, 10, 11, 11]);
    const hard = await runOp(
      "_resize2d",
      { type: scalarI(3) },
      [{ name: "x", shape: [1, 1, 3, 4], data: src }],
      [{ name: "size", value: i32([4], [-1, -1, 2, 6]) }],
    );
    // rows floor(y * 1.5) = 0, 1; cols floor(x * 4/6) = 0,0,1,2,2,3
    expect(Array.from(hard.data)).toEqual([0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7]);
  });

  it("sample2d HARD x2: nearest-floor upsampling with TenniS's zero outer border (source index >= size-1)", async () => {
    const got = await runOp("sample2d", { scale: scalarF(2), type: scalarI(3), dim: scalarI(-2) }, [
      { name: "x", shape: [1, 1, 2, 3], data: iota(6, 1, 1) },
    ]);
    expect(got.dims).toEqual([1, 1, 4, 6]);
    // source rows 0,0,1,1 (1 = last -> 0); source cols 0,0,1,1,2,2 (2 = last -> 0)
    expect(Array.from(got.data)).toEqual([1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("sample2d NEAREST x1.5 on NHWC-like dims (dim 1, trailing channels)", async () => {
    const got = await runOp("sample2d", { scale: scalarF(1.5), type: scalarI(2), dim: scalarI(1) }, [
      { name: "x", shape: [1, 4, 4, 2], data: iota(32) },
    ]);
    expect(got.dims).toEqual([1, 6, 6, 2]);
    // source = floor(i / 1.5 + 0.5): 0,1,1,2,3,3 ; 3 = size-1 -> 0
    const src = [0, 1, 1, 2, 3, 3];
    const expected: number[] = [];
    for (let y = 0; y < 6; y++)
      for (let x = 0; x < 6; x++)
        for (let c = 0; c < 2; c++) {
          expected.push(src[y]! >= 3 || src[x]! >= 3 ? 0 : src[y]! * 8 + src[x]! * 2 + c);
        }
    expect(Array.from(got.data)).toEqual(expected);
  });

  it("batch_norm ((x - mean) / sqrt(var + eps)) and batch_scale (x * scale + bias) along dim 1", async () => {
    const x = iota(12, 0.5, -2);
    const bn = await runOp(
      "batch_norm",
      { dim: scalarI(1), epsilon: { dtype: "float64", shape: [], data: new Float64Array([0.01]) } },
      [{ name: "x", shape: [2, 3, 2], data: x }],
      [
        { name: "mean", value: f32([3], [1, 0, -1]) },
        { name: "var", value: f32([3], [4, 1, 0.25]) },
      ],
    );
    expectClose(
      bn.data,
      Array.from(x, (v, i) => {
        const c = Math.floor(i / 2) % 3;
        return (v - [1, 0, -1][c]!) / Math.sqrt([4, 1, 0.25][c]! + 0.01);
      }),
    );
    const bs = await runOp(
      "batch_scale",
      { dim: scalarI(1) },
      [{ name: "x", shape: [2, 3, 2], data: x }],
      [
        { name: "scale", value: f32([3], [2, -1, 0]) },
        { name: "bias", value: f32([3], [1, 1, 5]) },
      ],
    );
    expectClose(
      bs.data,
      Array.from(x, (v, i) => {
        const c = Math.floor(i / 2) % 3;
        return v * [2, -1, 0][c]! + [1, 1, 5][c]!;
      }),
    );
  });

  it("shape_index_patch: patches around landmarks, zero outside the map, [N, C, ph, L, pw]", async () => {
    const feat = iota(2 * 6 * 8, 1, 1); // N=1, C=2, H=6, W=8
    // origin 12x16, origin_patch 4x5 -> patch = int(4*6/12 + .5) = 2 (h), int(5*8/16 + .5) = 3 (w)
    // landmark 0 at (x .5, y .5): y0 = int(.5*5 - .5 + .5) = 2, x0 = int(.5*7 - 1 + .5) = 3
    // landmark 1 at (x 0, y 1): y0 = int(5 - .5 + .5) = 5 (row 6 outside), x0 = int(0 - 1 + .5) = int(-.5) = 0
    const got = await runOp("shape_index_patch", { origin_patch: i32([2], [4, 5]), origin: i32([2], [12, 16]) }, [
      { name: "x", shape: [1, 2, 6, 8], data: feat },
      { name: "pos", shape: [1, 4, 1, 1], data: Float32Array.from([0.5, 0.5, 0, 1]) },
    ]);
    expect(got.dims).toEqual([1, 2, 2, 2, 3]);
    const at = (c: number, y: number, x: number) =>
      y < 0 || y >= 6 || x < 0 || x >= 8 ? 0 : feat[(c * 6 + y) * 8 + x]!;
    const expected: number[] = [];
    const starts = [
      [2, 3],
      [5, 0],
    ];
    for (let c = 0; c < 2; c++)
      for (let ph = 0; ph < 2; ph++)
        for (let l = 0; l < 2; l++)
          for (let pw = 0; pw < 3; pw++) expected.push(at(c, starts[l]![0]! + ph, starts[l]![1]! + pw));
    expect(Array.from(got.data)).toEqual(expected);
  });

  it("yolo + yolo_poster: sigmoid of x, y, obj, classes; darknet boxes; per-class NMS; detection then class order", async () => {
    // one yolo layer, 2 anchors (mask 0,1), 2 classes, 1x2 grid, net input 1x3x4x8
    const logit = (p: number) => Math.log(p / (1 - p));
    const entries = 7;
    const map = new Float32Array(2 * entries * 2);
    const set = (a: number, e: number, loc: number, v: number) => {
      map[(a * entries + e) * 2 + loc] = v;
    };
    // anchor 0 at loc 0: strong box, class 0 and class 1 both > thresh
    for (const [e, v] of [
      [0, logit(0.5)],
      [1, logit(0.5)],
      [2, 0],
      [3, 0],
      [4, logit(0.9)],
      [5, logit(0.9)],
      [6, logit(0.7)],
    ] as const)
      set(0, e, 0, v);
    // anchor 1 at loc 0: same place, weaker class 0 -> suppressed by NMS for class 0
    for (const [e, v] of [
      [0, logit(0.5)],
      [1, logit(0.5)],
      [2, 0],
      [3, 0],
      [4, logit(0.8)],
      [5, logit(0.8)],
      [6, logit(0.1)],
    ] as const)
      set(1, e, 0, v);
    // anchor 0 at loc 1: objectness below thresh -> dropped
    set(0, 4, 1, logit(0.3));
    set(1, 4, 1, logit(0.05));
    const nodes: TsmNodeInput[] = [
      { op: "<param>", name: "net", params: { "#shape": i32([4], [1, 3, 4, 8]) } },
      { op: "<param>", name: "m", params: { "#shape": i32([4], [1, 14, 1, 2]) } },
      {
        op: "yolo",
        name: "l",
        inputs: ["m"],
        params: { classes: scalarI(2), mask: i32([2], [0, 1]), anchors: f32([4], [4, 2, 8, 4]) },
      },
      { op: "yolo_poster", name: "y", inputs: ["net", "l"], params: { thresh: scalarF(0.5), nms: scalarF(0.45) } },
    ];
    const bytes = tsm.toOnnx(tsm.create({ nodes, inputs: ["net", "m"], outputs: ["y"] }));
    const { outputs, messages } = await runOnnx(bytes, {
      net: new ort.Tensor("float32", new Float32Array(96), [1, 3, 4, 8]),
      m: new ort.Tensor("float32", map, [1, 14, 1, 2]),
    });
    expect(messages).toEqual([]);
    // anchor 0 box: centre ((0 + .5)/2, (0 + .5)/1) = (.25, .5), w = 4/8 = .5, h = 2/4 = .5 -> [0, .25, .5, .5]
    // anchor 1 box: w = 8/8 = 1, h = 4/4 = 1 -> clamped [0, 0, .75, 1] (centre .375, .5) ; IoU with box 0 = .25/.75 = 1/3 < .45: kept
    const y = outputs.y!;
    expect(Array.from(y.dims)).toEqual([3, 6]);
    expectClose(y.data as Float32Array, [
      0,
      0.25,
      0.5,
      0.5,
      0.9 * 0.9,
      0,
      0,
      0.25,
      0.5,
      0.5,
      0.9 * 0.7,
      1,
      0,
      0,
      0.75,
      1,
      0.8 * 0.8,
      0,
    ]);
  });

  it("yolo_poster: NMS suppresses a same-class box with IoU > nms", async () => {
    const logit = (p: number) => Math.log(p / (1 - p));
    const map = new Float32Array(2 * 6 * 1);
    // 1 class, 2 anchors with nearly equal sizes at the same place
    const put = (a: number, values: number[]) =>
      values.forEach((v, e) => {
        map[a * 6 + e] = v;
      });
    put(0, [0, 0, 0, 0, logit(0.9), logit(0.9)]);
    put(1, [0, 0, 0, 0, logit(0.95), logit(0.6)]);
    const nodes: TsmNodeInput[] = [
      { op: "<param>", name: "net", params: { "#shape": i32([4], [1, 3, 8, 8]) } },
      { op: "<param>", name: "m", params: { "#shape": i32([4], [1, 12, 1, 1]) } },
      {
        op: "yolo",
        name: "l",
        inputs: ["m"],
        params: { classes: scalarI(1), mask: i32([2], [0, 1]), anchors: f32([4], [4, 4, 4.4, 4.4]) },
      },
      { op: "yolo_poster", name: "y", inputs: ["net", "l"], params: { thresh: scalarF(0.5), nms: scalarF(0.45) } },
    ];
    const bytes = tsm.toOnnx(tsm.create({ nodes, inputs: ["net", "m"], outputs: ["y"] }));
    const { outputs } = await runOnnx(bytes, {
      net: new ort.Tensor("float32", new Float32Array(192), [1, 3, 8, 8]),
      m: new ort.Tensor("float32", map, [1, 12, 1, 1]),
    });
    expect(Array.from(outputs.y!.dims)).toEqual([1, 6]);
    expectClose(outputs.y!.data as Float32Array, [0.25, 0.25, 0.5, 0.5, 0.81, 0]);
  });
});

describe("tsm.toOnnx refuses what it cannot express exactly (nothing is returned)", () => {
  const x = { op: "<param>", name: "x", params: { "#shape": i32([4], [1, 1, 4, 4]) } };

  it("lists every unsupported op with the names of the nodes using it", () => {
    const module = tsm.create({
      nodes: [
        x,
        { op: "gemm", name: "g1", inputs: ["x"] },
        { op: "gemm", name: "g2", inputs: ["g1"] },
        { op: "abs", name: "a", inputs: ["x"] },
        { op: "add", name: "y", inputs: ["g2", "a"] },
      ],
      inputs: ["x"],
      outputs: ["y"],
    });
    let error: unknown;
    try {
      tsm.toOnnx(module);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(tsm.TsmOnnxUnsupportedError);
    const blockers = (error as tsm.TsmOnnxUnsupportedError).blockers;
    expect(blockers.map((b) => [b.op, b.nodes])).toEqual([
      ["gemm", ["g1"]],
      ["abs", ["a"]],
    ]);
    expect((error as Error).message).toMatch(
      /gemm \(op not supported; used by "g1"\); abs \(op not supported; used by "a"\)/,
    );
    expect(tsm.onnxSupport(module)).toEqual({ convertible: false, blockers });
  });

  it("refuses supported ops with inexpressible attributes, naming the reason", () => {
    const cases: [TsmNodeInput, RegExp][] = [
      [
        {
          op: "conv2d",
          name: "y",
          inputs: ["x", "w"],
          params: {
            format: "NCHW",
            padding: pad8([
              [0, 0],
              [0, 0],
              [1, 1],
              [1, 1],
            ]),
            stride: i32([4], [1, 1, 1, 1]),
            dilation: i32([4], [1, 1, 1, 1]),
            padding_value: scalarF(1),
          },
        },
        /padding_value/,
      ],
      [
        {
          op: "conv2d",
          name: "y",
          inputs: ["x", "w"],
          params: {
            format: "NCHW",
            padding: pad8([
              [0, 0],
              [0, 0],
              [1, 1],
              [1, 1],
            ]),
            stride: i32([4], [1, 1, 1, 1]),
          },
        },
        /missing attribute dilation/,
      ],
      [{ op: "softmax", name: "y", inputs: ["x"] }, /missing attribute dim/],
      [{ op: "_transpose", name: "y", inputs: ["x"] }, /missing attribute permute/],
      [
        { op: "_transpose", name: "y", inputs: ["x"], params: { permute: i32([4], [0, 1, 1, 3]) } },
        /not a permutation/,
      ],
      [{ op: "add_bias", name: "y", inputs: ["x", "w"] }, /neither dim nor format/],
      [{ op: "_resize2d", name: "y", inputs: ["x", "size"], params: { type: scalarI(1) } }, /CUBIC/],
      [
        {
          op: "pooling2d",
          name: "y",
          inputs: ["x"],
          params: {
            format: "NCHW",
            type: scalarI(0),
            padding_type: scalarI(1),
            padding: pad8([
              [0, 0],
              [0, 0],
              [0, 0],
              [0, 0],
            ]),
            ksize: i32([4], [1, 1, 2, 2]),
            stride: i32([4], [1, 1, 2, 2]),
          },
        },
        /padding_type 1/,
      ],
      [{ op: "sample2d", name: "y", inputs: ["x"], params: { scale: scalarF(2), type: scalarI(0) } }, /sample type 0/],
      [{ op: "sub", name: "y", inputs: ["x", "x", "x"] }, /takes 2 inputs/],
    ];
    for (const [node, reason] of cases) {
      const module = tsm.create({
        nodes: [
          x,
          { op: "<const>", name: "w", value: f32([1, 1, 1, 1], [1]) },
          { op: "<const>", name: "size", value: i32([4], [-1, -1, 8, 8]) },
          node,
        ],
        inputs: ["x"],
        outputs: ["y"],
      });
      expect(() => tsm.toOnnx(module), node.op).toThrow(reason);
      expect(tsm.onnxSupport(module).convertible).toBe(false);
    }
  });

  it("refuses yolo_poster when the network input does not declare batch 1", () => {
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "net" },
        {
          op: "yolo",
          name: "l",
          inputs: ["net"],
          params: { classes: scalarI(1), mask: i32([1], [0]), anchors: f32([2], [1, 1]) },
        },
        { op: "yolo_poster", name: "y", inputs: ["net", "l"], params: { thresh: scalarF(0.5), nms: scalarF(0.45) } },
      ],
      inputs: ["net"],
      outputs: ["y"],
    });
    expect(() => tsm.toOnnx(module)).toThrow(/batch 1/);
  });

  it("converts the modules the fixtures hold (onnxSupport says so) and refuses none of the supported-op list", () => {
    expect(tsm.ONNX_SUPPORTED_OPS).toEqual(
      expect.arrayContaining([
        "<param>",
        "<const>",
        "conv2d",
        "shape_index_patch",
        "yolo_poster",
        "_onnx_pooling2d_padding",
      ]),
    );
    expect(tsm.ONNX_SUPPORTED_OPS.length).toBe(30);
  });
});

describe("tsm.toOnnx on hostile and odd modules", () => {
  const header = { fake: 0, code: tsm.MODULE_CODE, reserved: new Uint8Array(120) };
  const one = (op: string, name: string, params: Record<string, TsmFieldInput> = {}) =>
    tsm.create({ nodes: [{ op, name, params }], inputs: [], outputs: [] }).nodes[0]!;

  it("nodes sharing one name (TenniS allows it) get unique ONNX node and value names; the output keeps the name", async () => {
    const module = {
      header,
      inputs: [0],
      outputs: [2],
      nodes: [
        one("<param>", "n", { "#shape": i32([1], [2]) }),
        { ...one("relu", "n"), inputs: [0] },
        { ...one("sigmoid", "n"), inputs: [1] },
      ],
    };
    const bytes = tsm.toOnnx(tsm.read(tsm.write(module)));
    const { outputs, messages } = await runOnnx(bytes, {
      n: new ort.Tensor("float32", Float32Array.from([-1, 2]), [2]),
    });
    expect(messages).toEqual([]);
    const [name] = Object.keys(outputs);
    expect(name).toMatch(/^n(:\d+)?$/);
    expectClose(outputs[name!]!.data as Float32Array, [0.5, 1 / (1 + Math.exp(-2))]);
  });

  it("a graph output that is the input itself, or a <const>", async () => {
    const passthrough = tsm.create({
      nodes: [{ op: "<param>", name: "x", params: { "#shape": i32([1], [2]) } }],
      inputs: ["x"],
      outputs: ["x"],
    });
    const a = await runOnnx(tsm.toOnnx(passthrough), { x: new ort.Tensor("float32", Float32Array.from([1, 2]), [2]) });
    expect(Array.from(a.outputs.x!.data as Float32Array)).toEqual([1, 2]);
    const constant = tsm.create({
      nodes: [
        { op: "<param>", name: "x" },
        { op: "<const>", name: "c", value: f32([1], [3]) },
      ],
      inputs: ["x"],
      outputs: ["c"],
    });
    const b = await runOnnx(tsm.toOnnx(constant), {});
    expect(Array.from(b.outputs.c!.data as Float32Array)).toEqual([3]);
  });

  it("a declared dim of -1 becomes an unnamed ONNX dim (any size runs)", async () => {
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "x", params: { "#shape": i32([2], [-1, 2]) } },
        { op: "relu", name: "y", inputs: ["x"] },
      ],
      inputs: ["x"],
      outputs: ["y"],
    });
    const { outputs } = await runOnnx(tsm.toOnnx(module), {
      x: new ort.Tensor("float32", Float32Array.from([-1, 1, 2, -2, 3, 3]), [3, 2]),
    });
    expect(Array.from(outputs.y!.data as Float32Array)).toEqual([0, 1, 2, 0, 3, 3]);
  });

  it("absurd settings are refused, not attempted (huge kernels, huge flatten dims, non-integer shapes, NaN)", () => {
    const x = { op: "<param>", name: "x", params: { "#shape": i32([4], [1, 1, 4, 4]) } };
    const cases: [TsmNodeInput, RegExp][] = [
      [
        {
          op: "pooling2d",
          name: "y",
          inputs: ["x"],
          params: {
            format: "NCHW",
            type: scalarI(1),
            padding: pad8([
              [0, 0],
              [0, 0],
              [1, 0],
              [0, 0],
            ]),
            ksize: i32([4], [1, 1, 100000, 100000]),
            stride: i32([4], [1, 1, 1, 1]),
          },
        },
        /kernel/,
      ],
      [{ op: "flatten", name: "y", inputs: ["x"], params: { dim: scalarI(2 ** 30) } }, /dim is out of range/],
      [
        { op: "_reshape", name: "y", inputs: ["x"], params: { shape: f32([2], [1.5, Number.NaN]) } },
        /out of range \(NaN\)/,
      ],
      [
        {
          op: "_reshape",
          name: "y",
          inputs: ["x"],
          params: { shape: { dtype: "int64", shape: [1], data: BigInt64Array.from([2n ** 60n]) } },
        },
        /out of range/,
      ],
    ];
    for (const [node, reason] of cases) {
      const module = tsm.create({ nodes: [x, node], inputs: ["x"], outputs: ["y"] });
      expect(() => tsm.toOnnx(module), node.op).toThrow(reason);
    }
    // TenniS truncates a float setting to int32 (tensor::cast): so does the converter
    const truncated = tsm.create({
      nodes: [x, { op: "_reshape", name: "y", inputs: ["x"], params: { shape: f32([2], [1.9, -1]) } }],
      inputs: ["x"],
      outputs: ["y"],
    });
    expect(tsm.onnxSupport(truncated).convertible).toBe(true);
  });

  it("a cycle is refused as an UnsupportedError (a FormatError), not a stack overflow", () => {
    const module = {
      header,
      inputs: [],
      outputs: [0],
      nodes: [
        { ...one("relu", "r1"), inputs: [1] },
        { ...one("relu", "r2"), inputs: [0] },
      ],
    };
    expect(() => tsm.toOnnx(module)).toThrow(/cycle/);
    expect(tsm.onnxSupport(module).convertible).toBe(false);
  });

  it("a deep chain (20,000 nodes) converts without recursion limits", () => {
    const nodes: TsmNodeInput[] = [{ op: "<param>", name: "x", params: { "#shape": i32([1], [1]) } }];
    for (let i = 0; i < 20_000; i++) nodes.push({ op: "relu", name: `r${i}`, inputs: [i === 0 ? "x" : `r${i - 1}`] });
    const bytes = tsm.toOnnx(tsm.create({ nodes, inputs: ["x"], outputs: ["r19999"] }));
    expect(bytes.length).toBeGreaterThan(20_000 * 8);
  });

  it("reads from a Node Buffer at an odd byte offset give the same ONNX", () => {
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "x", params: { "#shape": i32([2], [1, 3]) } },
        { op: "<const>", name: "w", value: f32([3, 2], [1, 2, 3, 4, 5, 6]) },
        { op: "inner_prod", name: "y", inputs: ["x", "w"] },
      ],
      inputs: ["x"],
      outputs: ["y"],
    });
    const bytes = tsm.write(module);
    const odd = Buffer.alloc(bytes.length + 3);
    odd.set(bytes, 3);
    const fromOdd = tsm.toOnnx(tsm.read(odd.subarray(3)));
    expect(Buffer.from(fromOdd).equals(Buffer.from(tsm.toOnnx(tsm.read(bytes))))).toBe(true);
  });

  it("a readFrom() result (weights not loaded) is refused with a reason naming read()", async () => {
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "x", params: { "#shape": i32([2], [1, 3]) } },
        { op: "<const>", name: "w", value: f32([3, 2], [1, 2, 3, 4, 5, 6]) },
        { op: "inner_prod", name: "y", inputs: ["x", "w"] },
      ],
      inputs: ["x"],
      outputs: ["y"],
    });
    const lazy = await tsm.readFrom(fromBytes(tsm.write(module)));
    expect(() => tsm.toOnnx(lazy)).toThrow(/not loaded \(use read\(\), not readFrom\(\)\)/);
  });
});

describe("pooling2d property: any kernel/stride/padding/type against the TenniS reference (fast-check)", () => {
  it("matches refPool for random MAX/AVG BLACK/AVG WHITE poolings", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          h: fc.integer({ min: 1, max: 9 }),
          w: fc.integer({ min: 1, max: 9 }),
          kh: fc.integer({ min: 1, max: 4 }),
          kw: fc.integer({ min: 1, max: 4 }),
          sh: fc.integer({ min: 1, max: 4 }),
          sw: fc.integer({ min: 1, max: 4 }),
          pads: fc.tuple(
            fc.integer({ min: 0, max: 2 }),
            fc.integer({ min: 0, max: 2 }),
            fc.integer({ min: 0, max: 2 }),
            fc.integer({ min: 0, max: 2 }),
          ),
          kind: fc.constantFrom("max" as const, "avg-black" as const, "avg-white" as const),
          seed: fc.integer({ min: 1, max: 1000 }),
        }),
        async ({ h, w, kh, kw, sh, sw, pads, kind, seed }) => {
          // TenniS needs the first window to start inside the image (and windows to exist)
          fc.pre(h + pads[0] + pads[1] >= kh && w + pads[2] + pads[3] >= kw && pads[0] < kh && pads[2] < kw);
          const shape = [1, 2, h, w];
          const x = randomNormal(seed, 2 * h * w);
          const ref = refPool(x, shape, kind, pads, [kh, kw], [sh, sw]);
          // a window entirely in the bottom/right padding has no pixel: TenniS reads outside the image there
          fc.pre((ref.dims[2]! - 1) * sh - pads[0] < h && (ref.dims[3]! - 1) * sw - pads[2] < w);
          const got = await runOp(
            "pooling2d",
            {
              format: "NCHW",
              type: scalarI(kind === "max" ? 0 : 1),
              padding_type: scalarI(kind === "avg-white" ? 3 : 0),
              padding: pad8([
                [0, 0],
                [0, 0],
                [pads[0], pads[1]],
                [pads[2], pads[3]],
              ]),
              ksize: i32([4], [1, 1, kh, kw]),
              stride: i32([4], [1, 1, sh, sw]),
            },
            [{ name: "x", shape, data: x }],
          );
          expect(got.dims).toEqual(ref.dims);
          expectClose(got.data, ref.data);
        },
      ),
      { numRuns: 40, seed: 25 },
    );
  }, 120_000);
});

describe("tsm.toOnnx never fails with anything but a refusal (fast-check over random graphs of the supported ops)", () => {
  const OPS = tsm.ONNX_SUPPORTED_OPS.filter((op) => op !== "<param>" && op !== "<const>");
  const fieldArb: fc.Arbitrary<TsmFieldInput> = fc.oneof(
    fc.constantFrom("NCHW", "NHWC", "NOTSET", "SAME_UPPER", "", "x"),
    fc.array(fc.integer({ min: -3, max: 5 }), { minLength: 0, maxLength: 8 }).map((v) => i32([v.length], v)),
    fc.integer({ min: -3, max: 5 }).map((v) => scalarI(v)),
    fc.double({ min: -2, max: 2, noNaN: true }).map((v) => scalarF(v)),
    fc.array(fc.integer({ min: -2, max: 3 }), { minLength: 8, maxLength: 8 }).map((v) => i32([4, 2], v)),
    fc.constant({ dtype: "void" as const, shape: [], data: new Uint8Array(0) }),
  );
  const KEYS = [
    "format",
    "padding",
    "stride",
    "ksize",
    "dilation",
    "dim",
    "type",
    "padding_type",
    "shape",
    "permute",
    "scale",
    "transpose",
    "epsilon",
    "origin",
    "origin_patch",
    "classes",
    "mask",
    "anchors",
    "thresh",
    "nms",
    "auto_pad",
    "shift",
    "padding_value",
  ];
  let converted = 0;
  it("converts or throws an UnsupportedError (TsmOnnxUnsupportedError for op refusals), nothing else", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            op: fc.constantFrom(...OPS),
            inputs: fc.array(fc.nat(), { minLength: 0, maxLength: 4 }),
            params: fc.dictionary(fc.constantFrom(...KEYS), fieldArb, { maxKeys: 5 }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 0, maxLength: 4 }),
        (ops, shape) => {
          const nodes: TsmNodeInput[] = [
            { op: "<param>", name: "x", params: shape.length ? { "#shape": i32([shape.length], shape) } : {} },
            { op: "<const>", name: "k", value: i32([4], [1, 1, 2, 2]) },
            { op: "<const>", name: "f", value: f32([3], [1, 2, 3]) },
          ];
          ops.forEach((o, i) =>
            nodes.push({ op: o.op, name: `n${i}`, inputs: o.inputs.map((j) => j % nodes.length), params: o.params }),
          );
          const module = tsm.create({ nodes, inputs: ["x"], outputs: [nodes.length - 1] });
          try {
            const bytes = tsm.toOnnx(module);
            expect(bytes.length).toBeGreaterThan(0);
            converted++;
          } catch (e) {
            if (!(e instanceof tsm.TsmOnnxUnsupportedError) && !((e as { name?: string }).name === "UnsupportedError"))
              throw e;
          }
          expect(typeof tsm.onnxSupport(module).convertible).toBe("boolean");
        },
      ),
      { numRuns: 400, seed: 2511 },
    );
    // the generator reaches both sides
    expect(converted).toBeGreaterThan(10);
    expect(converted).toBeLessThan(400);
  });
});

describe("padded average pooling: the ONNX does not grow with the kernel size an attribute names", () => {
  /** `count` padded AVG pooling2d nodes over one 1x2x5x5 input, each a module output, kernels from `kernels`. */
  function manyPools(
    count: number,
    kernels: [number, number][],
  ): { module: tsm.TsmModule; cases: { kind: "avg-black" | "avg-white"; pad: number[]; k: number[]; s: number[] }[] } {
    const cases = range(count).map((i) => {
      const [kh, kw] = kernels[i % kernels.length]!;
      // TenniS needs the first window to start inside the image: top/left padding below the kernel
      const pad = [i % kh, (i >> 1) % 3, (i >> 2) % kw, i % 2];
      return {
        kind: i % 2 === 0 ? ("avg-black" as const) : ("avg-white" as const),
        pad,
        k: [kh, kw],
        s: [1 + (i % 3), 1 + ((i >> 1) % 2)],
      };
    });
    const nodes: TsmNodeInput[] = [
      {
        op: "<param>",
        name: "x",
        params: { "#shape": i32([4], [1, 2, 5, 5]), "#dtype": scalarI(dtypeCode("float32")) },
      },
      ...cases.map((c, i) => ({
        op: "pooling2d",
        name: `p${i}`,
        inputs: ["x"],
        params: {
          format: "NCHW",
          type: scalarI(1),
          padding_type: scalarI(c.kind === "avg-white" ? 3 : 0),
          padding: pad8([
            [0, 0],
            [0, 0],
            [c.pad[0]!, c.pad[1]!],
            [c.pad[2]!, c.pad[3]!],
          ]),
          ksize: i32([4], [1, 1, ...c.k]),
          stride: i32([4], [1, 1, ...c.s]),
        },
      })),
    ];
    return { module: tsm.create({ nodes, inputs: ["x"], outputs: cases.map((_, i) => `p${i}`) }), cases };
  }

  it("400 nodes with 256x256 kernels: the ONNX is a few times the .tsm, not 400 stored kernels", () => {
    const { module } = manyPools(400, [
      [256, 256],
      [256, 255],
    ]);
    const moduleBytes = tsm.write(module).length;
    const onnx = tsm.toOnnx(module);
    // (a stored float32 ones kernel per node was 256 KiB each: 100 MiB)
    expect(onnx.length).toBeLessThan(4 * moduleBytes + 65_536);
    expect(tsm.onnxSupport(module).convertible).toBe(true);
  });

  it("400 nodes sharing a few kernel shapes still match the TenniS reference in onnxruntime-web", async () => {
    const { module, cases } = manyPools(400, [
      [3, 3],
      [2, 3],
      [3, 2],
      [4, 4],
    ]);
    const x = randomNormal(7, 2 * 5 * 5);
    const { outputs, messages } = await runOnnx(tsm.toOnnx(module), { x: new ort.Tensor("float32", x, [1, 2, 5, 5]) });
    expect(messages).toEqual([]);
    cases.forEach((c, i) => {
      const ref = refPool(x, [1, 2, 5, 5], c.kind, c.pad, c.k, c.s);
      const got = outputs[`p${i}`]!;
      expect(Array.from(got.dims)).toEqual(ref.dims);
      expectClose(got.data as Float32Array, ref.data);
    });
  }, 120_000);
});
