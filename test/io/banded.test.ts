/**
 * Banded transposes (io/banded.ts) against the whole-tensor decode: for random column-major shapes (1xN, Nx1, odd
 * sizes, up to 5 axes, rows wider than a band), every dtype kind (1/2/4/8/16-byte elements, float16 kept and
 * widened, int8 dequantized, float64 cast, big-endian), tiny and odd band budgets, on both kernel backends, from
 * bytes in memory (Node Buffers at odd offsets, ArrayBuffers) and from sources with short reads: the bands joined
 * are byte-identical to decodeTensor of the whole stored tensor, no band is larger than the budget, and a tensor
 * with long columns is read exactly once (each run straight into its place).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  BAND_TUNING,
  type BandPlan,
  bandedChunks,
  bandedChunksOfBytes,
  bandsOf,
  planBands,
} from "../../bindings/io/banded.js";
import { openFileAccess } from "../../bindings/io/file-access.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import { type DType, type DecodeOptions, type TensorInfo, decodeTensor, dtypeBytes } from "../../bindings/tensor.js";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";
import { concat, sameBytes } from "../helpers/bytes.js";
import { randomBytes, rng } from "../helpers/rng.js";

/** Forces a kernel backend around async work (withBackend is for synchronous functions). */
function kernelsBackend(backend: "js" | "wasm" | "auto"): void {
  kernels.setBackend(backend);
}

const saved = { ...BAND_TUNING };
afterEach(() => Object.assign(BAND_TUNING, saved));
const dir = mkdtempSync(join(tmpdir(), "tensorfile-banded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Case {
  label: string;
  info: TensorInfo;
  decode: DecodeOptions;
  stored: Uint8Array;
  budget: number;
}

const KINDS: { dtype: DType; decode?: DecodeOptions; quantization?: boolean }[] = [
  { dtype: "float32" },
  { dtype: "uint8" },
  { dtype: "int16" },
  { dtype: "float64" },
  { dtype: "int64" },
  { dtype: "complex128" },
  { dtype: "float16" },
  { dtype: "float16", decode: { dtype: "float32" } },
  { dtype: "int8", quantization: true, decode: { dtype: "float32" } },
  { dtype: "float64", decode: { dtype: "float32" } },
  { dtype: "bfloat16", decode: { dtype: "float32" } },
  { dtype: "int32", decode: { dtype: "float32" } },
];

/** Finite float bit patterns, so that casts compare bit for bit whatever the NaN handling. */
function storedBytes(dtype: DType, count: number, seed: number): Uint8Array {
  const size = dtypeBytes(dtype);
  if (dtype === "float64") {
    const next = rng(seed);
    return new Uint8Array(Float64Array.from({ length: count }, () => next() * 2 - 1).buffer);
  }
  return randomBytes(seed, count * size);
}

function randomCase(seed: number): Case {
  const next = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const kind = pick(KINDS);
  const rank = 2 + Math.floor(next() * 4);
  const special = pick(["1xN", "Nx1", "odd", "odd", "wide", "tall"]);
  let shape = Array.from({ length: rank }, () => 1 + Math.floor(next() * 7));
  if (special === "1xN") shape = [1, 3 + Math.floor(next() * 90)];
  if (special === "Nx1") shape = [3 + Math.floor(next() * 90), 1];
  if (special === "wide") shape = [1 + Math.floor(next() * 3), 50 + Math.floor(next() * 200)];
  if (special === "tall") shape = [50 + Math.floor(next() * 200), 1 + Math.floor(next() * 3)];
  const count = shape.reduce((a, b) => a * b, 1);
  const size = dtypeBytes(kind.dtype);
  const byteOrder = next() < 0.4 ? "be" : "le";
  const info: TensorInfo = {
    name: `t${seed}`,
    dtype: kind.dtype,
    shape,
    byteOffset: 3 + Math.floor(next() * 40),
    byteLength: count * size,
    byteOrder,
    layout: "column-major",
    format: "test",
  };
  if (kind.quantization) info.quantization = { scale: 0.5 + next(), offset: Math.floor(next() * 9) - 4 };
  const outSize = kind.decode?.dtype === "float32" ? 4 : size;
  // budgets from one element to more than the tensor, odd ones included
  const budget = pick([outSize, outSize * 3, 7 * outSize + 1, 64, 1000, count * outSize * 2]);
  return {
    label: `seed ${seed}: ${kind.dtype}${kind.decode ? "->f32" : ""} ${byteOrder} [${shape.join(", ")}] (${special}) budget ${budget}`,
    info,
    decode: kind.decode ?? {},
    stored: storedBytes(kind.dtype, count, seed),
    budget,
  };
}

function whole(c: Case): Uint8Array {
  const data = decodeTensor(c.stored, c.info, c.decode, "test").data;
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
}

/** `bytes` as a Node Buffer view at an odd offset inside a larger pool. */
function oddBuffer(bytes: Uint8Array, offset = 5): Uint8Array {
  const pool = Buffer.alloc(bytes.length + offset + 3, 0xee);
  pool.set(bytes, offset);
  return pool.subarray(offset, offset + bytes.length);
}

/** A source serving `file`, with readInto giving at most `chunk` bytes per call (short reads), counting bytes. */
function shortReadSource(file: Uint8Array, chunk: number): ByteSource & { bytesRead: number; calls: number } {
  const source = {
    size: file.length,
    bytesRead: 0,
    calls: 0,
    async read(offset: number, length: number) {
      return file.subarray(Math.min(offset, file.length), Math.min(offset + length, file.length));
    },
    async readInto(target: Uint8Array, offset: number) {
      const n = Math.max(0, Math.min(target.length, chunk, file.length - offset));
      target.set(file.subarray(offset, offset + n));
      source.bytesRead += n;
      source.calls++;
      return n;
    },
  };
  return source;
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of chunks) out.push(c.slice());
  return out;
}

