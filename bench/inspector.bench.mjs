// The inspector page's speed targets (issue 17), measured in headless Chromium on the built dist/web/index.html
// from file://: (1) the table of a 1 GiB file, from choosing it to the rows drawn (headers only; target < 1 s);
// (2) the statistics of one 256 MiB float32 tensor, from the click to the numbers in the table (target < 1 s),
// beside the same page reading those 256 MiB once (File.arrayBuffer()) in the same run, as a ratio. Not benny:
// the work happens in a browser page and its worker; each case runs 3 times and the median is reported.
// (3) graph (issue 36): whisper-like ONNX models of 3,790 and 7,534 nodes (bench/whisper-like.mjs, with negative
// integer attributes as real exports have them) and ISNet small and medium when found (bench/isnet.mjs), at
// 1366×768: from the file chosen to body[data-state=ready] (the document built) and to #graph[data-engine] (laid
// out and painted; target ≤ 2 s for 7,534 nodes), opened from a File and through `tensorfile view` (from the
// navigation to painted; its range requests counted). A fresh page for each run.
// Usage: npm run build && node bench/inspector.bench.mjs [tensors] [graph]   (default: both)
import { spawn } from "node:child_process";
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { upperMedian } from "./harness.mjs";
import { isnetModels } from "./isnet.mjs";
import { whisperLikeBytes } from "./whisper-like.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const work = mkdtempSync(join(tmpdir(), "tensorfile-inspector-bench-"));
const RUNS = 3;
const parts = process.argv.slice(2);
const want = (part) => parts.length === 0 || parts.includes(part);

/** A SPRAAK float32 track [rows, 16] of `bytes` data bytes: random values, or a sparse file of zeros. */
function track(path, bytes, random) {
  const cols = 16;
  const rows = bytes / 4 / cols;
  const small = tf.spraak.write(tf.spraak.matrix(new Float32Array(cols), { cols, format: "BIN01", data: "TRACK" }));
  const text = new TextDecoder().decode(small.subarray(0, small.length - cols * 4));
  const grown = String(rows).length - 1;
  const header = text.replace("DIM1\t\t\t1\n", `DIM1\t\t\t${rows}\n`).replace(/\n( +)\n#\n$/, (_, spaces) => `\n${spaces.slice(grown)}\n#\n`);
  const fd = openSync(path, "w");
  writeSync(fd, new TextEncoder().encode(header));
  if (random) {
    const chunk = new Float32Array(4 * 1024 * 1024);
    let seed = 1;
    for (let done = 0; done < bytes; done += chunk.byteLength) {
      for (let i = 0; i < chunk.length; i++) {
        seed = (seed * 1664525 + 1013904223) >>> 0;
        chunk[i] = (seed / 2 ** 32 - 0.5) * 8;
      }
      writeSync(fd, new Uint8Array(chunk.buffer, 0, Math.min(chunk.byteLength, bytes - done)));
    }
  } else {
    ftruncateSync(fd, header.length + bytes);
  }
  closeSync(fd);
  return path;
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
try {
  if (want("tensors")) await tensorCases();
  if (want("graph")) await graphCases();
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}

async function tensorCases() {
  const big = track(join(work, "big.trk"), 1024 ** 3, false);
  const data = track(join(work, "data256.trk"), 256 * 1024 ** 2, true);
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(pathToFileURL(join(root, "dist/web/index.html")).href);
  const opens = () => page.evaluate(() => Number(document.body.dataset.opens ?? 0));
  const openTimes = [];
  const statsTimes = [];
  const readTimes = [];
  for (let run = 0; run < RUNS; run++) {
    let before = await opens();
    const started = Date.now();
    await page.setInputFiles("#open-file", big);
    await page.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n && document.querySelector("#tensor-table .grid-row"), before);
    openTimes.push(Date.now() - started);

    before = await opens();
    await page.setInputFiles("#open-file", data);
    await page.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n, before);
    const t0 = Date.now();
    await page.click("#compute-stats");
    await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 300_000 });
    statsTimes.push(Date.now() - t0);
    // baseline: the same page reads the same bytes once, from a file input of its own (not the app's)
    await page.evaluate(() => {
      if (document.querySelector("#bench-file")) return;
      const input = Object.assign(document.createElement("input"), { type: "file", id: "bench-file", hidden: true });
      document.body.append(input);
    });
    await page.setInputFiles("#bench-file", data);
    readTimes.push(await page.evaluate(async () => {
      const file = document.querySelector("#bench-file").files[0];
      const t = performance.now();
      await file.arrayBuffer();
      return performance.now() - t;
    }));
  }
  const open = upperMedian(openTimes);
  const stats = upperMedian(statsTimes);
  const read = upperMedian(readTimes);
  console.log(`inspector: table of a 1 GiB file             ${String(open).padStart(6)} ms  (target < 1000 ms; runs ${openTimes.join(", ")})`);
  console.log(`inspector: statistics of a 256 MiB tensor    ${String(stats).padStart(6)} ms  (target < 1000 ms; runs ${statsTimes.join(", ")})`);
  console.log(`inspector: reading the same 256 MiB once     ${read.toFixed(0).padStart(6)} ms  (File.arrayBuffer() in the page)`);
  console.log(`inspector: statistics / read                 ${(stats / read).toFixed(2).padStart(6)}`);
}

