// Browser test of the inspector page: headless Chromium (Debian's /usr/bin/chromium through playwright-core) on
// the built dist/web/index.html, from file:// and over HTTP (served here the way `tensorfile view` serves it:
// the page at /, files at /files/<i>/<name> with Range, /files.json; through `dist/cli.js view` too when that
// command exists). It opens every generated example and every reference fixture through the file input and
// through a synthetic drop and checks: the table lists exactly tensorInfos(); the statistics equal a plain TS
// oracle; the histogram and heatmap canvases are drawn; the SeetaFace6 landmarker graph has its 90 nodes; the
// .safetensors download parses with an independent parser and equals tensors(); an april network downloads
// byte-identical to the reference .onnx; a diff of a .csta and its .tsm is equal; a damaged file shows its
// error with the offset and the marked byte; a 1 GiB generated file served over HTTP opens reading < 1 MB; no
// console errors or uncaught exceptions. It writes screenshots of the main views to docs/screenshots/.
// Run with `npm run test:browser` (after `npm run build`); `node test/runtimes/inspector.mjs big view` runs only
// those parts (file, http, big, view). Exits 1 on failure.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, writeSync, ftruncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { zipSync } from "fflate";
import { chromium } from "playwright-core";
import { checkCounter, executablePath, fixturesRoot, pagePath, requireBuilt, root, startPageServer } from "./browser-setup.mjs";

const screenshots = join(root, "docs/screenshots");
const BIG_BYTES = 1024 ** 3;

requireBuilt("inspector test");
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const { exampleFiles } = await import(pathToFileURL(join(root, "dist/examples.js")).href);

// ---- checks ----

const counts = checkCounter();
const { check } = counts;

// ---- the files and what the library (not the page) says about them ----

const work = mkdtempSync(join(tmpdir(), "tensorfile-inspector-"));
const files = [];
for (const example of exampleFiles()) {
  const path = join(work, example.name);
  writeFileSync(path, example.bytes);
  files.push({ label: `example ${example.name}`, path });
}
// the ecosystem formats the page opens too, written with the library's writers and fflate
{
  const mixed = tf.writeSafetensors([
    { name: "weights", dtype: "float32", shape: [3, 4], data: Float32Array.from([0.5, -1, NaN, Infinity, 0, 2, -Infinity, 3, 4, 0, -0.25, 1e-3]) },
    { name: "brain", dtype: "bfloat16", shape: [5], data: Uint16Array.from([0x3f80, 0xbf80, 0x7fc0, 0x0000, 0x4049]) },
    { name: "e4m3", dtype: "float8_e4m3", shape: [4], data: Uint8Array.from([0x38, 0xb8, 0x7f, 0x00]) },
    { name: "ids", dtype: "int64", shape: [3], data: BigInt64Array.from([1n, -5n, 9007199254740993n]) },
  ]);
  const matrix = { name: "m", dtype: "float64", shape: [2, 3], data: Float64Array.from([1, 2, 3, 4, 5, -6]) };
  const npz = zipSync({ "stored.npy": [tf.writeNpy(matrix), { level: 0 }], "deflated.npy": [tf.writeNpy({ name: "d", dtype: "int16", shape: [50], data: Int16Array.from({ length: 50 }, (_, i) => i * 3 - 70) }), { level: 6 }] });
  for (const [name, bytes] of [["mixed.safetensors", mixed], ["matrix.npy", tf.writeNpy(matrix)], ["pair.npz", npz]]) {
    const path = join(work, name);
    writeFileSync(path, bytes);
    files.push({ label: `generated ${name}`, path });
  }
}
if (existsSync(fixturesRoot)) {
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!/\.(md|json)$/.test(name)) files.push({ label: path.slice(fixturesRoot.length + 1), path });
    }
  };
  walk(fixturesRoot);
} else {
  console.log(`note: ${fixturesRoot} not found; only the generated examples are opened`);
}

const NUMERIC = new Set(["float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"]);
const WIDENED = new Set(["float16", "bfloat16", "float8_e4m3", "float8_e5m2"]);