describe("banded transposes equal the whole-tensor decode", () => {
  const seeds = Array.from({ length: 160 }, (_, i) => 1000 + i);
  for (const backend of BACKENDS) {
    it(`${backend}: random shapes, dtypes and budgets, from bytes (Buffer at odd offsets) and from short-reading sources`, async () => {
      for (const seed of seeds) {
        const c = randomCase(seed);
        const want = withBackend(backend, () => whole(c));
        const plan = planBands(c.info, c.decode);
        const squeezed = c.info.shape.filter((d) => d !== 1);
        if (squeezed.length < 2) {
          expect(plan, c.label).toBeUndefined();
          continue;
        }
        expect(plan, c.label).toBeDefined();
        BAND_TUNING.bandBytes = c.budget;
        const outSize = plan!.outSize;
        // in memory, from a Buffer view at an odd offset
        const fromMemory = withBackend(backend, () =>
          [...bandedChunksOfBytes(oddBuffer(c.stored), plan!, c.decode)].map((b) => b.slice()),
        );
        for (const band of fromMemory)
          expect(band.length, c.label).toBeLessThanOrEqual(Math.max(c.budget - (c.budget % outSize), outSize));
        expect(sameBytes(concat(...fromMemory), want), c.label).toBe(true);
        // from a file image (the tensor after a header), read in short pieces through windows and runs
        const file = concat(randomBytes(seed + 7, c.info.byteOffset), c.stored, randomBytes(seed + 9, 5));
        BAND_TUNING.coalesceGap = seed % 2 === 0 ? 0 : 1 << 20;
        BAND_TUNING.windowBytes = 1 + (seed % 40);
        kernelsBackend(backend);
        try {
          const source = shortReadSource(file, 1 + (seed % 13));
          expect(sameBytes(concat(...(await collect(bandedChunks(source, plan!, c.decode)))), want), c.label).toBe(
            true,
          );
          // and from fromBytes() over an ArrayBuffer
          const fromArrayBuffer = await collect(bandedChunks(fromBytes(file.slice().buffer), plan!, c.decode));
          expect(sameBytes(concat(...fromArrayBuffer), want), c.label).toBe(true);
        } finally {
          kernelsBackend("auto");
        }
      }
    });
  }

  it("large tensors through the WASM kernels (bands of many rows, fp16 widening, big-endian) from a file", async () => {
    const access = [];
    try {
      for (const [shape, dtype, decode, byteOrder] of [
        [[700, 300], "float32", {}, "le"],
        [[300, 700], "float16", { dtype: "float32" }, "le"],
        [[37, 41, 53], "float64", {}, "be"],
        [[2, 3000], "int16", {}, "be"],
        [[5000, 3], "uint8", {}, "le"],
      ] as const) {
        const count = shape.reduce((a: number, b: number) => a * b, 1);
        const info: TensorInfo = {
          name: "big",
          dtype,
          shape: [...shape],
          byteOffset: 11,
          byteLength: count * dtypeBytes(dtype),
          byteOrder,
          layout: "column-major",
        };
        const stored = storedBytes(dtype, count, count);
        const path = join(dir, `big-${count}.bin`);
        writeFileSync(path, concat(new Uint8Array(11), stored));
        const file = await openFileAccess(path, "test");
        access.push(file);
        for (const backend of BACKENDS) {
          for (const budget of [64 * 1024, 100_000, 1 << 20]) {
            BAND_TUNING.bandBytes = budget;
            const want = withBackend(backend, () => whole({ label: "", info, decode, stored, budget }));
            kernelsBackend(backend);
            try {
              const got = await collect(bandedChunks(file.source(), planBands(info, decode)!, decode));
              expect(
                sameBytes(concat(...got), want),
                `${backend} [${shape.join(", ")}] ${dtype} budget ${budget}`,
              ).toBe(true);
            } finally {
              kernelsBackend("auto");
            }
          }
        }
      }
    } finally {
      for (const a of access) a.close();
    }
  });
});

