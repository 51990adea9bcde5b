// From disk: loading generated ~100 MB files of every format (bench/generate-files.mjs, the shapes of
// ../shared/peers/gen.mjs) by loadFile and by the older paths, next to a plain fs.readFileSync of the same file.
// Every measurement is a fresh `node` process (so peak RSS is the load's own), run in turn with the others:
//   readFileSync          fs.readFileSync(path) and nothing else (the yardstick)
//   readAny               readFileSync + readAny(bytes).tensors({ dtype: "float32" })
//   lazy loadTensor       readFromAny(await fromFile(path)) + loadTensor(info, { dtype: "float32" }) for each tensor
//   loadFile              loadFile(path, { dtype: "float32" })
// Each process times its first call (cold: JIT, WASM compile) and then two warm calls (gc between), and samples
// its peak RSS after the first call. Ratios are paired medians (each process pair of the same round) of the warm
// time over readFileSync's warm time. Then bench/cold-start.mjs's process-start figures.
// Usage: node bench/from-disk.mjs [--runs N] [--scale S] [--files a,b]   (npm run build first)
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { benchFiles } from "./generate-files.mjs";
import { median } from "./harness.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => { const i = argv.indexOf(name); return i < 0 ? fallback : argv[i + 1]; };
const RUNS = Number(option("--runs", "7"));
const SCALE = Number(option("--scale", "1"));
const only = option("--files", "").split(",").filter(Boolean);
const root = fileURLToPath(new URL("..", import.meta.url));
const tf = await import(new URL("../dist/index.js", import.meta.url).href);

const child = `
const [path, variant, format] = process.argv.slice(1);
const tf = await import("tensorfile");
const { readFileSync } = await import("node:fs");
let sink = 0;
const touch = (tensors) => { for (const t of tensors) if (t.data.length) sink += Number(t.data[0]); };
const float32 = { dtype: "float32" };
const variants = {
  readFileSync: async () => { sink += readFileSync(path).length; },
  readAny: async () => {
    const bytes = readFileSync(path);
    if (format === "april") { const n = tf.april.read(bytes).networks; sink += n.encoder[0]; }
    else touch(tf.readAny(bytes).tensors(float32));
  },
  lazy: async () => {
    const source = await tf.fromFile(path);
    try {
      if (format === "april") { const f = await tf.april.readFrom(source); sink += (await tf.april.loadNetworks(source, f)).networks.encoder[0]; return; }
      const opened = await tf.readFromAny(source);
      for (const info of opened.tensorInfos()) touch([await opened.loadTensor(info, float32)]);
    } finally { await source.close(); }
  },
  loadFile: async () => { touch((await tf.loadFile(path, float32)).tensors); },
};
const run = variants[variant];
const time = async () => { const t = performance.now(); await run(); return performance.now() - t; };
const cold = await time();
const peakMiB = process.resourceUsage().maxRSS / 1024;
globalThis.gc(); const warm1 = await time();
globalThis.gc(); const warm2 = await time();
console.log(JSON.stringify({ cold, warm: Math.min(warm1, warm2), peakMiB, sink }));`;

function measure(path, variant, format) {
  const r = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", child, path, variant, format], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${variant} ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const VARIANTS = ["readFileSync", "readAny", "lazy", "loadFile"];
const files = benchFiles(tf, { scale: SCALE }).filter((f) => !only.length || only.some((o) => f.name.includes(o)));
const rows = [];
for (const file of files) {
  const variants = file.format === "april" ? VARIANTS.filter((v) => v !== "loadFile") : VARIANTS;
  const results = Object.fromEntries(variants.map((v) => [v, []]));
  for (const v of variants) measure(file.path, v, file.format); // page cache, JIT caches of the file system
  for (let i = 0; i < RUNS; i++) for (const v of variants) results[v].push(measure(file.path, v, file.format));
  const base = results.readFileSync;
  for (const v of variants) {
    const xs = results[v];
    rows.push({
      file: file.name, note: file.note, variant: v,
      warmMs: median(xs.map((x) => x.warm)), coldMs: median(xs.map((x) => x.cold)),
      overReadFileSync: median(xs.map((x, i) => x.warm / base[i].warm)),
      coldOverWarm: median(xs.map((x) => x.cold / x.warm)),
      peakMiB: median(xs.map((x) => x.peakMiB)),
    });
  }
  console.error(`${file.name}: done`);
}

const date = new Date().toISOString().slice(0, 10);
const lines = [`From disk, ${date}, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}; generated files (bench/generate-files.mjs), medians of ${RUNS} fresh processes each; dtype float32.`, "",
  "| file | path | warm ms | × readFileSync (paired) | first call ms | first / warm | peak RSS MiB |", "|---|---|---:|---:|---:|---:|---:|"];
for (const r of rows) {
  lines.push(`| ${r.file} | ${r.variant} | ${r.warmMs.toFixed(0)} | ${r.variant === "readFileSync" ? "1" : r.overReadFileSync.toFixed(2)} | ${r.coldMs.toFixed(0)} | ${r.coldOverWarm.toFixed(2)} | ${r.peakMiB.toFixed(0)} |`);
}
const table = lines.join("\n");
const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
writeFileSync(new URL("from-disk.json", folder), JSON.stringify({ date, node: process.version, rows }, null, 1));
writeFileSync(new URL("from-disk-table.md", folder), `${table}\n`);
console.log(table);
console.log("\n(process start and first calls: node bench/cold-start.mjs)");
