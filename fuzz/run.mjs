// Runs the Jazzer.js targets against the built package (dist/).
//
//   npm run fuzz -- TARGET [--seconds N] [--forms all|plain] [--known alignment] [--max-len BYTES]
//                   (TARGET: bw2l april tsm
//                   primitiv spraak onnx onnx-tensor any safetensors npy npz url; --forms plain and --known: see harness.mjs;
//                   url: fromUrl against a stand-in fetch scripted by the input, laws in url-laws.mjs)
//   npm run fuzz:all -- [--seconds N]                                           every target, one after another
//   npm run fuzz -- TARGET --minimize FILE [--seconds N]                        minimize a finding into FILE.min
//
// Seeds (the examples, ../shared/fixtures and the regression corpus) are copied at run time into
// fuzz/.work/seeds/<target>; the growing corpus is fuzz/.work/corpus/<target>; findings land in
// fuzz/.work/findings/<target>; logs in fuzz/.work/logs; one JSON line per run in fuzz/.work/stats.jsonl.
// All of fuzz/.work is gitignored. Exits 1 when any target found something (or failed to run).
// A finding is any exception out of a target: a non-FormatError from a reader, a broken law (laws.mjs),
// a call over 1 s, too much memory; libFuzzer adds hangs (--timeout) and RSS over -rss_limit_mb.
import { spawn } from "node:child_process";
import { appendFileSync, copyFileSync, createWriteStream, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, join as join_, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { prepareJazzer } from "./native/prepare.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");
const work = join(here, ".work");
const TARGETS = ["bw2l", "april", "tsm", "primitiv", "spraak", "onnx", "onnx-tensor", "any", "safetensors", "npy", "npz", "url"];
/** Folders of ../shared/fixtures that hold each format's files. */
const FIXTURE_FOLDERS = { bw2l: ["bw2l"], april: ["april"], tsm: ["tennis"], primitiv: ["primitiv"], spraak: ["spraak"], onnx: ["april/onnx"] };
const FIXTURES = process.env.TENSORFILE_FIXTURES ?? resolve(root, "../shared/fixtures");