/** Plain statistics over plain numbers: the oracle. */
function oracleStats(values) {
  let min = Infinity, max = -Infinity, nan = 0, posInf = 0, negInf = 0, zeros = 0, finite = 0;
  for (const v of values) {
    if (Number.isNaN(v)) nan++;
    else if (v === Infinity) posInf++;
    else if (v === -Infinity) negInf++;
    else {
      finite++;
      if (v < min) min = v;
      if (v > max) max = v;
      if (v === 0) zeros++;
    }
  }
  // scaled by the largest magnitude so that values near 1e308 overflow neither the sum nor the squares
  const scale = Math.max(Math.abs(min), Math.abs(max)) || 1;
  let scaledSum = 0;
  for (const v of values) if (Number.isFinite(v)) scaledSum += v / scale;
  const mean = finite ? (scaledSum / finite) * scale : NaN;
  let squares = 0;
  for (const v of values) if (Number.isFinite(v)) squares += ((v - mean) / scale) ** 2;
  return { count: values.length, min: finite ? min : NaN, max: finite ? max : NaN, mean, std: finite ? Math.sqrt(squares / finite) * scale : NaN, nan, inf: posInf + negInf, zeros };
}

for (const file of files) {
  file.bytes = new Uint8Array(readFileSync(file.path));
  file.name = basename(file.path);
  try {
    const lazy = await tf.readFromAny(tf.fromBytes(file.bytes));
    file.names = lazy.tensorInfos().map((i) => i.name);
    file.format = lazy.format;
    const infos = lazy.tensorInfos();
    const wide = tf.readAny(file.bytes).tensors({ dtype: "float32" });
    file.tensors = tf.readAny(file.bytes).tensors();
    // values as stored; float16/bfloat16/float8 widened and int8 with a scale dequantized by the library
    file.oracle = new Map(file.tensors.flatMap((t, k) => {
      if (!NUMERIC.has(t.dtype) && !WIDENED.has(t.dtype)) return [];
      const source = WIDENED.has(t.dtype) || (t.dtype === "int8" && infos[k].quantization) ? wide[k] : t;
      return [[t.name, oracleStats(Array.from(source.data, Number))]];
    }));
  } catch (error) {
    file.error = { code: error.code ?? "ERROR", offset: error.offset };
  }
}

// ---- HTTP: the page and files the way `tensorfile view` serves them, counting the file bytes sent ----

let served = [];
let bytesServed = 0;
const server = await startPageServer({
  listing: () => served.map((f, i) => ({ name: f.name, url: `/files/${i}/${encodeURIComponent(f.name)}`, size: f.size })),
  fileAt: (pathname) => {
    const match = /^\/files\/(\d+)\/([^/]+)$/.exec(pathname);
    const entry = match && served[Number(match[1])];
    return entry && decodeURIComponent(match[2]) === entry.name ? entry.path : undefined;
  },
  onBytes: (n) => (bytesServed += n),
});
const { base } = server;

// ---- the browser ----

const browser = await chromium.launch({
  executablePath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, acceptDownloads: true, colorScheme: "light" });
const consoleErrors = [];

async function newPage(label) {
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") consoleErrors.push(`${label}: console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => consoleErrors.push(`${label}: uncaught: ${error.message}`));
  return page;
}

const opens = (page) => page.evaluate(() => Number(document.body.dataset.opens ?? 0));

/** Opens a file through the file input or a synthetic drop and waits until the page has read it. */
async function openFile(page, file, how) {
  const before = await opens(page);
  if (how === "input") {
    await page.setInputFiles("#open-file", file.path);
  } else {
    const dataTransfer = await page.evaluateHandle(({ name, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], name));
      return transfer;
    }, { name: file.name, base64: Buffer.from(file.bytes).toString("base64") });
    await page.dispatchEvent("#drop", "drop", { dataTransfer });
    await dataTransfer.dispose();
  }
  await page.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n, before, { timeout: 30_000 });
}

/** The table's rows (names in table order) and their statistics cells. */
function tableRows(page) {
  return page.evaluate(() => [...document.querySelectorAll("#tensor-table .grid-row")].map((row) => {
    const value = (col) => row.querySelector(`[data-col="${col}"]`)?.dataset.value;
    return { name: row.dataset.name, note: row.title, min: value("min"), max: value("max"), mean: value("mean"), std: value("std"), nan: value("nan"), inf: value("inf"), zeros: value("zeros") };
  }));
}

