// april bench (benny): opening a ~100 MB .april (three ~33 MB networks, made with april.create) and getting
// its blobs the way `tensorfile extract` does, side by side with a plain copy of the same bytes.
// Writes bench/results/april.json and prints each case's time relative to the copy.
// Run: npm run build && node bench/april.bench.mjs
import { add, complete, cycle, save, suite } from "benny";
import { printRatiosToCopy } from "./report.mjs";
import { mkdirSync } from "node:fs";
import { april } from "../dist/index.js";

const NETWORK_BYTES = 33 * 1024 * 1024;

function filled(n, seed) {
  const words = new Uint32Array(n / 4);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    words[i] = s >>> 0;
  }
  return new Uint8Array(words.buffer);
}

const tokens = ["<blk>", "<sos/eos>", "<unk>", ...Array.from({ length: 497 }, (_, i) => `▁piece${i}`)];
const model = april.create({
  networks: { encoder: filled(NETWORK_BYTES, 1), decoder: filled(NETWORK_BYTES, 2), joiner: filled(NETWORK_BYTES, 3) },
  tokens,
  name: "bench",
});
const bytes = april.write(model);
console.log(`file: ${(bytes.length / 1e6).toFixed(1)} MB, ${tokens.length} tokens`);

// check each case once before timing it
{
  const file = april.read(bytes);
  const list = april.blobs(file);
  if (list.length !== 5 || list[2].bytes.length !== NETWORK_BYTES || list[2].bytes[12345] !== model.networks.joiner[12345]) {
    throw new Error("read + blobs gave the wrong bytes");
  }
  if (file.tokens[3] !== " piece0") throw new Error("wrong tokens");
}

const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
const options = { minSamples: 5, maxTime: 3 };
let sink = 0;

await suite(
  "april",
  add("read + blobs (zero-copy views)", () => {
    const list = april.blobs(april.read(bytes));
    for (const blob of list) sink += blob.bytes.length;
  }, options),
  add("read + blobs + own copies of the networks", () => {
    const list = april.blobs(april.read(bytes));
    for (const blob of list) sink += blob.bytes.slice().length;
  }, options),
  add("write(read(x)) (re-encode)", () => {
    sink += april.write(april.read(bytes)).length;
  }, options),
  add("plain copy: bytes.slice()", () => {
    sink += bytes.slice().length;
  }, options),
  cycle(),
  complete((summary) => {
    printRatiosToCopy(summary, 45);
    if (sink === 0) console.log("(no work done)");
  }),
  save({ file: "april", folder: folder.pathname, format: "json" }),
);
