// Browser test of issue 36 (the inspector, third round), in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core) on dist/web/index.html, at 1366×768 and at 390×844:
//  - "Open file…" is reached by Tab from page load and opens the file dialog; the welcome page lists `.onnx` and
//    every extension of the format registry;
//  - an ONNX model whose node list is not in producer order keeps every edge; Cast's `to` reads FLOAT16;
//  - search: the first Enter lands on the first hit ("1 of N"), not the second; no stale "1 of 1" after
//    switching to a subgraph;
//  - a node inside a subgraph comes back from a link (the open subgraph is in the hash, served over HTTP);
//  - the table: a filter that hides the selected row, then Enter, opens a shown row, never the hidden one;
//  - PNG export: the same bytes with and without a search highlight, at 1×, in parts for a tall 765-node graph;
//  - diff: names that share a long prefix stay distinct (cut in the middle) and no column is off-screen;
//  - a wide heatmap fills its panel;
//  - axe-core: 0 critical and 0 serious violations on every view.
// Exits 1 on failure. Run with `node test/runtimes/inspector-reading.mjs` after `npm run build`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { checkCounter, executablePath, pagePath, requireBuilt, root, startPageServer } from "./browser-setup.mjs";

requireBuilt("inspector reading test");
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const { READINGS } = await import(pathToFileURL(join(root, "dist/formats/registry.js")).href);
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const counts = checkCounter();
const { check } = counts;
const work = mkdtempSync(join(tmpdir(), "tensorfile-reading-"));
const write = (name, bytes) => {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
};
const floats = (n, start = 0) => Float32Array.from({ length: n }, (_, i) => start + i / 8);

// an ONNX model whose node list is NOT in producer order (as ISNet medium's), with an If whose branch is too
const branch = (name) => ({
  name,
  nodes: [
    { name: `${name}_add`, opType: "Add", inputs: [`${name}_m`, "shift"], outputs: [`${name}_out`] },
    { name: `${name}_mul`, opType: "Mul", inputs: ["y", "shift"], outputs: [`${name}_m`] },
  ],
  inputs: [],
  outputs: [{ name: `${name}_out`, dtype: "float32", shape: [1, 4] }],
});
const sampleNodes = [
  { name: "last", opType: "Sum", inputs: ["z0", "y"], outputs: ["z"] },
  { name: "If_0", opType: "If", inputs: ["flag"], outputs: ["z0"], attributes: { then_branch: { type: "graph", value: branch("then") }, else_branch: { type: "graph", value: branch("else") } } },
  { name: "relu_b", opType: "Relu", inputs: ["r"], outputs: ["y"] },
  { name: "relu_a", opType: "Relu", inputs: ["c"], outputs: ["r"] },
  { name: "cast", opType: "Cast", inputs: ["x"], outputs: ["c"], attributes: { to: 1 } },
];
const sampleOnnx = write("sample.onnx", tf.onnx.write(tf.onnx.create({
  producerName: "reading-test",
  metadata: { author: "tensorfile" },
  graph: {
    name: "sample",
    inputs: [{ name: "x", dtype: "float16", shape: ["batch", 4] }, { name: "flag", dtype: "bool", shape: [] }],
    outputs: [{ name: "z", dtype: "float32", shape: ["batch", 4] }],
    initializers: [{ name: "shift", dtype: "float32", dims: [4], data: floats(4, 5) }],
    nodes: sampleNodes,
  },
})));
// edges when linked by name: x→cast, cast→relu_a, relu_a→relu_b, relu_b→last, flag→If_0, If_0→last, last→z
const SAMPLE_EDGES = 7;

// a tall chain of 765 nodes (PaddleOCR rec's count): its PNG does not fit one canvas at 1×
const chain = Array.from({ length: 765 }, (_, i) => ({ name: `n${i}`, opType: i % 2 ? "Relu" : "Sigmoid", inputs: [i === 0 ? "x" : `v${i - 1}`], outputs: [i === 764 ? "y" : `v${i}`] }));
const tallOnnx = write("tall.onnx", tf.onnx.write(tf.onnx.create({ graph: { name: "tall", inputs: [{ name: "x", dtype: "float32", shape: [4] }], outputs: [{ name: "y", dtype: "float32", shape: [4] }], nodes: chain } })));

