// primitiv benchmark (benny): read() + tensors() of a ~100 MB Model file (4 parameters of 2560 x 2560 float32,
// column-major on disk, so tensors() transposes every matrix with the WASM kernel), side by side with a plain
// copy of the same bytes (bytes.slice()). The result is checked before it is timed.
// Writes bench/results/primitiv.json and prints the ratio.
// Run: npm run build && node bench/primitiv.bench.mjs
import { add, complete, cycle, save, suite } from "benny";
import { primitiv } from "../dist/index.js";

const ROWS = 2560;
const COLS = 2560;
const PARAMETERS = 4;

function randomValues(seed, n) {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    out[i] = ((s >>> 0) / 4294967296 - 0.5) * 0.2;
  }
  return out;
}

const values = [];
const entries = [];
for (let i = 0; i < PARAMETERS; i++) {
  values.push(randomValues(i + 1, ROWS * COLS));
  entries.push([["layer", String(i), "w"], primitiv.makeParameter(primitiv.makeTensor([ROWS, COLS], values[i]))]);
}
const bytes = primitiv.write({ dataType: "model", model: primitiv.makeModel(entries) });
console.log(`primitiv Model file: ${(bytes.length / 1e6).toFixed(1)} MB, ${PARAMETERS} parameters of [${ROWS}, ${COLS}]`);

function readAll() {
  return primitiv.tensors(primitiv.read(bytes));
}

// check before timing: names, shapes, and row-major values equal to what was built
{
  const tensors = readAll();
  if (tensors.length !== PARAMETERS) throw new Error("wrong tensor count");
  tensors.forEach((t, i) => {
    if (t.name !== `layer.${i}.w` || t.shape.join() !== `${ROWS},${COLS}`) throw new Error(`wrong tensor ${t.name}`);
    for (let k = 0; k < t.data.length; k += 9973) if (t.data[k] !== values[i][k]) throw new Error(`${t.name}: wrong value at ${k}`);
  });
}

const hz = {};
await suite(
  "primitiv: read + tensors() of a ~100 MB Model vs a plain copy",
  add("read + tensors()", () => {
    readAll();
  }, { minSamples: 5, maxTime: 3 }),
  add("bytes.slice()", () => {
    bytes.slice();
  }, { minSamples: 5, maxTime: 3 }),
  cycle(),
  complete((summary) => {
    for (const r of summary.results) hz[r.name] = r.ops;
  }),
  save({ file: "primitiv", folder: "bench/results", format: "json" }),
);

const ratio = hz["bytes.slice()"] / hz["read + tensors()"];
console.log(`read + tensors() takes ${ratio.toFixed(2)}x the time of bytes.slice() on the same ${(bytes.length / 1e6).toFixed(0)} MB`);
