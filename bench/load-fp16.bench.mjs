// loadFile of ~100 MB float16 files (bw2l: column-major, so transposed too; tsm: row-major consts) with
// dtype "float32", against fs.readFileSync of the same file (issue 34: within 1.3×). One process, interleaved
// rounds (each round runs every case once, in turn; gc before each call), each call keeping what it loaded until
// the next gc, as a program does. Ratio = paired median of loadFile / readFileSync of the same round. The "floor"
// case writes as many bytes as loadFile returns (twice the file's) into a fresh array: what no loader returning
// float32 arrays can beat here.
// Usage: node bench/load-fp16.bench.mjs [--rounds N] [--mb M]   (npm run build first; node --expose-gc is set here)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { floats } from "./generate-files.mjs";
import { median, pairedRatio } from "./harness.mjs";

if (typeof globalThis.gc !== "function") {
  const r = spawnSync(process.execPath, ["--expose-gc", ...process.argv.slice(1)], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(name); return i < 0 ? fallback : argv[i + 1]; };
const ROUNDS = Number(option("--rounds", "15"));
const MB = Number(option("--mb", "100"));
const tf = await import(new URL("../dist/index.js", import.meta.url).href);
const dir = process.env.TENSORFILE_BENCH_FILES ?? join(tmpdir(), "tensorfile-bench-files");
mkdirSync(dir, { recursive: true });

const halves = (n, seed) => tf.kernels.f32ToF16(floats(n, seed));
const files = [];
// bw2l: 25 layers of an N×N column-major float16 weight and a bias, ~MB megabytes
const N = Math.round(Math.sqrt((MB * 1e6) / 2 / 25));
const bw2lPath = join(dir, `bw2l_v2_fp16_${MB}mb.b2l`);
if (!existsSync(bw2lPath)) {
  const model = tf.bw2l.create({
    version: 2, flags: { criterion: "ctc" }, config: { criterion: "ctc" }, tokens: ["|", "a", "b"],
    layers: Array.from({ length: 25 }, (_, i) => ({
      arch: `L ${N} ${N}`,
      params: [{ dims: [N, N, 1, 1], data: floats(N * N, i + 1) }, { dims: [N, 1, 1, 1], data: floats(N, 1000 + i) }],
    })),
  });
  writeFileSync(bw2lPath, tf.bw2l.write(model, { quantize: "fp16" }));
}
files.push({ name: `bw2l v2 fp16, 25 × ${N}×${N} column-major`, path: bw2lPath });
// tsm: four row-major float16 <const> values
const E = Math.round((MB * 1e6) / 2 / 4 / 1600) * 1600;
const tsmPath = join(dir, `tsm_fp16_${MB}mb.tsm`);
if (!existsSync(tsmPath)) {
  const encoder = new TextEncoder();
  const text = (s) => { const data = encoder.encode(s); return { dtype: "char8", shape: [data.length], data }; };
  const node = (op, name, params, inputs) => ({ params: [{ key: "#op", fields: [text(op)] }, { key: "#name", fields: [text(name)] }, ...params], inputs });
  const nodes = [
    node("<param>", "input", [], []),
    ...[0, 1, 2, 3].map((i) => node("<const>", `weight_${i}`, [{ key: "value", fields: [{ dtype: "float16", shape: [E / 1600, 1600], data: halves(E, 50 + i) }] }], [])),
    node("add", "sum", [], [0, 1, 2, 3, 4]),
  ];
  writeFileSync(tsmPath, tf.tsm.write({ header: { fake: 0, code: tf.tsm.MODULE_CODE, reserved: new Uint8Array(120) }, inputs: [0], outputs: [nodes.length - 1], nodes }));
}
files.push({ name: `tsm fp16, 4 × ${E / 1600}×1600 consts`, path: tsmPath });

let sink = 0;
const float32 = { dtype: "float32" };
const load = async (f) => { for (const t of (await tf.loadFile(f.path, float32)).tensors) sink += t.data[0]; };
const cases = [];
// the floor of any loader that returns float32 arrays: writing 2× the file's bytes into fresh memory (page faults:
// the OS zeroes and maps every 4 KiB page on its first touch), by 1 MiB copies from a block in cache
const block = new Uint8Array(1 << 20).fill(1);
const freshOutput = (bytes) => {
  const out = new Uint8Array(bytes);
  for (let at = 0; at < bytes; at += block.length) out.set(at + block.length <= bytes ? block : block.subarray(0, bytes - at), at);
  return out;
};
for (const f of files) {
  const size = readFileSync(f.path).length;
  cases.push({ file: f, name: "readFileSync", run: async () => { sink += readFileSync(f.path).length; } });
  cases.push({ file: f, name: "loadFile", run: () => load(f) });
  cases.push({ file: f, name: "floor", run: async () => { sink += freshOutput(2 * size)[0]; } });
}
const uptimeBefore = loadavg();
for (const c of cases) await c.run(); // page cache, JIT
const samples = cases.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < cases.length; i++) {
    globalThis.gc();
    const t = performance.now();
    await cases[i].run();
    samples[i].push(performance.now() - t);
  }
}
const uptimeAfter = loadavg();
const sizeMB = (p) => (readFileSync(p).length / 1e6).toFixed(1);
const lines = [
  `loadFile of float16 files with dtype "float32" against readFileSync, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}, load average ${uptimeBefore[0].toFixed(1)} at the start and ${uptimeAfter[0].toFixed(1)} at the end; medians of ${ROUNDS} interleaved rounds.`,
  "",
  "| file | MB | readFileSync ms | loadFile ms | loadFile / readFileSync (paired) | floor: 2× the bytes into fresh memory, / readFileSync | goal |",
  "|---|---:|---:|---:|---:|---:|---:|",
];
for (let i = 0; i < cases.length; i += 3) {
  const ratio = pairedRatio(samples[i + 1], samples[i]);
  const floor = pairedRatio(samples[i + 2], samples[i]);
  lines.push(`| ${cases[i].file.name} | ${sizeMB(cases[i].file.path)} | ${median(samples[i]).toFixed(1)} | ${median(samples[i + 1]).toFixed(1)} | ${ratio.toFixed(2)}× | ${median(samples[i + 2]).toFixed(1)} ms, ${floor.toFixed(2)}× | ${ratio <= 1.3 ? "✓" : "✗"} ≤ 1.3× |`);
}
console.log(lines.join("\n"));
if (sink === 42) console.log("");