/** Close relative to the data's scale; where f64 sums overflow (values near 1e308) both need only be non-finite. */
function near(a, b, scale, relative) {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return !Number.isFinite(a) && !Number.isFinite(b);
  return Math.abs(a - b) <= relative * Math.max(1, Math.abs(scale));
}

/** Checks one opened file against the library's view of it. */
async function checkOpened(page, file, where, withStats) {
  const state = await page.evaluate(() => document.body.dataset.state);
  if (file.error) {
    check(state === "error", `${where}: ${file.label} should show an error (state ${state})`);
    const shown = await page.evaluate(() => {
      const box = document.querySelector("#open-error");
      return box ? { code: box.dataset.code, offset: box.dataset.offset, marked: document.querySelector("#hex-view mark")?.title ?? null } : null;
    });
    check(shown?.code === file.error.code, `${where}: ${file.label} error code ${shown?.code} (want ${file.error.code})`);
    check(shown?.offset === String(file.error.offset ?? ""), `${where}: ${file.label} error offset ${shown?.offset} (want ${file.error.offset})`);
    if (file.error.offset !== undefined && file.error.offset < file.bytes.length) {
      await page.waitForSelector("#hex-view mark", { timeout: 10_000 }).catch(() => undefined);
      const marked = await page.evaluate(() => document.querySelector("#hex-view mark")?.title ?? null);
      check(marked === `offset ${file.error.offset}`, `${where}: ${file.label} hex view marks ${marked} (want offset ${file.error.offset})`);
    }
    return;
  }
  check(state === "ready", `${where}: ${file.label} opens (state ${state})`);
  if (file.names.length === 0) {
    if ((await page.evaluate(() => document.querySelector('[data-view="graph"]')?.getAttribute("aria-selected"))) === "true") await page.click('[data-view="summary"]');
    check((await page.evaluate(() => document.querySelector('#summary-facts [data-key="format"]')?.textContent)) === file.format, `${where}: ${file.label} summary shows ${file.format}`);
    return;
  }
  if (file.names.length === 1) {
    // a one-tensor file opens on its tensor (issue 26); the table is one click away
    // (a model with a graph opens on its graph instead, issue 36)
    const graphFormat = ["tsm", "onnx", "april"].includes(file.format);
    const tab = await page.evaluate((view) => document.querySelector(`[data-view="${view}"]`)?.getAttribute("aria-selected"), graphFormat ? "graph" : "tensor");
    check(tab === "true", `${where}: ${file.label} (one tensor) opens on its ${graphFormat ? "graph" : "tensor view"}`);
    await page.click('[data-view="tensors"]');
  }
  // a model with a graph opens on it (issue 36); the table is one click away
  if ((await page.evaluate(() => document.querySelector('[data-view="graph"]')?.getAttribute("aria-selected"))) === "true") await page.click('[data-view="tensors"]');
  const rows = await tableRows(page);
  check(JSON.stringify(rows.map((r) => r.name)) === JSON.stringify(file.names), `${where}: ${file.label} table lists exactly tensorInfos() (${rows.length} rows, want ${file.names.length})`);
  if (!withStats) return;
  await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 60_000 }).catch(() => undefined);
  const after = await tableRows(page);
  for (const row of after) {
    const want = file.oracle.get(row.name);
    if (!want) {
      check(row.note !== "" && row.min === undefined, `${where}: ${file.label} ${row.name} (not numeric) has a note and no statistics`);
      continue;
    }
    const got = Object.fromEntries(["min", "max", "mean", "std", "nan", "inf", "zeros"].map((k) => [k, row[k] === undefined ? undefined : Number(row[k])]));
    const scale = Math.max(Math.abs(want.min) || 0, Math.abs(want.max) || 0, 1);
    const ok = [got.nan === want.nan, got.inf === want.inf, got.zeros === want.zeros,
      Object.is(got.min, want.min) || got.min === want.min, Object.is(got.max, want.max) || got.max === want.max,
      near(got.mean, want.mean, scale, 1e-9), near(got.std, want.std, scale, 1e-6)];
    check(ok.every(Boolean), `${where}: ${file.label} ${row.name} statistics ${JSON.stringify(got)}${row.note ? ` (note: ${row.note})` : ""} equal the oracle ${JSON.stringify(want)} (page stats state: ${await page.evaluate(() => document.body.dataset.stats)})`);
  }
}

