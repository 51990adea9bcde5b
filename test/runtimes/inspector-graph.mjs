// Browser test of the inspector's graph view (issue 26), in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core) on the built dist/web/index.html from file://, at 1366×768 and at 390×844 (a phone):
//  - 3,000- and 10,000-node TenniS graphs made here with tsm.create (test/helpers/big-graph.mjs) and the
//    SeetaFace6 landmarker fixture (when ../shared/fixtures is there): the first view shows op boxes and weight
//    rows (`W ⟨8×8×3×3⟩`) with labels of at least 11 px, not a width-fit; the page does not scroll sideways; the
//    legend and minimap do not cover each other or leave the canvas box; the minimap moves the view;
//  - search by node name, op type and weight name selects and centres the hit, and the hash keeps it;
//  - a click on the centred node lists its weights, and one click on a weight opens its tensor view;
//  - the SVG and PNG exports download a well-formed file holding the weight rows.
// Layout times in the page's worker are printed (a benchmark, never asserted). Exits 1 on failure.
// Run with `node test/runtimes/inspector-graph.mjs` after `npm run build`.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const pagePath = join(root, "dist/web/index.html");
const fixturesRoot = process.env.TENSORFILE_FIXTURES ?? resolve(root, "../shared/fixtures");
for (const [path, hint] of [[executablePath, "apt-get install chromium"], [pagePath, "npm run build"], [join(root, "dist/index.js"), "npm run build"]]) {
  if (!existsSync(path)) {
    console.error(`inspector graph test: ${path} not found (${hint})`);
    process.exit(1);
  }
}
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const { resnetModule } = await import(pathToFileURL(join(root, "test/helpers/big-graph.mjs")).href);

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

const work = mkdtempSync(join(tmpdir(), "tensorfile-graph-"));
const graphs = [];
for (const nodes of [3000, 10_000]) {
  const path = join(work, `resnet-${nodes}.tsm`);
  writeFileSync(path, tf.tsm.write(resnetModule(tf.tsm, nodes)));
  graphs.push({ label: `${nodes}-node graph`, path, nodes, search: { name: "block7/conv_b", op: "inner_prod", weight: "block12/conv_a/weights" }, weightRow: "W ⟨8×8×3×3⟩" });
}
const landmarker = join(fixturesRoot, "tennis/seetaface6_face_landmarker_pts5.csta");
if (existsSync(landmarker)) graphs.push({ label: "SeetaFace6 landmarker", path: landmarker, nodes: 90, search: undefined, weightRow: "W ⟨" });
else console.log(`note: ${landmarker} not found; only the generated graphs are opened`);

