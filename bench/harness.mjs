// What the benches share: medians, paired ratios and interleaved timing, so each bench keeps only its cases and
// its output format.

/** The median of `xs` (the mean of the two middle values for an even count). */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The middle value of `xs`, the upper one for an even count (what the browser and ONNX benches report). */
export const upperMedian = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The paired median ratio: the median of a[i] / b[i] (each pair from the same round, so drift cancels). */
export const pairedRatio = (a, b) => median(a.map((x, i) => x / b[i]));

/**
 * Times `cases` ({ name: fn }) in interleaved rounds (each round runs every case once, so load changes hit all of
 * them alike); a sample is the mean of `inner` calls (timer resolution). Returns { name: median ms }.
 */
export function timeInterleaved(cases, rounds, inner = 1) {
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(cases)) {
      const t = performance.now();
      for (let i = 0; i < inner; i++) fn();
      samples[name].push((performance.now() - t) / inner);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
}
