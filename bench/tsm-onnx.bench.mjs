// Peak memory of the TenniS -> ONNX conversion (issue 25: "Peak memory of the conversion <= 2x the model's weights
// above Node's baseline"). For each model, the peak RSS (GNU time's maximum resident set size) of a fresh process
//   baseline   importing tensorfile and nothing else
//   api        readFileSync(MODEL) -> tsm.read -> tsm.toOnnx (the ONNX bytes in one array, kept until the end)
//   cli        tensorfile convert MODEL OUT.onnx (the ONNX written piece by piece, weights not copied again)
// and (peak - baseline) / weight bytes. Models: a generated tsm of about --mib MiB of float32 weights (four
// inner_prod layers), its .csta, and the TenniS fixtures when ../shared is there. Writes bench/results/tsm-onnx.md.
//
//   npm run build && node bench/tsm-onnx.bench.mjs [--mib 256]      (needs GNU time at /usr/bin/time)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

if (args[0] === "--child") {
  // child: the work to measure (the parent reads its peak RSS through /usr/bin/time)
  const [, mode, model, out] = args;
  const lib = await import(join(root, "dist/index.js"));
  let keep;
  if (mode === "api") {
    const bytes = new Uint8Array(readFileSync(model));
    const file = lib.tsm.read(bytes);
    keep = [bytes, file, lib.tsm.toOnnx(file)];
  }
  process.stdout.write(String(keep ? keep.length : 0));
  process.exit(0);
}

const mib = Number(args[args.indexOf("--mib") + 1] ?? 256) || 256;
const lib = await import(join(root, "dist/index.js"));
const dir = mkdtempSync(join(tmpdir(), "tensorfile-tsm-onnx-"));

function generated() {
  // four inner_prod layers [n, n]: 4 * n * n * 4 bytes ~ mib MiB
  const n = Math.floor(Math.sqrt((mib * 2 ** 20) / 16));
  const nodes = [{ op: "<param>", name: "x", params: { "#shape": { dtype: "int32", shape: [2], data: Int32Array.from([1, n]) } } }];
  let last = "x";
  for (let k = 0; k < 4; k++) {
    const w = new Float32Array(n * n);
    for (let i = 0; i < w.length; i += 997) w[i] = (i % 13) / 13;
    nodes.push({ op: "<const>", name: `w${k}`, value: { dtype: "float32", shape: [n, n], data: w } });
    nodes.push({ op: "inner_prod", name: `ip${k}`, inputs: [last, `w${k}`] });
    last = `ip${k}`;
  }
  const module = lib.tsm.create({ nodes, inputs: ["x"], outputs: [last] });
  const tsmPath = join(dir, `generated-${mib}mib.tsm`);
  writeFileSync(tsmPath, lib.tsm.write(module));
  const cstaPath = join(dir, `generated-${mib}mib.csta`);
  writeFileSync(cstaPath, lib.tsm.writeCsta(module));
  return [tsmPath, cstaPath];
}

function weightBytes(path) {
  const file = lib.tsm.read(new Uint8Array(readFileSync(path)));
  return lib.tsm.tensorInfos(file).reduce((a, t) => a + t.byteLength, 0);
}

/**
 * Peak RSS in bytes of a fresh process (GNU time's maximum resident set size: the parent's own RSS, which a forked
 * child's ru_maxrss would inherit, does not count).
 */
function peak(mode, model) {
  const out = join(dir, "out.onnx");
  rmSync(out, { force: true });
  const argv = mode === "cli" ? [join(root, "dist/cli.js"), "convert", model, out]
    : mode === "cli-baseline" ? [join(root, "dist/cli.js"), "--help"]
    : [fileURLToPath(import.meta.url), "--child", mode, model ?? ""];
  const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, ...argv], { encoding: "utf8", maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr}`);
  return Number(r.stderr.trim().split("\n").pop()) * 1024;
}

const models = generated();
const fixtures = resolve(root, "../shared/fixtures/tennis");
if (existsSync(fixtures)) {
  for (const f of ["seetaface6_face_landmarker_pts5.csta", "seetaface6_quality_lbn.tsm", "seetaface6_mask_detector.tsm", "darknet_tiny_yolo.tsm"]) models.push(join(fixtures, f));
}
const MiB = 2 ** 20;
const baseline = Math.min(peak("baseline"), peak("baseline"));
const cliBaseline = Math.min(peak("cli-baseline"), peak("cli-baseline"));
const rows = [];
for (const model of models) {
  const weights = weightBytes(model);
  const api = peak("api", model);
  const cli = peak("cli", model);
  const above = (p, base) => (Number.isNaN(p) ? "-" : ((p - base) / MiB).toFixed(1));
  const ratio = (p, base) => (Number.isNaN(p) ? "-" : ((p - base) / weights).toFixed(2));
  rows.push(`| ${model.split("/").pop()} | ${(weights / MiB).toFixed(2)} | ${above(api, baseline)} | ${ratio(api, baseline)} | ${above(cli, cliBaseline)} | ${ratio(cli, cliBaseline)} |`);
  console.log(rows[rows.length - 1]);
}
const table = [
  `Node baselines (${process.version}): api ${(baseline / MiB).toFixed(1)} MiB (import tensorfile), cli ${(cliBaseline / MiB).toFixed(1)} MiB (tensorfile --help) peak RSS.`,
  "",
  "| model | weights MiB | api: peak above baseline MiB | api ratio | cli: peak above baseline MiB | cli ratio |",
  "|---|---:|---:|---:|---:|---:|",
  ...rows,
].join("\n");
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/tsm-onnx.md"), `${table}\n`);
console.log(`\n${table}`);
rmSync(dir, { recursive: true, force: true });
