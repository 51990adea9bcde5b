#!/usr/bin/env node
// The examples check (npm run check:examples; CI runs it after npm test). Three parts:
//
// 1. Every example runs against the BUILT package, as a user imports it: examples/ import "tensorfile", which
//    Node resolves through the package's self-reference (its "exports" map) to dist/. An example fails when it
//    exits non-zero, runs over 60 s, or writes anything to standard error: a warning (DEP0137 from a file handle
//    closed by the garbage collector), or scripts/examples-preload.mjs's report of a file handle left open.
//    examples/**/*.mjs run in Node; examples/**/*.html open in headless Chromium (Debian's /usr/bin/chromium or
//    $CHROMIUM_PATH, through playwright-core) with the repository served as /node_modules/tensorfile/ and a model
//    made by examples/make-model.mjs given to their file input; a console error or warning, an uncaught error or
//    no console output within 20 s fails. Without Chromium the HTML examples are skipped with a note (an error
//    when CI is set).
// 2. Every code block in README.md and docs/ (docs/api/ excluded: TypeDoc's output) written in js, mjs, ts or
//    html is preceded by a marker naming the example it shows, and equals it:
//        <!-- example: examples/quick-start.mjs -->                  the whole file
//        <!-- example: examples/quick-start.mjs#quick-start -->      the lines between "#region quick-start" and
//                                                                    "#endregion quick-start" (common indent off)
//    and a block under <!-- output: examples/x.mjs --> must equal what that example printed.
// 3. A console block under <!-- transcript: SETUP --> is a list of "$ command" lines (tensorfile is the built CLI,
//    dist/cli.js) each followed by its output (standard output and error as they interleave, then "(exit N)" when
//    N is not 0). The commands run with bash, in order, in a fresh folder that SETUP fills (transcriptSetups
//    below: "model", "demo" or "april"), and their real output must equal the block. The "april" setup needs
//    python3 with numpy (PyPI is out of reach here, so it cannot be installed): without it those blocks are
//    skipped with a note.
// Other blocks (```sh, ```text, ``` with no marker) are not checked.
//
//   node scripts/check-examples.mjs [--no-run] [--update]
//     --no-run   only part 2's example blocks (nothing is run)
//     --update   rewrite every differing example, output and transcript block with what it should be
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, createReadStream, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const rel = (p) => path.relative(root, p).split(path.sep).join("/");
const failures = [];
const fail = (message) => {
  failures.push(message);
  console.log(`FAIL ${message}`);
};

function walk(dir, keep) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "api" && rel(dir) === "docs" ? [] : walk(full, keep);
    return keep(full) ? [full] : [];
  });
}

const examples = walk(path.join(root, "examples"), (f) => /\.(mjs|html)$/.test(f)).sort();

// ---- 2. the snippets in the markdown ----

const checkedLanguages = new Set(["js", "mjs", "javascript", "ts", "typescript", "html", "python", "py"]);

