/**
 * primitiv test builders:
 *  - `fixtureObjects`: every reference fixture rebuilt from scratch (values from PROVENANCE.md) with the public
 *    make* helpers, to prove our writer emits primitiv's exact bytes;
 *  - `mp`: a tiny hand-rolled MessagePack byte builder (independent of the module's codec) for crafting
 *    malformed and non-canonical files;
 *  - `randomFile`: seeded random objects of every data type;
 *  - `virtualModel`: the metadata pieces of a huge Model file for sparseSource.
 */
import * as primitiv from "../../bindings/formats/primitiv.js";
import { rng, randomNormal } from "./rng.js";

const { makeModel, makeOptimizer, makeParameter, makeShape, makeTensor } = primitiv;

/** Row-major values of a 2-D [rows, cols] tensor from a function of the column-major storage index. */
function fromStorageIndex(rows: number, cols: number, f: (i: number) => number): number[] {
  const out: number[] = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out.push(f(r + rows * c));
  return out;
}

/**
 * The objects primitiv wrote into each fixture, built from the numbers in PROVENANCE.md (all but the two
 * trained model_xor_adam files, whose values PROVENANCE gives only as hashes).
 */
export function fixtureObjects(): Record<string, primitiv.PrimitivFile> {
  const value3x4 = () =>
    makeTensor(
      [3, 4],
      fromStorageIndex(3, 4, (i) => 0.25 * i - 1.5),
    );
  const tensor2x2b3: number[] = [];
  for (let b = 0; b < 3; b++)
    for (let r = 0; r < 2; r++) for (let c = 0; c < 2; c++) tensor2x2b3.push(0.5 * (4 * b + r + 2 * c) - 1);
  const opt = (uint: Record<string, number>, float: [string, number][]): primitiv.PrimitivFile => ({
    dataType: "optimizer",
    optimizer: makeOptimizer(uint, float),
  });
  return {
    "shape_scalar.shape": { dataType: "shape", shape: makeShape([]) },
    "shape_2x3x4.shape": { dataType: "shape", shape: makeShape([2, 3, 4]) },
    "shape_5x1x7_b3.shape": { dataType: "shape", shape: makeShape([5, 1, 7, 1], 3) },
    "tensor_scalar.tensor": { dataType: "tensor", tensor: makeTensor([], [3.25]) },
    "tensor_2x3.tensor": {
      dataType: "tensor",
      tensor: makeTensor(
        [2, 3],
        fromStorageIndex(2, 3, (i) => i),
      ),
    },
    "tensor_2x2_b3.tensor": { dataType: "tensor", tensor: makeTensor([2, 2], tensor2x2b3, 3) },
    "tensor_16x20.tensor": {
      dataType: "tensor",
      tensor: makeTensor(
        [16, 20],
        fromStorageIndex(16, 20, (i) => 0.125 * i - 20),
      ),
    },
    "param_2x2.param": {
      dataType: "parameter",
      parameter: makeParameter(
        makeTensor(
          [2, 2],
          fromStorageIndex(2, 2, (i) => i + 1),
        ),
      ),
    },
    "param_3x4_stats.param": {
      dataType: "parameter",
      parameter: makeParameter(value3x4(), [
        ["scalar_stat", makeTensor([], [42])],
        [
          "a",
          makeTensor(
            [3, 4],
            fromStorageIndex(3, 4, (i) => 0 - i),
          ),
        ], // +0.0 first, as in the file
      ]),
    },
    "param_3x4_nostats.param": { dataType: "parameter", parameter: makeParameter(value3x4()) },
    "param_128x129.param": {
      dataType: "parameter",
      // float v = i * 0.001f - 8.0f, evaluated in float32
      parameter: makeParameter(
        makeTensor(
          [128, 129],
          fromStorageIndex(128, 129, (i) => Math.fround(Math.fround(i * Math.fround(0.001)) - 8)),
        ),
      ),
    },
    "model_names.model": {
      dataType: "model",
      // given out of order: makeModel sorts them as primitiv's std::map does
      model: makeModel([
        [["重み"], makeParameter(makeTensor([2], [0.5, -0.5]))],
        [["x".repeat(300)], makeParameter(makeTensor([], [2]))],
        [[...Array.from({ length: 16 }, (_, i) => `d${i}`), "leaf"], makeParameter(makeTensor([3], [7, 8, 9]))],
        [["a_parameter_name_longer_than_31_bytes"], makeParameter(makeTensor([], [1]))],
      ]),
    },
    "optimizer_sgd.optimizer": opt({ "Optimizer.epoch": 7 }, [
      ["SGD.eta", 0.5],
      ["Optimizer.clip_threshold", 0],
      ["Optimizer.l2_strength", 0],
      ["Optimizer.lr_scale", 1],
    ]),
    "optimizer_momentumsgd.optimizer": opt({ "Optimizer.epoch": 0 }, [
      ["MomentumSGD.momentum", 0.8],
      ["MomentumSGD.eta", 0.02],
      ["Optimizer.clip_threshold", 0],
      ["Optimizer.l2_strength", 1e-4],
      ["Optimizer.lr_scale", 1],
    ]),
    "optimizer_adagrad.optimizer": opt({ "Optimizer.epoch": 0 }, [
      ["Optimizer.clip_threshold", 0],
      ["Optimizer.l2_strength", 0],
      ["AdaGrad.eps", 1e-8],
      ["AdaGrad.eta", 0.001],
      ["Optimizer.lr_scale", 1],
    ]),
    "optimizer_rmsprop.optimizer": opt({ "Optimizer.epoch": 0 }, [
      ["RMSProp.eps", 1e-8],
      ["RMSProp.eta", 0.01],
      ["Optimizer.clip_threshold", 5],
      ["Optimizer.l2_strength", 0],
      ["RMSProp.alpha", 0.9],
      ["Optimizer.lr_scale", 1],
    ]),
    "optimizer_adadelta.optimizer": opt({ "Optimizer.epoch": 0 }, [
      ["AdaDelta.eps", 1e-6],
      ["AdaDelta.rho", 0.95],
      ["Optimizer.clip_threshold", 0],
      ["Optimizer.l2_strength", 0],
      ["Optimizer.lr_scale", 0.5],
    ]),
    "optimizer_adam.optimizer": opt({ "Optimizer.epoch": 3 }, [
      ["Adam.beta2", 0.999],
      ["Adam.beta1", 0.9],
      ["Optimizer.clip_threshold", 0],
      ["Adam.eps", 1e-8],
      ["Adam.alpha", 0.001],
      ["Optimizer.l2_strength", 0],
      ["Optimizer.lr_scale", 1],
    ]),
  };
}