/** Pixels of a canvas that differ from its top-left (background) pixel. */
function drawnPixels(page, selector) {
  return page.evaluate((sel) => {
    const canvas = document.querySelector(sel);
    if (!canvas || canvas.width === 0) return 0;
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) n++;
    return n;
  }, selector);
}

const byLabel = (suffix) => files.find((f) => f.label.endsWith(suffix));

async function shoot(page, name) {
  mkdirSync(screenshots, { recursive: true });
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(screenshots, name) });
}

/** A .safetensors download of the open file, parsed independently, against tensors(). */
async function checkSafetensorsDownload(page, file, where) {
  await page.click('[data-view="export"]');
  await page.waitForSelector("#export-safetensors:not([disabled])", { timeout: 10_000 });
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), page.click("#export-safetensors")]);
  const bytes = new Uint8Array(readFileSync(await download.path()));
  const size = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + size)));
  const data = bytes.subarray(8 + size);
  let ok = download.suggestedFilename().endsWith(".safetensors") && header.__metadata__?.format === "pt";
  const ends = [];
  for (const t of file.tensors) {
    const entry = header[t.name];
    const want = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    if (!entry) {
      ok = false;
      continue;
    }
    const got = data.subarray(entry.data_offsets[0], entry.data_offsets[1]);
    ends.push(entry.data_offsets);
    ok &&= got.length === want.length && got.every((b, i) => b === want[i]);
  }
  ends.sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [b, e] of ends) {
    ok &&= b === at;
    at = e;
  }
  ok &&= at === data.length && Object.keys(header).filter((k) => k !== "__metadata__").length === file.tensors.length;
  check(ok, `${where}: ${file.label} .safetensors download parses and equals tensors()`);
}