/** The lines of `name`'s region in `text`, without the region markers of nested regions, common indent removed. */
function region(text, name) {
  const lines = text.split("\n");
  const marker = (kind) => new RegExp(`^\\s*(//|<!--)\\s*#${kind}\\s+${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`);
  const start = lines.findIndex((l) => marker("region").test(l));
  const end = lines.findIndex((l, i) => i > start && marker("endregion").test(l));
  if (start < 0 || end < 0) return null;
  const body = lines.slice(start + 1, end).filter((l) => !/^\s*(\/\/|<!--)\s*#(end)?region\b/.test(l));
  const indent = Math.min(...body.filter((l) => l.trim() !== "").map((l) => l.match(/^ */)[0].length));
  return body.map((l) => l.slice(indent)).join("\n");
}

function wholeFile(text) {
  return text.split("\n").filter((l) => !/^\s*(\/\/|<!--)\s*#(end)?region\b/.test(l)).join("\n").replace(/\n+$/, "");
}

/**
 * Every fenced block of a markdown file, with the marker comment right above it, if any:
 *   <!-- example: examples/x.mjs[#region] -->   the block is that example (js, ts or html blocks must have one)
 *   <!-- output: examples/x.mjs -->             the block is what that example prints (standard output)
 *   <!-- transcript: SETUP -->                  a console block of "$ tensorfile …" commands and their output,
 *                                               run in a fresh folder made by SETUP (see transcriptSetups)
 */
function blocksOf(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(\s*)(`{3,}|~{3,})\s*([\w-]*)/);
    if (!open) continue;
    const [, indent, fence, language] = open;
    let close = i + 1;
    while (close < lines.length && !(lines[close].startsWith(indent + fence) && lines[close].trim() === fence)) close++;
    const content = lines.slice(i + 1, close).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l)).join("\n");
    let previous = i - 1;
    while (previous >= 0 && lines[previous].trim() === "") previous--;
    const marker = previous >= 0 ? lines[previous].match(/<!--\s*(example|output|transcript):\s*([^\s#]+)(?:#([\w-]+))?\s*-->/) : null;
    blocks.push({ file, line: i + 1, first: i + 1, end: close, indent, language, content, kind: marker?.[1], target: marker?.[2], region: marker?.[3] });
    i = close;
  }
  return blocks;
}

const markdown = [path.join(root, "README.md"), ...walk(path.join(root, "docs"), (f) => f.endsWith(".md"))];
const allBlocks = markdown.flatMap(blocksOf);
const updates = new Map(); // file -> [{ first, end, indent, text }]
const update = process.argv.includes("--update");
function differs(block, expected, what) {
  if (update) {
    if (!updates.has(block.file)) updates.set(block.file, []);
    updates.get(block.file).push({ first: block.first, end: block.end, indent: block.indent, text: expected });
    console.log(`update ${rel(block.file)}:${block.line} from ${what}`);
    return;
  }
  const a = expected.split("\n"), b = block.content.split("\n");
  const at = a.findIndex((l, k) => l !== b[k]);
  fail(`${rel(block.file)}:${block.line}: the block differs from ${what} at its line ${(at < 0 ? a.length : at) + 1}:\n     expected: ${JSON.stringify(a[at] ?? "(end)")}\n     markdown: ${JSON.stringify(b[at] ?? "(end)")}\n     (npm run check:examples -- --update rewrites the block)`);
}

let snippets = 0;
const shown = new Set();
for (const block of allBlocks) {
  const where = `${rel(block.file)}:${block.line}`;
  if (checkedLanguages.has(block.language.toLowerCase())) {
    snippets++;
    if (block.kind !== "example") {
      fail(`${where}: a ${block.language} block without an "<!-- example: examples/… -->" marker above it`);
      continue;
    }
  }
  if (block.kind !== "example") continue;
  if (!checkedLanguages.has(block.language.toLowerCase())) {
    fail(`${where}: an example marker above a \`\`\`${block.language} block (use js, ts or html)`);
    continue;
  }
  const target = path.join(root, block.target);
  if (!existsSync(target)) {
    fail(`${where}: the marker names ${block.target}, which does not exist`);
    continue;
  }
  const text = readFileSync(target, "utf8");
  const expected = block.region ? region(text, block.region) : wholeFile(text);
  shown.add(rel(target));
  if (expected === null) fail(`${where}: ${block.target} has no region "${block.region}"`);
  else if (expected !== block.content) differs(block, expected, `${block.target}${block.region ? "#" + block.region : ""}`);
}
console.log(`snippets: ${snippets} code blocks in ${markdown.length} markdown files checked against ${shown.size} example files`);

// ---- 1. run the examples ----

function runNode(file, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", path.join(root, "scripts/examples-preload.mjs"), file, ...args], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "", stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

async function runHtml(file, modelPath) {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) {
    const note = `${rel(file)}: no Chromium at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`;
    if (process.env.CI) fail(note);
    else console.log(`skip ${note}`);
    return;
  }
  const { chromium } = await import("playwright-core");
  const prefix = "/node_modules/tensorfile/";
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    if (url.pathname === "/favicon.ico") return void res.writeHead(204).end();
    const target = url.pathname === "/" ? file : url.pathname.startsWith(prefix) ? path.join(root, decodeURIComponent(url.pathname.slice(prefix.length))) : null;
    if (!target || !target.startsWith(root) || !existsSync(target) || !statSync(target).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const type = target.endsWith(".html") ? "text/html" : target.endsWith(".js") || target.endsWith(".mjs") ? "text/javascript" : "application/octet-stream";
    res.writeHead(200, { "content-type": type });
    createReadStream(target).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] });
  try {
    const page = await browser.newPage();
    const problems = [];
    const logs = [];
    page.on("console", (m) => (m.type() === "error" || m.type() === "warning" ? problems.push(`console ${m.type()}: ${m.text()}`) : logs.push(m.text())));
    page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.setInputFiles("input[type=file]", { name: "model.b2l", mimeType: "application/octet-stream", buffer: readFileSync(modelPath) });
    const deadline = Date.now() + 20_000;
    while (logs.length === 0 && problems.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (problems.length > 0) fail(`${rel(file)} in Chromium: ${problems.join("; ")}`);
    else if (logs.length === 0) fail(`${rel(file)} in Chromium: printed nothing within 20 s of picking a file`);
    else console.log(`ok   ${rel(file)} (Chromium; picked model.b2l: ${logs.join(" | ").split("\n").length} lines)`);
  } finally {
    await browser.close();
    server.close();
  }
}

