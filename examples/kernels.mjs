// #region kernels
import { kernels } from "tensorfile";

const floats = Float32Array.from([0, 0.5, -2, 65504, 1e-8]);
const halves = kernels.f32ToF16(floats);          // round to nearest even, overflow to ±Inf, NaN stays NaN
console.log(kernels.f16ToF32(halves));            // exact for all 65,536 halves

const q = Int8Array.from([-128, 0, 127]);
console.log(kernels.dequantizeI8(q, 0.5, 0));     // (q - offset) * scale
console.log(kernels.quantizeI8(Float32Array.from([-1, 0, 1]), 0.5, 0));   // clamp(roundHalfEven(x / scale + offset))

const matrix = Float32Array.from({ length: 6 }, (_, i) => i);   // 2 x 3, row-major
console.log(kernels.transpose(matrix, 2, 3));      // 3 x 2

const s = kernels.stats(floats);                  // one pass: count, min, max, mean, std, nan, ±Inf, zeros, …
console.log(s.min, s.max, s.mean.toFixed(3), s.zeros);
const h = kernels.histogram(floats, 4, -2, 2);    // values above hi are counted apart
console.log(Array.from(h.counts), h.above);
// #endregion kernels
