// Many small files: `tensorfile convert --out-dir DIR --to npy FILE… -j N` on a corpus of 10,000 small SPRAAK
// files (generated once with spraak.matrix: 50-150 frames x 24 F32, like feature tracks), -j 1 (main thread) vs
// -j 2 (two worker threads), in turn, whole processes; throughput ratio = paired median of the -j 1 time over
// the -j 2 time. Usage: node bench/batch.bench.mjs [--files N] [--runs R] [--dir D]   (npm run build first)
// The corpus and the outputs live in /dev/shm (tmpfs) when there is one, else in the temporary folder: on this VM's
// disk, creating a small file takes ~4 ms (the file system, not the conversion), which no thread count changes.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, pairedRatio } from "./harness.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(name); return i < 0 ? fallback : argv[i + 1]; };
const COUNT = Number(option("--files", "10000"));
const RUNS = Number(option("--runs", "3"));
const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/cli.js");
const tf = await import(new URL("../dist/index.js", import.meta.url).href);

const base = option("--dir", existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
const corpus = join(base, `tfb-${COUNT}`);
if (!existsSync(corpus) || readdirSync(corpus).length !== COUNT) {
  rmSync(corpus, { recursive: true, force: true });
  mkdirSync(corpus, { recursive: true });
  let s = 12345;
  for (let i = 0; i < COUNT; i++) {
    const frames = 50 + (i % 101);
    const values = new Float32Array(frames * 24);
    for (let k = 0; k < values.length; k++) { s = (Math.imul(s, 1103515245) + 12345) >>> 0; values[k] = s / 4294967296 - 0.5; }
    writeFileSync(join(corpus, `f${String(i).padStart(5, "0")}.trk`), tf.spraak.write(tf.spraak.matrix(values, { cols: 24, format: "BIN01", data: "TRACK", header: { DATA: "TRACK" } })));
  }
}
const inputs = readdirSync(corpus).sort().map((f) => join(corpus, f));
const out = join(base, `tfb-out-${process.pid}`);

function run(jobs) {
  rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cli, "convert", "--out-dir", out, "--to", "npy", "-j", String(jobs), ...inputs], { encoding: "utf8" });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`-j ${jobs} failed: ${r.stderr.slice(0, 500)}`);
  if (readdirSync(out).length !== COUNT) throw new Error(`-j ${jobs} wrote ${readdirSync(out).length} files`);
  return ms;
}

const times = { 1: [], 2: [] };
for (let i = 0; i < RUNS; i++) for (const j of [1, 2]) times[j].push(run(j));
rmSync(out, { recursive: true, force: true });
const speedup = pairedRatio(times[1], times[2]);
const line = `batch convert of ${COUNT} SPRAAK files to .npy in ${base} (${cpus().length} cores, Node ${process.version}): ` +
  `-j 1 ${(median(times[1]) / 1000).toFixed(2)} s (${Math.round(COUNT / median(times[1]) * 1000)} files/s), ` +
  `-j 2 ${(median(times[2]) / 1000).toFixed(2)} s (${Math.round(COUNT / median(times[2]) * 1000)} files/s); -j 2 / -j 1 throughput ${speedup.toFixed(2)}x (paired median of ${RUNS})`;
console.log(line);
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/batch.txt", import.meta.url), `${line}\n`);
