// bw2l bench (benny): read + tensors() of a ~100 MB version-2 model (25 linear layers of 1000x1000 float32,
// ArrayFire column-major with 4-D dims, made with bw2l.create), and of the same model quantized to fp16, side by
// side with a plain copy of the same bytes. tensors() returns row-major data, so every weight is transposed.
// Writes bench/results/bw2l.json and prints each case's time relative to the copy of its own file.
// Run: npm run build && node bench/bw2l.bench.mjs
import { add, complete, cycle, save, suite } from "benny";
import { mkdirSync } from "node:fs";
import { bw2l } from "../dist/index.js";

const LAYERS = 25;
const SIZE = 1000;

function normal(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i += 2) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    const u = ((s >>> 0) + 1) / 4294967297;
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    const v = (s >>> 0) / 4294967296;
    const r = 0.05 * Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}

const weights = Array.from({ length: LAYERS }, (_, i) => normal(SIZE * SIZE, i + 1));
const model = bw2l.create({
  flags: { "": "", criterion: "ctc", samplerate: "16000" },
  config: { criterion: "ctc" },
  tokens: ["|", "a", "b", "#"],
  layers: weights.map((w, i) => ({
    arch: `L ${SIZE} ${SIZE}`,
    params: [{ dims: [SIZE, SIZE, 1, 1], data: w }, { dims: [SIZE, 1, 1, 1], data: normal(SIZE, 1000 + i) }],
  })),
});
const fp32Bytes = bw2l.write(model);
const fp16Bytes = bw2l.write(model, { quantize: "fp16" });
console.log(`fp32 file: ${(fp32Bytes.length / 1e6).toFixed(1)} MB, fp16 file: ${(fp16Bytes.length / 1e6).toFixed(1)} MB, ${LAYERS * 2} tensors`);

// check each case once before timing it: tensors() gives back the row-major weights that went in
{
  const t = bw2l.tensors(bw2l.read(fp32Bytes));
  const w = weights[7];
  for (let i = 0; i < w.length; i += 9973) if (t[14].data[i] !== w[i]) throw new Error(`fp32: wrong value at ${i}`);
  const h = bw2l.tensors(bw2l.read(fp16Bytes), { dtype: "float32" });
  for (let i = 0; i < w.length; i += 9973) {
    if (Math.abs(h[14].data[i] - w[i]) > Math.abs(w[i]) * 2 ** -11 + 2 ** -25) throw new Error(`fp16: wrong value at ${i}`);
  }
  if (h[14].dtype !== "float32" || bw2l.tensors(bw2l.read(fp16Bytes))[14].dtype !== "float16") throw new Error("wrong dtypes");
}

const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
const options = { minSamples: 5, maxTime: 3 };
let sink = 0;
const consume = (tensors) => {
  for (const t of tensors) sink += t.data.length;
};

await suite(
  "bw2l",
  add("fp32: read + tensors()", () => consume(bw2l.tensors(bw2l.read(fp32Bytes))), options),
  add("fp32: read only (payload views/copies, no transpose)", () => {
    sink += bw2l.read(fp32Bytes).sections.length;
  }, options),
  add("fp32: plain copy: bytes.slice()", () => {
    sink += fp32Bytes.slice().length;
  }, options),
  add("fp16: read + tensors() (raw halves)", () => consume(bw2l.tensors(bw2l.read(fp16Bytes))), options),
  add("fp16: read + tensors({ dtype: float32 })", () => consume(bw2l.tensors(bw2l.read(fp16Bytes), { dtype: "float32" })), options),
  add("fp16: plain copy: bytes.slice()", () => {
    sink += fp16Bytes.slice().length;
  }, options),
  cycle(),
  complete((summary) => {
    const copyOf = (prefix) => summary.results.find((r) => r.name.startsWith(prefix) && r.name.includes("plain copy"));
    // benny rounds ops/s to integers: use the mean time per op
    console.log(`\n${"case".padEnd(55)} ${"ms".padStart(8)}  time / copy of the same file`);
    for (const r of summary.results) {
      const copy = copyOf(r.name.slice(0, 5));
      console.log(`${r.name.padEnd(55)} ${(r.details.mean * 1000).toFixed(1).padStart(8)}  ${(r.details.mean / copy.details.mean).toFixed(2)}`);
    }
    if (sink === 0) console.log("(no work done)");
  }),
  save({ file: "bw2l", folder: folder.pathname, format: "json" }),
);
