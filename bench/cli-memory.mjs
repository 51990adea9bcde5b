// Peak memory of the CLI on large generated files (issue 13, "Flat memory on any file"; issue 23: stats and diff):
// for each file, the peak RSS of `tensorfile convert F out.safetensors`, `extract F DIR`, `verify F`, `stats F`
// and `diff F COPY` (a copy of F) (GNU time's maximum resident set size), next to the same process doing nothing (`node dist/cli.js --help`: Node's baseline), the file size and
// the largest tensor (or blob). Writes a Markdown table to bench/results/cli-memory.md.
//
//   node bench/cli-memory.mjs [--mib 1024] [--formats bw2l,april,tsm,primitiv,spraak,npy,npy-fortran,safetensors]
//
// Files (each about --mib MiB, float32 values):
//   bw2l         v2, four 2-D params [mib*16, 8192] (column-major: banded transposes)
//   april        networks of 3/4, 1/8 and 1/8 of the file (blobs: extract and verify only; it holds no tensors)
//   tsm          four row-major constants
//   primitiv     a Model of four column-major [n, 1024] matrices (banded transposes)
//   spraak       one BIN10 matrix (big-endian: swapped in chunks)
//   npy          one C-order array; npy-fortran the same in Fortran order (one column-major tensor of --mib MiB)
//   safetensors  four F32 tensors
// Needs `npm run build` first. Temporary files go under the system temp folder (/tmp) and are deleted.
import { execFileSync, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const lib = await import(join(root, "dist/index.js"));
const args = process.argv.slice(2);
const mib = Number(args[args.indexOf("--mib") + 1] ?? 1024) || 1024;
const ALL = ["bw2l", "april", "tsm", "primitiv", "spraak", "npy", "npy-fortran", "safetensors"];
const formats = (args.includes("--formats") ? args[args.indexOf("--formats") + 1] : ALL.join(",")).split(",");
const dir = mkdtempSync(join(tmpdir(), "tensorfile-cli-memory-"));
const cli = join(root, "dist/cli.js");

const LABELS = {
  bw2l: "bw2l v2 (four 2-D params, column-major)",
  april: "april (three networks)",
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

/** A C-order .npy turned Fortran-order: the same header length ("True" is padded with a space), the same data. */
function fortranNpy(bytes) {
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint16(8, true);
  const text = new TextDecoder("latin1").decode(bytes.subarray(10, 10 + headerLength));
  const changed = text.replace("'fortran_order': False, ", "'fortran_order': True, ").replace(/ *\n$/, (pad) => `${" ".repeat(pad.length)}\n`);
  bytes.set(new TextEncoder().encode(changed), 10);
  return bytes;
}

/** Writes one generated file of about `mib` MiB; returns its path and its largest tensor's (or blob's) size. */
async function generate(format) {
  const elements = (mib * 1024 * 1024) / 4;
  const quarter = elements / 4;
  const path = join(dir, { bw2l: "big.b2l", april: "big.april", tsm: "big.tsm", primitiv: "big.model", spraak: "big.trk", npy: "big.npy", "npy-fortran": "fortran.npy", safetensors: "big.safetensors" }[format]);
  let bytes;
  let largest = quarter * 4;
  if (format === "bw2l") {
    // create() keeps the params row-major; writeTo() transposes them in bands into the file
    const file = lib.bw2l.create({ layers: [0, 1, 2, 3].map(() => ({ arch: "L", params: [{ dims: [quarter / 8192, 8192], data: ramp(quarter) }] })) });
    await lib.bw2l.writeTo(file, createWriteStream(path));
  }
  if (format === "april") {
    const blob = (n) => bytesOf(ramp(n / 4));
    const total = elements * 4;
    bytes = lib.april.write(lib.april.create({ networks: { encoder: blob((total / 4) * 3), decoder: blob(total / 8), joiner: blob(total / 8) }, tokens: ["<blk>", "a", "b"] }));
    largest = (total / 4) * 3;
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
  return { path, largest };
}

/** Peak RSS in MiB of `node dist/cli.js ...args`, and its exit code. */
function peak(cliArgs) {
  const run = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, cli, ...cliArgs], { encoding: "utf8", maxBuffer: 1 << 26 });
  const kb = Number(run.stderr.trim().split("\n").at(-1));
  return { mib: kb / 1024, code: run.status };
}

const baseline = peak(["--help"]).mib;
const rows = [];
for (const format of formats) {
  const { path, largest } = await generate(format);
  const size = statSync(path).size;
  const out = join(dir, "out.safetensors");
  const folder = join(dir, "extracted");
  const results = {
    convert: format === "april" ? undefined : peak(["convert", path, out, "--force"]),
    extract: peak(["extract", path, folder, "--force"]),
    verify: peak(["verify", path]),
    stats: format === "april" ? undefined : peak(["stats", path]),
    diff: undefined,
  };
  if (format !== "april") {
    const copy = join(dir, `copy-${path.split("/").at(-1)}`);
    execFileSync("cp", [path, copy]);
    results.diff = peak(["diff", path, copy]);
    rmSync(copy, { force: true });
  }
  rmSync(out, { force: true });
  rmSync(folder, { recursive: true, force: true });
  rmSync(path, { force: true });
  const show = (r) => (r === undefined ? "– (no tensors)" : `${Math.round(r.mib - baseline)} MiB${r.code === 0 ? "" : ` (exit ${r.code})`}`);
  rows.push(`| ${LABELS[format] ?? format} | ${Math.round(size / 2 ** 20)} MiB | ${Math.round(largest / 2 ** 20)} MiB | ${show(results.convert)} | ${show(results.extract)} | ${show(results.verify)} | ${show(results.stats)} | ${show(results.diff)} |`);
  console.log(rows.at(-1));
}
rmSync(dir, { recursive: true, force: true });
const table = [
  `Peak RSS above Node's baseline (${Math.round(baseline)} MiB for \`tensorfile --help\`), ${new Date().toISOString().slice(0, 10)}, commit ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim()}:`,
  "",
  "| file | size | largest tensor (blob) | convert → .safetensors | extract | verify | stats | diff (with a copy) |",
  "|---|---:|---:|---:|---:|---:|---:|---:|",
  ...rows,
].join("\n");
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/cli-memory.md"), `${table}\n`);
console.log(`\n${table}`);
