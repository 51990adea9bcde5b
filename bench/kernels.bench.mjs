// Kernel benchmarks (benny): the public kernel API (WASM SIMD) side by side with the baselines in one run, for
// large (16M elements) and small (1K) inputs. Every case checks its result before it is timed.
// Writes bench/results/kernels-*.json and bench/results/kernels-table.md (the table in docs/benchmarks.md), prints ratios.
// Run: npm run bench  (or: npm run build && node bench/kernels.bench.mjs [--quick])
import { add, complete, configure, cycle, save, suite } from "benny";
import { getFloat16 } from "@petamoriken/float16";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { kernels } from "../dist/index.js";

const quick = process.argv.includes("--quick");
const LARGE = quick ? 1 << 20 : 1 << 24;
const SMALL = 1024;
const caseOptions = quick ? { minSamples: 3, maxTime: 0.5 } : { minSamples: 5, maxTime: 2 };
const slowOptions = { minSamples: 1, maxTime: 0.5, initCount: 1 };
const results = {};
const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });

function fill(words) {
  let s = 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    words[i] = s >>> 0;
  }
  return words;
}

function assertSame(a, b, what) {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (x.length !== y.length) throw new Error(`${what}: wrong length`);
  for (let i = 0; i < x.length; i += 4093) if (x[i] !== y[i]) throw new Error(`${what}: wrong result at byte ${i}`);
}

// --- baselines written as a user would (module-level, monomorphic) ---
const halfTable = new Float32Array(65536);
{
  kernels.setBackend("js");
  kernels.f16ToF32(Uint16Array.from({ length: 65536 }, (_, i) => i), halfTable);
  kernels.setBackend("auto");
}
function tableLoop(src, dst) {
  for (let i = 0; i < src.length; i++) dst[i] = halfTable[src[i]];
}
/** The same loop with the table passed in, as a generic helper would be written (what performance.md measured). */
function tableLoopGeneric(src, dst, table) {
  for (let i = 0; i < src.length; i++) dst[i] = table[src[i]];
}
function dequantLoop(q, scale, offset, dst) {
  for (let i = 0; i < q.length; i++) dst[i] = (q[i] - offset) * scale;
}
function blockedTranspose(src, dst, rows, cols) {
  const B = 16;
  for (let ib = 0; ib < rows; ib += B) {
    const ie = Math.min(ib + B, rows);
    for (let jb = 0; jb < cols; jb += B) {
      const je = Math.min(jb + B, cols);
      for (let i = ib; i < ie; i++) for (let j = jb; j < je; j++) dst[j * rows + i] = src[i * cols + j];
    }
  }
}

/** bytesMoved: bytes read + written by one kernel op; copied: bytes one memcpy op copies. */
async function run(name, bytesMoved, copied, cases) {
  await suite(
    name,
    ...cases.map(([label, setup, options]) => add(label, setup, options ?? caseOptions)),
    cycle(),
    complete((summary) => {
      for (const r of summary.results) results[`${name}: ${r.name}`] = { ops: r.ops, bytesMoved, copied };
    }),
    save({ file: name.replace(/[^a-z0-9]+/gi, "-").toLowerCase(), folder: folder.pathname, format: "json" }),
  );
}

configure({ cases: caseOptions });

