// spraak bench (benny): read + tensors() of a ~100 MB BIN10 (big-endian) F32 track made with spraak.matrix,
// side by side with a plain copy of the same bytes. tensors() byte-swaps every float (the byteSwap kernel).
// The BIN01 case shows the zero-copy path (tensors() is a view of the input).
// Writes bench/results/spraak.json and prints each case's time relative to the copy.
// Run: npm run build && node bench/spraak.bench.mjs
import { add, complete, cycle, save, suite } from "benny";
import { printRatiosToCopy } from "./report.mjs";
import { mkdirSync } from "node:fs";
import { spraak } from "../dist/index.js";

const COLS = 40;
const ROWS = 625_000; // 25 M floats = 100 MB

function features(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    out[i] = ((s >>> 0) / 4294967296 - 0.5) * 80; // log-mel like range
  }
  return out;
}

const values = features(ROWS * COLS, 7);
const track = spraak.matrix(values, { cols: COLS, format: "BIN10", data: "TRACK", header: { SAMPLEFREQ: "16000", FSHIFT: "0.01" } });
const bytes = spraak.write(track);
const little = spraak.write(spraak.convert(track, "BIN01"));
console.log(`file: ${(bytes.length / 1e6).toFixed(1)} MB, ${ROWS} x ${COLS} F32, BIN10`);

// check each case once before timing it
{
  const [tensor] = spraak.tensors(spraak.read(bytes));
  if (tensor.shape[0] !== ROWS || tensor.shape[1] !== COLS || tensor.data[12345] !== values[12345] || tensor.data[ROWS * COLS - 1] !== values[ROWS * COLS - 1]) {
    throw new Error("read + tensors gave the wrong values");
  }
  const [le] = spraak.tensors(spraak.read(little));
  if (le.data[54321] !== values[54321]) throw new Error("BIN01 read + tensors gave the wrong values");
}

const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
const options = { minSamples: 5, maxTime: 3 };
let sink = 0;

await suite(
  "spraak",
  add("read + tensors() BIN10 F32 (byte swap)", () => {
    sink += spraak.tensors(spraak.read(bytes))[0].data.length;
  }, options),
  add("read + tensors() BIN01 F32 (zero-copy view)", () => {
    sink += spraak.tensors(spraak.read(little))[0].data.length;
  }, options),
  add("plain copy: bytes.slice()", () => {
    sink += bytes.slice().length;
  }, options),
  cycle(),
  complete((summary) => {
    printRatiosToCopy(summary, 45);
    if (sink === 0) console.log("(no work done)");
  }),
  save({ file: "spraak", folder: folder.pathname, format: "json" }),
);