/** Waits for the graph laid out and painted; returns the page's own layout time and the box count. */
async function graphPainted(page) {
  await page.waitForFunction(() => document.body.dataset.state === "ready" && document.querySelector("#graph")?.dataset.engine, null, { timeout: 120_000 });
  return page.evaluate(() => ({ ...document.querySelector("#graph").dataset }));
}

/** `tensorfile view FILE`: the page's URL and the server process. */
async function view(path) {
  const child = spawn(process.execPath, [join(root, "dist/cli.js"), "view", path], { stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise((resolveUrl, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n")[0];
      if (out.includes("\n")) resolveUrl(line);
    });
    child.once("exit", (code) => reject(new Error(`tensorfile view exited ${code}`)));
  });
  return { url, child };
}

async function graphCases() {
  const models = [];
  for (const nodes of [3790, 7534]) {
    const path = join(work, `whisper-${nodes}.onnx`);
    writeFileSync(path, whisperLikeBytes(tf.onnx, nodes));
    models.push({ name: `whisper-like ${nodes} nodes`, path });
  }
  for (const m of isnetModels(work)) models.push(m);
  for (const { name, path } of models) {
    const readyTimes = [];
    const paintedTimes = [];
    const layoutTimes = [];
    let boxes = "";
    for (let run = 0; run < RUNS; run++) {
      const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
      await page.goto(pathToFileURL(join(root, "dist/web/index.html")).href);
      const started = Date.now();
      await page.setInputFiles("#open-file", path);
      await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 120_000 });
      readyTimes.push(Date.now() - started);
      const painted = await graphPainted(page);
      paintedTimes.push(Date.now() - started);
      layoutTimes.push(Number(painted.layoutMs));
      boxes = `${painted.nodes} boxes, ${painted.engine}`;
      await page.close();
    }
    const viewTimes = [];
    const loadTimes = [];
    let requests = 0;
    let ranged = 0;
    let served = 0;
    for (let run = 0; run < RUNS; run++) {
      const { url, child } = await view(path);
      try {
        const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
        requests = ranged = served = 0;
        page.on("request", (request) => {
          if (!request.url().includes("/files/")) return;
          requests++;
          if (request.headers().range) ranged++;
        });
        page.on("response", (response) => {
          if (response.url().includes("/files/")) served += Number(response.headers()["content-length"] ?? 0);
        });
        const started = Date.now();
        await page.goto(url);
        loadTimes.push(Date.now() - started);
        await graphPainted(page);
        viewTimes.push(Date.now() - started);
        await page.close();
      } finally {
        child.kill();
      }
    }
    console.log(`inspector graph: ${name} (${boxes})`);
    console.log(`  from a File: document ready ${upperMedian(readyTimes)} ms, graph painted ${upperMedian(paintedTimes)} ms (layout ${upperMedian(layoutTimes)} ms; runs ${paintedTimes.join(", ")})`);
    console.log(`  through tensorfile view: graph painted ${upperMedian(viewTimes)} ms from the navigation (runs ${viewTimes.join(", ")}; the page's load event at ${upperMedian(loadTimes)} ms); ${requests} requests for the file (${ranged} with Range), ${(served / 1024).toFixed(0)} KiB served`);
  }
}
