// The inspector editor's memory on a large model, in Node (the same code as the page's editing worker,
// web/src/editor/session.ts, bundled here with esbuild): an ONNX model of SIZE_MIB (default 1100) MiB of float32
// weights in 4 initializers is written to a temporary file, opened as a file-backed Blob (fs.openAsBlob, what a
// File is in the page), edited (a metadata entry, an input renamed and its shape fixed), and the edited Blob
// streamed to a second file. Prints the bytes read from the file, the peak RSS above the baseline, and checks
// the output against the library's write of the same edits piece by piece (hash), without holding either whole.
// Usage: node --expose-gc bench/inspector-edit.bench.mjs [SIZE_MIB]   (after npm ci; needs SIZE_MIB × 2 free disk)
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, createWriteStream, mkdtempSync, openAsBlob, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
if (process.argv[2] === "--generate") {
  const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
  const per = Math.floor(Number(process.argv[4]) * 2 ** 20 / 4 / 4);
  const weights = Array.from({ length: 4 }, (_, k) => ({ name: `w${k}`, dtype: "float32", dims: [per], data: new Float32Array(per).fill(k + 0.5) }));
  const pieces = tf.onnx.createPieces({
    producerName: "bench", graph: {
      name: "g", initializers: weights,
      nodes: weights.map((w, k) => ({ opType: "Add", name: `add${k}`, inputs: [k === 0 ? "x" : `y${k - 1}`, w.name], outputs: [`y${k}`] })),
      inputs: [{ name: "x", dtype: "float32", shape: ["N"] }], outputs: [{ name: "y3", dtype: "float32", shape: ["N"] }],
    },
  });
  const fd = openSync(process.argv[3], "w");
  for (const p of pieces) writeSync(fd, p);
  closeSync(fd);
  process.exit(0);
}
const sizeMiB = Number(process.argv[2] ?? 1100);
const work = mkdtempSync(join(tmpdir(), "tensorfile-edit-bench-"));
try {
  const bundle = join(work, "session.mjs");
  await build({ entryPoints: [join(root, "web/src/editor/session.ts")], bundle: true, format: "esm", platform: "node", outfile: bundle, logLevel: "silent" });
  const { EditSession } = await import(pathToFileURL(bundle).href);
  const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);

  // the model, written by a child process (so its weights are not in this process's memory): 4 float32
  // initializers of SIZE/4 each, around a chain of Adds
  const model = join(work, "big.onnx");
  const generated = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--generate", model, String(sizeMiB)], { stdio: "inherit" });
  if (generated.status !== 0) throw new Error("generating the model failed");
  global.gc?.();
  const size = statSync(model).size;
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);

  const t0 = performance.now();
  const blob = await openAsBlob(model);
  const session = await EditSession.open(blob, "big.onnx");
  session.apply({ op: "set-meta", key: "edited_by", value: "bench" });
  session.apply({ op: "rename", from: "x", to: "audio" });
  session.apply({ op: "shape", name: "audio", dims: "1024" });
  const out = await session.write();
  const hash = createHash("sha256");
  const outPath = join(work, "edited.onnx");
  const file = createWriteStream(outPath);
  await pipeline(out.stream(), new Writable({
    write(chunk, _enc, done) {
      hash.update(chunk);
      file.write(chunk, done);
    },
  }));
  file.end();
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  const summary = session.summary();
  console.log(`model ${(size / 2 ** 20).toFixed(0)} MiB; left unread ${(summary.unread / 2 ** 20).toFixed(1)} MiB; edited file ${(out.size / 2 ** 20).toFixed(1)} MiB in ${ms.toFixed(0)} ms`);
  console.log(`baseline RSS ${(baseline / 2 ** 20).toFixed(0)} MiB; peak RSS above it: ${((peak - baseline) / 2 ** 20).toFixed(1)} MiB (the file: ${(size / 2 ** 20).toFixed(0)} MiB)`);
  session.reset();

  // the same edits by the library on the whole file, hashed (this one holds the file: it is the reference)
  const m = tf.onnx.read(new Uint8Array(readFileSync(model)));
  tf.onnx.setMetadata(m, "edited_by", "bench");
  tf.onnx.renameValue(m, "x", "audio");
  tf.onnx.setShape(m, "audio", [1024]);
  const expected = createHash("sha256");
  await tf.onnx.writeTo(m, (chunk) => void expected.update(chunk));
  const same = expected.digest("hex") === hash.digest("hex");
  console.log(`the edited file equals the library's write of the same edits: ${same}`);
  if (!same) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
