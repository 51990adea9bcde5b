// tsm bench (benny): read + tensors() of a ~100 MB TenniS module (four 25 MB float32 <const> nodes feeding an
// add, made with tsm.write), side by side with a plain copy of the same bytes. Also the header-only open
// (readFrom over the bytes) and the re-encode. Writes bench/results/tsm.json and prints each case's time
// relative to the copy.
// Run: npm run build && node bench/tsm.bench.mjs
import { add, complete, cycle, save, suite } from "benny";
import { printRatiosToCopy } from "./report.mjs";
import { mkdirSync } from "node:fs";
import { fromBytes, tsm } from "../dist/index.js";

const CONST_ELEMENTS = (25 * 1024 * 1024) / 4;
const CONSTS = 4;

function filled(n, seed) {
  const words = new Uint32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    words[i] = (s >>> 9) | 0x3f000000; // floats in [0.5, 1)
  }
  return new Float32Array(words.buffer);
}

const encoder = new TextEncoder();
const text = (s) => {
  const data = encoder.encode(s);
  return { dtype: "char8", shape: [data.length], data };
};
const node = (op, name, params, inputs) => ({
  params: [{ key: "#op", fields: [text(op)] }, { key: "#name", fields: [text(name)] }, ...params],
  inputs,
});
const weights = Array.from({ length: CONSTS }, (_, i) => filled(CONST_ELEMENTS, i + 1));
const nodes = [
  node("<param>", "input", [{ key: "#shape", fields: [{ dtype: "int32", shape: [2], data: Int32Array.of(1024, 1600) }] }], []),
  ...weights.map((w, i) => node("<const>", `weight_${i}`, [{ key: "value", fields: [{ dtype: "float32", shape: [4096, 1600], data: w }] }], [])),
  node("add", "sum", [], [0, 1, 2, 3, 4]),
];
const module = { header: { fake: 0, code: tsm.MODULE_CODE, reserved: new Uint8Array(120) }, inputs: [0], outputs: [nodes.length - 1], nodes };
const bytes = tsm.write(module);
console.log(`file: ${(bytes.length / 1e6).toFixed(1)} MB, ${CONSTS} float32 consts of ${(CONST_ELEMENTS * 4 / 1e6).toFixed(1)} MB`);

// check each case once before timing it
{
  const list = tsm.tensors(tsm.read(bytes));
  if (list.length !== CONSTS || list[3].name !== "weight_3" || list[3].data[12345] !== weights[3][12345]) {
    throw new Error("read + tensors gave the wrong values");
  }
  const lazy = await tsm.readFrom(fromBytes(bytes));
  if (tsm.tensorInfos(lazy)[2].byteLength !== CONST_ELEMENTS * 4) throw new Error("readFrom gave the wrong infos");
  const again = tsm.write(tsm.read(bytes));
  if (again.length !== bytes.length || again[bytes.length - 9] !== bytes[bytes.length - 9]) throw new Error("re-encode differs");
}

const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
const options = { minSamples: 5, maxTime: 3 };
let sink = 0;

await suite(
  "tsm",
  add("read + tensors()", () => {
    for (const t of tsm.tensors(tsm.read(bytes))) sink += t.data.length;
  }, options),
  add("readFrom(fromBytes) + tensorInfos (headers only)", async () => {
    sink += tsm.tensorInfos(await tsm.readFrom(fromBytes(bytes))).length;
  }, options),
  add("write(read(x)) (re-encode)", () => {
    sink += tsm.write(tsm.read(bytes)).length;
  }, options),
  add("plain copy: bytes.slice()", () => {
    sink += bytes.slice().length;
  }, options),
  cycle(),
  complete((summary) => {
    printRatiosToCopy(summary, 50);
    if (sink === 0) console.log("(no work done)");
  }),
  save({ file: "tsm", folder: folder.pathname, format: "json" }),
);
