// Shared by the format benches: prints each case's time relative to the "plain copy" case of the same suite.
export function printRatiosToCopy(summary, width = 45) {
  const copy = summary.results.find((r) => r.name.startsWith("plain copy"));
  console.log(`\n${"case".padEnd(width)} ${"ops/s".padStart(10)}  time / copy`);
  for (const r of summary.results) {
    const ratio = copy.ops / r.ops;
    console.log(`${r.name.padEnd(width)} ${r.ops.toFixed(1).padStart(10)}  ${ratio < 0.01 ? ratio.toExponential(2) : ratio.toFixed(3)}`);
  }
}
