/**
 * histogram() (the stats family, assembly/stats.ts; TS twin in stats-js.ts), over the chunks stats-values.ts reads.
 */
import { type KernelMemory, SCRATCH_BYTES, SCRATCH_OFFSET } from "../wasm/instance.js";
import {
  type StatsOptions,
  type StatsData,
  STATS_RESULT,
  STATS_COUNTS,
  planValues,
  forEachChunk,
} from "./stats-values.js";
import * as js from "./stats-js.js";

/** A histogram over [lo, hi]: `counts[i]` holds values in [lo + i * w, lo + (i + 1) * w), the last bin also hi. */
export interface Histogram {
  /** Elements per bin, `bins` of them, over [lo, hi] (the last bin includes hi). */
  counts: Float64Array;
  /** Finite values below lo / above hi. */
  below: number;
  /** Finite values above hi. */
  above: number;
  /** NaN values (not in any bin). */
  nan: number;
  /** +Infinity values (not in any bin). */
  posInf: number;
  /** -Infinity values (not in any bin). */
  negInf: number;
  /** The range used: as given, except that lo === hi is widened to a unit-wide (or relatively tiny) range. */
  lo: number;
  /** The upper end of the range used. */
  hi: number;
}

/** Histograms with more bins than fit the scratch (four u32 counters a bin) run on the TS twin. */
export const MAX_WASM_BINS = Math.floor((SCRATCH_OFFSET + SCRATCH_BYTES - STATS_COUNTS) / 16);
const histogramSpecials = new Float64Array(5);

/**
 * Counts `data`'s finite values in `bins` equal bins over [lo, hi] (finite, lo <= hi): value x goes to bin
 * min(trunc((x - lo) * (bins / (hi - lo))), bins - 1), computed in float64 (for a range wider than the
 * largest float64, with x, lo and hi halved first). Values outside [lo, hi] and non-finite values are counted
 * apart (below, above, nan, posInf, negInf). A range too narrow for that arithmetic (lo === hi, a constant
 * tensor, included) is widened around its middle, as numpy does: the result's lo and hi say what was used.
 * Same options as stats().
 */
export function histogram(data: StatsData, bins: number, lo: number, hi: number, options?: StatsOptions): Histogram {
  const plan = planValues(data, options, "histogram()");
  if (!Number.isInteger(bins) || bins < 1 || bins > 1 << 24)
    throw new RangeError(`tensorfile: histogram() bins must be an integer from 1 to 16777216, not ${String(bins)}`);
  if (typeof lo !== "number" || typeof hi !== "number" || !Number.isFinite(lo) || !Number.isFinite(hi) || !(lo <= hi)) {
    throw new RangeError(
      `tensorfile: histogram() needs finite lo <= hi, not ${String(lo)} and ${String(hi)} (the min and max from stats() will do)`,
    );
  }
  // halve everything when hi - lo overflows (exact: such a range has no subnormal ends)
  const h = Number.isFinite(hi - lo) ? 1 : 0.5;
  if (!Number.isFinite(bins / (hi * h - lo * h)) || hi === lo) {
    const middle = lo / 2 + hi / 2;
    const half = Math.max(0.5, Math.abs(middle) * 2 ** -20);
    lo = Math.max(-Number.MAX_VALUE, middle - half);
    hi = Math.min(Number.MAX_VALUE, middle + half);
  }
  const loH = lo * h;
  const scale = bins / (hi * h - loH);
  const counts = new Float64Array(bins);
  const result: Histogram = { counts, below: 0, above: 0, nan: 0, posInf: 0, negInf: 0, lo, hi };
  const addSpecials = (r: ArrayLike<number>) => {
    result.below += r[0]!;
    result.above += r[1]!;
    result.nan += r[2]!;
    result.posInf += r[3]!;
    result.negInf += r[4]!;
  };
  const onJs = (values: Float64Array, n: number) => {
    js.histogramF64(values, n, lo, hi, h, loH, scale, counts, histogramSpecials);
    addSpecials(histogramSpecials);
  };
  if (bins > MAX_WASM_BINS) {
    forEachChunk(data, { ...plan, wide: null }, () => undefined, onJs);
    return result;
  }
  let home: KernelMemory | undefined;
  forEachChunk(
    data,
    plan,
    (k, instance, at, n) => {
      if (!home) {
        home = instance;
        new Uint32Array(instance.memory.buffer, STATS_COUNTS, bins * 4).fill(0);
      }
      if (plan.wide === "f32") k.histogramF32(at, n, lo, hi, h, loH, scale, bins, STATS_COUNTS, STATS_RESULT);
      else k.histogramF64(at, n, lo, hi, h, loH, scale, bins, STATS_COUNTS, STATS_RESULT);
      addSpecials(new Float64Array(instance.memory.buffer, STATS_RESULT, 5));
    },
    onJs,
  );
  if (home) {
    const lanes = new Uint32Array(home.memory.buffer, STATS_COUNTS, bins * 4);
    for (let b = 0; b < bins; b++)
      counts[b] = lanes[4 * b]! + lanes[4 * b + 1]! + lanes[4 * b + 2]! + lanes[4 * b + 3]!;
  }
  return result;
}