const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
const viewports = [{ name: "1366×768", width: 1366, height: 768 }, { name: "390 px", width: 390, height: 844, isMobile: true, hasTouch: true }];
const timings = [];
try {
  for (const viewport of viewports) {
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, isMobile: viewport.isMobile ?? false, hasTouch: viewport.hasTouch ?? false, acceptDownloads: true });
    for (const graph of graphs) {
      const where = `${viewport.name}, ${graph.label}`;
      const page = await context.newPage();
      const problems = [];
      page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console: ${message.text()}`);
      });
      await page.goto(pathToFileURL(pagePath).href);
      await page.setInputFiles("#open-file", graph.path);
      await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
      await page.click('[data-view="graph"]');
      await page.waitForFunction(() => document.querySelector("#graph")?.dataset.engine, null, { timeout: 120_000 });
      await page.waitForTimeout(100);
      const first = await page.evaluate(() => ({ ...document.querySelector("#graph").dataset }));
      timings.push(`${where}: ${first.sourceNodes} nodes → ${first.nodes} boxes, layout ${first.engine} in ${first.layoutMs} ms (page worker)`);
      check(first.sourceNodes === String(graph.nodes), `${where}: ${graph.nodes} nodes in the file's graph (got ${first.sourceNodes})`);
      check(Number(first.nodes) < graph.nodes, `${where}: weights are rows of their consumer, not boxes (${first.nodes} boxes < ${graph.nodes} nodes)`);
      check(Number(first.labelPx) >= 11, `${where}: op labels are at least 11 px in the first view (${first.labelPx})`);
      check(Number(first.weightLabelPx) >= 11, `${where}: weight labels are at least 11 px in the first view (${first.weightLabelPx})`);
      check(Number(first.visibleOps) >= 3, `${where}: the first view shows op boxes with their labels (${first.visibleOps})`);
      check(Number(first.visibleWeights) >= 1, `${where}: the first view shows weight rows (${first.visibleWeights})`);
      // the page fits the screen; legend, tools, canvas box and minimap do not cover each other
      const geometry = await page.evaluate(() => {
        const rect = (selector) => {
          const r = document.querySelector(selector)?.getBoundingClientRect();
          return r ? { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height } : undefined;
        };
        return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, box: rect(".graph-canvas-box"), legend: rect("#graph-legend"), tools: rect(".graph-tools"), minimap: rect("#graph-minimap"), canvas: rect("#graph") };
      });
      const overlap = (a, b) => a && b && a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      const inside = (a, b) => a && b && a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
      check(geometry.scrollWidth <= geometry.innerWidth, `${where}: no sideways scroll (page ${geometry.scrollWidth} px wide in a ${geometry.innerWidth} px window)`);
      check(!overlap(geometry.legend, geometry.box) && !overlap(geometry.tools, geometry.box), `${where}: the legend and tools are outside the canvas`);
      check(geometry.box && geometry.box.width >= Math.min(300, viewport.width - 40) && geometry.box.height >= 250, `${where}: the canvas box is usable (${Math.round(geometry.box?.width)}×${Math.round(geometry.box?.height)})`);
      check(inside(geometry.minimap, geometry.box) && geometry.minimap.width >= 40, `${where}: the minimap sits inside the canvas box`);
      check(geometry.box && geometry.box.right <= viewport.width + 0.5, `${where}: the canvas box is on screen`);
      // the minimap moves the view: a click near its bottom shows the end of the graph
      const beforeY = await page.evaluate(() => document.querySelector("#graph").dataset.scale);
      const mm = geometry.minimap;
      // click where the minimap draws a box in its lowest rows (the end of the graph)
      const target = await page.evaluate(() => {
        const canvas = document.querySelector("#graph-minimap");
        const context = canvas.getContext("2d");
        const ratio = canvas.width / canvas.getBoundingClientRect().width;
        const background = context.getImageData(0, 0, 1, 1).data;
        for (let y = canvas.height - 3; y > canvas.height / 2; y--) {
          const row = context.getImageData(0, y, canvas.width, 1).data;
          for (let x = 2; x < canvas.width - 2; x++) {
            const k = x * 4;
            const difference = Math.abs(row[k] - background[0]) + Math.abs(row[k + 1] - background[1]) + Math.abs(row[k + 2] - background[2]);
            // a box pixel (not the blue viewport frame, which is drawn at the top at first)
            if (difference > 120) return { x: x / ratio, y: y / ratio };
          }
        }
        return undefined;
      });
      check(target !== undefined, `${where}: the minimap draws the graph`);
      await page.mouse.click(mm.left + (target?.x ?? mm.width / 2), mm.top + (target?.y ?? mm.height - 4));
      await page.waitForTimeout(80);
      const afterMinimap = await page.evaluate(() => ({ ...document.querySelector("#graph").dataset }));
      if (afterMinimap.scale !== beforeY || !(Number(afterMinimap.visibleOps) + Number(afterMinimap.visibleWeights) > 0)) console.error(JSON.stringify(afterMinimap));
      check(afterMinimap.scale === beforeY && Number(afterMinimap.visibleOps) + Number(afterMinimap.visibleWeights) > 0, `${where}: after a minimap click the view still shows labelled boxes at the same zoom`);
      // smooth zoom: the wheel changes the scale by small factors, about the pointer
      await page.mouse.move(geometry.canvas.left + geometry.canvas.width / 2, geometry.canvas.top + geometry.canvas.height / 2);
      await page.mouse.wheel(0, 100);
      await page.waitForTimeout(80);
      const zoomed = Number(await page.evaluate(() => document.querySelector("#graph").dataset.scale));
      check(zoomed < 1 && zoomed > 0.7, `${where}: one wheel notch zooms out by a small step (scale ${zoomed})`);
      if (graph.search) {
        for (const [field, query] of Object.entries(graph.search)) {
          await page.fill("#graph-search", query);
          await page.waitForTimeout(80);
          const hit = await page.evaluate(() => ({ ...document.querySelector("#graph").dataset, count: document.querySelector("#graph-search-count")?.textContent, hash: location.hash }));
          const expected = field === "name" ? query : field === "weight" ? query.replace(/\/weights$/, "") : undefined;
          check(hit.count && !/no match/.test(hit.count), `${where}: search by ${field} "${query}" finds something (${hit.count})`);
          if (expected) check(hit.selected === expected, `${where}: search by ${field} "${query}" selects ${expected} (got ${hit.selected})`);
          else check(/head\/fc$/.test(hit.selected), `${where}: search by op "${query}" selects an inner_prod node (got ${hit.selected})`);
          check(Number(hit.labelPx) >= 11, `${where}: the hit is shown at a readable size (${hit.labelPx} px)`);
          check(decodeURIComponent(hit.hash).includes(`n=${hit.selected}`), `${where}: the hash keeps the selected node (${hit.hash})`);
        }
        // the hit is centred: a click in the canvas centre selects it again and lists its weights
        await page.fill("#graph-search", graph.search.name);
        await page.waitForTimeout(80);
        await page.click("#graph-side button.linkish >> text=graph overview");
        const canvasNow = await page.evaluate(() => { const r = document.querySelector("#graph").getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
        await page.mouse.click(canvasNow.x, canvasNow.y);
        await page.waitForTimeout(80);
        const clicked = await page.evaluate(() => ({ selected: document.querySelector("#graph").dataset.selected, weights: [...document.querySelectorAll("#graph-weights [data-tensor]")].map((b) => [b.textContent, b.dataset.tensor]), attrs: document.querySelector("#graph-side")?.textContent }));
        check(clicked.selected === graph.search.name, `${where}: the search hit is centred (a click in the middle selects it: ${clicked.selected})`);
        check(clicked.weights.length === 1 && clicked.weights[0][0] === graph.weightRow && clicked.weights[0][1] === `${graph.search.name}/weights`, `${where}: the node panel lists its weight ${JSON.stringify(clicked.weights)}`);
        check(/inputs/i.test(clicked.attrs) && /used by/i.test(clicked.attrs), `${where}: the node panel lists inputs and consumers`);
        // exports
        if (viewport.width > 1000) {
          const [svgDownload] = await Promise.all([page.waitForEvent("download"), page.click("#graph-export-svg")]);
          const svg = readFileSync(await svgDownload.path(), "utf8");
          check(svg.startsWith("<svg") && svg.trimEnd().endsWith("</svg>") && svg.includes(graph.weightRow) && (svg.match(/<g><title>/g) ?? []).length === Number(first.nodes), `${where}: the SVG export has every box and the weight rows`);
          const [pngDownload] = await Promise.all([page.waitForEvent("download"), page.click("#graph-export-png")]);
          const png = readFileSync(await pngDownload.path());
          check(png.length > 1000 && png.subarray(1, 4).toString("latin1") === "PNG", `${where}: the PNG export is a PNG (${png.length} bytes)`);
        }
        // one click from a weight to its tensor view
        await page.click("#graph-weights [data-tensor]");
        await page.waitForFunction(() => document.querySelector('[data-view="tensor"]')?.getAttribute("aria-selected") === "true", null, { timeout: 10_000 }).catch(() => {});
        const tensorHash = await page.evaluate(() => decodeURIComponent(location.hash));
        check(tensorHash.includes(`t=${graph.search.name}/weights`) && tensorHash.includes("v=tensor"), `${where}: a weight click opens its tensor view (${tensorHash})`);
      }
      if (viewport.width > 1000 && graph.nodes === 10_000) await page.screenshot({ path: join(work, "graph-10000.png") });
      check(problems.length === 0, `${where}: no console errors or uncaught exceptions (${problems.join("; ")})`);
      await page.close();
    }
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
for (const line of timings) console.log(`  ${line}`);
console.log(`inspector graph test: ${passed} checks passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
