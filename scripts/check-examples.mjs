#!/usr/bin/env node
// The examples check (npm run check:examples; CI runs it after npm test). Two parts:
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
//    Transcripts and layouts (```sh, ```text, ``` with no language) are not checked here.
//
//   node scripts/check-examples.mjs [--no-run]      (--no-run: only the markdown part)
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, createReadStream } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

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

const checkedLanguages = new Set(["js", "mjs", "javascript", "ts", "typescript", "html"]);

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

const markdown = [path.join(root, "README.md"), ...walk(path.join(root, "docs"), (f) => f.endsWith(".md"))];
let snippets = 0;
const shown = new Set();
for (const file of markdown) {
  const lines = readFileSync(file, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(\s*)(`{3,}|~{3,})\s*([\w-]*)/);
    if (!open) continue;
    const [, indent, fence, language] = open;
    let close = i + 1;
    while (close < lines.length && !(lines[close].startsWith(indent + fence) && lines[close].trim() === fence)) close++;
    const block = lines.slice(i + 1, close).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l)).join("\n");
    const where = `${rel(file)}:${i + 1}`;
    let previous = i - 1;
    while (previous >= 0 && lines[previous].trim() === "") previous--;
    const marker = previous >= 0 ? lines[previous].match(/<!--\s*example:\s*([^\s#]+)(?:#([\w-]+))?\s*-->/) : null;
    if (checkedLanguages.has(language.toLowerCase())) {
      snippets++;
      if (!marker) {
        fail(`${where}: a ${language} block without an "<!-- example: examples/… -->" marker above it`);
      } else {
        const target = path.join(root, marker[1]);
        if (!existsSync(target)) {
          fail(`${where}: the marker names ${marker[1]}, which does not exist`);
        } else {
          const text = readFileSync(target, "utf8");
          const expected = marker[2] ? region(text, marker[2]) : wholeFile(text);
          shown.add(rel(target));
          if (expected === null) fail(`${where}: ${marker[1]} has no region "${marker[2]}"`);
          else if (expected !== block) {
            const a = expected.split("\n"), b = block.split("\n");
            const at = a.findIndex((l, k) => l !== b[k]);
            fail(`${where}: the block differs from ${marker[1]}${marker[2] ? "#" + marker[2] : ""} at its line ${at + 1}:\n     example:  ${a[at] ?? "(end)"}\n     markdown: ${b[at] ?? "(end)"}`);
          }
        }
      }
    } else if (marker) {
      fail(`${where}: an example marker above a \`\`\`${language} block (use js, ts or html)`);
    }
    i = close;
  }
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
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}

const unshown = examples.map(rel).filter((e) => !shown.has(e));
if (unshown.length > 0) console.log(`note: examples not shown in any markdown: ${unshown.join(", ")}`);
console.log(failures.length === 0 ? `check-examples: ${examples.length} examples ran clean, ${snippets} snippets match` : `check-examples: ${failures.length} failure(s)`);
process.exit(failures.length === 0 ? 0 : 1);
