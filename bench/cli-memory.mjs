// Peak memory of the CLI on large generated files (issue 13, "Flat memory on any file"; issue 23: stats and diff;
// the ONNX issue: convert and patch of a 1 GiB model): for each file, the peak RSS of `tensorfile convert F
// out.safetensors`, `extract F DIR`, `verify F`, `stats F`, `diff F COPY` (a copy of F) and `patch F W OUT` (W: a
// .safetensors holding the largest tensor with other values; checked, unmeasured, with `diff`) (GNU time's maximum
// resident set size), next to the same process doing nothing (`node dist/cli.js --help`: Node's baseline), the
// file size and the largest tensor. For the writable formats also the round trip `convert F x.safetensors` then `patch F x.safetensors OUT`:
// its patch's peak, and whether OUT is byte-identical to F (`cmp`). Writes a Markdown table to
// bench/results/cli-memory.md.
//
//   node bench/cli-memory.mjs [--mib 1024] [--formats bw2l,april,tsm,primitiv,spraak,npy,npy-fortran,safetensors,onnx,onnx-typed,onnx-f16]
//
// Files (each about --mib MiB, float32 values):
//   bw2l         v2, four 2-D params [mib*16, 8192] (column-major: banded transposes)
//   april        three real ONNX networks holding float32 raw_data initializers: the encoder 3/4 of the file
//                (three initializers of 1/4), the decoder and the joiner 1/8 each (one initializer each); tensors
//                are named encoder/w0 … joiner/w4
//   onnx         four float32 initializers of 1/4 each, stored as raw_data
//   onnx-typed   the same stored as float_data (the typed field, packed)
//   onnx-f16     four float16 initializers of 1/4 each in int32_data (packed varints, 2 bytes each: what
//                onnx.helper.make_tensor stores for float16 unless raw=True); patched with float32 values
//   tsm          four row-major constants
//   primitiv     a Model of four column-major [n, 1024] matrices (banded transposes)
//   spraak       one BIN10 matrix (big-endian: swapped in chunks)
//   npy          one C-order array; npy-fortran the same in Fortran order (one column-major tensor of --mib MiB)
//   safetensors  four F32 tensors
// The ONNX and april files are written as a stream of small pieces and 16 MiB chunks of values (ProtoWriter for
// the fields, lengths computed first), so the bench never holds a whole file.
// Needs `npm run build` first. Temporary files go under the system temp folder (/tmp) and are deleted.
import { execFileSync, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const lib = await import(join(root, "dist/index.js"));
const args = process.argv.slice(2);
const mib = Number(args[args.indexOf("--mib") + 1] ?? 1024) || 1024;
const ALL = ["bw2l", "april", "tsm", "primitiv", "spraak", "npy", "npy-fortran", "safetensors", "onnx", "onnx-typed", "onnx-f16"];
const { ProtoWriter } = await import(join(root, "dist/formats/onnx/proto-writer.js"));
const formats = (args.includes("--formats") ? args[args.indexOf("--formats") + 1] : ALL.join(",")).split(",");
const dir = mkdtempSync(join(tmpdir(), "tensorfile-cli-memory-"));
const cli = join(root, "dist/cli.js");

const LABELS = {
  bw2l: "bw2l v2 (four 2-D params, column-major)",
  april: "april (three ONNX networks, five raw_data initializers)",
  onnx: "onnx (four raw_data initializers)",
  "onnx-typed": "onnx (four float_data initializers)",
  "onnx-f16": "onnx (four float16 initializers in int32_data)",
  tsm: "tsm (four row-major constants)",
  primitiv: "primitiv Model (four column-major matrices)",
  spraak: "spraak BIN10 (one big-endian matrix)",
  npy: "npy (one C-order array)",
  "npy-fortran": "npy (one Fortran-order array)",
  safetensors: "safetensors (four F32 tensors)",
};

function ramp(n) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = (i % 1000) * 0.001;
  return a;
}

const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Float32 values `(i + seed) % 1000 * 0.001 (+ shift)`, `count` of them from element `start`, as bytes. */
function rampChunk(start, count, seed, shift = 0) {
  const a = new Float32Array(count);
  for (let i = 0; i < count; i++) a[i] = ((start + i + seed) % 1000) * 0.001 + shift;
  return bytesOf(a);
}

const CHUNK_ELEMENTS = 4 * 1024 * 1024;

