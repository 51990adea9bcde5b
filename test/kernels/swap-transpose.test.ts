import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";
import { randomBytes, randomWords } from "../helpers/rng.js";
import { columnToRowOracle } from "../helpers/oracles.js";

function swapReference(bytes: Uint8Array, width: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += width) for (let k = 0; k < width; k++) out[i + k] = bytes[i + width - 1 - k]!;
  return out;
}

describe.each(BACKENDS)("byte swap and transpose (%s)", (backend) => {
  it.each([2, 4, 8] as const)("byteSwap width %i, odd lengths, unaligned, twice is identity", (width) => {
    for (const n of [0, 1, 3, 31, 33, 1000, 300_001]) {
      const backing = randomBytes(n * width, n * width + 5);
      const view = backing.subarray(5);
      const want = swapReference(view, width);
      const original = view.slice();
      withBackend(backend, () => kernels.byteSwap(view, width));
      expect(Buffer.from(view).equals(Buffer.from(want))).toBe(true);
      withBackend(backend, () => kernels.byteSwap(view, width));
      expect(Buffer.from(view).equals(Buffer.from(original))).toBe(true);
    }
    expect(() => kernels.byteSwap(new Uint8Array(3), 2)).toThrow(RangeError);
  });

  it.each([
    [1, 1],
    [1, 7],
    [7, 1],
    [5, 3],
    [33, 65],
    [64, 64],
    [4, 1000],
    [257, 300],
  ])("transpose %ix%i for 1/2/4/8-byte elements", (rows, cols) => {
    const words = randomWords(rows * 1000 + cols, rows * cols * 2);
    const arrays = [
      new Uint8Array(words.buffer, 0, rows * cols),
      new Uint16Array(words.buffer, 0, rows * cols),
      new Float32Array(words.buffer, 0, rows * cols),
      new Float64Array(words.buffer, 0, rows * cols),
    ];
    for (const src of arrays) {
      const out = withBackend(backend, () => kernels.transpose(src, rows, cols));
      const size = src.BYTES_PER_ELEMENT;
      const sb = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
      const ob = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      for (let i = 0; i < rows; i++)
        for (let j = 0; j < cols; j++) {
          for (let k = 0; k < size; k++) {
            if (ob[(j * rows + i) * size + k] !== sb[(i * cols + j) * size + k])
              throw new Error(`${size}-byte [${i}][${j}] differs`);
          }
        }
    }
  });

  it.each([
    [[3, 4]],
    [[2, 3, 4]],
    [[4, 1, 3, 1]],
    [[2, 3, 2, 5, 2]],
    [[1, 1, 1]],
    [[]],
    [[7]],
    [[2, 2, 2, 2, 2, 2, 2, 2]],
    [[100, 3, 200]],
  ])("columnToRowMajor %j matches index arithmetic and rowToColumnMajor inverts it", (shape) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const src = randomWords(n + 1, n);
    const got = withBackend(backend, () => kernels.columnToRowMajor(src, shape));
    expect(Array.from(got)).toEqual(columnToRowOracle(src, shape));
    const back = withBackend(backend, () => kernels.rowToColumnMajor(got, shape));
    expect(Array.from(back)).toEqual(Array.from(src));
  });
});

describe("byte swap and transpose: WASM equals TS", () => {
  it("a 1500x1100 float32 transpose (work memory) and a resident one", () => {
    const src = new Float32Array(randomWords(77, 1500 * 1100).buffer);
    const a = withBackend("js", () => kernels.transpose(src, 1500, 1100));
    const b = withBackend("wasm", () => kernels.transpose(src, 1500, 1100));
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    const dst = kernels.allocate(Float32Array, src.length);
    withBackend("wasm", () => kernels.transpose(src, 1500, 1100, dst));
    expect(Buffer.from(dst.buffer, dst.byteOffset, dst.byteLength).equals(Buffer.from(a.buffer))).toBe(true);
    const residentSrc = kernels.allocate(Float32Array, src.length);
    residentSrc.set(src);
    const c = withBackend("wasm", () => kernels.transpose(residentSrc, 1500, 1100));
    expect(Buffer.from(c.buffer).equals(Buffer.from(a.buffer))).toBe(true);
  });

  it("an in-place swap of a WASM-resident array", () => {
    const data = kernels.allocate(Uint32Array, 1_000_003);
    data.set(randomWords(3, data.length));
    const want = swapReference(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 4);
    kernels.byteSwap(data, 4);
    expect(Buffer.from(data.buffer, data.byteOffset, data.byteLength).equals(Buffer.from(want))).toBe(true);
  });
});
