// Cold start, measured with child processes (npm run build first):
//  1. process start: `node -e 0` vs `node -e 'import("tensorfile")'` (the package's Node entry, one bundled file) and
//     `import("tensorfile/onnx")` (issue 34: <= 15 ms and <= 10 ms over `node -e 0`, median of 11 paired runs) vs
//     the same import of dist/index.modules.js (the per-file modules: what the import cost before the bundle),
//     run in turn, wall and CPU (user + sys) from /usr/bin/time; the import's cost = paired median difference;
//  2. the first call in a fresh process vs warm calls in the same process: readAny(bytes).tensors() and loadFile()
//     on generated ~100 MB files (bench/generate-files.mjs), with gc between calls; ratio = first / warm.
//  1b. the import alone, timed inside fresh processes (performance.now and process.cpuUsage around `await import()`);
// Usage: node bench/cold-start.mjs [--runs N] [--scale S] [--files a,b|none]   Writes bench/results/cold-start.json.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { benchFiles } from "./generate-files.mjs";
import { median } from "./harness.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(name); return i < 0 ? fallback : argv[i + 1]; };
const RUNS = Number(option("--runs", "21"));
const SCALE = Number(option("--scale", "1"));
const only = option("--files", "")?.split(",").filter(Boolean);
const root = fileURLToPath(new URL("..", import.meta.url));
const tf = await import(new URL("../dist/index.js", import.meta.url).href);

function timed(args) {
  const r = spawnSync("/usr/bin/time", ["-f", "TIME %e %U %S %M", process.execPath, ...args], { cwd: root, encoding: "utf8" });
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`node ${args.join(" ")} failed: ${r.stderr}`);
  return { wall: Number(m[1]) * 1000, cpu: (Number(m[2]) + Number(m[3])) * 1000, rssMiB: Number(m[4]) / 1024, stdout: r.stdout };
}

// 1. process start
const starts = {
  "node -e 0": ["-e", "0"],
  'import("tensorfile")': ["-e", 'import("tensorfile")'],
  'import("tensorfile/onnx")': ["-e", 'import("tensorfile/onnx")'],
  "import of the per-file modules": ["-e", 'import("./dist/index.modules.js")'],
};
const startTimes = Object.fromEntries(Object.keys(starts).map((k) => [k, []]));
for (const args of Object.values(starts)) timed(args); // warm the file cache
for (let i = 0; i < RUNS; i++) for (const [k, args] of Object.entries(starts)) startTimes[k].push(timed(args));
const base = startTimes["node -e 0"];
const startRows = Object.entries(startTimes).map(([name, xs]) => ({
  name,
  wallMs: median(xs.map((x) => x.wall)),
  cpuMs: median(xs.map((x) => x.cpu)),
  extraWallMs: median(xs.map((x, i) => x.wall - base[i].wall)),
  extraCpuMs: median(xs.map((x, i) => x.cpu - base[i].cpu)),
  rssMiB: median(xs.map((x) => x.rssMiB)),
}));

// 1b. the import alone, timed inside fresh processes (/usr/bin/time counts in 10 ms steps, and a loaded machine
// swings `node -e 0` by more than the goals): wall and CPU (all threads) of `await import(spec)`, with a built-in
// module for scale, run in turn
const importSpecs = ["node:zlib", "tensorfile", "tensorfile/onnx"];
const importCode = (spec) =>
  `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(spec)}); ` +
  `const d = process.cpuUsage(c); console.log(JSON.stringify([performance.now() - t, (d.user + d.system) / 1000]));`;
const importTimes = Object.fromEntries(importSpecs.map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) {
  for (const spec of importSpecs) {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", importCode(spec)], { cwd: root, encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
    importTimes[spec].push(JSON.parse(r.stdout));
  }
}
const importRows = importSpecs.map((spec) => ({
  spec,
  wallMs: median(importTimes[spec].map((x) => x[0])),
  cpuMs: median(importTimes[spec].map((x) => x[1])),
  fastestWallMs: Math.min(...importTimes[spec].map((x) => x[0])),
}));

// 2. first vs warm calls
const files = benchFiles(tf, { scale: SCALE }).filter((f) => f.format !== "april" && (!only?.length || only.some((o) => f.name.includes(o))));
const child = `
const [path, how] = process.argv.slice(1);
const tf = await import("tensorfile");
const { readFileSync } = await import("node:fs");
const once = async () => {
  const t = performance.now();
  if (how === "loadFile") await tf.loadFile(path, { dtype: "float32" });
  else tf.readAny(readFileSync(path)).tensors({ dtype: "float32" });
  return performance.now() - t;
};
const times = [];
for (let i = 0; i < 4; i++) { times.push(await once()); globalThis.gc(); }
console.log(JSON.stringify(times));`;
const callRows = [];
for (const file of files) {
  for (const how of ["readAny+tensors", "loadFile"]) {
    const firsts = [], warms = [], ratios = [];
    for (let i = 0; i < Math.max(3, Math.round(RUNS / 4)); i++) {
      const r = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", child, file.path, how], { cwd: root, encoding: "utf8" });
      if (r.status !== 0) throw new Error(r.stderr);
      const [first, ...rest] = JSON.parse(r.stdout);
      const warm = median(rest);
      firsts.push(first); warms.push(warm); ratios.push(first / warm);
    }
    callRows.push({ file: file.name, how, firstMs: median(firsts), warmMs: median(warms), firstOverWarm: median(ratios) });
  }
}

const date = new Date().toISOString().slice(0, 10);
const lines = [`Cold start, ${date}, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}; medians of ${RUNS} runs.`, "",
  "| process | wall ms | CPU ms | wall − `node -e 0` (paired) | CPU − `node -e 0` | peak RSS MiB |", "|---|---:|---:|---:|---:|---:|"];
for (const r of startRows) lines.push(`| \`${r.name}\` | ${r.wallMs.toFixed(0)} | ${r.cpuMs.toFixed(0)} | ${r === startRows[0] ? "" : `+${r.extraWallMs.toFixed(0)}`} | ${r === startRows[0] ? "" : `+${r.extraCpuMs.toFixed(0)}`} | ${r.rssMiB.toFixed(0)} |`);
lines.push("", "| `await import()` in a fresh process | wall ms | CPU ms (all threads) | fastest wall ms |", "|---|---:|---:|---:|");
for (const r of importRows) lines.push(`| \`${r.spec}\` | ${r.wallMs.toFixed(1)} | ${r.cpuMs.toFixed(1)} | ${r.fastestWallMs.toFixed(1)} |`);
lines.push("", "| file | call (dtype float32) | first ms | warm ms | first / warm |", "|---|---|---:|---:|---:|");
for (const r of callRows) lines.push(`| ${r.file} | ${r.how} | ${r.firstMs.toFixed(0)} | ${r.warmMs.toFixed(0)} | ${r.firstOverWarm.toFixed(2)} |`);
const table = lines.join("\n");
const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
writeFileSync(new URL("cold-start.json", folder), JSON.stringify({ date, node: process.version, startRows, importRows, callRows }, null, 1));
writeFileSync(new URL("cold-start-table.md", folder), `${table}\n`);
console.log(table);