/** The values of one generated tensor, 16 MiB at a time. */
function* tensorChunks(t, shift = 0) {
  for (let at = 0; at < t.elements; at += CHUNK_ELEMENTS) yield rampChunk(at, Math.min(CHUNK_ELEMENTS, t.elements - at), t.seed, shift);
}

/**
 * The int32_data payload of a float16 tensor, 8 MiB at a time: the bits 0x3000 + (i + seed) % 1000 (0.125 to
 * 0.247) as varints, two bytes each.
 */
function* float16VarintChunks(t) {
  for (let at = 0; at < t.elements; at += CHUNK_ELEMENTS) {
    const count = Math.min(CHUNK_ELEMENTS, t.elements - at);
    const b = new Uint8Array(count * 2);
    for (let i = 0; i < count; i++) {
      const bits = 0x3000 + ((at + i + t.seed) % 1000);
      b[2 * i] = (bits & 0x7f) | 0x80;
      b[2 * i + 1] = bits >> 7;
    }
    yield b;
  }
}

/**
 * An ONNX model holding initializers `tensors` ({ name, dims, elements, seed }) without nodes: its size and a
 * generator of its bytes. `storage`: "raw_data" or "float_data" (float32, packed), "int32_data" (float16, packed
 * 2-byte varints). Fields in field-number order, as onnx writes them (TensorProto: dims 1, data_type 2,
 * float_data 4, int32_data 5, name 8, raw_data 9).
 */
function onnxModel(tensors, storage) {
  const parts = tensors.map((t) => {
    const f16 = storage === "int32_data";
    const bytes = t.elements * (f16 ? 2 : 4);
    const head = new ProtoWriter();
    for (const d of t.dims) head.uintField(1, d);
    head.uintField(2, f16 ? 10 : 1);
    const tail = new ProtoWriter();
    if (storage === "raw_data") {
      head.stringField(8, t.name).tag(9, 2).varint(bytes);
    } else {
      head.tag(f16 ? 5 : 4, 2).varint(bytes);
      tail.stringField(8, t.name);
    }
    const size = head.length + bytes + tail.length;
    const frame = new ProtoWriter().tag(5, 2).varint(size);
    return { t, f16, pieces: [...frame.pieces(), ...head.pieces()], tail: tail.pieces(), size: frame.length + size };
  });
  const graphHead = new ProtoWriter().stringField(2, "big");
  const graphSize = graphHead.length + parts.reduce((n, p) => n + p.size, 0);
  const modelHead = new ProtoWriter().uintField(1, 8).stringField(2, "tensorfile cli-memory").tag(7, 2).varint(graphSize);
  const opset = new ProtoWriter().messageField(8, (op) => op.uintField(2, 13));
  const size = modelHead.length + graphSize + opset.length;
  function* bytes() {
    yield* modelHead.pieces();
    yield* graphHead.pieces();
    for (const p of parts) {
      yield* p.pieces;
      yield* p.f16 ? float16VarintChunks(p.t) : tensorChunks(p.t);
      yield* p.tail;
    }
    yield* opset.pieces();
  }
  return { size, bytes };
}

/** A .safetensors holding `tensors` ({ name, dims, elements, seed }) with their values shifted by `shift`, streamed. */
function* safetensorsBytes(tensors, shift) {
  const header = {};
  let at = 0;
  for (const t of tensors) {
    header[t.name] = { dtype: "F32", shape: t.dims, data_offsets: [at, at + t.elements * 4] };
    at += t.elements * 4;
  }
  let json = JSON.stringify(header);
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(json.length), true);
  yield prefix;
  yield new TextEncoder().encode(json);
  for (const t of tensors) yield* tensorChunks(t, shift);
}

const writeStreamed = (path, chunks) => pipeline(Readable.from(chunks), createWriteStream(path));

/** A C-order .npy turned Fortran-order: the same header length ("True" is padded with a space), the same data. */
function fortranNpy(bytes) {
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint16(8, true);
  const text = new TextDecoder("latin1").decode(bytes.subarray(10, 10 + headerLength));
  const changed = text.replace("'fortran_order': False, ", "'fortran_order': True, ").replace(/ *\n$/, (pad) => `${" ".repeat(pad.length)}\n`);
  bytes.set(new TextEncoder().encode(changed), 10);
  return bytes;
}

