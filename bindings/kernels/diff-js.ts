/**
 * The pure-TS twin of the diff family's kernel (assembly/diff.ts), bit-identical to it.
 */

// issue 15 (diff): the TS twin of assembly/diff.ts diffStats, with the same summation order (lane i % 4 for
// i below count & ~3, lanes combined as (l0 + l2) + (l1 + l3), the tail summed in order and added last).

/** What diffStats gives for one run: see assembly/diff.ts. */
export interface DiffStatsResult {
  /** Largest |a - b| over the pairs (NaN opposite NaN counts as equal, opposite a number as Infinity). */
  maxAbs: number;
  /** Largest |a - b| / |b| (Infinity where b is 0 and a is not). */
  maxRel: number;
  /** Pairs outside |a - b| <= atol + rtol * |b|. */
  differing: number;
  /** Sum of a * b over the pairs where both are finite (for the cosine). */
  dot: number;
  /** Sum of a * a over those pairs. */
  normA2: number;
  /** Sum of b * b over those pairs. */
  normB2: number;
}

/**
 * Also serves float64 data (diffTensors' f64 path for dtypes float32 cannot hold exactly): the loop only reads
 * a[i] and b[i] and computes in f64 either way.
 */
export function diffStats(a: ArrayLike<number>, b: ArrayLike<number>, atol: number, rtol: number): DiffStatsResult {
  const n = a.length;
  const dot = [0, 0, 0, 0];
  const normA = [0, 0, 0, 0];
  const normB = [0, 0, 0, 0];
  let tailDot = 0;
  let tailNormA = 0;
  let tailNormB = 0;
  let maxAbs = 0;
  let maxRel = 0;
  let differing = 0;
  const vectorEnd = n & ~3;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const ay = Math.abs(y);
    if (!(x === y || (x !== x && y !== y))) {
      let d = Math.abs(x - y);
      if (d !== d) d = Infinity;
      if (!(d < Infinity && d <= atol + rtol * ay)) differing++;
      let rel = d / ay;
      if (rel !== rel) rel = Infinity;
      if (d > maxAbs) maxAbs = d;
      if (rel > maxRel) maxRel = rel;
    }
    const finite = Math.abs(x) < Infinity && ay < Infinity;
    const xm = finite ? x : 0;
    const ym = finite ? y : 0;
    if (i < vectorEnd) {
      const lane = i & 3;
      dot[lane] = dot[lane]! + xm * ym;
      normA[lane] = normA[lane]! + xm * xm;
      normB[lane] = normB[lane]! + ym * ym;
    } else {
      tailDot += xm * ym;
      tailNormA += xm * xm;
      tailNormB += ym * ym;
    }
  }
  const combine = (l: number[], tail: number) => l[0]! + l[2]! + (l[1]! + l[3]!) + tail;
  return {
    maxAbs,
    maxRel,
    differing,
    dot: combine(dot, tailDot),
    normA2: combine(normA, tailNormA),
    normB2: combine(normB, tailNormB),
  };
}
