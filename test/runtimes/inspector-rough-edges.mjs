// Browser test of the inspector's rough edges from issue 26, in headless Chromium (Debian's /usr/bin/chromium
// through playwright-core) on dist/web/index.html from file://, at 1366×768 and at 390×844:
//  - a double-click on a table row opens that tensor (statistics arriving must not eat it);
//  - the Export view is drawn once on its first visit (.tsm and .april examples);
//  - a diff where A has a NaN that B has not shows NaN as the max |a−b| (not +Inf) and says so;
//  - no view scrolls sideways; the heatmap is on screen; number cells in the table are not cut off.
// Exits 1 on failure. Run with `node test/runtimes/inspector-rough-edges.mjs` after `npm run build`.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const pagePath = join(root, "dist/web/index.html");
for (const [path, hint] of [[executablePath, "apt-get install chromium"], [pagePath, "npm run build"], [join(root, "dist/index.js"), "npm run build"]]) {
  if (!existsSync(path)) {
    console.error(`inspector rough-edges test: ${path} not found (${hint})`);
    process.exit(1);
  }
}
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const { exampleFiles } = await import(pathToFileURL(join(root, "dist/examples.js")).href);

let passed = 0;
const failures = [];
function check(condition, message) {
  if (condition) passed++;
  else {
    failures.push(message);
    console.error(`  FAIL ${message}`);
  }
  return condition;
}

const work = mkdtempSync(join(tmpdir(), "tensorfile-rough-"));
const write = (name, bytes) => {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
};
const examples = Object.fromEntries(exampleFiles().map((e) => [e.name, write(e.name, e.bytes)]));
// many rows with wide numbers: 4,194,304-element tensors, values with long mantissas and exponents
const wide = write("wide.safetensors", tf.writeSafetensors([
  { name: "encoder.layers.0.big", dtype: "int8", shape: [2048, 2048], data: Int8Array.from({ length: 2048 * 2048 }, (_, i) => ((i * 7919) % 255) - 127) },
  ...Array.from({ length: 30 }, (_, k) => ({ name: `encoder.layers.${k}.weight`, dtype: "float32", shape: [64, 33], data: Float32Array.from({ length: 64 * 33 }, (_, i) => Math.sin(i * (k + 1)) * 1e-7 - 123456.789 * (i % 3)) })),
]));
const nanA = write("nan-a.safetensors", tf.writeSafetensors([
  { name: "w", dtype: "float32", shape: [4], data: Float32Array.from([1, NaN, 3, 4]) },
  { name: "same", dtype: "float32", shape: [2], data: Float32Array.from([1, 2]) },
]));
const nanB = write("nan-b.safetensors", tf.writeSafetensors([
  { name: "w", dtype: "float32", shape: [4], data: Float32Array.from([1, 2, 3, 4]) },
  { name: "same", dtype: "float32", shape: [2], data: Float32Array.from([1, 2]) },
]));

async function open(page, paths) {
  const before = await page.evaluate(() => Number(document.body.dataset.opens ?? 0));
  await page.setInputFiles("#open-file", paths);
  await page.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n, before, { timeout: 60_000 });
}

async function noSidewaysScroll(page, where) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth), innerWidth: window.innerWidth }));
  check(scrollWidth <= innerWidth, `${where}: no sideways scroll (${scrollWidth} px in ${innerWidth})`);
}

const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
const viewports = [{ name: "1366×768", width: 1366, height: 768 }, { name: "390 px", width: 390, height: 844, isMobile: true, hasTouch: true }];
try {
  for (const viewport of viewports) {
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, isMobile: viewport.isMobile ?? false, hasTouch: viewport.hasTouch ?? false });
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    await page.goto(pathToFileURL(pagePath).href);
    const at = (what) => `${viewport.name}, ${what}`;

    // double-click on a row while statistics stream in
    await open(page, wide);
    await page.waitForSelector("#tensor-table .grid-row");
    const target = await page.evaluate(() => document.querySelectorAll("#tensor-table .grid-row")[3]?.dataset.name);
    await page.dblclick(`#tensor-table .grid-row[data-name="${target}"] .name`);
    await page.waitForTimeout(150);
    const afterDouble = await page.evaluate(() => ({ hash: decodeURIComponent(location.hash), tab: document.querySelector('[data-view="tensor"]')?.getAttribute("aria-selected") }));
    check(afterDouble.tab === "true" && afterDouble.hash.includes(`t=${target}`), at(`a double-click on row ${target} opens it (${afterDouble.hash})`));
    await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 60_000 }).catch(() => {});
    await noSidewaysScroll(page, at("tensor view"));
    const heatmap = await page.evaluate(() => {
      const canvas = [...document.querySelectorAll("#view-tensor canvas")].at(-1);
      const r = canvas?.getBoundingClientRect();
      return r ? { left: r.left, right: r.right, width: r.width } : undefined;
    });
    check(heatmap && heatmap.left >= 0 && heatmap.right <= viewport.width && heatmap.width > 100, at(`the tensor view's plots are on screen (${JSON.stringify(heatmap)})`));
    // number cells are not cut (after statistics: min/max/mean/std with exponents)
    await page.click('[data-view="tensors"]');
    await page.waitForTimeout(100);
    const cut = await page.evaluate(() => [...document.querySelectorAll("#tensor-table .grid-row .num")].filter((cell) => cell.scrollWidth > cell.clientWidth + 1).map((cell) => `${cell.dataset.col}=${cell.textContent}`));
    check(cut.length === 0, at(`no number cell is cut off (${cut.slice(0, 5).join(", ")})`));
    await noSidewaysScroll(page, at("table view"));
    await page.click('[data-view="summary"]');
    await noSidewaysScroll(page, at("summary view"));

    // the Export view is drawn once on its first visit
    for (const name of ["demo.tsm", "demo.april"]) {
      await open(page, examples[name]);
      await page.click('[data-view="export"]');
      await page.waitForTimeout(300);
      const draws = await page.evaluate(() => document.querySelector("#view-export")?.dataset.draws);
      check(draws === "1", at(`${name}: the Export view is drawn once on its first visit (drawn ${draws} times)`));
      await noSidewaysScroll(page, at(`${name} export view`));
    }

    // a NaN in one file: NaN, not +Inf, and a note
    await open(page, [nanA, nanB]);
    await page.waitForSelector("#diff-table tr[data-name='w']", { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector("#diff-table tr[data-name='w'] td:nth-child(6)")?.textContent === "NaN", null, { timeout: 10_000 }).catch(() => {});
    const diff = await page.evaluate(() => ({ cell: document.querySelector("#diff-table tr[data-name='w'] td:nth-child(6)")?.textContent, note: document.querySelector("#diff-nan-note")?.textContent ?? "" }));
    check(diff.cell === "NaN", at(`the diff shows NaN as w's max |a−b| (got ${diff.cell})`));
    check(/NaN/.test(diff.note) && /w: 1 NaN in A, 0 in B/.test(diff.note), at(`the diff says where the NaN is (${diff.note})`));
    await noSidewaysScroll(page, at("diff view"));
    check(problems.length === 0, at(`no console errors or uncaught exceptions (${problems.join("; ")})`));
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(`inspector rough-edges test: ${passed} checks passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
