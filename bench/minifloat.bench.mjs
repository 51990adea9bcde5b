// Narrow-float widening benchmarks (benny): kernels.bf16ToF32 / f8e4m3ToF32 / f8e5m2ToF32 (WASM SIMD) side by
// side with the TS loops a user would write (bf16: a shift; float8: a 256-entry table) and a memcpy of the input,
// in one run, for 16M and 1K elements. Every case checks its result before it is timed.
// Writes bench/results/minifloat-table.md and prints ratios.
// Run: npm run build && node bench/minifloat.bench.mjs [--quick]
import { add, complete, configure, cycle, suite } from "benny";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { kernels } from "../dist/index.js";

const quick = process.argv.includes("--quick");
const LARGE = quick ? 1 << 20 : 1 << 24;
const SMALL = 1024;
const caseOptions = quick ? { minSamples: 3, maxTime: 0.5 } : { minSamples: 5, maxTime: 2 };
const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
const results = [];

function assertSame(a, b, what) {
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  if (x.length !== y.length) throw new Error(`${what}: wrong length`);
  for (let i = 0; i < x.length; i += 1021) if (x[i] !== y[i]) throw new Error(`${what}: wrong result at ${i}`);
}

// --- baselines written as a user would (module-level, monomorphic) ---
function bf16Loop(src, dst) {
  for (let i = 0; i < src.length; i++) dst[i] = src[i] << 16;
}
const e4m3Table = new Float32Array(256);
const e5m2Table = new Float32Array(256);
kernels.setBackend("js");
kernels.f8e4m3ToF32(Uint8Array.from({ length: 256 }, (_, i) => i), e4m3Table);
kernels.f8e5m2ToF32(Uint8Array.from({ length: 256 }, (_, i) => i), e5m2Table);
kernels.setBackend("auto");
function e4m3Loop(src, dst) {
  for (let i = 0; i < src.length; i++) dst[i] = e4m3Table[src[i]];
}
function e5m2Loop(src, dst) {
  for (let i = 0; i < src.length; i++) dst[i] = e5m2Table[src[i]];
}

async function run(name, inputBytes, cases) {
  await suite(
    name,
    ...cases.map(([label, setup]) => add(label, setup, caseOptions)),
    cycle(),
    complete((summary) => {
      for (const r of summary.results) results.push({ group: name, label: r.name, ops: r.ops, inputBytes });
    }),
  );
}

configure({ cases: caseOptions });

for (const n of [LARGE, SMALL]) {
  const tag = n >= 1 << 20 ? `${n >> 20}M` : `${n >> 10}K`;
  // weight-like values: bf16 = the top half of normal-ish float32s; float8 = every byte value, shuffled
  const weights = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7) * Math.cos(i * 0.013) * 0.05);
  const bf16 = new Uint16Array(n);
  const wordsIn = new Uint32Array(weights.buffer);
  for (let i = 0; i < n; i++) bf16[i] = wordsIn[i] >>> 16;
  const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 167 + (i >> 9)) & 0xff);
  const out = new Float32Array(n);
  const outBits = new Uint32Array(out.buffer);
  const want = new Float32Array(n);
  const wantBits = new Uint32Array(want.buffer);
  const copy16 = new Uint8Array(n * 2);
  const in16 = new Uint8Array(bf16.buffer);
  const copy8 = new Uint8Array(n);

  bf16Loop(bf16, wantBits);
  await run(`bf16->f32 ${tag}`, n * 2, [
    ["wasm (kernels.bf16ToF32, preallocated)", () => { kernels.bf16ToF32(bf16, out); assertSame(out, want, "wasm"); return () => kernels.bf16ToF32(bf16, out); }],
    ["ts shift loop", () => { bf16Loop(bf16, outBits); assertSame(out, want, "ts"); return () => bf16Loop(bf16, outBits); }],
    ["Uint8Array.set of the input bytes (memcpy)", () => () => copy16.set(in16)],
  ]);

  e4m3Loop(bytes, want);
  await run(`f8 e4m3->f32 ${tag}`, n, [
    ["wasm (kernels.f8e4m3ToF32, preallocated)", () => { kernels.f8e4m3ToF32(bytes, out); assertSame(out, want, "wasm"); return () => kernels.f8e4m3ToF32(bytes, out); }],
    ["ts 256-table loop", () => { e4m3Loop(bytes, out); assertSame(out, want, "ts"); return () => e4m3Loop(bytes, out); }],
    ["Uint8Array.set of the input bytes (memcpy)", () => () => copy8.set(bytes)],
  ]);

  e5m2Loop(bytes, want);
  await run(`f8 e5m2->f32 ${tag}`, n, [
    ["wasm (kernels.f8e5m2ToF32, preallocated)", () => { kernels.f8e5m2ToF32(bytes, out); assertSame(out, want, "wasm"); return () => kernels.f8e5m2ToF32(bytes, out); }],
    ["ts 256-table loop", () => { e5m2Loop(bytes, out); assertSame(out, want, "ts"); return () => e5m2Loop(bytes, out); }],
    ["Uint8Array.set of the input bytes (memcpy)", () => () => copy8.set(bytes)],
  ]);
}

// --- the ratio table: time relative to the TS loop of the same run; GB/s of input ---
const lines = [];
lines.push(`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}${quick ? ", --quick" : ""}.`);
lines.push("");
lines.push("| case | variant | ms/op | × ts loop | input GB/s |");
lines.push("|---|---|---:|---:|---:|");
for (const group of [...new Set(results.map((r) => r.group))]) {
  const rows = results.filter((r) => r.group === group);
  const baseline = rows.find((r) => r.label.startsWith("ts "));
  for (const r of rows) {
    const ms = 1000 / r.ops;
    lines.push(`| ${group} | ${r.label} | ${ms.toFixed(ms < 0.1 ? 4 : 2)} | ${r === baseline ? "1 (baseline)" : (r.ops / baseline.ops).toFixed(2)} | ${((r.ops * r.inputBytes) / 1e9).toFixed(2)} |`);
  }
}
const table = lines.join("\n");
writeFileSync(new URL("minifloat-table.md", folder), `${table}\n`);
console.log(`\n${table}\n\nwritten to bench/results/minifloat-table.md`);