// ---------------------------------------------------------------------------------------------------------
// hand-rolled MessagePack bytes (written from the MessagePack spec, not from the module)

function be(value: number, bytes: number): number[] {
  const out: number[] = [];
  for (let i = bytes - 1; i >= 0; i--) out.push(Math.floor(value / 2 ** (8 * i)) & 0xff);
  return out;
}

export const mp = {
  /** uint32 in primitiv's form. */
  u32: (v: number) => [0xce, ...be(v, 4)],
  f32: (v: number) => {
    const view = new DataView(new ArrayBuffer(4));
    view.setFloat32(0, v);
    return [0xca, ...new Uint8Array(view.buffer)];
  },
  /** str in the given length form (default the smallest). */
  str: (text: string, form?: "fix" | "8" | "16" | "32") => {
    const bytes = [...new TextEncoder().encode(text)];
    const n = bytes.length;
    const f = form ?? (n < 32 ? "fix" : n < 256 ? "8" : n < 65536 ? "16" : "32");
    const head =
      f === "fix" ? [0xa0 | n] : f === "8" ? [0xd9, n] : f === "16" ? [0xda, ...be(n, 2)] : [0xdb, ...be(n, 4)];
    return [...head, ...bytes];
  },
  rawStr: (bytes: number[]) => [0xa0 | bytes.length, ...bytes],
  bin: (bytes: ArrayLike<number>, form?: "8" | "16" | "32") => {
    const n = bytes.length;
    const f = form ?? (n < 256 ? "8" : n < 65536 ? "16" : "32");
    const head = f === "8" ? [0xc4, n] : f === "16" ? [0xc5, ...be(n, 2)] : [0xc6, ...be(n, 4)];
    return [...head, ...Array.from(bytes)];
  },
  array: (count: number, form?: "fix" | "16" | "32") => {
    const f = form ?? (count < 16 ? "fix" : count < 65536 ? "16" : "32");
    return f === "fix" ? [0x90 | count] : f === "16" ? [0xdc, ...be(count, 2)] : [0xdd, ...be(count, 4)];
  },
  map: (count: number, form?: "fix" | "16" | "32") => {
    const f = form ?? (count < 16 ? "fix" : count < 65536 ? "16" : "32");
    return f === "fix" ? [0x80 | count] : f === "16" ? [0xde, ...be(count, 2)] : [0xdf, ...be(count, 4)];
  },
  header: (dataType: number, major = 0, minor = 1) => [...mp.u32(major), ...mp.u32(minor), ...mp.u32(dataType)],
  /** float32 little-endian bytes (the tensor payload). */
  floats: (values: number[]) => [...new Uint8Array(Float32Array.from(values).buffer)],
  shape: (dims: number[], batch = 1) => [...mp.array(dims.length), ...dims.flatMap((d) => mp.u32(d)), ...mp.u32(batch)],
  tensor: (dims: number[], values: number[], batch = 1) => [...mp.shape(dims, batch), ...mp.bin(mp.floats(values))],
};

export function bytes(...parts: number[][]): Uint8Array {
  return Uint8Array.from(parts.flat());
}

// ---------------------------------------------------------------------------------------------------------
// random objects