// diff: names sharing a long prefix; a wide matrix for the heatmap
const prefix = "model.encoder.transformer.layers.11.self_attention";
const tensorsOf = (shift) => ["q_proj.weight", "k_proj.weight", "v_proj.weight", "out_proj.bias"].map((tail, k) => ({ name: `${prefix}.${tail}`, dtype: "float32", shape: [4, 8], data: floats(32, k + shift) }));
const diffA = write("diff-a.safetensors", tf.writeSafetensors(tensorsOf(0)));
const diffB = write("diff-b.safetensors", tf.writeSafetensors(tensorsOf(0.5)));
const table = write("table.safetensors", tf.writeSafetensors([
  ...["alpha.weight", "beta.bias", "gamma.weight", "delta.bias"].map((name, k) => ({ name, dtype: "float32", shape: [3], data: floats(3, k) })),
  { name: "wide", dtype: "float32", shape: [48, 4000], data: Float32Array.from({ length: 48 * 4000 }, (_, i) => (i === 777 ? 1e6 : Math.sin(i / 50))) },
]));

// an HTTP server for the link test: the page at /, files at /files/<name>
const served = { "/files/sample.onnx": sampleOnnx };
const server = await startPageServer({ fileAt: (pathname) => served[pathname] });
const { base } = server;

async function open(page, paths) {
  const before = await page.evaluate(() => Number(document.body.dataset.opens ?? 0));
  await page.setInputFiles("#open-file", paths);
  await page.waitForFunction((n) => Number(document.body.dataset.opens ?? 0) > n, before, { timeout: 60_000 });
}
const graphData = (page) => page.evaluate(() => ({ ...document.querySelector("#graph")?.dataset, count: document.querySelector("#graph-search-count")?.textContent ?? "" }));
async function waitForLayout(page, name) {
  const laidOut = await page.waitForFunction((wanted) => { const d = document.querySelector("#graph")?.dataset; return d && (!wanted || d.graph === wanted) && d.engine; }, name, { timeout: 60_000 }).then(() => true, () => false);
  if (!laidOut) console.error(`  no layout of ${name}: ${JSON.stringify(await page.evaluate(() => ({ ...document.querySelector("#graph")?.dataset, legend: document.querySelector("#graph-legend")?.textContent, status: document.querySelector("#status")?.textContent, hash: location.hash })))}`);
  return laidOut;
}
async function showGraph(page, name) {
  await page.click('[data-view="graph"]');
  await waitForLayout(page, name);
  await page.waitForTimeout(100);
}
async function downloads(page, click, expected) {
  const got = [];
  const listener = (d) => got.push(d);
  page.on("download", listener);
  await click();
  const deadline = Date.now() + 60_000;
  // a graph saved in parts names their count ("-part1of3.png"): wait for all of them, however slowly they come
  const wanted = () => Math.max(expected, ...got.map((d) => Number(/-part\d+of(\d+)\.png$/.exec(d.suggestedFilename())?.[1] ?? 0)));
  while (got.length < wanted() && Date.now() < deadline) await page.waitForTimeout(100);
  await page.waitForTimeout(300);
  page.off("download", listener);
  return Promise.all(got.map(async (d) => ({ name: d.suggestedFilename(), bytes: readFileSync(await d.path()) })));
}
const pngSize = (bytes) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

/** axe-core on the page as it is: the critical and serious violations, one line each. */
async function axe(page) {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => `${v.impact} ${v.id} (${v.nodes.length}: ${v.nodes.slice(0, 2).map((n) => n.target.join(" ")).join(", ")})`));
  return violations;
}

