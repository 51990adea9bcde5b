/**
 * kernels.transposeColumns (issue 15, patch): one band of columns of a row-major matrix, transposed. Checked
 * against the definition for every element size, band position and width, with the source in WebAssembly
 * memory (the kernel reads it in place) and in an ordinary array, on both backends.
 */
import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";
import { randomWords } from "../helpers/rng.js";

type Ctor = Uint8ArrayConstructor | Uint16ArrayConstructor | Float32ArrayConstructor | BigInt64ArrayConstructor;

function matrix(ctor: Ctor, rows: number, cols: number, resident: boolean) {
  const words = randomWords(rows * 131 + cols, Math.ceil((rows * cols * ctor.BYTES_PER_ELEMENT) / 4) + 1);
  const bytes = new Uint8Array(words.buffer, 0, rows * cols * ctor.BYTES_PER_ELEMENT);
  const out = resident
    ? (kernels.allocate(ctor as never, rows * cols) as unknown as InstanceType<Ctor>)
    : new ctor(rows * cols);
  new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(bytes); // raw bits: NaN payloads included
  return out;
}

/** The definition, on the element bits (a float32 NaN read as a JS number could lose its payload). */
function expectedBits(src: ArrayBufferView, rows: number, cols: number, c0: number, w: number): string {
  const size = src.byteLength / (rows * cols);
  const bytes = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
  const out = new Uint8Array(rows * w * size);
  let k = 0;
  for (let j = 0; j < w; j++) {
    for (let r = 0; r < rows; r++) {
      const at = (r * cols + c0 + j) * size;
      out.set(bytes.subarray(at, at + size), k);
      k += size;
    }
  }
  return Buffer.from(out).toString("hex");
}

function bits(a: ArrayBufferView): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("hex");
}

describe.each(BACKENDS)("transposeColumns (%s)", (backend) => {
  it.each([Uint8Array, Uint16Array, Float32Array, BigInt64Array] as Ctor[])(
    "%o: bands at every edge, in WebAssembly memory and not",
    (ctor) => {
      for (const resident of [true, false]) {
        for (const [rows, cols] of [
          [1, 1],
          [3, 7],
          [17, 33],
          [64, 129],
          [300, 41],
        ] as const) {
          const src = matrix(ctor, rows, cols, resident);
          for (const [c0, w] of [
            [0, cols],
            [0, 1],
            [cols - 1, 1],
            [Math.floor(cols / 3), Math.ceil(cols / 2) - Math.floor(cols / 3)],
          ] as const) {
            if (w <= 0 || c0 + w > cols) continue;
            const got = withBackend(backend, () =>
              kernels.transposeColumns(src as never, rows, cols, c0, w),
            ) as unknown as ArrayLike<unknown> & ArrayBufferView;
            expect(bits(got)).toBe(expectedBits(src, rows, cols, c0, w));
          }
        }
      }
    },
  );

  it("a 4096 x 4096 float32 band in WebAssembly memory (the patch case)", () => {
    const src = matrix(Float32Array, 1024, 4096, true) as Float32Array;
    const got = withBackend(backend, () => kernels.transposeColumns(src, 1024, 4096, 2048, 32));
    expect(bits(got)).toBe(expectedBits(src, 1024, 4096, 2048, 32));
  });
});

describe("transposeColumns arguments", () => {
  it("refuses bands outside the matrix and wrong lengths", () => {
    const src = new Float32Array(12);
    expect(() => kernels.transposeColumns(src, 3, 4, 3, 2)).toThrow(RangeError);
    expect(() => kernels.transposeColumns(src, 3, 5, 0, 1)).toThrow(RangeError);
    expect(() => kernels.transposeColumns(src, 3, 4, 0, 2, new Float32Array(5))).toThrow(RangeError);
    expect(kernels.transposeColumns(src, 3, 4, 1, 0).length).toBe(0);
  });
});