function randomDims(next: () => number, maxRank: number, maxDim: number): number[] {
  const rank = Math.floor(next() * (maxRank + 1));
  return Array.from({ length: rank }, () => 1 + Math.floor(next() * maxDim));
}

function randomTensor(next: () => number, seed: number, maxRank = 4, maxDim = 5, batch = 1): primitiv.PrimitivTensor {
  const shape = makeShape(randomDims(next, maxRank, maxDim), batch);
  const count = shape.batch * shape.dims.reduce((a, b) => a * b, 1);
  return makeTensor(shape.dims, randomNormal(seed, count), batch);
}

const WORDS = ["w", "b", "emb", "lstm", "enc", "dec", "重み", "é", "x.y", "a".repeat(40)];

function randomKey(next: () => number): string {
  return WORDS[Math.floor(next() * WORDS.length)]! + (next() < 0.5 ? "" : String(Math.floor(next() * 1000)));
}

function randomParameter(next: () => number, seed: number): primitiv.PrimitivParameter {
  const value = randomTensor(next, seed);
  const stats: [string, primitiv.PrimitivTensor][] = [];
  const n = Math.floor(next() * 3);
  for (let i = 0; i < n; i++) {
    const key = `${randomKey(next)}#${i}`;
    stats.push([
      key,
      next() < 0.7
        ? makeTensor(value.shape.dims, randomNormal(seed + i + 1, value.data.byteLength / 4))
        : randomTensor(next, seed + 7 * i),
    ]);
  }
  return makeParameter(value, stats);
}

/** A seeded random file of the given data type (or a random one). */
export function randomFile(seed: number, dataType?: primitiv.PrimitivDataType): primitiv.PrimitivFile {
  const next = rng(seed);
  const types: primitiv.PrimitivDataType[] = ["shape", "tensor", "parameter", "model", "optimizer"];
  const kind = dataType ?? types[Math.floor(next() * types.length)]!;
  switch (kind) {
    case "shape":
      return { dataType: kind, shape: makeShape(randomDims(next, 8, 9), 1 + Math.floor(next() * 4)) };
    case "tensor":
      return { dataType: kind, tensor: randomTensor(next, seed, 5, 4, 1 + Math.floor(next() * 3)) };
    case "parameter":
      return { dataType: kind, parameter: randomParameter(next, seed) };
    case "model": {
      const entries = new Map<string, [string[], primitiv.PrimitivParameter]>();
      const n = Math.floor(next() * 6);
      for (let i = 0; i < n; i++) {
        const path = Array.from({ length: 1 + Math.floor(next() * 3) }, () => randomKey(next));
        entries.set(JSON.stringify(path), [path, randomParameter(next, seed * 31 + i)]);
      }
      return { dataType: kind, model: makeModel(entries.values()) };
    }
    case "optimizer": {
      const uint: [string, number][] = [["Optimizer.epoch", Math.floor(next() * 2 ** 32)]];
      const float = new Map<string, number>();
      for (let i = 0; i < 1 + Math.floor(next() * 8); i++)
        float.set(`${randomKey(next)}.${i}`, (next() - 0.5) * 10 ** Math.floor(next() * 10 - 5));
      return { dataType: kind, optimizer: makeOptimizer(uint, float) };
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// a huge Model file for sparse sources

/**
 * The pieces of a Model file of `count` parameters named p0, p1, … of dims [rows, cols] each (zeros for data)
 * with no stats: only the headers are real bytes. Returns the total size and the payload offsets.
 */
export function virtualModel(
  count: number,
  rows: number,
  cols: number,
): { size: number; pieces: { offset: number; bytes: Uint8Array }[]; payloads: number[] } {
  const dataBytes = 4 * rows * cols;
  const pieces: { offset: number; bytes: Uint8Array }[] = [];
  const payloads: number[] = [];
  let pos = 0;
  const put = (...parts: number[][]) => {
    const b = bytes(...parts);
    pieces.push({ offset: pos, bytes: b });
    pos += b.length;
  };
  put(mp.header(0x300), mp.u32(count));
  for (let i = 0; i < count; i++) {
    const binHead = dataBytes < 65536 ? [0xc5, ...be(dataBytes, 2)] : [0xc6, ...be(dataBytes, 4)];
    put(mp.array(1), mp.str(`p${i}`), mp.shape([rows, cols]), binHead);
    payloads.push(pos);
    pos += dataBytes;
    put(mp.u32(0));
  }
  return { size: pos, pieces, payloads };
}

/** A Model of `count` parameters of dims [rows, cols] with random values (for benchmarks and lazy tests). */
export function bigModel(count: number, rows: number, cols: number, seed = 1): primitiv.PrimitivFile {
  const entries: [string[], primitiv.PrimitivParameter][] = [];
  for (let i = 0; i < count; i++)
    entries.push([
      ["layer", String(i), "w"],
      makeParameter(makeTensor([rows, cols], randomNormal(seed + i, rows * cols, 0.1))),
    ]);
  return { dataType: "model", model: makeModel(entries) };
}
