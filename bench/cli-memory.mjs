// Peak memory of the CLI on large generated files (issue 13, "Flat memory on any file"): for each file, the peak
// RSS of `tensorfile convert F out.safetensors`, `extract F DIR` and `verify F` (GNU time's maximum resident set
// size), next to the same process doing nothing (`node dist/cli.js --help`: Node's baseline), the file size and
// the largest tensor. Writes a Markdown table to bench/results/cli-memory.md.
//
//   node bench/cli-memory.mjs [--mib 1024] [--formats spraak,bw2l,tsm,primitiv,npy]
//
// Files: spraak one BIN10 float32 matrix (big-endian: swapped in chunks); bw2l v2 four 1-D float32 params (plain);
// tsm four row-major float32 constants; primitiv a Model of four column-major matrices (each needs a transpose:
// about one tensor of memory is the goal); npy one little-endian float32 array. Needs `npm run build` first.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const lib = await import(join(root, "dist/index.js"));
const args = process.argv.slice(2);
const mib = Number(args[args.indexOf("--mib") + 1] ?? 1024) || 1024;
const formats = (args.includes("--formats") ? args[args.indexOf("--formats") + 1] : "spraak,bw2l,tsm,primitiv,npy").split(",");
const dir = mkdtempSync(join(tmpdir(), "tensorfile-cli-memory-"));
const cli = join(root, "dist/cli.js");

function ramp(n) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = (i % 1000) * 0.001;
  return a;
}

/** Writes one generated file of about `mib` MiB and returns its path and its largest tensor's size. */
function generate(format) {
  const elements = (mib * 1024 * 1024) / 4;
  const quarter = elements / 4;
  const path = join(dir, { spraak: "big.trk", bw2l: "big.b2l", tsm: "big.tsm", primitiv: "big.model", npy: "big.npy" }[format]);
  let bytes;
  if (format === "spraak") bytes = lib.spraak.write(lib.spraak.matrix(ramp(elements), { cols: 1024, format: "BIN10" }));
  if (format === "bw2l") bytes = lib.bw2l.write(lib.bw2l.create({ layers: [0, 1, 2, 3].map(() => ({ arch: "L", params: [{ dims: [quarter], data: ramp(quarter) }] })) }));
  if (format === "tsm") {
    bytes = lib.tsm.write(lib.tsm.create({
      nodes: [0, 1, 2, 3].map((i) => ({ op: "<const>", name: `w${i}`, value: { dtype: "float32", shape: [quarter / 1024, 1024], data: ramp(quarter) } })),
      inputs: [], outputs: [3],
    }));
  }
  if (format === "primitiv") {
    bytes = lib.primitiv.write(lib.primitiv.makeModel([0, 1, 2, 3].map((i) => [`w${i}`, lib.primitiv.makeParameter(lib.primitiv.makeTensor([quarter / 1024, 1024], ramp(quarter)))])));
  }
  if (format === "npy") bytes = lib.writeNpy({ name: "x", dtype: "float32", shape: [elements / 1024, 1024], data: ramp(elements) });
  writeFileSync(path, bytes);
  const largest = format === "spraak" || format === "npy" ? elements * 4 : quarter * 4;
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
  const { path, largest } = generate(format);
  const size = statSync(path).size;
  const out = join(dir, "out.safetensors");
  const folder = join(dir, "extracted");
  const results = {
    convert: peak(["convert", path, out, "--force"]),
    extract: peak(["extract", path, folder, "--force"]),
    verify: peak(["verify", path]),
  };
  rmSync(out, { force: true });
  rmSync(folder, { recursive: true, force: true });
  rmSync(path, { force: true });
  const show = (r) => `${Math.round(r.mib - baseline)} MiB${r.code === 0 ? "" : ` (exit ${r.code})`}`;
  rows.push(`| ${format} | ${Math.round(size / 2 ** 20)} MiB | ${Math.round(largest / 2 ** 20)} MiB | ${show(results.convert)} | ${show(results.extract)} | ${show(results.verify)} |`);
  console.log(rows.at(-1));
}
rmSync(dir, { recursive: true, force: true });
const table = [
  `Peak RSS above Node's baseline (${Math.round(baseline)} MiB for \`tensorfile --help\`), ${new Date().toISOString().slice(0, 10)}, commit ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim()}:`,
  "",
  "| file | size | largest tensor | convert → .safetensors | extract | verify |",
  "|---|---:|---:|---:|---:|---:|",
  ...rows,
].join("\n");
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/cli-memory.md"), `${table}\n`);
console.log(`\n${table}`);