/** Writes one generated file of about `mib` MiB; returns its path, its largest tensor's size and (ONNX, april) that tensor to patch. */
async function generate(format) {
  const elements = (mib * 1024 * 1024) / 4;
  const quarter = elements / 4;
  const path = join(dir, { onnx: "big.onnx", "onnx-typed": "typed.onnx", "onnx-f16": "f16.onnx", bw2l: "big.b2l", april: "big.april", tsm: "big.tsm", primitiv: "big.model", spraak: "big.trk", npy: "big.npy", "npy-fortran": "fortran.npy", safetensors: "big.safetensors" }[format]);
  let bytes;
  let largest = quarter * 4;
  let replacement; // the largest tensor ({ name, dims, elements, seed }), for the patch column
  const tensor = (name, count, seed) => ({ name, dims: [count / 1024, 1024], elements: count, seed });
  if (format === "onnx" || format === "onnx-typed") {
    const tensors = [0, 1, 2, 3].map((i) => tensor(`w${i}`, quarter, i * 7));
    await writeStreamed(path, onnxModel(tensors, format === "onnx" ? "raw_data" : "float_data").bytes());
    replacement = tensors[0];
  }
  if (format === "onnx-f16") {
    // twice the elements of the float32 files in the same bytes (two per element)
    const tensors = [0, 1, 2, 3].map((i) => tensor(`w${i}`, quarter * 2, i * 7));
    await writeStreamed(path, onnxModel(tensors, "int32_data").bytes());
    replacement = tensors[0];
    largest = quarter * 4; // 2 bytes × 2 × quarter
  }
  if (format === "bw2l") {
    // create() keeps the params row-major; writeTo() transposes them in bands into the file
    const file = lib.bw2l.create({ layers: [0, 1, 2, 3].map(() => ({ arch: "L", params: [{ dims: [quarter / 8192, 8192], data: ramp(quarter) }] })) });
    await lib.bw2l.writeTo(file, createWriteStream(path));
  }
  if (format === "april") {
    // the header and params are april.encodeHeaderAndParams() of a file with these network sizes
    const networks = [
      [tensor("w0", quarter, 0), tensor("w1", quarter, 7), tensor("w2", quarter, 14)],
      [tensor("w3", quarter / 2, 21)],
      [tensor("w4", quarter / 2, 28)],
    ].map((tensors) => onnxModel(tensors, "raw_data"));
    const tiny = new Uint8Array(0);
    const file = lib.april.create({ networks: { encoder: tiny, decoder: tiny, joiner: tiny }, tokens: ["<blk>", "a", "b"] });
    const { header, params } = lib.april.encodeHeaderAndParams(file, networks.map((n) => n.size));
    await writeStreamed(path, (function* () {
      yield header;
      for (const n of networks) yield* n.bytes();
      yield params;
    })());
    replacement = { ...tensor("w0", quarter, 0), name: "encoder/w0" };
  }
  if (format === "tsm") {
    bytes = lib.tsm.write(lib.tsm.create({
      nodes: [0, 1, 2, 3].map((i) => ({ op: "<const>", name: `w${i}`, value: { dtype: "float32", shape: [quarter / 1024, 1024], data: ramp(quarter) } })),
      inputs: [], outputs: [3],
    }));
  }
  if (format === "primitiv") {
    bytes = lib.primitiv.write(lib.primitiv.makeModel([0, 1, 2, 3].map((i) => [`w${i}`, lib.primitiv.makeParameter(lib.primitiv.makeTensor([quarter / 1024, 1024], ramp(quarter)))])));
  }
  if (format === "spraak") {
    bytes = lib.spraak.write(lib.spraak.matrix(ramp(elements), { cols: 1024, format: "BIN10" }));
    largest = elements * 4;
  }
  if (format === "npy" || format === "npy-fortran") {
    bytes = lib.writeNpy({ name: "x", dtype: "float32", shape: [elements / 1024, 1024], data: ramp(elements) });
    if (format === "npy-fortran") bytes = fortranNpy(bytes);
    largest = elements * 4;
  }
  if (format === "safetensors") {
    bytes = lib.writeSafetensors([0, 1, 2, 3].map((i) => ({ name: `w${i}`, dtype: "float32", shape: [quarter / 1024, 1024], data: ramp(quarter) })));
  }
  if (bytes) writeFileSync(path, bytes);
  return { path, largest, replacement };
}

/** Peak RSS in MiB of `node dist/cli.js ...args`, and its exit code. */
function peak(cliArgs) {
  const run = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, cli, ...cliArgs], { encoding: "utf8", maxBuffer: 1 << 26 });
  const kb = Number(run.stderr.trim().split("\n").at(-1));
  return { mib: kb / 1024, code: run.status };
}