for (const n of [LARGE, SMALL]) {
  const tag = n >= 1 << 20 ? `${n >> 20}M` : `${n >> 10}K`;
  // fp16 -> fp32
  // weight-like halves (about 0.5% subnormal), as in real fp16 models
  const halves = kernels.f32ToF16(Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7) * Math.cos(i * 0.013) * 0.05));
  const want = new Float32Array(n);
  tableLoop(halves, want);
  const out = new Float32Array(n);
  const resident = kernels.allocate(Float32Array, n);
  const copyIn = new Uint8Array(halves.buffer); // real data: an untouched zero buffer would read one shared page
  const copyOut = new Uint8Array(n * 2);
  const slowN = Math.min(n, 1 << 16); // @petamoriken/float16 is measured on 64K and scaled
  await run(`fp16->fp32 ${tag}`, n * 6, n * 2, [
    ["wasm (kernels.f16ToF32, preallocated)", () => { kernels.f16ToF32(halves, out); assertSame(out, want, "wasm"); return () => kernels.f16ToF32(halves, out); }],
    ["wasm into kernels.allocate() output", () => { kernels.f16ToF32(halves, resident); assertSame(resident, want, "resident"); return () => kernels.f16ToF32(halves, resident); }],
    ["ts 64K-table loop", () => { tableLoop(halves, out); assertSame(out, want, "table"); return () => tableLoop(halves, out); }],
    ["ts 64K-table loop, table passed in", () => { tableLoopGeneric(halves, out, halfTable); assertSame(out, want, "table2"); return () => tableLoopGeneric(halves, out, halfTable); }],
    [`@petamoriken/float16 getFloat16 loop (${slowN} el, scaled)`, () => {
      const view = new DataView(halves.buffer);
      const f = () => { for (let i = 0; i < slowN; i++) out[i] = getFloat16(view, i * 2, true); };
      f(); assertSame(out.subarray(0, slowN), want.subarray(0, slowN), "petamoriken");
      return f;
    }, slowOptions],
    ["Uint8Array.set of the input bytes (memcpy)", () => () => copyOut.set(copyIn)],
  ]);
  if (slowN < n) {
    const key = `fp16->fp32 ${tag}: @petamoriken/float16 getFloat16 loop (${slowN} el, scaled)`;
    if (results[key]) results[key].ops *= slowN / n;
  }

  // int8 dequantization
  const q = new Int8Array(fill(new Uint32Array(n / 4)).buffer);
  const deq = new Float32Array(n);
  const deqWant = new Float32Array(n);
  kernels.setBackend("js"); kernels.dequantizeI8(q, 0.013, -3, deqWant); kernels.setBackend("auto");
  const deqResident = kernels.allocate(Float32Array, n);
  const qBytes = new Uint8Array(q.buffer);
  const qCopy = new Uint8Array(n);
  await run(`int8 dequantization ${tag}`, n * 5, n, [
    ["wasm (kernels.dequantizeI8, preallocated)", () => { kernels.dequantizeI8(q, 0.013, -3, deq); assertSame(deq, deqWant, "wasm"); return () => kernels.dequantizeI8(q, 0.013, -3, deq); }],
    ["wasm into kernels.allocate() output", () => { kernels.dequantizeI8(q, 0.013, -3, deqResident); assertSame(deqResident, deqWant, "resident"); return () => kernels.dequantizeI8(q, 0.013, -3, deqResident); }],
    ["ts loop (q - offset) * scale", () => () => dequantLoop(q, 0.013, -3, deq)],
    ["Uint8Array.set of the input bytes (memcpy)", () => () => qCopy.set(qBytes)],
  ]);

  // 32-bit byte swap, in place
  const words = fill(new Uint32Array(n));
  const wordBytes = new Uint8Array(words.buffer);
  const wordsResident = kernels.allocate(Uint32Array, n);
  wordsResident.set(words);
  const buffer = Buffer.from(words.buffer);
  const bufferCopy = new Uint8Array(n * 4);
  await run(`byte swap 32 ${tag}`, n * 8, n * 4, [
    ["wasm (kernels.byteSwap, in place)", () => () => kernels.byteSwap(wordBytes, 4)],
    ["wasm on a kernels.allocate() array", () => () => kernels.byteSwap(wordsResident, 4)],
    ["Buffer.swap32 (node C++)", () => () => buffer.swap32()],
    ["ts twin", () => () => { kernels.setBackend("js"); kernels.byteSwap(wordBytes, 4); kernels.setBackend("auto"); }, slowOptions],
    ["Uint8Array.set of the same bytes (memcpy)", () => () => bufferCopy.set(wordBytes)],
  ]);
}

// transpose, float32
for (const [rows, cols] of quick ? [[1024, 1024], [32, 32]] : [[4096, 4096], [32, 32]]) {
  const tag = `${rows}x${cols}`;
  const n = rows * cols;
  const src = new Float32Array(fill(new Uint32Array(n)).buffer).map((v) => (Number.isNaN(v) ? 0 : v));
  const dst = new Float32Array(n);
  const want = new Float32Array(n);
  blockedTranspose(src, want, rows, cols);
  const srcResident = kernels.allocate(Float32Array, n);
  srcResident.set(src);
  const dstResident = kernels.allocate(Float32Array, n);
  const copy = new Uint8Array(n * 4);
  const srcBytes = new Uint8Array(src.buffer);
  const srcBits = new Int32Array(src.buffer);
  const dstBits = new Int32Array(dst.buffer);
  await run(`transpose float32 ${tag}`, n * 8, n * 4, [
    ["wasm (kernels.transpose, preallocated)", () => { kernels.transpose(src, rows, cols, dst); assertSame(dst, want, "wasm"); return () => kernels.transpose(src, rows, cols, dst); }],
    ["wasm into kernels.allocate() output", () => { kernels.transpose(src, rows, cols, dstResident); assertSame(dstResident, want, "resident"); return () => kernels.transpose(src, rows, cols, dstResident); }],
    ["wasm, both arrays from kernels.allocate()", () => { kernels.transpose(srcResident, rows, cols, dstResident); assertSame(dstResident, want, "both"); return () => kernels.transpose(srcResident, rows, cols, dstResident); }],
    ["ts blocked loop (B=16)", () => () => blockedTranspose(srcBits, dstBits, rows, cols)],
    ["Uint8Array.set of the same bytes (memcpy)", () => () => copy.set(srcBytes)],
  ]);
}

