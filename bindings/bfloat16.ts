/**
 * float32 -> bfloat16 narrowing, rounded to nearest with ties to even (the one place it is written: there is no
 * bfloat16 narrowing kernel). onnx/quantize.ts stores bfloat16 weights with it and `show` rounds values to
 * bfloat16's precision with it. Pure TypeScript, no dependency.
 */

/** The bfloat16 bits of the float32 whose bits are `bits` (a uint32): rounded half to even; a NaN stays a quiet NaN. */
export function bfloat16Bits(bits: number): number {
  const x = bits >>> 0;
  if ((x & 0x7fffffff) > 0x7f800000) return ((x >>> 16) | 0x40) & 0xffff;
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}
