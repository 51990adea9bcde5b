import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";

/** f32 bits of a value (NaN handled by the callers). */
function bitsOf(value: number): number {
  const f = new Float32Array([value]);
  return new Uint32Array(f.buffer)[0]!;
}

/** Independent references, by the definitions of the formats (OCP 8-bit floating point, bfloat16). */
function bf16Reference(h: number): number {
  // bfloat16 is float32 with the low 16 mantissa bits dropped: put the bits on top through a DataView
  const view = new DataView(new ArrayBuffer(4));
  view.setUint16(0, h, false);
  return view.getUint32(0, false);
}

function e4m3Reference(x: number): number {
  const negative = (x & 0x80) !== 0;
  const e = (x >> 3) & 0xf;
  const m = x & 0x7;
  if (e === 15 && m === 7) return (negative ? 0xffc00000 : 0x7fc00000) >>> 0;
  const magnitude = e === 0 ? m * 2 ** -9 : (1 + m / 8) * 2 ** (e - 7);
  return bitsOf(negative ? -magnitude : magnitude);
}

function e5m2Reference(x: number): number {
  const negative = (x & 0x80) !== 0;
  const e = (x >> 2) & 0x1f;
  const m = x & 0x3;
  if (e === 31 && m !== 0) return ((negative ? 0x80000000 : 0) | 0x7fc00000 | (m << 21)) >>> 0; // quiet, payload kept
  const magnitude = e === 31 ? Infinity : e === 0 ? m * 2 ** -16 : (1 + m / 4) * 2 ** (e - 15);
  return bitsOf(negative ? -magnitude : magnitude);
}

const allWords = Uint16Array.from({ length: 65536 }, (_, i) => i);
const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);
/** Every byte many times over, at every phase of the 16-byte SIMD step, so the vector loop and the tail both run. */
const manyBytes = Uint8Array.from({ length: 256 * 33 + 7 }, (_, i) => (i * 7 + (i >> 8)) & 0xff);

function expectBits(
  got: Float32Array,
  input: ArrayLike<number>,
  reference: (x: number) => number,
  label: string,
): void {
  const bits = new Uint32Array(got.buffer, got.byteOffset, got.length);
  for (let i = 0; i < input.length; i++) {
    const want = reference(input[i]!);
    if (bits[i] !== want)
      throw new Error(
        `${label} 0x${input[i]!.toString(16)}: got 0x${bits[i]!.toString(16)}, want 0x${want.toString(16)}`,
      );
  }
}

describe.each(BACKENDS)("narrow-float kernels (%s)", (backend) => {
  it("bf16ToF32 is exact for all 65,536 bfloat16 values", () => {
    const out = withBackend(backend, () => kernels.bf16ToF32(allWords));
    expectBits(out, allWords, bf16Reference, "bf16");
    expect(out[0x3f80]).toBe(1);
    expect(out[0xc000]).toBe(-2);
    expect(out[0x7f80]).toBe(Infinity);
    expect(Number.isNaN(out[0x7fc1])).toBe(true);
  });

  it("f8e4m3ToF32 is exact for all 256 e4m3fn values (no infinities; 0x7f and 0xff are NaN)", () => {
    const out = withBackend(backend, () => kernels.f8e4m3ToF32(allBytes));
    expectBits(out, allBytes, e4m3Reference, "e4m3");
    expect(out[0x7e]).toBe(448); // the largest finite
    expect(out[0x01]).toBe(2 ** -9); // the smallest subnormal
    expect(out[0x08]).toBe(2 ** -6); // the smallest normal
    expect(out[0x38]).toBe(1);
    expect(out[0x78]).toBe(256); // S.1111.000 is a number in e4m3fn, not infinity
    expect(Object.is(out[0x80], -0)).toBe(true);
    expect(Number.isNaN(out[0x7f]) && Number.isNaN(out[0xff])).toBe(true);
    expect(out.filter((v) => !Number.isFinite(v) && !Number.isNaN(v)).length).toBe(0);
  });

  it("f8e5m2ToF32 is exact for all 256 e5m2 values (IEEE-like: infinities and NaNs)", () => {
    const out = withBackend(backend, () => kernels.f8e5m2ToF32(allBytes));
    expectBits(out, allBytes, e5m2Reference, "e5m2");
    expect(out[0x7b]).toBe(57344); // the largest finite
    expect(out[0x01]).toBe(2 ** -16);
    expect(out[0x3c]).toBe(1);
    expect(out[0x7c]).toBe(Infinity);
    expect(out[0xfc]).toBe(-Infinity);
    expect(Number.isNaN(out[0x7d])).toBe(true);
  });

  it("e5m2 widens like binary16 with the byte on top (the f16 kernel agrees)", () => {
    const out = withBackend(backend, () => kernels.f8e5m2ToF32(allBytes));
    const viaHalf = withBackend(backend, () => kernels.f16ToF32(Uint16Array.from(allBytes, (x) => x << 8)));
    expect(new Uint32Array(out.buffer)).toEqual(new Uint32Array(viaHalf.buffer));
  });

  it("long inputs at odd offsets and lengths (vector loop, tail, chunking) match the references", () => {
    for (const length of [0, 1, 15, 16, 17, 255, manyBytes.length]) {
      const backing = new Uint8Array(length + 1);
      backing.set(manyBytes.subarray(0, length), 1);
      const src = backing.subarray(1); // an unaligned view
      expectBits(
        withBackend(backend, () => kernels.f8e4m3ToF32(src)),
        src,
        e4m3Reference,
        `e4m3 (length ${length})`,
      );
      expectBits(
        withBackend(backend, () => kernels.f8e5m2ToF32(src)),
        src,
        e5m2Reference,
        `e5m2 (length ${length})`,
      );
    }
    // longer than one pass through the 1 MiB scratch area
    const big = new Uint16Array(3 * 65536 + 5).map((_, i) => (i * 40503) & 0xffff);
    expectBits(
      withBackend(backend, () => kernels.bf16ToF32(big)),
      big,
      bf16Reference,
      "bf16 (long)",
    );
    const bigBytes = new Uint8Array(600_001).map((_, i) => (i * 167 + (i >> 11)) & 0xff);
    expectBits(
      withBackend(backend, () => kernels.f8e4m3ToF32(bigBytes)),
      bigBytes,
      e4m3Reference,
      "e4m3 (long)",
    );
    expectBits(
      withBackend(backend, () => kernels.f8e5m2ToF32(bigBytes)),
      bigBytes,
      e5m2Reference,
      "e5m2 (long)",
    );
  });

  it("writes into a given output and checks its length", () => {
    const out = new Float32Array(256);
    expect(withBackend(backend, () => kernels.f8e4m3ToF32(allBytes, out))).toBe(out);
    expect(() => kernels.bf16ToF32(allWords, new Float32Array(3))).toThrow(RangeError);
  });
});

describe("narrow-float kernels: WASM and TS agree bit for bit", () => {
  it("on every input", () => {
    const wasm = [
      withBackend("wasm", () => kernels.bf16ToF32(allWords)),
      withBackend("wasm", () => kernels.f8e4m3ToF32(manyBytes)),
      withBackend("wasm", () => kernels.f8e5m2ToF32(manyBytes)),
    ];
    const js = [
      withBackend("js", () => kernels.bf16ToF32(allWords)),
      withBackend("js", () => kernels.f8e4m3ToF32(manyBytes)),
      withBackend("js", () => kernels.f8e5m2ToF32(manyBytes)),
    ];
    for (let k = 0; k < 3; k++) expect(new Uint32Array(wasm[k]!.buffer)).toEqual(new Uint32Array(js[k]!.buffer));
  });
});
