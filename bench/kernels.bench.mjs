// Kernel benchmarks against the runtime's own yardsticks (issue 34), side by side in one interleaved run: every
// kernel through the public API at 64K and 16M elements, on aligned arrays and at odd element offsets, into a
// preallocated ordinary array and (where the API allows) into an output the kernel allocates, next to what the
// runtime does for the same bytes in C++:
// - widening kernels (f16ToF32, bf16ToF32, dequantizeI8): the widening copy `Float32Array.prototype.set(int16Array)`
//   (or of an Int8Array);
// - the others (f32ToF16, quantizeI8, byteSwap 2/4/8, transposes, stats, histogram): memcpy (`Uint8Array.set`) of the
//   larger side (transposes: of the output; stats and histogram: of the input).
// Each case's result is checked once before it is timed. Times are medians of interleaved rounds (each round runs
// every case of a group once, in turn), so the load of a shared machine hits a case and its yardstick alike: read the
// ratios. Goals (issue 34): elementwise ≤ 1.3×, transposes ≤ 2×, stats/histogram ≤ 1.5× their yardstick.
//
// Usage: npm run build && node bench/kernels.bench.mjs [--quick] [--json FILE]
//   --quick: 64K and 1M elements, few rounds (what CI runs: it checks that the bench runs, never its numbers).
// Writes bench/results/kernels.json and bench/results/kernels-table.md; bench/report.mjs puts the table into
// docs/benchmarks.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { timeInterleaved } from "./harness.mjs";


/** Weight-like values: normal with sigma 0.05 (xorshift + Box-Muller, deterministic). */
function weights(n, seed = 0x9e3779b9) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  const next = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return (s + 1) / 4294967297; };
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(next())) * 0.05;
    const t = 2 * Math.PI * next();
    out[i] = r * Math.cos(t);
    if (i + 1 < n) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

/** A view of `n` elements of `Ctor` at element offset `at` (0: aligned; 1: an odd offset) into a fresh buffer. */
function view(Ctor, n, at) {
  return new Ctor(new ArrayBuffer((n + at) * Ctor.BYTES_PER_ELEMENT), at * Ctor.BYTES_PER_ELEMENT, n);
}

/**
 * A copy target for a memcpy yardstick: same type and length as `a`, 2 KiB away from it modulo 4 KiB. Two fresh
 * page-aligned buffers 4 KiB-alias, which makes glibc's `rep movsb` copy ~12x slower on AMD Zen: a yardstick that
 * slow would flatter every kernel.
 */
function copyTarget(a) {
  const offset = (a.byteOffset + 2048) % 4096;
  return new a.constructor(new ArrayBuffer(offset + a.byteLength), offset, a.length);
}