describe("what bands read and hold", () => {
  const plan2d = (rows: number, cols: number): BandPlan =>
    planBands({
      name: "w",
      dtype: "float32",
      shape: [rows, cols],
      byteOffset: 0,
      byteLength: rows * cols * 4,
      byteOrder: "le",
      layout: "column-major",
    })!;

  it("long columns: every stored byte is read once, one read per column per band; no band over the budget", async () => {
    const rows = 4096;
    const cols = 64;
    const plan = plan2d(rows, cols);
    BAND_TUNING.bandBytes = 64 * 1024; // 256 rows of 64 float32
    BAND_TUNING.coalesceGap = 4096;
    const stored = randomBytes(3, rows * cols * 4);
    const source = shortReadSource(stored, Number.MAX_SAFE_INTEGER);
    const bands = await collect(bandedChunks(source, plan));
    expect(bands.length).toBe(16);
    for (const band of bands) expect(band.length).toBe(64 * 1024);
    expect(source.bytesRead).toBe(stored.length);
    expect(source.calls).toBe(16 * cols);
    expect(sameBytes(concat(...bands), whole({ label: "", info: plan.info, decode: {}, stored, budget: 0 }))).toBe(
      true,
    );
  });

  it("short columns are read through windows: a bounded number of reads, no read larger than the window", async () => {
    const plan = plan2d(3, 100_000);
    BAND_TUNING.bandBytes = 32 * 1024; // a row (400 KB) is wider than a band: rows one by one, elements 3 apart
    BAND_TUNING.windowBytes = 64 * 1024;
    const stored = randomBytes(4, 3 * 100_000 * 4);
    let largest = 0;
    const base = shortReadSource(stored, Number.MAX_SAFE_INTEGER);
    const source = {
      ...base,
      readInto: async (t: Uint8Array, o: number) => {
        largest = Math.max(largest, t.length);
        return base.readInto!(t, o);
      },
    };
    const bands = await collect(bandedChunks(source, plan));
    expect(largest).toBeLessThanOrEqual(64 * 1024);
    for (const band of bands) expect(band.length).toBeLessThanOrEqual(32 * 1024);
    // each row is one pass over the tensor: three passes in windows of 64 KiB
    expect(base.calls).toBeLessThanOrEqual(
      3 * Math.ceil(stored.length / (64 * 1024)) + 3 * Math.ceil(400_000 / (32 * 1024)),
    );
    expect(sameBytes(concat(...bands), whole({ label: "", info: plan.info, decode: {}, stored, budget: 0 }))).toBe(
      true,
    );
  });

  it("short columns read through windows: at most maxPasses passes over the tensor, in larger bands", async () => {
    const plan = plan2d(64, 3000); // columns of 256 bytes
    BAND_TUNING.bandBytes = 4 * 3000 * 2; // two rows: 32 passes without the limit
    BAND_TUNING.windowBytes = 50_000;
    BAND_TUNING.maxPasses = 8;
    const stored = randomBytes(5, 64 * 3000 * 4);
    const source = shortReadSource(stored, Number.MAX_SAFE_INTEGER);
    const bands = await collect(bandedChunks(source, plan));
    expect(bands.length).toBe(8);
    expect(source.bytesRead).toBeLessThanOrEqual(8 * stored.length);
    expect(sameBytes(concat(...bands), whole({ label: "", info: plan.info, decode: {}, stored, budget: 0 }))).toBe(
      true,
    );
    // in memory nothing is read twice: bands keep to the budget
    expect([...bandedChunksOfBytes(stored, plan)].length).toBe(32);
  });

  it("every band's rows: bandsOf covers each output element exactly once", () => {
    for (const [shape, budget] of [
      [[5, 7, 3], 12],
      [[2, 50], 16],
      [[9, 4], 4],
      [[4, 3, 2, 5], 100],
    ] as const) {
      const count = shape.reduce((a: number, b: number) => a * b, 1);
      const plan = planBands({
        name: "x",
        dtype: "float32",
        shape: [...shape],
        byteOffset: 0,
        byteLength: count * 4,
        byteOrder: "le",
        layout: "column-major",
      })!;
      for (const passes of [0, 2]) {
        const seen = new Uint8Array(count);
        for (const band of bandsOf(plan, budget, passes)) {
          if (passes === 0) expect(band.runs * band.length * 4).toBeLessThanOrEqual(Math.max(budget, 4));
          for (let c = 0; c < band.runs; c++)
            for (let j = 0; j < band.length; j++) seen[band.first + c * band.step + j * band.stride]!++;
        }
        expect(
          [...seen].every((v) => v === 1),
          `[${shape.join(", ")}] passes ${passes}`,
        ).toBe(true);
      }
    }
  });

  it("a file too short gives the TRUNCATED error of a whole read, before any band", async () => {
    const plan = plan2d(100, 100);
    BAND_TUNING.bandBytes = 4000;
    const info = { ...plan.info, byteOffset: 10 };
    const source = fromBytes(new Uint8Array(10 + 30_000));
    const bands: Uint8Array[] = [];
    const error = await (async () => {
      try {
        for await (const b of bandedChunks(source, { ...plan, info })) bands.push(b);
      } catch (e) {
        return e;
      }
    })();
    expect(bands).toEqual([]);
    expect(isFormatError(error) && error.code).toBe("TRUNCATED");
    expect((error as { offset: number }).offset).toBe(30_010);
  });

  it("plans only what it can band: row-major, 1-D, format-specific stored forms and over 8 long axes are left to the loaders", () => {
    const base: TensorInfo = {
      name: "x",
      dtype: "float32",
      shape: [4, 5],
      byteOffset: 0,
      byteLength: 80,
      byteOrder: "le",
      layout: "column-major",
    };
    expect(planBands(base)).toBeDefined();
    expect(planBands({ ...base, layout: "row-major" })).toBeUndefined();
    expect(planBands({ ...base, shape: [1, 20, 1] })).toBeUndefined();
    expect(planBands({ ...base, obfuscated: true } as TensorInfo)).toBeUndefined();
    expect(planBands({ ...base, byteLength: 81 })).toBeUndefined();
    expect(planBands({ ...base, shape: Array(9).fill(2), byteLength: 2 ** 9 * 4 })).toBeUndefined();
    // primitiv batches: samples one after another
    const batched = planBands({ ...base, shape: [3, 4, 5], byteLength: 240, batch: 3 } as TensorInfo)!;
    expect([batched.samples, batched.dims]).toEqual([3, [4, 5]]);
    expect(planBands({ ...base, shape: [3, 20], byteLength: 240, batch: 3 } as TensorInfo)!.dims).toEqual([60]);
  });
});

