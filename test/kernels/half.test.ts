import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";
import { randomNormal, randomWords } from "../helpers/rng.js";

/** Independent reference: the value of a half by its definition, and its f32 bits. */
function halfValueBits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  if (e === 31) {
    if (m === 0) f[0] = sign * Infinity;
    else return (((h & 0x8000) << 16) | 0x7fc00000 | (m << 13)) >>> 0; // quiet NaN, payload kept
  } else if (e === 0) f[0] = sign * m * 2 ** -24;
  else f[0] = sign * (1 + m / 1024) * 2 ** (e - 15);
  if (f[0] === 0 && sign < 0) return 0x80000000;
  return u[0]!;
}

/** Independent reference for float -> half: exact arithmetic in f64, ties to even. */
function halfOf(v: number): number {
  if (Number.isNaN(v)) return -1; // checked separately
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a === Infinity) return sign | 0x7c00;
  let e = a === 0 ? -14 : Math.max(-14, Math.floor(Math.log2(a)));
  if (2 ** e > a) e--; // log2 rounding guard
  if (2 ** (e + 1) <= a) e++;
  e = Math.max(-14, e);
  const quantum = 2 ** (e - 10);
  const x = a / quantum; // exact
  let q = Math.floor(x);
  const d = x - q;
  if (d > 0.5 || (d === 0.5 && q % 2 === 1)) q++;
  const value = q * quantum;
  if (value >= 65520 || value > 65504) return sign | 0x7c00;
  if (value < 2 ** -14) return sign | (value / 2 ** -24);
  const exp = Math.floor(Math.log2(value));
  const mant = value / 2 ** exp - 1;
  return sign | ((exp + 15) << 10) | Math.round(mant * 1024);
}

const allHalves = new Uint16Array(65536).map((_, i) => i);

describe.each(BACKENDS)("fp16 kernels (%s)", (backend) => {
  it("f16ToF32 is exact for all 65,536 halves", () => {
    const out = withBackend(backend, () => kernels.f16ToF32(allHalves));
    const bits = new Uint32Array(out.buffer);
    for (let h = 0; h < 65536; h++) {
      if (bits[h] !== halfValueBits(h))
        throw new Error(
          `half 0x${h.toString(16)}: got 0x${bits[h]!.toString(16)}, want 0x${halfValueBits(h).toString(16)}`,
        );
    }
    expect(out[0x3c00]).toBe(1);
    expect(out[0x7bff]).toBe(65504);
    expect(out[0x0001]).toBe(2 ** -24);
    expect(Object.is(out[0x8000], -0)).toBe(true);
    expect(out[0xfc00]).toBe(-Infinity);
  });

  it("f32ToF16 inverts f16ToF32 for every non-NaN half and keeps NaN NaN", () => {
    const floats = withBackend(backend, () => kernels.f16ToF32(allHalves));
    const back = withBackend(backend, () => kernels.f32ToF16(floats));
    for (let h = 0; h < 65536; h++) {
      const isNaN = (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
      if (isNaN) {
        expect((back[h]! & 0x7c00) === 0x7c00 && (back[h]! & 0x3ff) !== 0).toBe(true);
        expect(back[h]! & 0x8000).toBe(h & 0x8000);
      } else if (back[h] !== h) {
        throw new Error(`half 0x${h.toString(16)} came back as 0x${back[h]!.toString(16)}`);
      }
    }
  });

  it("f32ToF16 rounds ties to even, overflows to Inf, underflows to ±0", () => {
    const floats = withBackend(backend, () => kernels.f16ToF32(allHalves.subarray(0, 0x7c00)));
    // midpoints between neighbouring positive halves are exact in f32
    const mids = new Float32Array(0x7bff);
    for (let i = 0; i < mids.length; i++) mids[i] = (floats[i]! + floats[i + 1]!) / 2;
    const got = withBackend(backend, () => kernels.f32ToF16(mids));
    for (let i = 0; i < mids.length; i++) {
      const want = i % 2 === 0 ? i : i + 1;
      if (got[i] !== want)
        throw new Error(
          `midpoint after 0x${i.toString(16)}: got 0x${got[i]!.toString(16)}, want 0x${want.toString(16)}`,
        );
    }
    const edge = withBackend(backend, () =>
      kernels.f32ToF16(
        new Float32Array([65519.99, 65520, 1e10, -1e10, 2 ** -25, 2 ** -25 * 1.0001, -(2 ** -26), 0, -0, Infinity]),
      ),
    );
    expect(Array.from(edge)).toEqual([0x7bff, 0x7c00, 0x7c00, 0xfc00, 0x0000, 0x0001, 0x8000, 0, 0x8000, 0x7c00]);
  });

  it.each([1, 2, 3])("f32ToF16 matches an exact reference on random floats (seed %i)", (seed) => {
    const words = randomWords(seed, 100_003);
    // spread exponents over the half range and beyond
    for (let i = 0; i < words.length; i++)
      words[i] = (words[i]! & 0x807fffff) | ((((words[i]! >>> 23) % 48) + 96) << 23);
    const floats = new Float32Array(words.buffer);
    const got = withBackend(backend, () => kernels.f32ToF16(floats));
    for (let i = 0; i < floats.length; i++) {
      const want = halfOf(floats[i]!);
      if (got[i] !== want) throw new Error(`${floats[i]}: got 0x${got[i]!.toString(16)}, want 0x${want.toString(16)}`);
    }
  });
});

describe("fp16 kernels: WASM equals TS", () => {
  it.each([0, 1, 7, 8, 9, 255, 256, 1000, 1_000_003])("random halves, length %i, unaligned start", (n) => {
    const backing = new Uint16Array(n + 3);
    backing.set(new Uint16Array(randomWords(n + 11, Math.ceil((n + 3) / 2)).buffer).subarray(0, n + 3));
    const src = backing.subarray(3);
    const a = withBackend("js", () => kernels.f16ToF32(src));
    const b = withBackend("wasm", () => kernels.f16ToF32(src));
    expect(Buffer.from(b.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    const fa = withBackend("js", () => kernels.f32ToF16(a));
    const fb = withBackend("wasm", () => kernels.f32ToF16(a));
    expect(Buffer.from(fb.buffer).equals(Buffer.from(fa.buffer))).toBe(true);
  });

  it("into caller-given and WASM-resident destinations", () => {
    const src = kernels.f32ToF16(randomNormal(5, 700_001));
    const want = withBackend("js", () => kernels.f16ToF32(src));
    const plain = new Float32Array(src.length);
    expect(kernels.f16ToF32(src, plain)).toBe(plain);
    const resident = kernels.allocate(Float32Array, src.length);
    expect(kernels.isWasmResident(resident)).toBe(true);
    expect(kernels.f16ToF32(src, resident)).toBe(resident);
    const residentSrc = kernels.allocate(Uint16Array, src.length);
    residentSrc.set(src);
    const fromResident = kernels.f16ToF32(residentSrc);
    for (const got of [plain, resident, fromResident])
      expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(Buffer.from(want.buffer))).toBe(true);
    expect(() => kernels.f16ToF32(src, new Float32Array(3))).toThrow(RangeError);
  });
});
