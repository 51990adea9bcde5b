/**
 * The strip-mined transposes and the fused fp16 -> f32 transpose against an index-formula reference and the TS
 * twins, on every edge the kernels have: shapes below and around the strip heights (16 rows for f32, 32 for u16,
 * 8 for u64) and the 512-column blocks, primes, long thin and short wide matrices; ordinary arrays, Buffers at odd
 * offsets, arrays from kernels.allocate() (in place) and mixes; all 65,536 halves through the fused kernel.
 */
import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import * as js from "../../bindings/kernels/transpose-js.js";
import { withBackend } from "../helpers/backends.js";
import { randomWords } from "../helpers/rng.js";

const SHAPES: [number, number][] = [
  [1, 1],
  [1, 17],
  [17, 1],
  [2, 3],
  [3, 2],
  [4, 4],
  [7, 13],
  [15, 15],
  [16, 16],
  [17, 17],
  [31, 33],
  [32, 32],
  [33, 31],
  [8, 513],
  [513, 8],
  [64, 600],
  [127, 131],
  [4097, 3],
  [3, 4097],
  [16, 1025],
  [1025, 16],
  [1, 5000],
  [5000, 1],
];

function reference(src: Uint8Array, rows: number, cols: number, size: number): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++)
      out.set(src.subarray((i * cols + j) * size, (i * cols + j + 1) * size), (j * rows + i) * size);
  return out;
}

const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** The same data as a Buffer at an odd byte offset of a larger pool (a Uint8Array here, element views need alignment). */
function oddBuffer(data: Uint8Array): Uint8Array {
  const pool = Buffer.alloc(data.length + 11, 0x5a);
  pool.set(data, 3);
  return pool.subarray(3, 3 + data.length);
}

describe("transpose: every element size and shape, WASM equals TS equals the index formula", () => {
  it.each(SHAPES)("%i x %i", (rows, cols) => {
    const words = randomWords(rows * 7919 + cols, rows * cols * 2);
    const arrays = [
      new Uint8Array(words.buffer, 0, rows * cols),
      new Uint16Array(words.buffer, 0, rows * cols),
      new Uint32Array(words.buffer, 0, rows * cols),
      new BigUint64Array(words.buffer, 0, rows * cols),
    ];
    for (const src of arrays) {
      const size = src.BYTES_PER_ELEMENT;
      const want = reference(bytes(src), rows, cols, size);
      const ts = withBackend("js", () => kernels.transpose(src, rows, cols));
      const wasm = withBackend("wasm", () => kernels.transpose(src, rows, cols));
      expect(bytes(ts).equals(want), `ts ${size}`).toBe(true);
      expect(bytes(wasm).equals(want), `wasm ${size}`).toBe(true);
      // in place in one dedicated memory, and with only the destination there
      const ctor = src.constructor as unknown as Parameters<typeof kernels.allocate>[0];
      const residentSrc = kernels.allocate(ctor, src.length) as typeof src;
      (residentSrc as Uint8Array).set(src as Uint8Array);
      const residentDst = kernels.allocate(ctor, src.length) as typeof src;
      withBackend("wasm", () => kernels.transpose(residentSrc, rows, cols, residentDst));
      expect(bytes(residentDst).equals(want), `resident ${size}`).toBe(true);
      const onlyDst = kernels.allocate(ctor, src.length) as typeof src;
      withBackend("wasm", () => kernels.transpose(src, rows, cols, onlyDst));
      expect(bytes(onlyDst).equals(want), `resident dst ${size}`).toBe(true);
    }
  });

  it("columnToRowMajorBytes from a Buffer at an odd offset, every element size, 2-D to 4-D", () => {
    for (const shape of [
      [1000, 3],
      [3, 1000],
      [17, 19, 23],
      [5, 1, 33, 9],
      [64, 2, 64],
    ]) {
      const count = shape.reduce((a, b) => a * b, 1);
      for (const size of [1, 2, 4, 8]) {
        const data = new Uint8Array(randomWords(count + size, (count * size + 3) >> 2).buffer, 0, count * size);
        const src = oddBuffer(data);
        const results = (["js", "wasm"] as const).map((backend) => {
          const dst = new Uint8Array(count * size);
          withBackend(backend, () => kernels.columnToRowMajorBytes(src, dst, shape, size));
          return dst;
        });
        expect(bytes(results[0]!).equals(bytes(results[1]!)), `${shape} ${size}`).toBe(true);
        // the last axis is the fastest in the result: element [.., i, j] = stored j * prod(first) + …
        const back = new Uint8Array(count * size);
        kernels.columnToRowMajorBytes(results[1]!, back, shape.slice().reverse(), size);
        expect(bytes(back).equals(bytes(data)), `${shape} ${size} round trip`).toBe(true);
        expect(bytes(src).equals(bytes(data))).toBe(true); // input unchanged
      }
    }
  });
});

