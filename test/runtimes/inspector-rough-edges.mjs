// Browser test of the inspector's rough edges from issue 26, in headless Chromium (Debian's /usr/bin/chromium
// through playwright-core) on dist/web/index.html from file://, at 1366×768 and at 390×844:
//  - a double-click on a table row opens that tensor (statistics arriving must not eat it);
//  - the Export view is drawn once on its first visit (.tsm and .april examples);
//  - a diff where A has a NaN that B has not shows NaN as the max |a−b| (not +Inf) and says so;
//  - no view scrolls sideways; the heatmap is on screen; number cells in the table are not cut off;
//  - the tensor view has a histogram count axis, quantiles p1/p50/p99, abs-max and sparsity;
//  - over HTTP (Range requests, served here like `tensorfile view` does), one view of a 24 MiB tensor reads its
//    bytes at most once (table statistics, view statistics, histogram, heatmap), and a bin change reads none;
//  - the URL hash keeps the colour range (cr=) and the diff's second file (b=); a one-tensor file (.npy) opens
//    on its tensor.
// Exits 1 on failure. Run with `node test/runtimes/inspector-rough-edges.mjs` after `npm run build`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { checkCounter, executablePath, pagePath, requireBuilt, root, startPageServer } from "./browser-setup.mjs";

requireBuilt("inspector rough-edges test");
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const { exampleFiles } = await import(pathToFileURL(join(root, "dist/examples.js")).href);

const counts = checkCounter();
const { check } = counts;

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
const matrix = write("matrix.npy", tf.writeNpy({ name: "m", dtype: "float64", shape: [2, 3], data: Float64Array.from([1, 2, 3, 4, 5, -6]) }));
const line = write("line.npy", tf.writeNpy({ name: "x", dtype: "float32", shape: [100_000], data: Float32Array.from({ length: 100_000 }, (_, i) => (i === 54_321 ? NaN : Math.sin(i / 500))) }));
const seg = write("demo.seg", new TextEncoder().encode(".spr\nDATA SEG\nDIM1 3\nDIM2 1\nTIMEBASE DISCRETE\nFSHIFT 0.01\n#\ndemo h# 0 10\n- s 10 25\n- ih 35 15\n"));
const nanA = write("nan-a.safetensors", tf.writeSafetensors([
  { name: "w", dtype: "float32", shape: [4], data: Float32Array.from([1, NaN, 3, 4]) },
  { name: "same", dtype: "float32", shape: [2], data: Float32Array.from([1, 2]) },
  { name: "near", dtype: "float32", shape: [5], data: Float32Array.from([1, 2, 3, 4, 5]) },
], { producer: "trainer 1" }));
const nanB = write("nan-b.safetensors", tf.writeSafetensors([
  { name: "w", dtype: "float32", shape: [4], data: Float32Array.from([1, 2, 3, 4]) },
  { name: "same", dtype: "float32", shape: [2], data: Float32Array.from([1, 2]) },
  { name: "near", dtype: "float32", shape: [5], data: Float32Array.from([1, 2.5, 3, 4, -5]) },
], { producer: "trainer 2" }));
// what `tensorfile diff --json` says about them (the page must show the same per-tensor numbers)
const cliDiff = JSON.parse(spawnSync(process.execPath, [join(root, "dist/cli.js"), "diff", nanA, nanB, "--json"], { encoding: "utf8" }).stdout);