function parseArgs(argv) {
  const options = { targets: [], seconds: 60, forms: "all", known: "", maxLen: 16384, quiet: false, minimize: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${arg} needs a value`);
      return v;
    };
    if (arg === "--seconds") options.seconds = Number(value());
    else if (arg === "--forms") options.forms = value();
    else if (arg === "--known") options.known = value();
    else if (arg === "--minimize") options.minimize = resolve(value());
    else if (arg === "--max-len") options.maxLen = Number(value());
    else if (arg === "--quiet") options.quiet = true;
    else if (arg === "--all" || arg === "all") options.targets.push(...TARGETS);
    else if (TARGETS.includes(arg)) options.targets.push(arg);
    else usage(`unknown argument ${arg}`);
  }
  if (!(options.seconds > 0)) usage("--seconds must be a positive number");
  if (!["all", "plain"].includes(options.forms)) usage("--forms is all or plain");
  if (options.targets.length === 0) usage("name a target");
  return options;
}

function usage(message) {
  console.error(`fuzz: ${message}\nusage: npm run fuzz -- TARGET [--seconds N] [--forms all|plain] [--max-len BYTES]\n       npm run fuzz:all -- [--seconds N]\ntargets: ${TARGETS.join(" ")}`);
  process.exit(2);
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() && !/\.(json|md|txt|py|sh)$/.test(entry.name) ? [path] : [];
  });
}

/** Writes the seed corpus of one target (fresh each run) and returns its folder. */
async function seeds(target, lib) {
  const dir = join(work, "seeds", target);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (target === "url") {
    // scripts for the stand-in fetch (url-laws.mjs): honest 206 answers, a 200 without Range, a stall, a 416
    const enc = (text) => new TextEncoder().encode(text);
    const join = (...parts) => Uint8Array.from(parts.flatMap((p) => [...(typeof p === "string" ? enc(p) : p)]));
    writeFileSync(join_(dir, "seed-206"), join([4, 1], "300\n", [0, 0, 200], new Uint8Array(200).fill(7), [64, 0, 3, 0, 2]));
    writeFileSync(join_(dir, "seed-200"), join([8, 0], "500\n", [0, 1, 244], new Uint8Array(500).fill(9), [255, 1, 0, 5, 9]));
    writeFileSync(join_(dir, "seed-endless"), join([0, 0, 1, 0, 0, 100, 0, 3, 0, 1, 0]));
    writeFileSync(join_(dir, "seed-stall"), join([12, 1], "1000000000000000\n", "100\n", [2, 0, 50, 10, 0, 1, 0, 2]));
    writeFileSync(join_(dir, "seed-416"), join([4, 5], "10\n", [0, 0, 0, 1, 50, 1]));
    for (const file of filesUnder(join_(here, "regressions", target))) copyFileSync(file, join_(dir, `regression-${basename(file)}`));
    return dir;
  }
  const { exampleFiles } = await import(pathToFileURL(join(root, "dist", "examples.js")).href);
  for (const example of exampleFiles()) {
    if (target === "any" || example.format === target) writeFileSync(join(dir, `example-${example.name}`), example.bytes);
  }
  const folders = target === "any" ? Object.values(FIXTURE_FOLDERS).flat() : (FIXTURE_FOLDERS[target] ?? [target]);
  for (const folder of folders) {
    for (const file of filesUnder(join(FIXTURES, folder))) {
      copyFileSync(file, join(dir, `fixture-${relative(FIXTURES, file).replaceAll("/", "_")}`));
    }
  }
  if (["safetensors", "npy", "npz", "any"].includes(target)) {
    // the new input formats: the examples' tensors through our own writers
    const { zipSync } = await import("fflate");
    for (const example of exampleFiles()) {
      let tensors;
      try {
        tensors = lib.readAny(example.bytes).tensors();
      } catch {
        continue;
      }
      if (tensors.length === 0) continue;
      const npys = tensors.filter((t) => !/[^\w.-]/.test(t.name)).map((t) => [t.name, lib.writeNpy(t)]);
      if (target !== "npz") writeFileSync(join(dir, `example-${example.name}.safetensors`), lib.writeSafetensors(tensors));
      if (target !== "npz" && npys.length > 0) writeFileSync(join(dir, `example-${example.name}.npy`), npys[0][1]);
      if (target !== "npy" && npys.length > 0) {
        writeFileSync(join(dir, `example-${example.name}.npz`), zipSync(Object.fromEntries(npys.map(([n, b]) => [`${n}.npy`, b])), { level: 0 }));
      }
    }
  }
  if (target === "onnx-tensor" || target === "any") {
    // TensorProto files: ONNX's test data (Debian's libonnx-testdata) when installed, one in ten of them
    const pbs = filesUnder("/usr/share/libonnx-testdata/data/node").filter((file) => file.endsWith(".pb"));
    pbs.filter((_, i) => i % 10 === 0).forEach((file) => copyFileSync(file, join(dir, `testdata-${relative("/usr/share/libonnx-testdata/data/node", file).replaceAll("/", "_")}`)));
  }
  for (const file of filesUnder(join(here, "regressions", target))) copyFileSync(file, join(dir, `regression-${basename(file)}`));
  if (target !== "any" && (lib[target] ?? lib[target.replace(/-([a-z])/g, (_, c) => c.toUpperCase())])?.detect === undefined) return undefined;
  return dir;
}

/** The last libFuzzer status line's numbers, and the final stats. */
function parseStats(text) {
  const lines = [...text.matchAll(/#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)\/(\S+)(?:.*?exec\/s: (\d+))?/g)];
  const last = lines.at(-1);
  const units = /stat::number_of_executed_units: (\d+)/.exec(text);
  const rate = /stat::average_exec_per_sec:\s+(\d+)/.exec(text);
  const done = /Done (\d+) runs in (\d+) second/.exec(text);
  return {
    executions: Number(units?.[1] ?? done?.[1] ?? last?.[1] ?? 0),
    execPerSec: Number(rate?.[1] ?? last?.[6] ?? 0),
    coverage: Number(last?.[2] ?? 0),
    features: Number(last?.[3] ?? 0),
    corpus: Number(last?.[4] ?? 0),
    corpusSize: last?.[5] ?? "0b",
  };
}

function runTarget(target, options, env) {
  const jazzer = join(dirname(createRequire(import.meta.url).resolve("@jazzer.js/core/package.json")), "dist", "cli.js");
  const corpus = join(work, "corpus", target);
  const findings = join(work, "findings", target);
  const logs = join(work, "logs");
  for (const dir of [corpus, findings, logs]) mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replaceAll(":", "").slice(0, 15);
  const logPath = join(logs, `${target}-${stamp}.log`);
  const args = [
    jazzer, join(here, "targets", `${target}.mjs`), corpus, join(work, "seeds", target),
    "--includes", `${basename(root)}/dist/`, "--timeout", "10000", "--disable_bug_detectors", ".*",
    "--",
    `-max_total_time=${Math.round(options.seconds)}`, `-max_len=${options.maxLen}`, `-dict=${join(here, "dictionaries", `${target}.dict`)}`,
    `-artifact_prefix=${findings}/`, "-rss_limit_mb=3072", "-print_final_stats=1", "-print_pcs=0",
  ];
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...env, TENSORFILE_FUZZ_FORMS: options.forms, TENSORFILE_FUZZ_KNOWN: options.known },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const log = createWriteStream(logPath);
    let text = "";
    const onData = (chunk) => {
      const s = chunk.toString();
      text += s;
      if (text.length > 4_000_000) text = text.slice(-2_000_000);
      log.write(s);
      if (!options.quiet) process.stderr.write(s);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const started = Date.now();
    child.on("close", (code, signal) => {
      log.end();
      const stats = parseStats(text);
      const finding = code !== 0;
      const artifacts = existsSync(findings) ? readdirSync(findings).filter((f) => statSync(join(findings, f)).mtimeMs >= started - 1000) : [];
      const record = {
        target, date: new Date(started).toISOString(), seconds: Math.round((Date.now() - started) / 1000), forms: options.forms, known: options.known,
        ...stats, exitCode: code, signal, finding, artifacts, log: relative(root, logPath),
      };
      appendFileSync(join(work, "stats.jsonl"), `${JSON.stringify(record)}\n`);
      resolveRun(record);
    });
  });
}

/** libFuzzer's crash minimization of one finding: writes FILE.min next to it. */
function minimize(target, file, options, env) {
  const jazzer = join(dirname(createRequire(import.meta.url).resolve("@jazzer.js/core/package.json")), "dist", "cli.js");
  const args = [
    jazzer, join(here, "targets", `${target}.mjs`), file, "--includes", `${basename(root)}/dist/`, "--timeout", "10000",
    "--disable_bug_detectors", ".*", "--", "-minimize_crash=1", `-max_total_time=${Math.round(options.seconds)}`, `-exact_artifact_path=${file}.min`,
  ];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env, TENSORFILE_FUZZ_FORMS: options.forms, TENSORFILE_FUZZ_KNOWN: options.known }, stdio: "inherit" });
    child.on("close", () => {
      console.log(existsSync(`${file}.min`) ? `fuzz: minimized to ${file}.min (${statSync(`${file}.min`).size} bytes)` : "fuzz: nothing minimized");
      done();
    });
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!existsSync(join(root, "dist", "index.js"))) {
    console.error("fuzz: dist/ is missing: run `npm run build` first (the targets fuzz the built package)");
    process.exit(1);
  }
  const lib = await import(pathToFileURL(join(root, "dist", "index.js")).href);
  const env = prepareJazzer({ quiet: options.quiet });
  if (options.minimize) {
    await minimize(options.targets[0], options.minimize, options, env);
    return;
  }
  const results = [];
  for (const target of [...new Set(options.targets)]) {
    const seedDir = await seeds(target, lib);
    if (!seedDir) {
      console.error(`fuzz: ${target}: not in dist/ yet, skipped`);
      continue;
    }
    console.error(`fuzz: ${target} for ${options.seconds} s (inputs: ${options.forms === "all" ? "Buffers and odd-offset Uint8Array views" : "aligned Uint8Array copies"})`);
    results.push(await runTarget(target, options, env));
  }
  console.log("\nfuzz summary");
  console.log("target       seconds   executions   exec/s   cov    features   corpus   result");
  for (const r of results) {
    console.log(
      `${r.target.padEnd(12)} ${String(r.seconds).padStart(7)} ${String(r.executions).padStart(12)} ${String(r.execPerSec).padStart(8)} ${String(r.coverage).padStart(5)} ${String(r.features).padStart(10)} ${String(r.corpus).padStart(8)}   ${r.finding ? `FINDING ${r.artifacts.map((a) => `fuzz/.work/findings/${r.target}/${a}`).join(" ")} (log ${r.log})` : "clean"}`,
    );
  }
  const found = results.filter((r) => r.finding);
  console.log(`${results.length} targets, ${results.reduce((n, r) => n + r.executions, 0)} executions, ${found.length} with findings`);
  process.exit(found.length > 0 ? 1 : 0);
}

await main();