async function runOrigin(where, url, { screenshotsToo }) {
  console.log(`inspector (${where}): opening ${files.length} files by file input and by drop`);
  const page = await newPage(where);
  await page.goto(url);
  await page.waitForSelector("#open-file", { state: "attached" });
  for (const file of files) {
    await openFile(page, file, "input");
    await checkOpened(page, file, `${where} input`, true);
    await openFile(page, file, "drop");
    await checkOpened(page, file, `${where} drop`, false);
  }

  // a SPRAAK track: keyboard into the tensor view, statistics = oracle, histogram and heatmap drawn (speech mode)
  const track = byLabel("spraak/sx313.trk") ?? files.find((f) => f.format === "spraak");
  await openFile(page, track, "input");
  await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 60_000 });
  // one tensor: the track opens on its tensor view (issue 26); back to the table for the keyboard path
  check((await page.evaluate(() => document.querySelector('[data-view="tensor"]')?.getAttribute("aria-selected"))) === "true", `${where}: the one-tensor track opens on its tensor view`);
  await page.click('[data-view="tensors"]');
  if (screenshotsToo) await shoot(page, "tensors-spraak.png");
  await page.focus("#tensor-table");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#tensor-stats", { timeout: 30_000 });
  await page.waitForSelector("#heatmap[data-rows]", { timeout: 30_000 });
  const detail = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#tensor-stats [data-stat]")].map((e) => [e.dataset.stat, Number(e.dataset.value)])));
  const want = track.oracle.get(track.names[0]);
  check(detail.min === want.min && detail.max === want.max && detail.nan === want.nan && near(detail.mean, want.mean, want.max, 1e-9) && near(detail.std, want.std, want.max, 1e-6),
    `${where}: tensor view statistics ${JSON.stringify(detail)} equal the oracle`);
  check((await drawnPixels(page, "#histogram")) > 2000, `${where}: the histogram canvas is drawn`);
  check((await drawnPixels(page, "#heatmap")) > 20000, `${where}: the heatmap canvas is drawn`);
  check((await drawnPixels(page, "#frame-plot")) > 500, `${where}: the speech frame plot is drawn`);
  check(/v=tensor/.test(await page.evaluate(() => location.hash)) && /t=data/.test(await page.evaluate(() => location.hash)), `${where}: the hash holds the view and tensor`);
  const box = await page.locator("#heatmap").boundingBox();
  await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.5);
  check(/frame \d+ · feature \d+/.test(await page.textContent("#heatmap-readout")), `${where}: hovering the heatmap reads out frame, feature and value`);
  await page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.5);
  await page.waitForSelector("#region-values td.hot", { timeout: 10_000 }).catch(() => undefined);
  check((await page.locator("#region-values td").count()) === 64, `${where}: a click shows the 8 × 8 exact values around the cell`);
  {
    // Download .npy: written by the page's streaming exporter, equal to the library's in-memory writer in Node
    const [npyDownload] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), page.click("#export-npy")]);
    const got = readFileSync(await npyDownload.path());
    const want = tf.writeNpy(tf.readAny(track.bytes).tensors().find((t) => t.name === track.names[0]));
    check(npyDownload.suggestedFilename() === `${track.names[0]}.npy` && Buffer.from(want).equals(got), `${where}: the tensor's .npy download equals writeNpy of tensors() (${got.length} bytes)`);
  }
  if (screenshotsToo) await shoot(page, "tensor-speech.png");
  await page.keyboard.press("Escape");
  check((await page.evaluate(() => document.querySelector('[data-view="tensors"]').getAttribute("aria-selected"))) === "true", `${where}: Escape goes back to the table`);

  // the SeetaFace6 landmarker: 90 nodes laid out by dagre, drawn; a 2-D const tensor's heatmap
  const landmarker = byLabel("seetaface6_face_landmarker_pts5.csta");
  if (landmarker) {
    await openFile(page, landmarker, "input");
    await page.click('[data-view="graph"]');
    await page.waitForFunction(() => /layout: dagre/.test(document.querySelector("#graph-legend")?.textContent ?? ""), null, { timeout: 30_000 });
    check((await page.evaluate(() => document.querySelector("#graph")?.dataset.sourceNodes)) === "90", `${where}: the landmarker graph has 90 nodes`);
    check((await page.evaluate(() => document.querySelector("#graph-node-count")?.textContent)) === "90", `${where}: the module panel counts 90 nodes`);
    check((await drawnPixels(page, "#graph")) > 5000, `${where}: the graph canvas is drawn`);
    if (screenshotsToo) await shoot(page, "graph.png");
    await page.evaluate(() => window.__inspector.openTensor("_const__ip_Common/Common/Common_11/BiasAdder_rhs"));
    await page.waitForSelector("#heatmap[data-rows]", { timeout: 30_000 });
    await page.waitForSelector("#tensor-stats", { timeout: 30_000 });
    check((await drawnPixels(page, "#heatmap")) > 20000, `${where}: a 64 × 64 const tensor's heatmap is drawn`);
    if (screenshotsToo) await shoot(page, "tensor-matrix.png");
    await checkSafetensorsDownload(page, landmarker, where);
    // a file and its converted copies: the .csta against the .tsm inside it and against its .safetensors export
    const converted = join(work, "landmarker.safetensors");
    writeFileSync(converted, tf.writeSafetensors(landmarker.tensors));
    for (const copy of [byLabel("seetaface6_face_landmarker_pts5.tsm")?.path, converted].filter(Boolean)) {
      const before = await opens(page);
      await page.setInputFiles("#open-file", [landmarker.path, copy]);
      await page.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n, before);
      await page.waitForSelector("#diff-verdict", { timeout: 60_000 });
      check((await page.evaluate(() => document.querySelector("#diff-verdict").dataset.equal)) === "true", `${where}: the .csta and ${basename(copy)} diff as equal`);
    }
  }

  // a changed copy: the diff names the changed tensor; its two histograms side by side
  const example = files.find((f) => f.label === "example demo.tsm");
  const changed = join(work, "demo-changed.tsm");
  const module = tf.tsm.read(example.bytes);
  const weight = module.nodes.flatMap((n) => n.params).find((p) => p.key === "value" && p.fields[0].dtype === "float32").fields[0];
  weight.data = Float32Array.from(weight.data, (v, i) => (i === 5 ? v + 0.25 : v));
  writeFileSync(changed, tf.tsm.write(module));
  {
    const before = await opens(page);
    await page.setInputFiles("#open-file", [example.path, changed]);
    await page.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n, before);
    await page.waitForSelector("#diff-verdict", { timeout: 60_000 });
    const rows = await page.evaluate(() => [...document.querySelectorAll("#diff-table tr[data-name]")].map((r) => [r.dataset.name, r.dataset.status]));
    check(JSON.stringify(rows) === JSON.stringify([["weight", "different"], ["bias", "equal"]]), `${where}: diff rows ${JSON.stringify(rows)}`);
    await page.click('#diff-table tr[data-name="weight"]');
    await page.waitForSelector("#diff-hist-b", { timeout: 30_000 });
    check((await drawnPixels(page, "#diff-hist-a")) > 500 && (await drawnPixels(page, "#diff-hist-b")) > 500, `${where}: the diff's two histograms are drawn`);
  }
  // for the picture: the landmarker against a copy with noise on one weight matrix and a NaN in another
  const landmarkerTsm = byLabel("seetaface6_face_landmarker_pts5.tsm");
  if (landmarkerTsm && screenshotsToo) {
    const noisy = join(work, "landmarker-finetuned.tsm");
    const copy = tf.tsm.read(landmarkerTsm.bytes);
    const valueOf = (name) => copy.nodes.find((n) => n.params.some((p) => p.key === "#name" && new TextDecoder().decode(p.fields[0].data) === name))
      .params.find((p) => p.key === "value").fields[0];
    const matrix = valueOf("_const__ip_Common/Common/Common_11/BiasAdder_rhs");
    matrix.data = Float32Array.from(matrix.data, (v, i) => v + 0.01 * Math.sin(i * 12.9898));
    const other = copy.nodes.map((n) => n.params.find((p) => p.key === "value")?.fields[0]).filter((f) => f && f.dtype === "float32" && f.data !== matrix.data).at(-1);
    other.data = Float32Array.from(other.data, (v, i) => (i === 0 ? NaN : v));
    writeFileSync(noisy, tf.tsm.write(copy));
    const before = await opens(page);
    await page.setInputFiles("#open-file", [landmarkerTsm.path, noisy]);
    await page.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n, before);
    await page.waitForSelector("#diff-verdict", { timeout: 60_000 });
    await page.click('#diff-table tr[data-name="_const__ip_Common/Common/Common_11/BiasAdder_rhs"]');
    await page.waitForSelector("#diff-hist-b", { timeout: 30_000 });
    await shoot(page, "diff.png");
  }

  // exports: every example with tensors as .safetensors; an april network byte-identical to the reference .onnx
  for (const file of files.filter((f) => f.label.startsWith("example") && f.names?.length > 0)) {
    await openFile(page, file, "input");
    await checkSafetensorsDownload(page, file, where);
  }
  const april = byLabel("april/tiny_en-us.april");
  if (april) {
    await openFile(page, april, "input");
    await page.click('[data-view="export"]');
    await page.waitForSelector('#blob-list li[data-name="encoder.onnx"] button');
    const [download] = await Promise.all([page.waitForEvent("download"), page.click('#blob-list li[data-name="encoder.onnx"] button')]);
    const got = readFileSync(await download.path());
    const reference = readFileSync(join(fixturesRoot, "april/onnx/encoder.onnx"));
    check(download.suggestedFilename() === "encoder.onnx" && got.equals(reference), `${where}: encoder.onnx downloads byte-identical to the reference`);
    if (screenshotsToo) await shoot(page, "export.png");
  }
  // a readable file with a verify warning that names an offset: the link opens the hex view there
  const quirk = byLabel("april/invalid/quirk_params_gap_after_joiner.april");
  if (quirk) {
    await openFile(page, quirk, "input");
    await page.click('[data-view="summary"]');
    await page.click(".warning button");
    await page.waitForSelector("#hex-view mark");
    const marked = await page.evaluate(() => document.querySelector("#hex-view mark")?.title);
    check(/^offset \d+$/.test(marked ?? ""), `${where}: a warning's offset link marks ${marked} in the hex view`);
    if (screenshotsToo) {
      await page.click("details.extra summary");
      await shoot(page, "summary.png");
    }
  }
  const damaged = byLabel("bw2l/invalid/truncated_mid.b2l");
  if (damaged && screenshotsToo) {
    await openFile(page, damaged, "input");
    await page.waitForSelector("#hex-view mark");
    await shoot(page, "error.png");
  }
  const quality = byLabel("seetaface6_quality_lbn.tsm");
  if (quality && screenshotsToo) {
    await page.emulateMedia({ colorScheme: "dark" });
    await openFile(page, quality, "input");
    await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 60_000 });
    await page.click('[data-view="tensors"]'); // a TenniS module opens on its graph (issue 36)
    await page.click('#tensor-table [data-sort="std"]');
    await shoot(page, "tensors-dark.png");
    await page.emulateMedia({ colorScheme: "light" });
  }
  await page.close();
}

