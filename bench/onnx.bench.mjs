// ONNX bench: from a path to every weight as a typed array, on generated ~100 MB models (raw_data weights, and
// float_data typed-field weights), three ways, each in its own child process (so peak RSS is the case's own):
//   readFileSync           the file's bytes, nothing else (the floor)
//   onnx-proto user path   readFileSync + onnx-proto ModelProto.decode + one copy per weight into its own array
//   tensorfile loadFile    loadFile(path): headers with small reads, each weight read into its final array
// Each case keeps what it loaded (as a user does) until its child exits. The cases take turns, each run in a fresh
// child. Prints the median time of each, the ratios loadFile / user path and loadFile / readFileSync, and peak RSS
// above the child's baseline; writes bench/results/onnx.json. Same-run ratios only (the machine is shared).
// Run: npm run build && node bench/onnx.bench.mjs [--mb 100,1024] [--runs 3] (the sizes of the generated models)
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { upperMedian } from "./harness.mjs";

const here = fileURLToPath(import.meta.url);

async function child(kind, path, warmup) {
  // the libraries are loaded and each path is run once on a small model of the same kind before the clock starts
  // (a program pays module loading, WASM compilation and JIT warm-up once, not per model)
  const { default: onnxProto } = await import("onnx-proto");
  const { loadFile } = await import("../dist/index.js");
  if (warmup) await measure(kind, warmup, onnxProto, loadFile);
  const baseline = process.resourceUsage().maxRSS * 1024;
  const start = performance.now();
  const { weights, bytes } = await measure(kind, path, onnxProto, loadFile);
  const ms = performance.now() - start;
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ ms, weights, bytes, baseline, peak }));
}

/** What each case produced, kept until the child exits: a user loads weights to keep them (freed arrays would let
 * the allocator reuse their pages for the next one, which no real program gets). */
const kept = [];

async function measure(kind, path, onnxProto, loadFile) {
  let weights = 0;
  let bytes = 0;
  if (kind === "readFileSync") {
    const file = readFileSync(path);
    kept.push(file);
    bytes = file.length;
  } else if (kind === "onnx-proto") {
    const model = onnxProto.onnx.ModelProto.decode(readFileSync(path));
    for (const t of model.graph.initializer) {
      const data = t.rawData && t.rawData.length > 0
        ? new Float32Array(new Uint8Array(t.rawData).buffer)
        : Float32Array.from(t.floatData);
      kept.push(data);
      bytes += data.byteLength;
      weights++;
    }
    kept.push(model); // the model object holds the file's bytes (the raw_data are views of it)
  } else {
    const loaded = await loadFile(path);
    kept.push(loaded);
    for (const t of loaded.tensors) {
      bytes += t.data.byteLength;
      weights++;
    }
  }
  return { weights, bytes };
}

/** A model of `count` float32 initializers of `elements` each, as raw_data or float_data. */
async function generate(path, count, elements, typed) {
  const { ProtoWriter } = await import("../dist/formats/onnx/proto-writer.js");
  const w = new ProtoWriter().uintField(1, 8).stringField(2, "tensorfile bench");
  const graph = new ProtoWriter();
  graph.stringField(2, "bench");
  for (let i = 0; i < count; i++) {
    const data = new Float32Array(elements);
    for (let j = 0; j < elements; j++) data[j] = Math.sin(i * 7 + j * 0.001);
    const bytes = new Uint8Array(data.buffer);
    graph.messageField(5, (t) => {
      t.uintField(1, elements).uintField(2, 1);
      if (typed) t.bytesField(4, bytes);
      t.stringField(8, `layer${i}.weight`);
      if (!typed) t.bytesField(9, bytes);
    });
  }
  w.embed(7, graph);
  w.messageField(8, (op) => op.uintField(2, 13));
  writeFileSync(path, w.finish());
}

function run(kind, path, warmup) {
  const result = spawnSync(process.execPath, ["--max-old-space-size=8192", here, "--child", kind, path, warmup], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`${kind} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const args = process.argv.slice(2);
if (args[0] === "--child") {
  await child(args[1], args[2], args[3]);
} else {
  const sizes = (args.includes("--mb") ? args[args.indexOf("--mb") + 1] : "100").split(",").map(Number).filter((n) => n > 0);
  const runs = Number(args[args.indexOf("--runs") + 1] ?? 3) || 3;
  const dir = mkdtempSync(join(tmpdir(), "tensorfile-onnx-bench-"));
  const report = { sizes, runs, date: new Date().toISOString().slice(0, 10), models: {} };
  const kinds = ["readFileSync", "onnx-proto", "loadFile"];
  try {
    for (const mb of sizes) {
      const count = 100;
      const elements = Math.round((mb * 1024 * 1024) / 4 / count);
      for (const typed of [false, true]) {
        const label = `${typed ? "float_data" : "raw_data"} ${mb} MiB`;
        const path = join(dir, `${typed ? "float_data" : "raw_data"}.onnx`);
        await generate(path, count, elements, typed);
        const warmup = join(dir, `${typed ? "float_data" : "raw_data"}-warmup.onnx`);
        await generate(warmup, 10, 65536, typed);
        // the cases take turns (a change in the machine's load falls on all three)
        const samples = Object.fromEntries(kinds.map((kind) => [kind, []]));
        for (let i = 0; i < runs; i++) for (const kind of kinds) samples[kind].push(run(kind, path, warmup));
        const cases = {};
        for (const kind of kinds) {
          const ms = upperMedian(samples[kind].map((s) => s.ms));
          const rss = Math.max(...samples[kind].map((s) => s.peak - s.baseline));
          cases[kind] = { ms, peakRssAboveBaselineMiB: rss / 2 ** 20, weights: samples[kind][0].weights, weightMiB: samples[kind][0].bytes / 2 ** 20 };
        }
        const ratios = {
          "loadFile / onnx-proto user path": cases.loadFile.ms / cases["onnx-proto"].ms,
          "loadFile / readFileSync": cases.loadFile.ms / cases.readFileSync.ms,
          "onnx-proto user path / loadFile": cases["onnx-proto"].ms / cases.loadFile.ms,
          "loadFile peak RSS - weights (MiB)": cases.loadFile.peakRssAboveBaselineMiB - cases.loadFile.weightMiB,
          "loadFile peak RSS / weights": cases.loadFile.peakRssAboveBaselineMiB / cases.loadFile.weightMiB,
        };
        report.models[label] = { cases, ratios };
        rmSync(path, { force: true });
        console.log(`\n${label}: ${count} weights, ${(count * elements * 4 / 2 ** 20).toFixed(0)} MiB of weights`);
        for (const [kind, c] of Object.entries(cases)) {
          console.log(`  ${kind.padEnd(14)} ${c.ms.toFixed(0).padStart(7)} ms   peak RSS +${c.peakRssAboveBaselineMiB.toFixed(0)} MiB`);
        }
        for (const [name, value] of Object.entries(ratios)) console.log(`  ${name.padEnd(34)} ${value.toFixed(2)}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const folder = new URL("./results/", import.meta.url);
  mkdirSync(folder, { recursive: true });
  writeFileSync(new URL("onnx.json", folder), `${JSON.stringify(report, null, 2)}\n`);
}