// ---- 3. the transcripts: "$ tensorfile …" blocks, run for real ----

const outputs = new Map();
let outputBlocks = 0, transcriptBlocks = 0, transcriptCommands = 0;

/** The folders transcripts run in, by the name in their marker; each block gets a fresh one. */
const transcriptSetups = {
  /** model.b2l, as examples/make-model.mjs writes it (the README's quick start). */
  async model(dir) {
    const made = await runNode(path.join(root, "examples/make-model.mjs"), [dir]);
    if (made.code !== 0) throw new Error(`examples/make-model.mjs failed: ${made.stderr}`);
  },
  /** The demo's files (demo.b2l, demo.april, demo.tsm, demo.model, demo.trk), a truncated broken.b2l and a
   * model.safetensors with bfloat16 and float8 tensors. */
  async demo(dir) {
    const { exampleFiles } = await import(pathToFileURL(path.join(root, "dist/examples.js")).href);
    const { writeSafetensors } = await import("tensorfile");
    for (const example of exampleFiles()) writeFileSync(path.join(dir, example.name), example.bytes);
    writeFileSync(path.join(dir, "broken.b2l"), readFileSync(path.join(dir, "demo.b2l")).subarray(0, 100));
    writeFileSync(path.join(dir, "model.safetensors"), writeSafetensors([
      { name: "encoder.weight", dtype: "bfloat16", shape: [4, 8], data: new Uint16Array(32).fill(0x3f80) },
      { name: "encoder.bias", dtype: "float32", shape: [4], data: new Float32Array(4) },
      { name: "scale", dtype: "float8_e4m3", shape: [8], data: new Uint8Array(8).fill(0x38) },
    ], { source: "a fine-tune" }));
  },
  /** The demo's april model as model.april and examples/april-edit.py as edit.py (needs python3 with numpy). */
  async april(dir) {
    const numpy = await new Promise((resolve) => spawn("python3", ["-c", "import numpy"], { stdio: "ignore" }).on("error", () => resolve(false)).on("exit", (code) => resolve(code === 0)));
    if (!numpy) return "python3 with numpy is not on this machine";
    const { exampleFiles } = await import(pathToFileURL(path.join(root, "dist/examples.js")).href);
    writeFileSync(path.join(dir, "model.april"), exampleFiles().find((f) => f.name === "demo.april").bytes);
    writeFileSync(path.join(dir, "edit.py"), readFileSync(path.join(root, "examples/april-edit.py")));
  },
};