function bytes(a) {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function sameBits(a, b, what) {
  if (!Buffer.from(bytes(a)).equals(Buffer.from(bytes(b)))) throw new Error(`${what}: the result differs from the TS twin's`);
}

/** Runs every group; returns the rows of the table. */
export async function runKernelBench({ quick = false } = {}) {
  const { kernels } = await import(pathToFileURL(fileURLToPath(new URL("../dist/index.js", import.meta.url))).href);
  const sizes = quick ? [65536, 1 << 20] : [65536, 1 << 24];
  const roundsFor = (n) => (n <= 65536 ? (quick ? 7 : 31) : quick ? 5 : 11);
  const innerFor = (n) => (n <= 65536 ? (quick ? 5 : 20) : 1);
  const twin = (fn) => { kernels.setBackend("js"); try { return fn(); } finally { kernels.setBackend("auto"); } };
  const loadBefore = loadavg()[0];
  const rows = [];
  const add = (group, goal, yardName, timings, counts) => {
    const yard = timings[yardName];
    for (const [name, ms] of Object.entries(timings)) {
      if (name === yardName) continue;
      rows.push({ group, variant: name, ms, yardstick: yardName, yardMs: yard, ratio: ms / yard, goal, ...counts });
    }
  };

  for (const n of sizes) {
    const label = n >= 1 << 20 ? `${n >> 20}M` : `${n >> 10}K`;
    const rounds = roundsFor(n);
    const inner = innerFor(n);
    const w = weights(n);
    for (const at of [0, 1]) {
      const where = at === 0 ? "aligned" : "odd offset";
      // widening: halves, bfloat16, int8
      const halves = view(Uint16Array, n, at);
      kernels.f32ToF16(w, halves);
      const bf = view(Uint16Array, n, at);
      bf.set(new Uint16Array(w.buffer).filter((_, i) => i % 2 === 1));
      const q = view(Int8Array, n, at);
      kernels.quantizeI8(w, 0.002, 0, q);
      const out = view(Float32Array, n, at);
      const i16 = new Int16Array(halves.buffer, halves.byteOffset, n);
      sameBits(kernels.f16ToF32(halves, out), twin(() => kernels.f16ToF32(halves)), "f16ToF32");
      add(`f16ToF32 ${label} ${where}`, 1.3, "Float32Array.set(Int16Array)", timeInterleaved({
        "Float32Array.set(Int16Array)": () => out.set(i16),
        "f16ToF32 into a preallocated array": () => kernels.f16ToF32(halves, out),
        "f16ToF32, output allocated": () => kernels.f16ToF32(halves),
      }, rounds, inner), { elements: n });
      sameBits(kernels.bf16ToF32(bf, out), twin(() => kernels.bf16ToF32(bf)), "bf16ToF32");
      add(`bf16ToF32 ${label} ${where}`, 1.3, "Float32Array.set(Int16Array)", timeInterleaved({
        "Float32Array.set(Int16Array)": () => out.set(i16),
        "bf16ToF32 into a preallocated array": () => kernels.bf16ToF32(bf, out),
        "bf16ToF32, output allocated": () => kernels.bf16ToF32(bf),
      }, rounds, inner), { elements: n });
      sameBits(kernels.dequantizeI8(q, 0.002, 1, out), twin(() => kernels.dequantizeI8(q, 0.002, 1)), "dequantizeI8");
      add(`dequantizeI8 ${label} ${where}`, 1.3, "Float32Array.set(Int8Array)", timeInterleaved({
        "Float32Array.set(Int8Array)": () => out.set(q),
        "dequantizeI8 into a preallocated array": () => kernels.dequantizeI8(q, 0.002, 1, out),
        "dequantizeI8, output allocated": () => kernels.dequantizeI8(q, 0.002, 1),
      }, rounds, inner), { elements: n });
      // narrowing: yardstick memcpy of the input (the larger side)
      const src = view(Float32Array, n, at);
      src.set(w);
      const copyOf = copyTarget(src);
      const memcpy4 = () => bytes(copyOf).set(bytes(src));
      const h = view(Uint16Array, n, at);
      sameBits(kernels.f32ToF16(src, h), twin(() => kernels.f32ToF16(src)), "f32ToF16");
      add(`f32ToF16 ${label} ${where}`, 1.3, "memcpy of the input", timeInterleaved({
        "memcpy of the input": memcpy4,
        "f32ToF16 into a preallocated array": () => kernels.f32ToF16(src, h),
        "f32ToF16, output allocated": () => kernels.f32ToF16(src),
      }, rounds, inner), { elements: n });
      const q8 = view(Int8Array, n, at);
      sameBits(kernels.quantizeI8(src, 0.002, 0, q8), twin(() => kernels.quantizeI8(src, 0.002, 0)), "quantizeI8");
      add(`quantizeI8 ${label} ${where}`, 1.3, "memcpy of the input", timeInterleaved({
        "memcpy of the input": memcpy4,
        "quantizeI8 into a preallocated array": () => kernels.quantizeI8(src, 0.002, 0, q8),
        "quantizeI8, output allocated": () => kernels.quantizeI8(src, 0.002, 0),
      }, rounds, inner), { elements: n });
      // byte swaps, in place: yardstick memcpy of the same bytes
      for (const width of [2, 4, 8]) {
        const Ctor = width === 2 ? Uint16Array : width === 4 ? Uint32Array : Float64Array;
        const data = view(Ctor, n, at);
        bytes(data).set(bytes(w).subarray(0, Math.min(data.byteLength, w.byteLength)));
        const copy = copyTarget(data);
        const want = twin(() => kernels.byteSwap(data.slice(), width));
        sameBits(kernels.byteSwap(data.slice(), width), want, `byteSwap ${width}`);
        add(`byteSwap ${width}-byte ${label} ${where}`, 1.3, "memcpy of the same bytes", timeInterleaved({
          "memcpy of the same bytes": () => bytes(copy).set(bytes(data)),
          "byteSwap in place": () => kernels.byteSwap(data, width),
        }, rounds, inner), { elements: n });
      }
      // statistics: yardstick memcpy of the input
      sameBits(new Float64Array(Object.values(kernels.stats(src))), new Float64Array(Object.values(twin(() => kernels.stats(src)))), "stats");
      add(`stats float32 ${label} ${where}`, 1.5, "memcpy of the input", timeInterleaved({
        "memcpy of the input": memcpy4,
        "stats": () => kernels.stats(src),
        "histogram, 256 bins": () => kernels.histogram(src, 256, -0.25, 0.25),
      }, rounds, inner), { elements: n });
    }
    // transposes: yardstick memcpy of the output
    const shapes = n <= 65536 ? [[256, 256], [100, 300]] : quick ? [[1024, 1024], [500, 1500]] : [[4096, 4096], [1000, 3000]];
    for (const [rows, cols] of shapes) {
      const count = rows * cols;
      const src = weights(count, 7);
      const dst = new Float32Array(count);
      const copy = copyTarget(src);
      sameBits(kernels.transpose(src, rows, cols, dst), twin(() => kernels.transpose(src, rows, cols)), "transpose");
      add(`transpose float32 ${rows}×${cols}`, 2, "memcpy of the output", timeInterleaved({
        "memcpy of the output": () => bytes(copy).set(bytes(src)),
        "transpose into a preallocated array": () => kernels.transpose(src, rows, cols, dst),
        "transpose, output allocated": () => kernels.transpose(src, rows, cols),
      }, roundsFor(count), innerFor(count)), { elements: count });
      const halves = kernels.f32ToF16(src);
      sameBits(kernels.columnToRowMajorF16ToF32(halves, [cols, rows], dst), twin(() => kernels.columnToRowMajorF16ToF32(halves, [cols, rows])), "columnToRowMajorF16ToF32");
      add(`column-major float16 → row-major float32 ${rows}×${cols}`, 2, "memcpy of the output", timeInterleaved({
        "memcpy of the output": () => bytes(copy).set(bytes(src)),
        "columnToRowMajorF16ToF32 into a preallocated array": () => kernels.columnToRowMajorF16ToF32(halves, [cols, rows], dst),
        "columnToRowMajorF16ToF32, output allocated": () => kernels.columnToRowMajorF16ToF32(halves, [cols, rows]),
      }, roundsFor(count), innerFor(count)), { elements: count });
    }
  }
  return {
    date: new Date().toISOString(),
    machine: `${cpus()[0]?.model ?? "?"} (${cpus().length} cores)`,
    node: process.version,
    loadBefore,
    loadAfter: loadavg()[0],
    quick,
    rows,
  };
}

/** The markdown table of a run: one line a case, its yardstick, the ratio and the goal. */
export function kernelTable(run) {
  const fmt = (ms) => (ms >= 1 ? ms.toFixed(2) : ms >= 0.01 ? ms.toFixed(3) : ms.toFixed(4));
  const lines = [
    `Measured ${run.date.slice(0, 16).replace("T", " ")} UTC on ${run.machine}, Node ${run.node}, load average ${run.loadBefore.toFixed(1)} at the start and ${run.loadAfter.toFixed(1)} at the end${run.quick ? " (--quick: 64K and 1M elements)" : ""}; medians of interleaved rounds.`,
    "",
    "| case | variant | ms | yardstick | yardstick ms | ratio | goal |",
    "|---|---|---:|---|---:|---:|---:|",
  ];
  for (const r of run.rows) {
    lines.push(`| ${r.group} | ${r.variant} | ${fmt(r.ms)} | ${r.yardstick} | ${fmt(r.yardMs)} | ${r.ratio.toFixed(2)}× | ${r.ratio <= r.goal ? "✓" : "✗"} ≤ ${r.goal}× |`);
  }
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes("--quick");
  const run = await runKernelBench({ quick });
  const table = kernelTable(run);
  const folder = new URL("./results/", import.meta.url);
  mkdirSync(folder, { recursive: true });
  writeFileSync(new URL("kernels.json", folder), JSON.stringify(run, null, 1));
  writeFileSync(new URL("kernels-table.md", folder), `${table}\n`);
  console.log(table);
}