// fused column-major fp16 -> row-major f32 (transpose + widen in one pass) vs the two passes it replaces
for (const [rows, cols] of quick ? [[1024, 1024]] : [[4096, 4096]]) {
  const tag = `${rows}x${cols}`;
  const n = rows * cols;
  const halves = kernels.f32ToF16(Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7) * Math.cos(i * 0.013) * 0.05));
  const want = new Float32Array(n);
  kernels.setBackend("js"); kernels.transposeF16ToF32(halves, rows, cols, want); kernels.setBackend("auto");
  const out = new Float32Array(n);
  const halvesResident = kernels.allocate(Uint16Array, n);
  halvesResident.set(halves);
  const outResident = kernels.allocate(Float32Array, n);
  const narrow = new Uint16Array(n);
  const narrowResident = kernels.allocate(Uint16Array, n);
  const copyIn = new Uint8Array(halves.buffer);
  const copyOut = new Uint8Array(n * 2);
  await run(`transpose+widen fp16->f32 ${tag}`, n * 6, n * 2, [
    ["wasm fused (kernels.transposeF16ToF32, preallocated)", () => { kernels.transposeF16ToF32(halves, rows, cols, out); assertSame(out, want, "fused"); return () => kernels.transposeF16ToF32(halves, rows, cols, out); }],
    ["wasm fused, both arrays from kernels.allocate()", () => { kernels.transposeF16ToF32(halvesResident, rows, cols, outResident); assertSame(outResident, want, "fused resident"); return () => kernels.transposeF16ToF32(halvesResident, rows, cols, outResident); }],
    ["wasm two passes (transpose, then f16ToF32)", () => () => kernels.f16ToF32(kernels.transpose(halves, rows, cols, narrow), out)],
    ["wasm two passes, kernels.allocate() arrays", () => () => kernels.f16ToF32(kernels.transpose(halvesResident, rows, cols, narrowResident), outResident)],
    ["ts twin (blocked table loop)", () => () => { kernels.setBackend("js"); kernels.transposeF16ToF32(halves, rows, cols, out); kernels.setBackend("auto"); }, slowOptions],
    ["Uint8Array.set of the input bytes (memcpy)", () => () => copyOut.set(copyIn)],
  ]);
}

// --- the ratio table ---
const groups = new Map();
for (const [key, value] of Object.entries(results)) {
  const [group, label] = key.split(": ");
  if (!groups.has(group)) groups.set(group, []);
  groups.get(group).push({ label, ...value });
}
const lines = [];
const date = new Date().toISOString().slice(0, 10);
lines.push(`Measured ${date} on ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}${quick ? ", --quick" : ""}.`);
lines.push("");
lines.push("| case | variant | ms/op | × baseline | % of memcpy |");
lines.push("|---|---|---:|---:|---:|");
for (const [group, rows] of groups) {
  const baseline = rows.find((r) => /^ts |Buffer\.swap32/.test(r.label) && !/twin|passed in/.test(r.label)) ?? rows.find((r) => /^ts twin/.test(r.label)) ?? rows[0];
  const memcpy = rows.find((r) => /memcpy/.test(r.label));
  for (const r of rows) {
    const ms = 1000 / r.ops;
    const ratio = r.ops / baseline.ops;
    // % of memcpy: bytes read + written per second, relative to the same figure for the memcpy case
    const pct = memcpy && r !== memcpy ? `${Math.round((r.ops * r.bytesMoved) / (memcpy.ops * memcpy.copied * 2) * 100)}%` : "";
    lines.push(`| ${group} | ${r.label} | ${ms.toFixed(ms < 0.1 ? 4 : 2)} | ${r === baseline ? "1 (baseline)" : ratio.toFixed(2)} | ${pct} |`);
  }
}
const table = lines.join("\n");
writeFileSync(new URL("kernels-table.md", folder), `${table}\n`);
console.log(`\n${table}\n\nwritten to bench/results/kernels-table.md`);
