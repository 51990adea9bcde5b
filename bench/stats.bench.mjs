// Statistics kernels (benny): kernels.stats / kernels.histogram side by side with plain TS loops and memcpy in one
// run, on 16M elements (64 MiB of float32, 32 MiB of float16 halves). Every case checks its result first.
// Times are each case's fastest sample. "% of memcpy speed" is time(memcpy of the input bytes) / time(case):
// how fast the tensor is reduced compared with copying it once (the WASM path copies every chunk into its
// scratch area, so 100% is the ceiling there).
// Writes bench/results/stats-*.json and bench/results/stats-table.md (the table in docs/benchmarks.md), prints the table.
// Run: npm run build && node bench/stats.bench.mjs [--quick]
import { add, complete, configure, cycle, save, suite } from "benny";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { kernels } from "../dist/index.js";

const quick = process.argv.includes("--quick");
const N = quick ? 1 << 20 : 1 << 24;
const tag = N >= 1 << 20 ? `${N >> 20}M` : `${N >> 10}K`;
const caseOptions = quick ? { minSamples: 3, maxTime: 0.5 } : { minSamples: 5, maxTime: 2 };
const results = {};
const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
configure({ cases: caseOptions });

// weight-like values: a sine pattern scaled like real weights, mean near 0
const floats = Float32Array.from({ length: N }, (_, i) => Math.sin(i * 0.7) * Math.cos(i * 0.013) * 0.05 + 0.001);
const halves = kernels.f32ToF16(floats);
const halfTable = new Float32Array(65536);
kernels.setBackend("js");
kernels.f16ToF32(Uint16Array.from({ length: 65536 }, (_, i) => i), halfTable);
kernels.setBackend("auto");

// --- baselines, written as a user would (module-level, monomorphic, one pass) ---
function statsLoop(a) {
  let min = Infinity, max = -Infinity, sum = 0, sumSquares = 0, nan = 0, posInf = 0, negInf = 0, zeros = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (x !== x) nan++;
    else if (x === Infinity) posInf++;
    else if (x === -Infinity) negInf++;
    else {
      if (x < min) min = x;
      if (x > max) max = x;
      sum += x;
      sumSquares += x * x;
      if (x === 0) zeros++;
    }
  }
  return { min, max, sum, sumSquares, nan, posInf, negInf, zeros };
}
function statsTableLoop(h) {
  let min = Infinity, max = -Infinity, sum = 0, sumSquares = 0, nan = 0, posInf = 0, negInf = 0, zeros = 0;
  for (let i = 0; i < h.length; i++) {
    const x = halfTable[h[i]];
    if (x !== x) nan++;
    else if (x === Infinity) posInf++;
    else if (x === -Infinity) negInf++;
    else {
      if (x < min) min = x;
      if (x > max) max = x;
      sum += x;
      sumSquares += x * x;
      if (x === 0) zeros++;
    }
  }
  return { min, max, sum, sumSquares, nan, posInf, negInf, zeros };
}
function histogramLoop(a, bins, lo, hi, counts) {
  counts.fill(0);
  const scale = bins / (hi - lo);
  let outside = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (x >= lo && x <= hi) counts[Math.min(bins - 1, Math.floor((x - lo) * scale))]++;
    else outside++;
  }
  return outside;
}

function check(s, loop, what) {
  const close = (a, b) => Math.abs(a - b) <= 1e-9 * (Math.abs(b) + 1);
  if (s.min !== loop.min || s.max !== loop.max || s.nan !== loop.nan || s.zeros !== loop.zeros || !close(s.sum, loop.sum) || !close(s.sumSquares, loop.sumSquares)) {
    throw new Error(`${what}: wrong result ${JSON.stringify(s)} vs ${JSON.stringify(loop)}`);
  }
}

async function run(name, cases) {
  await suite(
    name,
    ...cases.map(([label, setup, options]) => add(label, setup, options ?? caseOptions)),
    cycle(),
    complete((summary) => {
      // benny rounds ops to integers (useless below ~10 ops/s); the fastest sample is also the steadiest figure on
      // a shared machine
      for (const r of summary.results) results[`${name}: ${r.name}`] = { ops: 1 / r.details.min };
    }),
    save({ file: name.replace(/[^a-z0-9]+/gi, "-").toLowerCase(), folder: folder.pathname, format: "json" }),
  );
}

