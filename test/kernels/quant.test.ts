import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";
import { randomBytes, randomNormal } from "../helpers/rng.js";

const allInt8 = new Int8Array(256).map((_, i) => i - 128);

describe.each(BACKENDS)("int8 kernels (%s)", (backend) => {
  it("dequantizeI8 is (q - offset) * scale for every int8", () => {
    for (const [scale, offset] of [
      [0.5, 0],
      [0.0123, -3],
      [2, 127],
      [1e-3, 0.25],
    ] as const) {
      const out = withBackend(backend, () => kernels.dequantizeI8(allInt8, scale, offset));
      for (let i = 0; i < 256; i++) {
        expect(out[i]).toBe(Math.fround(Math.fround(allInt8[i]! - Math.fround(offset)) * Math.fround(scale)));
      }
    }
  });

  it("quantizeI8 rounds half to even and clamps", () => {
    const src = new Float32Array([
      0.5,
      1.5,
      2.5,
      -0.5,
      -1.5,
      126.5,
      127.5,
      1000,
      -128.5,
      -1000,
      NaN,
      Infinity,
      -Infinity,
      3.49,
      -3.51,
    ]);
    const q = withBackend(backend, () => kernels.quantizeI8(src, 1, 0));
    expect(Array.from(q)).toEqual([0, 2, 2, 0, -2, 126, 127, 127, -128, -128, 0, 127, -128, 3, -4]);
    const shifted = withBackend(backend, () => kernels.quantizeI8(new Float32Array([0, 1, -1]), 0.5, 10));
    expect(Array.from(shifted)).toEqual([10, 12, 8]);
  });

  it("quantize then dequantize is within half a step", () => {
    const x = randomNormal(9, 10_007, 0.2);
    const scale = 1 / 127;
    const q = withBackend(backend, () => kernels.quantizeI8(x, scale, 0));
    const back = withBackend(backend, () => kernels.dequantizeI8(q, scale, 0));
    for (let i = 0; i < x.length; i++) {
      if (Math.abs(x[i]!) <= 1) expect(Math.abs(back[i]! - x[i]!)).toBeLessThanOrEqual(scale / 2 + 1e-7);
    }
  });
});

describe("int8 kernels: WASM equals TS", () => {
  it.each([0, 1, 15, 16, 17, 255, 256, 4099, 2_000_001])("length %i, unaligned start", (n) => {
    const bytes = randomBytes(n, n + 1);
    const src = new Int8Array(bytes.buffer, 1, n);
    const a = withBackend("js", () => kernels.dequantizeI8(src, 0.037, -5));
    const b = withBackend("wasm", () => kernels.dequantizeI8(src, 0.037, -5));
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    const floats = randomNormal(n + 1, n, 3);
    const qa = withBackend("js", () => kernels.quantizeI8(floats, 0.05, 3));
    const qb = withBackend("wasm", () => kernels.quantizeI8(floats, 0.05, 3));
    expect(Buffer.from(qb.buffer).equals(Buffer.from(qa.buffer))).toBe(true);
  });
});