/** The file's largest tensor as a generated tensor to patch it with (float32 only). */
async function largestTensor(path) {
  const file = await lib.openFile(path);
  const infos = file.tensorInfos().filter((t) => t.dtype === "float32");
  const info = infos.reduce((a, b) => (lib.elementCount(b.shape) > lib.elementCount(a.shape) ? b : a));
  await file.close?.();
  return { name: info.name, dims: info.shape, elements: lib.elementCount(info.shape), seed: 3 };
}

/** Whether two files hold the same bytes (`cmp -s`). */
const sameFile = (a, b) => spawnSync("cmp", ["-s", a, b]).status === 0;

const READ_ONLY = new Set(["npy", "npy-fortran", "safetensors"]);
const baseline = peak(["--help"]).mib;
const rows = [];
for (const format of formats) {
  const { path, largest, replacement } = await generate(format);
  const size = statSync(path).size;
  const ext = path.slice(path.lastIndexOf("."));
  const out = join(dir, "out.safetensors");
  const folder = join(dir, "extracted");
  const weights = join(dir, "weights.safetensors");
  const patched = join(dir, `patched${ext}`);
  const back = join(dir, `back${ext}`);
  const results = {
    convert: peak(["convert", path, out, "--force"]),
    extract: peak(["extract", path, folder, "--force"]),
    verify: peak(["verify", path]),
    stats: peak(["stats", path]),
    diff: undefined,
    patch: undefined,
    roundTrip: undefined,
  };
  const copy = join(dir, `copy-${path.split("/").at(-1)}`);
  execFileSync("cp", [path, copy]);
  results.diff = peak(["diff", path, copy]);
  rmSync(copy, { force: true });
  if (!READ_ONLY.has(format)) {
    // the largest tensor with other values (shifted by 0.5)
    const replaced = replacement ?? (await largestTensor(path));
    await writeStreamed(weights, safetensorsBytes([replaced], 0.5));
    results.patch = peak(["patch", path, weights, patched, "--force"]);
    if (results.patch.code === 0) {
      // (not measured) the patched file differs from F in the replaced tensor only
      const diff = JSON.parse(spawnSync(process.execPath, [cli, "diff", path, patched, "--json"], { encoding: "utf8", maxBuffer: 1 << 26 }).stdout);
      const changed = diff.tensors.filter((t) => t.status !== "equal").map((t) => t.name);
      if (changed.join() !== replaced.name) results.patch.code = `${results.patch.code}, but it changed [${changed.join(", ")}]`;
    }
    rmSync(weights, { force: true });
    rmSync(patched, { force: true });
    // the round trip: F patched with its own convert gives F again
    if (results.convert.code === 0) {
      const run = peak(["patch", path, out, back, "--force"]);
      results.roundTrip = { ...run, same: run.code === 0 && sameFile(path, back) };
      rmSync(back, { force: true });
    }
  }
  rmSync(out, { force: true });
  rmSync(folder, { recursive: true, force: true });
  rmSync(path, { force: true });
  const show = (r, none = "–") => (r === undefined ? none : `${Math.round(r.mib - baseline)} MiB${r.code === 0 ? "" : ` (exit ${r.code})`}`);
  const trip = (r) => (r === undefined ? "–" : `${show(r)}, ${r.same ? "identical" : "**differs**"}`);
  rows.push(`| ${LABELS[format] ?? format} | ${Math.round(size / 2 ** 20)} MiB | ${Math.round(largest / 2 ** 20)} MiB | ${show(results.convert)} | ${show(results.extract)} | ${show(results.verify)} | ${show(results.stats)} | ${show(results.diff)} | ${show(results.patch, "– (read only)")} | ${trip(results.roundTrip)} |`);
  console.log(rows.at(-1));
}
rmSync(dir, { recursive: true, force: true });
const table = [
  `Peak RSS above Node's baseline (${Math.round(baseline)} MiB for \`tensorfile --help\`), ${new Date().toISOString().slice(0, 10)}, commit ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim()}:`,
  "",
  "| file | size | largest tensor | convert → .safetensors | extract | verify | stats | diff (with a copy) | patch (largest tensor) | patch with its own convert: peak, `cmp` with F |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...rows,
].join("\n");
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/cli-memory.md"), `${table}\n`);
console.log(`\n${table}`);
