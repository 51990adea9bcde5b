// `tensorfile convert big.onnx out.onnx --quantize fp16|bf16|i8` on a generated model of --mib MiB (default 1024):
// wall time and peak RSS (the child's process.resourceUsage().maxRSS at exit) of each conversion, side by side
// with a plain copy of the same file in a child process (fs.copyFileSync, and a stream pipe), and Node's baseline
// (`tensorfile --version`), in one run: the ratios say what converting costs over moving the bytes. The model is
// y = x @ w0 @ w1 … with float32 MatMul weights of 64 MiB ([4096, 4096]) holding real values (a sine), written in
// 16 MiB chunks (the bench never holds the file). Writes a Markdown table to bench/results/quantize.md.
//
//   npm run build && node bench/quantize.bench.mjs [--mib 1024] [--modes fp16,bf16,i8]
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { ProtoWriter } = await import(join(root, "dist/formats/onnx/proto-writer.js"));
const cli = join(root, "dist/cli.js");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const mib = Number(option("--mib", "1024")) || 1024;
const modes = option("--modes", "fp16,bf16,i8").split(",");
const MiB = 1024 * 1024;
const N = 4096;
const count = Math.max(1, Math.round((mib * MiB) / (N * N * 4)));
const dir = mkdtempSync(join(tmpdir(), "tensorfile-quantize-bench-"));

function valueInfo(name, dims) {
  return (v) => v.stringField(1, name).messageField(2, (t) => t.messageField(1, (tt) => tt.uintField(1, 1).messageField(2, (s) => {
    for (const d of dims) s.messageField(1, (dim) => dim.uintField(1, d));
  })));
}

/** Writes the model to `path` field by field, each weight in 16 MiB chunks of values. */
function writeModel(path) {
  const payload = N * N * 4;
  const front = new ProtoWriter();
  for (let i = 0; i < count; i++) {
    front.messageField(1, (node) => node.stringField(1, i === 0 ? "x" : `h${i}`).stringField(1, `w${i}`).stringField(2, i === count - 1 ? "y" : `h${i + 1}`)
      .stringField(3, `matmul${i}`).stringField(4, "MatMul"));
  }
  front.stringField(2, "chain");
  const heads = Array.from({ length: count }, (_, i) => new ProtoWriter().packedVarintField(1, [N, N]).uintField(2, 1).stringField(8, `w${i}`).tag(9, 2).varint(payload).finish());
  const fields = heads.map((h) => new ProtoWriter().tag(5, 2).varint(h.length + payload).finish());
  const back = new ProtoWriter().messageField(11, valueInfo("x", [1, N])).messageField(12, valueInfo("y", [1, N])).finish();
  const frontBytes = front.finish();
  const graphLength = frontBytes.length + heads.reduce((s, h, i) => s + fields[i].length + h.length + payload, 0) + back.length;
  const fd = openSync(path, "w");
  const chunk = new Float32Array(4 * MiB);
  try {
    writeSync(fd, new ProtoWriter().uintField(1, 8).stringField(2, "quantize-bench").tag(7, 2).varint(graphLength).finish());
    writeSync(fd, frontBytes);
    heads.forEach((h, i) => {
      writeSync(fd, fields[i]);
      writeSync(fd, h);
      for (let at = 0; at < N * N; at += chunk.length) {
        for (let k = 0; k < chunk.length; k++) chunk[k] = Math.sin((at + k) * 0.001 + i) * 0.05;
        writeSync(fd, new Uint8Array(chunk.buffer));
      }
    });
    writeSync(fd, back);
    writeSync(fd, new ProtoWriter().messageField(8, (op) => op.stringField(1, "").uintField(2, 17)).finish());
  } finally {
    closeSync(fd);
  }
}

const preload = join(dir, "report-rss.cjs");
writeFileSync(preload, `process.on("exit", () => require("node:fs").writeSync(2, "\\nmaxRSS=" + process.resourceUsage().maxRSS + "\\n"));\n`);

/** Wall time (s) and peak RSS (MiB) of `node [--require preload] ARGS…`. */
function measure(nodeArgs) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--require", preload, ...nodeArgs], { encoding: "utf8", maxBuffer: 64 * MiB });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${nodeArgs.join(" ")} failed: ${r.stderr}`);
  const kib = Number(/maxRSS=(\d+)/.exec(r.stderr)?.[1]);
  return { seconds, rss: kib / 1024, stderr: r.stderr };
}

const input = join(dir, "big.onnx");
writeModel(input);
const size = statSync(input).size;
const load = loadavg()[0].toFixed(1);
const baseline = measure([cli, "--version"]);
const copyTo = join(dir, "copy.onnx");
const copy = measure(["-e", `require("node:fs").copyFileSync(${JSON.stringify(input)}, ${JSON.stringify(copyTo)})`]);
rmSync(copyTo);
const pipe = measure(["-e", `const fs = require("node:fs"); require("node:stream").pipeline(fs.createReadStream(${JSON.stringify(input)}), fs.createWriteStream(${JSON.stringify(copyTo)}), (e) => { if (e) throw e; });`]);
rmSync(copyTo);
const rows = [];
for (const mode of modes) {
  const output = join(dir, `big-${mode}.onnx`);
  const run = measure([cli, "convert", input, output, "--quantize", mode]);
  rows.push({ mode, ...run, written: statSync(output).size });
  rmSync(output);
}
rmSync(dir, { recursive: true, force: true });

const f = (x, digits = 1) => x.toFixed(digits);
const lines = [
  `# convert --quantize on a ${f(size / MiB, 0)} MiB model (${count} float32 MatMul weights of 64 MiB)`,
  "",
  `Node ${process.version}, load average ${load} when it started (a shared machine: times are rough). Peak RSS above Node's baseline (${f(baseline.rss, 0)} MiB, \`tensorfile --version\`).`,
  "",
  "| run | wall time (s) | x copy time | peak RSS above baseline (MiB) | output (MiB) |",
  "|---|---|---|---|---|",
  `| fs.copyFileSync | ${f(copy.seconds)} | 1.0 | ${f(copy.rss - baseline.rss, 0)} | ${f(size / MiB, 0)} |`,
  `| stream pipe | ${f(pipe.seconds)} | ${f(pipe.seconds / copy.seconds)} | ${f(pipe.rss - baseline.rss, 0)} | ${f(size / MiB, 0)} |`,
  ...rows.map((r) => `| --quantize ${r.mode} | ${f(r.seconds)} | ${f(r.seconds / copy.seconds)} | ${f(r.rss - baseline.rss, 0)} | ${f(r.written / MiB, 0)} |`),
];
const text = `${lines.join("\n")}\n`;
process.stdout.write(text);
const folder = join(root, "bench/results");
mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, "quantize.md"), text);