const floatBytes = new Uint8Array(floats.buffer);
const floatCopy = new Uint8Array(floatBytes.length);
const resident = kernels.allocate(Float32Array, N);
resident.set(floats);
const want = statsLoop(floats);
await run(`stats float32 ${tag}`, [
  ["wasm (kernels.stats)", () => { check(kernels.stats(floats), want, "wasm"); return () => kernels.stats(floats); }],
  ["wasm on a kernels.allocate() array", () => { check(kernels.stats(resident), want, "resident"); return () => kernels.stats(resident); }],
  ["ts loop (one pass, f64 sums)", () => { statsLoop(floats); return () => statsLoop(floats); }],
  ["ts twin (setBackend(\"js\"))", () => {
    kernels.setBackend("js"); check(kernels.stats(floats), want, "twin"); kernels.setBackend("auto");
    return () => { kernels.setBackend("js"); kernels.stats(floats); kernels.setBackend("auto"); };
  }, { minSamples: 2, maxTime: 0.5 }],
  ["Uint8Array.set of the input bytes (memcpy)", () => () => floatCopy.set(floatBytes)],
]);

const halfBytes = new Uint8Array(halves.buffer);
const halfCopy = new Uint8Array(halfBytes.length);
const halfWant = statsTableLoop(halves);
await run(`stats float16 ${tag}`, [
  ["wasm (kernels.stats, dtype float16)", () => { check(kernels.stats(halves, { dtype: "float16" }), halfWant, "wasm f16"); return () => kernels.stats(halves, { dtype: "float16" }); }],
  ["ts 64K-table loop", () => () => statsTableLoop(halves)],
  ["Uint8Array.set of the input bytes (memcpy)", () => () => halfCopy.set(halfBytes)],
]);

const bins = 256;
const counts = new Float64Array(bins);
await run(`histogram float32 ${tag}, ${bins} bins`, [
  ["wasm (kernels.histogram)", () => {
    const h = kernels.histogram(floats, bins, want.min, want.max);
    histogramLoop(floats, bins, want.min, want.max, counts);
    for (let b = 0; b < bins; b++) if (h.counts[b] !== counts[b]) throw new Error(`histogram: bin ${b} ${h.counts[b]} vs ${counts[b]}`);
    return () => kernels.histogram(floats, bins, want.min, want.max);
  }],
  ["ts loop", () => () => histogramLoop(floats, bins, want.min, want.max, counts)],
  ["Uint8Array.set of the input bytes (memcpy)", () => () => floatCopy.set(floatBytes)],
]);

// --- the ratio table ---
const groups = new Map();
for (const [key, value] of Object.entries(results)) {
  const [group, label] = key.split(": ");
  if (!groups.has(group)) groups.set(group, []);
  groups.get(group).push({ label, ...value });
}
const lines = [];
lines.push(`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}${quick ? ", --quick" : ""}.`);
lines.push("");
lines.push("| case | variant | ms/op | × baseline | % of memcpy speed |");
lines.push("|---|---|---:|---:|---:|");
for (const [group, rows] of groups) {
  const baseline = rows.find((r) => /^ts (loop|64K)/.test(r.label)) ?? rows[0];
  const memcpy = rows.find((r) => /memcpy/.test(r.label));
  for (const r of rows) {
    const ms = 1000 / r.ops;
    const pct = memcpy && r !== memcpy ? `${Math.round((r.ops / memcpy.ops) * 100)}%` : "";
    lines.push(`| ${group} | ${r.label} | ${ms.toFixed(2)} | ${r === baseline ? "1 (baseline)" : (r.ops / baseline.ops).toFixed(2)} | ${pct} |`);
  }
}
const table = lines.join("\n");
writeFileSync(new URL("stats-table.md", folder), `${table}\n`);
console.log(`\n${table}\n\nwritten to bench/results/stats-table.md`);
