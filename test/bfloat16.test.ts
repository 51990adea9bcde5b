/**
 * bfloat16.ts: float32 -> bfloat16 rounded to nearest, ties to even, against a float64 reference (the two
 * neighbours and their distances), for every kind of float32 bit pattern; NaN stays NaN.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bfloat16Bits } from "../bindings/bfloat16.js";

const asFloat = (bits: number) => new Float32Array(new Uint32Array([bits >>> 0]).buffer)[0]!;

/** The reference: the nearer of the two bfloat16 neighbours of a finite float32 (the even one on a tie). */
function reference(bits: number): number {
  const x = asFloat(bits);
  const low = bits >>> 16;
  const high = (low + 1) & 0xffff;
  const lowValue = asFloat(low << 16);
  const highValue = asFloat((high << 16) >>> 0);
  const dLow = Math.abs(x - lowValue);
  const dHigh = Math.abs(highValue - x);
  if (dLow < dHigh) return low;
  if (dHigh < dLow) return high;
  return (low & 1) === 0 ? low : high;
}

describe("bfloat16Bits", () => {
  it("rounds every finite float32 to the nearer bfloat16, ties to even", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (bits) => {
        const x = asFloat(bits);
        fc.pre(Number.isFinite(x) && Number.isFinite(asFloat((((bits >>> 16) + 1) << 16) >>> 0)));
        expect(bfloat16Bits(bits)).toBe(reference(bits));
      }),
      { numRuns: 5000 },
    );
    // ties: exactly halfway, to the even neighbour
    expect(bfloat16Bits(0x3f808000)).toBe(0x3f80);
    expect(bfloat16Bits(0x3f818000)).toBe(0x3f82);
  });

  it("keeps NaN a NaN (a payload in the low half only does not become infinity) and infinities as they are", () => {
    for (const nan of [0x7f800001, 0xff800001, 0x7fc00000, 0x7fffffff]) {
      const out = bfloat16Bits(nan);
      expect((out & 0x7f80) === 0x7f80 && (out & 0x7f) !== 0, nan.toString(16)).toBe(true);
    }
    expect(bfloat16Bits(0x7f800000)).toBe(0x7f80);
    expect(bfloat16Bits(0xff800000)).toBe(0xff80);
    // the largest float32 rounds up to infinity (as a tie-free round to nearest does)
    expect(bfloat16Bits(0x7f7fffff)).toBe(0x7f80);
  });
});