/** A SPRAAK track of `bytes` bytes of float32 data (a sparse file: the data reads as zeros). */
function bigTrack(path, bytes) {
  const cols = 16;
  const rows = bytes / 4 / cols;
  const small = tf.spraak.write(tf.spraak.matrix(new Float32Array(cols), { cols, format: "BIN01", data: "TRACK", header: { FSHIFT: "0.01" } }));
  const text = new TextDecoder().decode(small.subarray(0, small.length - cols * 4));
  const grown = String(rows).length - 1;
  const header = text.replace("DIM1\t\t\t1\n", `DIM1\t\t\t${rows}\n`).replace(/\n( +)\n#\n$/, (_, spaces) => `\n${spaces.slice(grown)}\n#\n`);
  if (header.length !== text.length) throw new Error("could not keep the header length");
  const fd = openSync(path, "w");
  writeSync(fd, new TextEncoder().encode(header));
  ftruncateSync(fd, header.length + bytes);
  closeSync(fd);
  return { rows, cols, size: header.length + bytes };
}

async function runBigFile() {
  const path = join(work, "big.trk");
  const { rows, cols, size } = bigTrack(path, BIG_BYTES);
  const lazy = await tf.readFromAny(await tf.fromFile(path));
  check(JSON.stringify(lazy.tensorInfos()[0].shape) === JSON.stringify([rows, cols]), "the generated 1 GiB track reads as [rows, 16] in Node");
  served = [{ name: "big.trk", path, size }];
  bytesServed = 0;
  const page = await newPage("http big file");
  const started = Date.now();
  await page.goto(`${base}#url=/files/0/big.trk`);
  await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
  const listed = Date.now() - started;
  await page.waitForTimeout(500);
  const rowsShown = await tableRows(page);
  check(rowsShown.length === 1 && rowsShown[0].name === "data", "the 1 GiB file's table lists its tensor");
  check((await page.evaluate(() => document.querySelector('#tensor-table [data-col="shape"]')?.textContent)) === `[${rows}, ${cols}]`, "the 1 GiB file's shape is shown");
  check(bytesServed < 1024 * 1024, `opening the 1 GiB file over HTTP read ${bytesServed} bytes (< 1 MiB)`);
  console.log(`inspector (http): 1 GiB file listed ${listed} ms after navigation (page load included), ${bytesServed} bytes read`);
  const computeStarted = Date.now();
  await page.click("#compute-stats");
  await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 300_000 });
  const seconds = (Date.now() - computeStarted) / 1000;
  const [row] = await tableRows(page);
  check(row.min === "0" && row.max === "0" && row.zeros === String(rows * cols) && row.nan === "0", `statistics of the 1 GiB tensor: ${JSON.stringify(row)}`);
  console.log(`inspector (http): statistics of the 1 GiB tensor in ${seconds.toFixed(1)} s (${(BIG_BYTES / 2 ** 20 / seconds).toFixed(0)} MiB/s through HTTP Range reads, ${bytesServed} bytes served)`);
  // its heatmap: too big to decode whole (over the worker's cap), so sliced straight from the file and reduced
  const heatmapStarted = Date.now();
  await page.focus("#tensor-table");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#heatmap[data-rows]", { timeout: 300_000 });
  const heatmapSeconds = (Date.now() - heatmapStarted) / 1000;
  check((await drawnPixels(page, "#heatmap")) > 20000, "the 1 GiB tensor's heatmap (streamed from the file) is drawn");
  const box = await page.locator("#heatmap").boundingBox();
  await page.mouse.move(box.x + box.width * 0.9, box.y + box.height * 0.5);
  check(/frame \d+ · feature \d+/.test(await page.textContent("#heatmap-readout")), "hovering the 1 GiB tensor's heatmap reads out frame, feature and value");
  await page.mouse.click(box.x + box.width * 0.9, box.y + box.height * 0.5);
  await page.waitForSelector("#region-values td.hot", { timeout: 60_000 }).catch(() => undefined);
  const region = await page.evaluate(() => [...document.querySelectorAll("#region-values td")].map((td) => td.textContent));
  check(region.length === 64 && region.every((text) => text === "0"), `a click on the 1 GiB tensor's heatmap shows its 8 × 8 exact values (${region.slice(0, 3).join(", ")}, …)`);
  console.log(`inspector (http): heatmap of the 1 GiB tensor in ${heatmapSeconds.toFixed(1)} s (read from the file and reduced, not decoded whole)`);
  await page.close();

  // several files (as `tensorfile view A B` serves them): the page opens the first and lists them all
  const track = byLabel("spraak/sx313.trk") ?? files.find((f) => f.format === "spraak");
  served = [{ name: "big.trk", path, size }, { name: track.name, path: track.path, size: track.bytes.length }];
  const listPage = await newPage("http files.json");
  await listPage.goto(base);
  await listPage.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
  const options = await listPage.evaluate(() => [...document.querySelectorAll("#file-list option")].map((o) => o.textContent));
  check(options.length === 2 && !(await listPage.evaluate(() => document.querySelector("#file-list").hidden)), `files.json's two files are listed (${options.join(", ")})`);
  const before = await opens(listPage);
  await listPage.selectOption("#file-list", { index: 1 });
  await listPage.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n, before);
  await checkOpened(listPage, track, "http files.json", true);
  await listPage.close();
  served = [];
  rmSync(path);
}