describe("the streaming writers band column-major tensors of openFile() results", () => {
  it("writeSafetensorsTo and writeNpyTo: the bytes of the in-memory writers, in pieces no larger than a band", async () => {
    const lib = await import("../../bindings/index.js");
    const { makeModel, makeParameter, makeTensor } = lib.primitiv;
    const values = (n: number, seed: number) => Float32Array.from(randomBytes(seed, n), (b) => b / 7 - 3);
    const bytes = lib.primitiv.write(
      makeModel([
        ["a", makeParameter(makeTensor([200, 90], values(18_000, 1)))],
        ["b", makeParameter(makeTensor([7, 9, 11], values(693, 2)))],
        ["c", makeParameter(makeTensor([3, 5000], values(15_000, 3)))],
      ]),
    );
    const path = join(dir, "model.primitiv");
    writeFileSync(path, bytes);
    BAND_TUNING.bandBytes = 2048;
    BAND_TUNING.coalesceGap = 0; // every run read on its own: no larger bands for short columns
    const opened = await lib.openFile(path);
    try {
      const pieces: Uint8Array[] = [];
      await lib.writeSafetensorsTo(
        (c) => {
          pieces.push(c.slice());
        },
        opened,
        { metadata: { m: "1" } },
      );
      const want = lib.writeSafetensors(lib.readAny(bytes).tensors(), { m: "1" });
      expect(sameBytes(concat(...pieces), want)).toBe(true);
      expect(Math.max(...pieces.slice(1).map((p) => p.length))).toBeLessThanOrEqual(2048);
      expect(pieces.length).toBeGreaterThan(30);
      for (const info of opened.tensorInfos()) {
        const npy: Uint8Array[] = [];
        await lib.writeNpyTo(
          (c) => {
            npy.push(c.slice());
          },
          { file: opened, info, decode: { dtype: "float32" } },
        );
        const tensor = lib
          .readAny(bytes)
          .tensors({ dtype: "float32" })
          .find((t) => t.name === info.name)!;
        expect(sameBytes(concat(...npy), lib.writeNpy(tensor)), info.name).toBe(true);
      }
    } finally {
      await opened.close();
    }
  });
});
