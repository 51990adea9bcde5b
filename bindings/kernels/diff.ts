/**
 * diffStats (the diff family, assembly/diff.ts; TS twin in diff-js.ts).
 */
import { SCRATCH_OFFSET, kernelsIn, memoryOf } from "../wasm/instance.js";
import { diffFamily } from "../wasm/families.js";
import { useWasm } from "./backend.js";
import { viewBytes, checkLength } from "./checks.js";
import * as js from "./diff-js.js";

// issue 15 (diff): diffStats, the reduction behind `tensorfile diff` and diffTensors (assembly/diff.ts; TS twin
// js.diffStats). Both backends see the same DIFF_CHUNK-element chunks and combine them in the same order, so
// their results are bit-identical.

export type { DiffStatsResult } from "./diff-js.js";

/** Elements per diffStats call: both inputs (256 KiB each) plus the results fit the 1 MiB scratch. */
export const DIFF_CHUNK = 65536;
const DIFF_RESULT_BYTES = 64;

/** Folds one chunk's statistics into a running total (maxima, count, sums in chunk order). */
export function mergeDiffStats(total: js.DiffStatsResult, chunk: js.DiffStatsResult): js.DiffStatsResult {
  return {
    maxAbs: Math.max(total.maxAbs, chunk.maxAbs),
    maxRel: Math.max(total.maxRel, chunk.maxRel),
    differing: total.differing + chunk.differing,
    dot: total.dot + chunk.dot,
    normA2: total.normA2 + chunk.normA2,
    normB2: total.normB2 + chunk.normB2,
  };
}

/** The statistics of nothing: the starting point for mergeDiffStats. */
export function emptyDiffStats(): js.DiffStatsResult {
  return { maxAbs: 0, maxRel: 0, differing: 0, dot: 0, normA2: 0, normB2: 0 };
}

/**
 * Compares a and b element by element (widened to f64): maxAbs = max |a - b|, maxRel = max |a - b| / |b|,
 * differing = how many are not within atol + rtol * |b| (numpy.isclose with b as the reference), and the sums
 * dot = Σ a·b, normA2 = Σ a², normB2 = Σ b² over the pairs where both are finite (for a cosine similarity).
 * NaN opposite NaN counts as equal; NaN opposite a number, or an infinity opposite anything but itself, is
 * differing and infinitely far (maxAbs and maxRel +Infinity). Sums accumulate in f64.
 */
export function diffStats(a: Float32Array, b: Float32Array, atol = 0, rtol = 0): js.DiffStatsResult {
  if (!(a instanceof Float32Array) || !(b instanceof Float32Array))
    throw new TypeError("tensorfile: diffStats(a, b) takes two Float32Arrays");
  checkLength("b", b.length, a.length);
  if (typeof atol !== "number" || !(atol >= 0) || typeof rtol !== "number" || !(rtol >= 0)) {
    throw new RangeError(
      `tensorfile: diffStats atol and rtol are numbers >= 0, not ${String(atol)} and ${String(rtol)}`,
    );
  }
  const n = a.length;
  const wasm = useWasm(n, diffFamily);
  let total = emptyDiffStats();
  if (!wasm) {
    for (let start = 0; start < n; start += DIFF_CHUNK) {
      const end = Math.min(n, start + DIFF_CHUNK);
      total = mergeDiffStats(total, js.diffStats(a.subarray(start, end), b.subarray(start, end), atol, rtol));
    }
    return total;
  }
  const aHome = memoryOf(a.buffer);
  const inPlace = aHome !== undefined && aHome === memoryOf(b.buffer);
  const home = inPlace ? aHome : wasm;
  const k = kernelsIn(home, diffFamily);
  const out = SCRATCH_OFFSET;
  const aAt = SCRATCH_OFFSET + DIFF_RESULT_BYTES;
  const bAt = aAt + DIFF_CHUNK * 4;
  for (let start = 0; start < n; start += DIFF_CHUNK) {
    const count = Math.min(n, start + DIFF_CHUNK) - start;
    if (inPlace) {
      k.diffStats(a.byteOffset + start * 4, b.byteOffset + start * 4, count, atol, rtol, out);
    } else {
      const heap = new Uint8Array(home.memory.buffer);
      heap.set(viewBytes(a.subarray(start, start + count)), aAt);
      heap.set(viewBytes(b.subarray(start, start + count)), bAt);
      k.diffStats(aAt, bAt, count, atol, rtol, out);
    }
    const r = new Float64Array(home.memory.buffer, out, 6);
    total = mergeDiffStats(total, {
      maxAbs: r[0]!,
      maxRel: r[1]!,
      differing: r[2]!,
      dot: r[3]!,
      normA2: r[4]!,
      normB2: r[5]!,
    });
  }
  return total;
}