describe("transposes of ordinary arrays larger than one band of the scratch", () => {
  // rows of 16,000 bytes: the 1 MiB scratch holds 65 of them, so bands are cut to whole strips (64 rows) and the
  // last band of 300 rows is a partial one (44 rows: not a whole strip of any element size)
  it.each([1, 2, 4, 8])("%i-byte elements, 300 rows of 16,000 bytes, aligned and from an odd offset", (size) => {
    const rows = 300;
    const cols = 16000 / size;
    const data = new Uint8Array(randomWords(size * 31 + 7, (rows * cols * size) >> 2).buffer);
    const want = reference(data, rows, cols, size);
    const results = (["js", "wasm"] as const).flatMap((backend) =>
      [data, oddBuffer(data)].map((src) => {
        const dst = new Uint8Array(rows * cols * size);
        withBackend(backend, () => kernels.columnToRowMajorBytes(src, dst, [cols, rows], size));
        return dst;
      }),
    );
    for (const [i, got] of results.entries()) expect(bytes(got).equals(want), `result ${i}`).toBe(true);
  });

  // results with rows of a multiple of 256 bytes are built at a padded pitch in the work memory, copied out by row
  it.each([1, 2, 4, 8])("%i-byte elements, a result of 160 rows of 4352 bytes", (size) => {
    const rows = 4352 / size;
    const cols = 160;
    const data = new Uint8Array(
      randomWords(size * 17 + 1, (rows * cols * size + 3) >> 2).buffer,
      0,
      rows * cols * size,
    );
    const want = reference(data, rows, cols, size);
    for (const backend of ["js", "wasm"] as const) {
      for (const src of [data, oddBuffer(data)]) {
        const dst = new Uint8Array(rows * cols * size);
        withBackend(backend, () => kernels.columnToRowMajorBytes(src, dst, [cols, rows], size));
        expect(bytes(dst).equals(want), `${backend} offset ${src.byteOffset}`).toBe(true);
      }
    }
  });

  it.each([
    [300, 4000],
    [1088, 160],
  ])("the widening path: %i x %i halves (partial bands; result rows of 1200 and 4352 bytes)", (rows, cols) => {
    const halves = new Uint16Array(randomWords(4242, (rows * cols) >> 1).buffer);
    const want = withBackend("js", () => kernels.f16ToF32(halves));
    const wide = reference(bytes(want), rows, cols, 4);
    for (const backend of ["js", "wasm"] as const) {
      const got = withBackend(backend, () => kernels.transposeF16ToF32(halves, rows, cols));
      expect(bytes(got).equals(wide), backend).toBe(true);
      const viaBytes = new Uint8Array(rows * cols * 4);
      withBackend(backend, () =>
        kernels.columnToRowMajorBytes(oddBuffer(bytes(halves)), viaBytes, [cols, rows], 2, true),
      );
      expect(bytes(viaBytes).equals(wide), `${backend} bytes`).toBe(true);
    }
  });
});

describe("transposeF16ToF32: column-major fp16 to row-major f32 in one pass", () => {
  it("every one of the 65,536 halves widens exactly as f16ToF32 (NaN payloads kept)", () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const want = withBackend("js", () => kernels.f16ToF32(all));
    for (const [rows, cols] of [
      [256, 256],
      [64, 1024],
      [1024, 64],
      [65536, 1],
    ] as const) {
      // transposing the transpose of `all` gives `all` back, widened
      const stored = kernels.transpose(all, cols, rows);
      for (const backend of ["js", "wasm"] as const) {
        const got = withBackend(backend, () => kernels.transposeF16ToF32(stored, rows, cols));
        expect(bytes(got).equals(bytes(want)), `${backend} ${rows}x${cols}`).toBe(true);
      }
    }
  });

  it.each(SHAPES)(
    "%i x %i equals transpose then f16ToF32, on both backends and into allocate() memory",
    (rows, cols) => {
      const halves = kernels.f32ToF16(Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 0.37) * 100));
      const want = kernels.f16ToF32(withBackend("js", () => kernels.transpose(halves, rows, cols)));
      for (const backend of ["js", "wasm"] as const) {
        expect(
          bytes(withBackend(backend, () => kernels.transposeF16ToF32(halves, rows, cols))).equals(bytes(want)),
          backend,
        ).toBe(true);
      }
      const resident = kernels.allocate(Uint16Array, halves.length);
      resident.set(halves);
      const out = kernels.allocate(Float32Array, halves.length);
      withBackend("wasm", () => kernels.transposeF16ToF32(resident, rows, cols, out));
      expect(bytes(out).equals(bytes(want))).toBe(true);
    },
  );

  it("columnToRowMajorF16ToF32 and the bytes form from an odd offset equal columnToRowMajor then f16ToF32", () => {
    for (const shape of [
      [40, 30],
      [3, 100003],
      [7, 11, 13],
      [2, 3, 2, 5, 2],
      [1, 1, 9],
    ]) {
      const count = shape.reduce((a, b) => a * b, 1);
      const halves = kernels.f32ToF16(Float32Array.from({ length: count }, (_, i) => Math.cos(i) * 3));
      const want = kernels.f16ToF32(kernels.columnToRowMajor(halves, shape));
      for (const backend of ["js", "wasm"] as const) {
        expect(
          bytes(withBackend(backend, () => kernels.columnToRowMajorF16ToF32(halves, shape))).equals(bytes(want)),
          `${backend} ${shape}`,
        ).toBe(true);
        const dst = new Uint8Array(count * 4);
        withBackend(backend, () =>
          kernels.columnToRowMajorBytes(oddBuffer(new Uint8Array(halves.buffer)), dst, shape, 2, true),
        );
        expect(bytes(dst).equals(bytes(want)), `${backend} bytes ${shape}`).toBe(true);
      }
    }
  });

  it("the TS twin is the table loop of the definition", () => {
    const halves = Uint16Array.from({ length: 6 }, (_, i) => 0x3c00 + i);
    const out = new Uint32Array(6);
    js.transposeF16ToF32(halves, out, 2, 3);
    const wide = new Float32Array(out.buffer);
    const h = (k: number) => 1 + k / 1024;
    expect(Array.from(wide)).toEqual([h(0), h(3), h(1), h(4), h(2), h(5)]);
  });
});