function runShell(command, cwd, binDir) {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", `${command} 2>&1`], {
      cwd,
      env: { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH}`, NO_COLOR: "1", FORCE_COLOR: "0", NODE_OPTIONS: "", LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.replace(/\n+$/, "") });
    });
  });
}

async function checkTranscripts() {
  const binDir = mkdtempSync(path.join(tmpdir(), "tensorfile-bin-"));
  // "tensorfile" on the PATH is the built CLI, as npm's bin link would make it
  writeFileSync(path.join(binDir, "tensorfile"), `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, "dist/cli.js")}" "$@"\n`, { mode: 0o755 });
  try {
    for (const block of allBlocks.filter((b) => b.kind === "transcript")) {
      const where = `${rel(block.file)}:${block.line}`;
      const setup = transcriptSetups[block.target];
      if (!setup) {
        fail(`${where}: no transcript setup "${block.target}" (there are: ${Object.keys(transcriptSetups).join(", ")})`);
        continue;
      }
      const dir = mkdtempSync(path.join(tmpdir(), "tensorfile-transcript-"));
      try {
        const skipped = await setup(dir);
        if (typeof skipped === "string") {
          console.log(`skip ${where}: ${skipped}`);
          continue;
        }
        const actual = [];
        for (const line of block.content.split("\n")) {
          if (!line.startsWith("$ ")) continue;
          const { code, out } = await runShell(line.slice(2), dir, binDir);
          actual.push(line, ...(out === "" ? [] : [out]), ...(code === 0 ? [] : [`(exit ${code})`]));
          transcriptCommands++;
        }
        const text = actual.join("\n");
        if (text !== block.content) differs(block, text, `the commands' real output (setup "${block.target}")`);
        else transcriptBlocks++;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(binDir, { recursive: true, force: true });
  }
}

if (!process.argv.includes("--no-run")) {
  if (!existsSync(path.join(root, "dist/index.js"))) {
    fail("dist/index.js is missing: run npm run build first (the examples run against the built package)");
  } else {
    const resolved = import.meta.resolve("tensorfile");
    if (!fileURLToPath(resolved).startsWith(path.join(root, "dist"))) fail(`"tensorfile" resolves to ${resolved}, not into dist/`);
    const scratch = mkdtempSync(path.join(tmpdir(), "tensorfile-examples-"));
    try {
      for (const file of examples) {
        if (file.endsWith(".html")) {
          const made = await runNode(path.join(root, "examples/make-model.mjs"), [scratch]);
          await runHtml(file, made.stdout.trim());
          continue;
        }
        // make-model.mjs takes the folder to write into; the others make their own temporary folders
        const args = path.basename(file) === "make-model.mjs" ? [scratch] : [];
        const started = Date.now();
        const { code, signal, stdout, stderr } = await runNode(file, args);
        const name = rel(file);
        if (code !== 0) fail(`${name} exited with ${signal ?? code}:\n${(stderr || stdout).trim()}`);
        else if (stderr.trim() !== "") fail(`${name} wrote to standard error (a warning?):\n${stderr.trim()}`);
        else console.log(`ok   ${name} (${Date.now() - started} ms, ${stdout.split("\n").filter(Boolean).length} lines of output)`);
        outputs.set(name, stdout.replace(/\n+$/, ""));
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    for (const block of allBlocks.filter((b) => b.kind === "output")) {
      const printed = outputs.get(block.target);
      if (printed === undefined) fail(`${rel(block.file)}:${block.line}: the output marker names ${block.target}, which is not an example that ran`);
      else if (printed !== block.content) differs(block, printed, `what ${block.target} prints`);
      else outputBlocks++;
    }
    await checkTranscripts();
  }
}

for (const [file, edits] of updates) {
  const lines = readFileSync(file, "utf8").split("\n");
  for (const edit of edits.sort((a, b) => b.first - a.first)) {
    lines.splice(edit.first, edit.end - edit.first, ...edit.text.split("\n").map((l) => (l === "" ? "" : edit.indent + l)));
  }
  writeFileSync(file, lines.join("\n"));
}

const unshown = examples.map(rel).filter((e) => !shown.has(e));
if (unshown.length > 0) console.log(`note: examples not shown in any markdown: ${unshown.join(", ")}`);
console.log(failures.length === 0 ? `check-examples: ${examples.length} examples ran clean; ${snippets} snippets, ${outputBlocks} outputs and ${transcriptCommands} commands in ${transcriptBlocks} transcripts match` : `check-examples: ${failures.length} failure(s)`);
process.exit(failures.length === 0 ? 0 : 1);