/** Through `tensorfile view` itself, when the CLI has that command: its printed URL opens the file. */
async function runViewCommand() {
  const cli = join(root, "dist/cli.js");
  const help = spawn(process.execPath, [cli, "view", "--help"], { stdio: "ignore" });
  const code = await new Promise((r) => help.on("close", r));
  if (code !== 0) {
    console.log("inspector: dist/cli.js has no view command yet; the HTTP runs used this test's own server");
    return;
  }
  const track = byLabel("spraak/sx313.trk") ?? files.find((f) => f.format === "spraak");
  const child = spawn(process.execPath, [cli, "view", track.path, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const url = await new Promise((resolveUrl, reject) => {
      let text = "";
      child.stdout.on("data", (chunk) => {
        text += chunk;
        const line = text.split("\n")[0];
        if (text.includes("\n")) resolveUrl(line.trim());
      });
      child.on("close", () => reject(new Error("view exited")));
      setTimeout(() => reject(new Error("view printed no URL")), 20_000);
    });
    const page = await newPage("tensorfile view");
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 30_000 });
    await checkOpened(page, track, "tensorfile view", true);
    await page.close();
  } finally {
    child.kill("SIGINT");
  }
}

// parts to run (all by default): file, http, big, view
const parts = process.argv.slice(2).length > 0 ? new Set(process.argv.slice(2)) : new Set(["file", "http", "big", "view"]);
try {
  if (parts.has("file")) await runOrigin("file://", pathToFileURL(pagePath).href, { screenshotsToo: true });
  if (parts.has("http")) await runOrigin("http", base, { screenshotsToo: false });
  if (parts.has("big")) await runBigFile();
  if (parts.has("view")) await runViewCommand();
} catch (error) {
  check(false, `the run stopped: ${error.stack ?? error}`);
} finally {
  await browser.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
for (const message of consoleErrors) check(false, message);
check(consoleErrors.length === 0, "no console errors or uncaught exceptions");
console.log(`inspector: ${counts.passed} checks passed${counts.failures.length ? `, ${counts.failures.length} failed` : ""}`);
process.exit(counts.failures.length > 0 ? 1 : 0);