const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
const viewports = [{ name: "1366×768", width: 1366, height: 768 }, { name: "390 px", width: 390, height: 844, isMobile: true, hasTouch: true }];
try {
  for (const viewport of viewports) {
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, isMobile: viewport.isMobile ?? false, hasTouch: viewport.hasTouch ?? false, acceptDownloads: true });
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    const at = (text) => `${viewport.name}: ${text}`;
    const axeOn = async (view) => {
      const violations = await axe(page);
      check(violations.length === 0, at(`axe: no critical or serious violation on the ${view} view (${violations.join("; ")})`));
    };
    await page.goto(pathToFileURL(pagePath).href);
    await page.waitForFunction(() => globalThis.__inspector !== undefined);

    // ---- the welcome page: Tab reaches "Open file…", which opens the dialog; .onnx is listed ----
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => ({ text: document.activeElement?.textContent?.trim(), tag: document.activeElement?.tagName }));
    check(focused.text === "Open file…", at(`the first Tab from page load reaches "Open file…" (${JSON.stringify(focused)})`));
    // the file input's own click is what opens the browser's dialog: count it in the page (Playwright's
    // "filechooser" interception races the key press on a loaded machine), and take the dialog too when it comes
    await page.evaluate(() => {
      globalThis.__openFileClicks = 0;
      document.getElementById("open-file")?.addEventListener("click", () => globalThis.__openFileClicks++);
    });
    const chooser = page.waitForEvent("filechooser", { timeout: 20_000 }).then(() => "opened", (error) => error.message.split("\n")[0]);
    await page.keyboard.press("Enter");
    const clicked = await page.waitForFunction(() => globalThis.__openFileClicks > 0, null, { timeout: 20_000 }).then(() => true, () => false);
    const chosen = clicked ? await Promise.race([chooser, new Promise((ok) => setTimeout(() => ok("input clicked"), 2_000))]) : await chooser;
    check(clicked, at(`Enter on "Open file…" opens the file dialog (the file input was clicked: ${clicked}; the dialog: ${chosen})`));
    const welcome = await page.textContent("#view-empty");
    check(/\.onnx/.test(welcome), at("the welcome page lists .onnx"));
    const unlisted = READINGS.flatMap((r) => r.extensions).filter((e) => !welcome.includes(e));
    check(unlisted.length === 0, at(`the welcome page lists every extension of the registry (missing: ${unlisted.join(" ")})`));
    await axeOn("welcome");

    // ---- ONNX: edges linked by name whatever the node order; Cast's `to` by name ----
    await open(page, sampleOnnx);
    // ---- an .onnx opens on its graph, with a Properties panel ----
    await waitForLayout(page, "sample");
    const tab = await page.evaluate(() => document.querySelector('[data-view="graph"]')?.getAttribute("aria-selected"));
    check(tab === "true", at(`an .onnx opens on its graph (graph tab selected: ${tab})`));
    await page.getByRole("button", { name: "Properties" }).click();
    const panel = page.getByRole("region", { name: "Properties" });
    const properties = (await panel.count()) === 1 ? await panel.textContent() : "";
    check(/reading-test/.test(properties) && /ai\.onnx 17/.test(properties) && /author/.test(properties) && /tensorfile/.test(properties), at(`Properties: producer, opset and metadata_props (${properties.slice(0, 300)})`));
    check(/x float16 ⟨batch×4⟩/.test(properties) && /flag bool ⟨⟩/.test(properties) && /z float32 ⟨batch×4⟩/.test(properties), at("Properties: inputs and outputs with dtype and shape"));
    check((await page.getAttribute("#graph-parameters", "data-parameters")) === "4", at(`Properties: the parameter count (${await page.getAttribute("#graph-parameters", "data-parameters")})`));
    await axeOn("graph (properties)");
    const graph = await graphData(page);
    check(graph.edges === String(SAMPLE_EDGES), at(`a node list out of producer order keeps every edge (${graph.edges} of ${SAMPLE_EDGES})`));
    await page.fill("#graph-search", '"cast"');
    await page.waitForTimeout(80);
    const attrs = await page.textContent("#graph-attributes");
    check(/FLOAT\b/.test(attrs) && !/\b1\b/.test(attrs.replace(/FLOAT/, "")), at(`Cast's to reads FLOAT, not 1 (${attrs})`));
    // the node panel: its values with dtype and shape, the op's signature and its page on onnx.ai
    const nodePanel = await page.evaluate(() => ({
      inputs: document.querySelector("#graph-node-input-values")?.textContent ?? "",
      signature: document.querySelector("#graph-op-signature")?.textContent ?? "",
      doc: document.querySelector("#graph-op-doc")?.getAttribute("href") ?? "",
    }));
    check(/x float16 ⟨batch×4⟩/.test(nodePanel.inputs), at(`the node panel gives its input's dtype and shape (${nodePanel.inputs})`));
    check(/Cast\(input\) → output/.test(nodePanel.signature) && /to: INT/.test(nodePanel.signature), at(`the node panel gives the op's signature (${nodePanel.signature})`));
    check(nodePanel.doc === "https://onnx.ai/onnx/operators/onnx__Cast.html", at(`the node panel links the op's documentation (${nodePanel.doc})`));
    // the box shows the attribute inline, by name (the SVG export holds the box texts)
    const svg = await downloads(page, () => page.click("#graph-export-svg"), 1);
    const svgText = svg[0]?.bytes.toString("utf8") ?? "";
    check(svgText.includes(">to = FLOAT<"), at("the Cast box shows `to = FLOAT` inline"));
    check(/class="edge-label"[^>]*>float16 ⟨batch×4⟩</.test(svgText), at("the edge from input x is labelled with its declared type"));
    await axeOn("graph");

    // ---- search: Enter lands on the first hit; no stale count after a switch ----
    await page.fill("#graph-search", "relu");
    await page.waitForTimeout(80);
    const typed = await graphData(page);
    check(typed.selected === "relu_b" && /2 matches/.test(typed.count), at(`typing shows the first hit and the number of hits (${typed.selected}, ${typed.count})`));
    await page.press("#graph-search", "Enter");
    await page.waitForTimeout(80);
    const first = await graphData(page);
    check(first.selected === "relu_b" && first.count === "1 of 2", at(`the first Enter lands on the first hit, not the second (${first.selected}, ${first.count})`));
    await page.press("#graph-search", "Enter");
    await page.waitForTimeout(80);
    const second = await graphData(page);
    check(second.selected === "relu_a" && second.count === "2 of 2", at(`the next Enter moves on (${second.selected}, ${second.count})`));
    await page.fill("#graph-search", '"If_0"');
    await page.press("#graph-search", "Enter");
    await page.waitForTimeout(80);
    await page.click("#graph-side button >> text=open then_branch");
    await waitForLayout(page, "then");
    check((await graphData(page)).count === "", at(`no stale search count in the subgraph (${(await graphData(page)).count})`));
    await page.fill("#graph-search", '"then_mul"');
    await page.waitForTimeout(120);
    const hash = await page.evaluate(() => decodeURIComponent(location.hash));
    check(hash.includes("sg=If_0:then_branch") && hash.includes("n=then_mul"), at(`the hash holds the open subgraph and its node (${hash})`));

    // ---- a link to a node inside a subgraph reopens it (served over HTTP) ----
    const linked = await context.newPage();
    await linked.goto(`${base}#url=/files/sample.onnx&v=graph&sg=If_0%3Athen_branch&n=then_mul`);
    await linked.waitForFunction(() => document.querySelector("#graph")?.dataset.engine && document.querySelector("#graph")?.dataset.selected, null, { timeout: 60_000 }).catch(() => {});
    const restored = await linked.evaluate(() => ({ ...document.querySelector("#graph")?.dataset, crumbs: document.querySelector("#graph-crumbs")?.textContent }));
    check(restored.graph === "then" && restored.depth === "2" && restored.selected === "then_mul", at(`a link reopens the subgraph and selects its node (${JSON.stringify({ graph: restored.graph, depth: restored.depth, selected: restored.selected })})`));
    await linked.close();

    // ---- PNG export: 1×, without highlights, in parts for a tall graph ----
    if (viewport.width > 1000) {
      await open(page, tallOnnx);
      await showGraph(page, "tall");
      const plain = await downloads(page, () => page.click("#graph-export-png"), 2);
      await page.fill("#graph-search", "n1");
      await page.waitForTimeout(100);
      const highlighted = await downloads(page, () => page.click("#graph-export-png"), 2);
      check(plain.length >= 2 && plain.every((d) => /-part\d+of\d+\.png$/.test(d.name)), at(`a 765-node graph is saved in parts (${plain.map((d) => d.name).join(", ")})`));
      const sizes = plain.map((d) => pngSize(d.bytes));
      const layoutHeight = await page.evaluate(() => Number(document.querySelector("#graph").dataset.layoutHeight ?? 0));
      check(sizes.every((s) => s.height <= 16384 && s.width >= 80) && (!layoutHeight || Math.abs(sizes.reduce((a, s) => a + s.height, 0) - layoutHeight) <= sizes.length), at(`the parts are at 1× (${JSON.stringify(sizes)}, layout height ${layoutHeight})`));
      check(plain.length === highlighted.length && plain.every((d, k) => d.bytes.equals(highlighted[k].bytes)), at("the PNG is the same with a search highlight on screen (no highlight baked in)"));
    }

    // ---- the table: a filter hides the selected row, Enter opens a shown one ----
    await open(page, table);
    await page.click('[data-view="tensors"]');
    await page.waitForSelector("#tensor-table .grid-row[data-name='beta.bias']");
    await axeOn("tensors");
    await page.click("#tensor-table .grid-row[data-name='beta.bias']");
    await page.fill("#filter", "weight");
    await page.press("#filter", "Enter");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => !document.querySelector("#view-tensor")?.hidden, null, { timeout: 10_000 }).catch(() => {});
    const opened = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get("t"));
    check(opened === "alpha.weight", at(`Enter after a filter hid the selected row opens a shown row (${opened}), not beta.bias`));
    await page.waitForSelector("#heatmap, #line-plot", { timeout: 30_000 }).catch(() => {});
    await axeOn("tensor");

    // ---- a wide heatmap fills its panel ----
    await page.evaluate(() => { location.hash = "#v=tensor&t=wide&cr=percentile"; });
    await page.waitForFunction(() => document.querySelector("#heatmap")?.dataset.drawHeight, null, { timeout: 30_000 }).catch(() => {});
    const heat = await page.evaluate(() => ({ ...document.querySelector("#heatmap")?.dataset, canvas: document.querySelector("#heatmap")?.getBoundingClientRect().height }));
    check(Number(heat.drawHeight) >= 0.6 * (Number(heat.areaHeight) || 1), at(`a 48 × 4,000 heatmap fills its panel (${heat.drawHeight} of ${heat.areaHeight} px high)`));
    check(heat.clippedHigh === "1", at(`the colour bar marks the outlier above its percentile range (${heat.clippedHigh})`));

    // ---- diff: distinct names, every column on screen ----
    await open(page, [diffA, diffB]);
    await page.click('[data-view="diff"]');
    await page.waitForSelector("#diff-table tr[data-name]", { timeout: 30_000 });
    const diff = await page.evaluate(() => {
      const box = document.querySelector("#diff-table").closest(".table-box");
      return { names: [...document.querySelectorAll("#diff-table tr[data-name] td:first-child")].map((td) => td.textContent), scroll: box.scrollWidth, client: box.clientWidth };
    });
    check(new Set(diff.names).size === 4 && diff.names.every((n) => /(proj\.weight|proj\.bias)$/.test(n)), at(`diff names keep their tails (${diff.names.join(" | ")})`));
    if (viewport.width > 1000) check(diff.scroll <= diff.client + 1, at(`every diff column is on screen (${diff.scroll} px in ${diff.client})`));
    await axeOn("diff");
    await page.click('[data-view="export"]');
    await page.waitForTimeout(200);
    await axeOn("export");
    check(problems.length === 0, at(`no page errors (${problems.join("; ")})`));
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(`inspector reading test: ${counts.passed} checks passed, ${counts.failures.length} failed`);
process.exit(counts.failures.length === 0 ? 0 : 1);