// 24 MiB: more than the 16 MiB read chunk, so statistics and histogram are separate passes over the bytes
const BIG_ELEMENTS = 6 * 1024 * 1024;
const big = write("big.safetensors", tf.writeSafetensors([
  { name: "small", dtype: "float32", shape: [4], data: Float32Array.from([1, 2, 3, 4]) },
  { name: "big", dtype: "float32", shape: [2048, 3072], data: Float32Array.from({ length: BIG_ELEMENTS }, (_, i) => Math.sin(i / 1000)) },
]));
const bigBytes = BIG_ELEMENTS * 4;
// a Range server: the page at /, the file at /files/big.safetensors; counts the file bytes it sends
let served = 0;
const servedFiles = { "/files/big.safetensors": big, "/files/nan-a.safetensors": nanA, "/files/nan-b.safetensors": nanB };
const server = await startPageServer({ fileAt: (pathname) => servedFiles[pathname], onBytes: (n) => (served += n) });
const { base } = server;

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
    await page.waitForSelector("#tensor-stats", { timeout: 60_000 }).catch(() => {});
    await page.waitForFunction(() => document.querySelector("#histogram")?.dataset.yTicks, null, { timeout: 30_000 }).catch(() => {});
    const extras = await page.evaluate(() => ({
      ticks: document.querySelector("#histogram")?.dataset.yTicks ?? "",
      stats: [...document.querySelectorAll("#tensor-stats dd")].map((d) => d.dataset.stat),
    }));
    check(extras.ticks.split(",").length >= 2, at(`the histogram has a count axis (${extras.ticks})`));
    check(["p1", "p50", "p99", "absMax", "sparsity"].every((k) => extras.stats.includes(k)), at(`the tensor view has quantiles, abs-max and sparsity (${extras.stats.join(" ")})`));
    // heatmap zoom (a 64 × 33 matrix): the wheel narrows both axes about the pointer
    await page.locator("#heatmap").scrollIntoViewIfNeeded();
    const matrixBox = await page.locator("#heatmap").boundingBox();
    await page.mouse.move(matrixBox.x + matrixBox.width / 2, matrixBox.y + matrixBox.height / 2);
    await page.mouse.wheel(0, -500);
    await page.waitForFunction(() => document.querySelector("#heatmap")?.dataset.window !== "0,64,0,33", null, { timeout: 10_000 }).catch(() => {});
    const matrixWindow = (await page.evaluate(() => document.querySelector("#heatmap")?.dataset.window ?? "")).split(",").map(Number);
    check(matrixWindow[1] - matrixWindow[0] < 64 && matrixWindow[3] - matrixWindow[2] < 33, at(`the wheel zooms the heatmap on both axes (${matrixWindow})`));
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

    // a SPRAAK track with its .seg beside it: the segments as a tier under the speech heatmap
    await open(page, [examples["demo.trk"], seg]);
    await page.waitForSelector("#segments[data-count]", { timeout: 30_000 }).catch(() => {});
    const tier = await page.evaluate(() => {
      const canvas = document.querySelector("#segments");
      const heat = document.querySelector("#heatmap")?.getBoundingClientRect();
      const r = canvas?.getBoundingClientRect();
      return canvas ? { ...canvas.dataset, below: r.top >= heat.bottom - 1, right: r.right } : undefined;
    });
    check(tier && tier.count === "3" && tier.labels === "h# s ih" && tier.below, at(`the .seg segments are drawn under the track (${JSON.stringify(tier)})`));
    if (tier) {
      const spans = tier.spans.split(" ").map((span) => span.split("-").map(Number));
      check(spans.every(([a, b], k) => b > a && (k === 0 || a === spans[k - 1][1])), at(`the segments follow each other along time (${tier.spans})`));
      check(tier.right <= viewport.width + 0.5, at("the segment tier is on screen"));
      // time zoom: the wheel narrows the frames shown (features stay whole), the tier follows
      await page.locator("#heatmap").scrollIntoViewIfNeeded();
      const heatBox = await page.locator("#heatmap").boundingBox();
      await page.mouse.move(heatBox.x + heatBox.width / 2, heatBox.y + heatBox.height / 2);
      await page.mouse.wheel(0, -500);
      await page.waitForFunction(() => document.querySelector("#heatmap")?.dataset.window !== "0,50,0,24", null, { timeout: 10_000 }).catch(() => {});
      const zoomed = await page.evaluate(() => ({ window: document.querySelector("#heatmap")?.dataset.window, spans: document.querySelector("#segments")?.dataset.spans }));
      const [r0, r1, c0, c1] = (zoomed.window ?? "").split(",").map(Number);
      check(r1 - r0 < 50 && r1 - r0 >= 4 && c0 === 0 && c1 === 24, at(`speech mode: the wheel zooms time only (window ${zoomed.window})`));
      check(zoomed.spans !== tier.spans, at(`the segment tier follows the time zoom (${zoomed.spans})`));
      await page.click("#heatmap-unzoom");
      await page.waitForFunction(() => document.querySelector("#heatmap")?.dataset.window === "0,50,0,24", null, { timeout: 10_000 }).catch(() => {});
      check((await page.evaluate(() => document.querySelector("#heatmap")?.dataset.window)) === "0,50,0,24", at("'whole' shows the whole track again"));
    }

    // a 1-D tensor: a line plot (min–max band per column), zoomable, NaN marked
    await open(page, line);
    await page.waitForFunction(() => document.querySelector("#line-plot")?.dataset.window, null, { timeout: 30_000 }).catch(() => {});
    const plot = await page.evaluate(() => ({ ...document.querySelector("#line-plot")?.dataset, heatmap: !!document.querySelector("#heatmap"), right: document.querySelector("#line-plot")?.getBoundingClientRect().right }));
    check(plot.window === "0,100000" && Number(plot.step) > 1 && !plot.heatmap, at(`a 1-D tensor is a line plot, not a heatmap (${JSON.stringify(plot)})`));
    check(Number(plot.nonFiniteColumns) >= 1, at("the line plot marks the NaN"));
    check(plot.right <= viewport.width, at("the line plot is on screen"));
    await page.locator("#line-plot").scrollIntoViewIfNeeded();
    const lineBox = await page.locator("#line-plot").boundingBox();
    await page.mouse.move(lineBox.x + lineBox.width / 2, lineBox.y + lineBox.height / 2);
    await page.mouse.wheel(0, -600);
    await page.waitForTimeout(300);
    const zoomedWindow = (await page.evaluate(() => document.querySelector("#line-plot")?.dataset.window ?? "")).split(",").map(Number);
    check(zoomedWindow.length === 2 && zoomedWindow[1] - zoomedWindow[0] < 100_000 && zoomedWindow[0] > 0, at(`the wheel zooms the line plot about the pointer (${zoomedWindow})`));
    await noSidewaysScroll(page, at("line plot"));

    // a NaN in one file: NaN, not +Inf, and a note
    await open(page, [nanA, nanB]);
    await page.waitForSelector("#diff-table tr[data-name='w']", { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector("#diff-table tr[data-name='w'] td:nth-child(6)")?.textContent === "NaN", null, { timeout: 10_000 }).catch(() => {});
    const diff = await page.evaluate(() => ({ cell: document.querySelector("#diff-table tr[data-name='w'] td:nth-child(6)")?.textContent, note: document.querySelector("#diff-nan-note")?.textContent ?? "" }));
    check(diff.cell === "NaN", at(`the diff shows NaN as w's max |a−b| (got ${diff.cell})`));
    check(/NaN/.test(diff.note) && /w: 1 NaN in A, 0 in B/.test(diff.note), at(`the diff says where the NaN is (${diff.note})`));
    const pageNumbers = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#diff-table tr[data-name]")].map((tr) => [tr.dataset.name, { differing: tr.dataset.differing, elements: tr.dataset.elements, maxAbs: tr.dataset.maxAbs, maxRel: tr.dataset.maxRel, cosine: tr.dataset.cosine, status: tr.dataset.status }])));
    for (const t of cliDiff.tensors) {
      const shown = pageNumbers[t.name];
      const same = shown && shown.status === t.status && shown.differing === String(t.differing) && shown.elements === String(t.elements)
        && Number(shown.maxAbs) === Number(t.maxAbs) && Number(shown.maxRel) === Number(t.maxRel) && (Number(shown.cosine) === Number(t.cosine) || (Number.isNaN(Number(shown.cosine)) && Number.isNaN(Number(t.cosine))));
      check(same, at(`diff numbers of ${t.name} equal \`tensorfile diff --json\` (${JSON.stringify(shown)} vs ${JSON.stringify(t)})`));
    }
    const meta = await page.evaluate(() => [...document.querySelectorAll("#diff-meta tr[data-key]")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    check(JSON.stringify(meta) === JSON.stringify([["meta.producer", "trainer 1", "trainer 2"]]), at(`the diff lists the metadata difference (${JSON.stringify(meta)})`));
    // a heatmap of the difference: near differs by −0.5 at [1] and +10 at [4]
    await page.click("#diff-table tr[data-name='near']");
    await page.waitForSelector("#diff-heatmap", { timeout: 30_000 }).catch(() => {});
    const heat = await page.evaluate(() => {
      const canvas = document.querySelector("#diff-heatmap");
      if (!canvas) return undefined;
      const pixels = [...canvas.getContext("2d").getImageData(0, 0, canvas.width, 1).data];
      return { maxAbs: canvas.dataset.maxAbs, cols: canvas.dataset.cols, rows: canvas.dataset.rows, pixels, right: canvas.getBoundingClientRect().right };
    });
    check(heat && heat.maxAbs === "10" && heat.rows === "1" && heat.cols === "5", at(`the difference heatmap of near is drawn (${JSON.stringify(heat && { ...heat, pixels: undefined })})`));
    if (heat) {
      const px = (k) => heat.pixels.slice(k * 4, k * 4 + 3);
      const [equal, minus, , , plus] = [0, 1, 2, 3, 4].map(px);
      check(plus[0] > plus[2] && minus[2] >= minus[0] && Math.abs(equal[0] - equal[2]) <= 3, at(`a > b is red, a < b bluish, equal grey (${JSON.stringify([equal, minus, plus])})`));
      check(heat.right <= viewport.width + 0.5, at("the difference heatmap is on screen"));
    }
    await noSidewaysScroll(page, at("diff view"));
    // over HTTP: the bytes of one tensor view are read once; a bin change reads none
    served = 0;
    await page.goto(`${base}#url=${encodeURIComponent(`${base}files/big.safetensors`)}&v=tensor&t=big`);
    await page.waitForFunction(() => document.querySelector("#tensor-stats") && document.querySelector("#histogram"), null, { timeout: 120_000 });
    await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 120_000 }).catch(() => {});
    await page.waitForFunction(() => document.querySelector("#heatmap, #view-tensor canvas:not(#histogram)"), null, { timeout: 60_000 }).catch(() => {});
    await page.waitForTimeout(1500);
    const firstView = served;
    check(firstView >= bigBytes && firstView <= bigBytes + 1024 * 1024, at(`over HTTP one view of a ${bigBytes / 2 ** 20} MiB tensor reads it once (${(firstView / 2 ** 20).toFixed(1)} MiB served)`));
    await page.selectOption('select[aria-label="Histogram bins"]', "256");
    await page.waitForFunction(() => document.querySelector("#histogram") && !document.querySelector("#tensor-stats-pending"), null, { timeout: 60_000 });
    await page.waitForTimeout(500);
    check(served === firstView, at(`a bin change reads no bytes again (${((served - firstView) / 2 ** 20).toFixed(1)} MiB more)`));
    // the colour range is kept in the hash, both ways
    await page.selectOption('select[aria-label="Colour range"]', "symmetric");
    check(decodeURIComponent(await page.evaluate(() => location.hash)).includes("cr=symmetric"), at("the hash keeps the colour range"));
    await page.goto("about:blank");
    await page.goto(`${base}#url=${encodeURIComponent(`${base}files/big.safetensors`)}&v=tensor&t=big&cr=percentile`);
    await page.waitForSelector('select[aria-label="Colour range"]', { timeout: 60_000 });
    check((await page.$eval('select[aria-label="Colour range"]', (e) => e.value)) === "percentile", at("a link with cr=percentile opens with that colour range"));
    // the diff's second file is kept in the hash and reopened from it
    await page.goto("about:blank");
    await page.goto(`${base}#url=files/nan-a.safetensors&v=diff&b=files/nan-b.safetensors`);
    const reopened = await page.waitForSelector("#diff-table tr[data-name='w']", { timeout: 30_000 }).then(() => true, () => false);
    check(reopened && (await page.evaluate(() => decodeURIComponent(location.hash))).includes("b=files/nan-b.safetensors"), at("a link with b=<second file> reopens the diff"));
    // a one-tensor file opens on its tensor
    await page.goto(pathToFileURL(pagePath).href);
    await open(page, matrix);
    check((await page.evaluate(() => document.querySelector('[data-view="tensor"]')?.getAttribute("aria-selected"))) === "true", at("a one-tensor .npy opens on its tensor view"));
    check(problems.length === 0, at(`no console errors or uncaught exceptions (${problems.join("; ")})`));
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(`inspector rough-edges test: ${counts.passed} checks passed, ${counts.failures.length} failed`);
process.exit(counts.failures.length === 0 ? 0 : 1);
