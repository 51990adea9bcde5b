// Browser test of the inspector's graph view (issue 26), in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core) on the built dist/web/index.html from file://, at 1366×768 and at 390×844 (a phone):
//  - 3,000- and 10,000-node TenniS graphs made here with tsm.create (test/helpers/big-graph.mjs) and the
//    SeetaFace6 landmarker fixture (when ../shared/fixtures is there): the first view shows op boxes and weight
//    rows (`W ⟨8×8×3×3⟩`) with labels of at least 11 px, not a width-fit; the page does not scroll sideways; the
//    legend and minimap do not cover each other or leave the canvas box; the minimap moves the view;
//  - search by node name, op type and weight name selects and centres the hit, and the hash keeps it;
//  - a click on the centred node lists its weights, and one click on a weight opens its tensor view;
//  - the SVG and PNG exports download a well-formed file holding the weight rows.
//  - ONNX: an .onnx made with onnx.create (Conv with W/B initializers, a Constant, an If whose branches hold weights)
//    shows op boxes with weight rows, attributes in the node panel, its then_branch opens and a branch weight is one
//    click from its tensor view; an .april of three onnx.create networks has a picker with the three that switches
//    between them, and one whose joiner is not ONNX says why; the real PyTorch export silero_vad_v5.onnx shows
//    readable op boxes in its first view;
//  - TenniS → ONNX: "Export ONNX" on a module made with tsm.create downloads exactly tsm.toOnnx's bytes; on a module
//    with an op tsm.toOnnx lacks the button is disabled and the op and node are named.
// Layout times in the page's worker are printed (a benchmark, never asserted). Exits 1 on failure.
// Run with `node test/runtimes/inspector-graph.mjs` after `npm run build`.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { checkCounter, executablePath, fixturesRoot, pagePath, requireBuilt, root } from "./browser-setup.mjs";

requireBuilt("inspector graph test");
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const { resnetModule } = await import(pathToFileURL(join(root, "test/helpers/big-graph.mjs")).href);

const counts = checkCounter();
const { check } = counts;

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

// ---- ONNX, april and TenniS → ONNX ----
const floats = (n, start = 0) => Float32Array.from({ length: n }, (_, i) => start + i / 8);
function branch(name, weight) {
  return {
    name,
    nodes: [
      { name: `${name}_c`, opType: "Constant", inputs: [], outputs: [`${name}_k`], attributes: { value: { type: "tensor", value: { name: `${name}_k`, dtype: "float32", dims: [4], data: floats(4, 1) } } } },
      { name: `${name}_mul`, opType: "Mul", inputs: ["y", weight], outputs: [`${name}_m`] },
      { name: `${name}_add`, opType: "Add", inputs: [`${name}_m`, `${name}_k`], outputs: [`${name}_out`] },
    ],
    initializers: [{ name: weight, dtype: "float32", dims: [4], data: floats(4, 2) }],
    inputs: [],
    outputs: [{ name: `${name}_out`, dtype: "float32", shape: [1, 4] }],
  };
}
const sampleOnnx = join(work, "sample.onnx");
writeFileSync(sampleOnnx, tf.onnx.write(tf.onnx.create({
  graph: {
    name: "sample",
    inputs: [{ name: "x", dtype: "float32", shape: [1, 3, 8, 8] }, { name: "flag", dtype: "bool", shape: [] }],
    outputs: [{ name: "z", dtype: "float32", shape: [1, 4] }],
    initializers: [
      { name: "conv.weight", dtype: "float32", dims: [4, 3, 3, 3], data: floats(108) },
      { name: "conv.bias", dtype: "float32", dims: [4], data: floats(4) },
    ],
    nodes: [
      { name: "conv", opType: "Conv", inputs: ["x", "conv.weight", "conv.bias"], outputs: ["c"], attributes: { kernel_shape: [3, 3], pads: [1, 1, 1, 1] } },
      { name: "relu", opType: "Relu", inputs: ["c"], outputs: ["r"] },
      { name: "pool", opType: "GlobalAveragePool", inputs: ["r"], outputs: ["p"] },
      { name: "flat", opType: "Flatten", inputs: ["p"], outputs: ["y0"], attributes: { axis: 1 } },
      { name: "bias_const", opType: "Constant", inputs: [], outputs: ["bias2"], attributes: { value: { type: "tensor", value: { name: "bias2", dtype: "float32", dims: [4], data: floats(4, 3) } } } },
      { name: "add_bias", opType: "Add", inputs: ["y0", "bias2"], outputs: ["y"] },
      { name: "If_0", opType: "If", inputs: ["flag"], outputs: ["z"], attributes: { then_branch: { type: "graph", value: branch("then", "w_then") }, else_branch: { type: "graph", value: branch("else", "w_else") } } },
    ],
  },
})));
const network = (tag, rows) => tf.onnx.write(tf.onnx.create({
  graph: {
    name: `${tag}-graph`,
    inputs: [{ name: "in", dtype: "float32", shape: [1, 4] }],
    outputs: [{ name: "out", dtype: "float32", shape: [1, rows] }],
    initializers: [{ name: `${tag}.weight`, dtype: "float32", dims: [4, rows], data: floats(4 * rows) }, { name: `${tag}.bias`, dtype: "float32", dims: [rows], data: floats(rows) }],
    nodes: [
      { name: `${tag}_mm`, opType: "MatMul", inputs: ["in", `${tag}.weight`], outputs: ["h"] },
      { name: `${tag}_add`, opType: "Add", inputs: ["h", `${tag}.bias`], outputs: ["h2"] },
      { name: `${tag}_tanh`, opType: "Tanh", inputs: ["h2"], outputs: ["out"] },
    ],
  },
}));
const aprilPath = join(work, "three.april");
writeFileSync(aprilPath, tf.april.write(tf.april.create({ networks: { encoder: network("enc", 5), decoder: network("dec", 6), joiner: network("join", 7) }, tokens: ["<blk>", "a", "b"] })));
const brokenAprilPath = join(work, "broken.april");
writeFileSync(brokenAprilPath, tf.april.write(tf.april.create({ networks: { encoder: network("enc", 5), decoder: network("dec", 6), joiner: Uint8Array.of(0xff, 0xff, 0xff, 0x0f) }, tokens: ["<blk>", "a"] })));
const silero = join(root, "node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx");
const dim1 = { dim: { dtype: "int32", shape: [], data: Int32Array.of(1) } };
const convertibleTsm = join(work, "dense.tsm");
writeFileSync(convertibleTsm, tf.tsm.write(tf.tsm.create({ nodes: [
  { op: "<param>", name: "x" },
  { op: "<const>", name: "fc/weights", value: { dtype: "float32", shape: [3, 4], data: floats(12) } },
  { op: "inner_prod", name: "fc", inputs: ["x", "fc/weights"] },
  { op: "<const>", name: "fc/bias", value: { dtype: "float32", shape: [3], data: Float32Array.of(1, 2, 3) } },
  { op: "add_bias", name: "fc/add_bias", inputs: ["fc", "fc/bias"], params: dim1 },
  { op: "relu", name: "y", inputs: ["fc/add_bias"] },
], inputs: ["x"], outputs: ["y"] })));
const blockedTsm = join(work, "custom.tsm");
writeFileSync(blockedTsm, tf.tsm.write(tf.tsm.create({ nodes: [
  { op: "<param>", name: "x" },
  { op: "frobnicate", name: "mystery_node", inputs: ["x"] },
  { op: "relu", name: "y", inputs: ["mystery_node"] },
], inputs: ["x"], outputs: ["y"] })));

const graphData = (page) => page.evaluate(() => ({ ...document.querySelector("#graph").dataset }));
async function openGraphOf(context, path, where, layoutTimeout = 60_000) {
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  await page.goto(pathToFileURL(pagePath).href);
  await page.setInputFiles("#open-file", path);
  await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
  const enabled = await page.evaluate(() => !document.querySelector('[data-view="graph"]').disabled);
  check(enabled, `${where}: the Graph tab is enabled`);
  await page.click('[data-view="graph"]');
  await page.waitForFunction(() => document.querySelector("#graph")?.dataset.engine || document.querySelector("#graph")?.dataset.error, null, { timeout: layoutTimeout });
  await page.waitForTimeout(100);
  return { page, problems };
}
const waitForGraph = (page, name) => page.waitForFunction((wanted) => { const d = document.querySelector("#graph")?.dataset; return d && d.graph === wanted && (d.engine || d.error); }, name, { timeout: 30_000 });
async function readableFirstView(page, where, minOps = 3) {
  const first = await graphData(page);
  check(Number(first.labelPx) >= 11, `${where}: op labels are at least 11 px in the first view (${first.labelPx})`);
  check(Number(first.visibleOps) >= minOps, `${where}: the first view shows op boxes with their labels (${first.visibleOps})`);
  const scrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  check(!scrolls, `${where}: no sideways scroll`);
  return first;
}

async function onnxScenarios(viewport) {
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, isMobile: viewport.isMobile ?? false, hasTouch: viewport.hasTouch ?? false, acceptDownloads: true });
  try {
    // an .onnx made with onnx.create
    let where = `${viewport.name}, onnx.create model`;
    let { page, problems } = await openGraphOf(context, sampleOnnx, where);
    const first = await readableFirstView(page, where);
    check(Number(first.visibleWeights) >= 2, `${where}: the first view shows weight rows (${first.visibleWeights})`);
    check(first.sourceNodes === "7" && first.nodes === "9", `${where}: 7 ONNX nodes → 9 boxes (2 inputs, 6 ops, 1 output; the Constant folded) (got ${first.sourceNodes} → ${first.nodes})`);
    await page.fill("#graph-search", '"conv"');
    await page.waitForTimeout(80);
    const conv = await page.evaluate(() => ({ selected: document.querySelector("#graph").dataset.selected, weights: [...document.querySelectorAll("#graph-weights [data-tensor]")].map((b) => [b.textContent, b.dataset.tensor]), attrs: document.querySelector("#graph-attributes")?.textContent ?? "" }));
    check(conv.selected === "conv" && JSON.stringify(conv.weights) === JSON.stringify([["W ⟨4×3×3×3⟩", "conv.weight"], ["B ⟨4⟩", "conv.bias"]]), `${where}: the Conv node lists its weights ${JSON.stringify(conv)}`);
    check(conv.attrs.includes("kernel_shape") && conv.attrs.includes("[3, 3]") && conv.attrs.includes("[1, 1, 1, 1]"), `${where}: the node panel shows the Conv's attributes (${conv.attrs})`);
    if (viewport.width > 1000) await page.screenshot({ path: join(work, "onnx-graph.png") });
    await page.fill("#graph-search", '"If_0"');
    await page.waitForTimeout(80);
    check((await graphData(page)).selected === "If_0", `${where}: search selects the If node`);
    await page.click("#graph-side button >> text=open then_branch");
    await waitForGraph(page, "then");
    await page.waitForTimeout(100);
    const sub = await graphData(page);
    check(sub.depth === "2" && sub.sourceNodes === "3" && Number(sub.visibleOps) >= 2 && Number(sub.visibleWeights) >= 2, `${where}: the then_branch opens with its op boxes and weight rows (${JSON.stringify(sub)})`);
    const crumbs = await page.textContent("#graph-crumbs");
    check(/sample/.test(crumbs) && /then/.test(crumbs), `${where}: a breadcrumb leads back (${crumbs})`);
    await page.fill("#graph-search", '"then_mul"');
    await page.waitForTimeout(80);
    await page.click("#graph-weights [data-tensor]");
    await page.waitForFunction(() => document.querySelector('[data-view="tensor"]')?.getAttribute("aria-selected") === "true", null, { timeout: 10_000 }).catch(() => {});
    const hash = await page.evaluate(() => decodeURIComponent(location.hash));
    check(hash.includes("t=If_0/then_branch/w_then") && hash.includes("v=tensor"), `${where}: a branch weight opens its tensor view in one click (${hash})`);
    check(problems.length === 0, `${where}: no console errors (${problems.join("; ")})`);
    await page.close();

    // an .april of three onnx.create networks
    where = `${viewport.name}, april.create of three networks`;
    ({ page, problems } = await openGraphOf(context, aprilPath, where));
    const picker = await page.evaluate(() => { const p = document.querySelector("#graph-picker"); return { hidden: p.hidden, visible: p.getBoundingClientRect().width > 0, options: [...p.options].map((o) => o.textContent) }; });
    check(!picker.hidden && picker.visible && JSON.stringify(picker.options) === JSON.stringify(["encoder", "decoder", "joiner"]), `${where}: the picker offers the three networks (${JSON.stringify(picker)})`);
    const encoder = await readableFirstView(page, `${where}, encoder`);
    check(encoder.graph === "encoder", `${where}: the encoder is shown first (${encoder.graph})`);
    for (const [index, name, tag, rows] of [[1, "decoder", "dec", 6], [2, "joiner", "join", 7]]) {
      await page.selectOption("#graph-picker", String(index));
      await waitForGraph(page, name);
      await page.waitForTimeout(100);
      const shown = await readableFirstView(page, `${where}, ${name}`);
      check(Number(shown.visibleWeights) >= 2, `${where}: the ${name}'s weight rows are drawn (${shown.visibleWeights})`);
      await page.fill("#graph-search", `"${tag}_mm"`);
      await page.waitForTimeout(80);
      const weights = await page.evaluate(() => [...document.querySelectorAll("#graph-weights [data-tensor]")].map((b) => [b.textContent, b.dataset.tensor]));
      check(JSON.stringify(weights) === JSON.stringify([[`B ⟨4×${rows}⟩`, `${name}/${tag}.weight`]]), `${where}: the ${name}'s MatMul links its weight by the table's name ${JSON.stringify(weights)}`);
      const hash = await page.evaluate(() => decodeURIComponent(location.hash));
      check(hash.includes(`g=${index}`), `${where}: the hash keeps the network (${hash})`);
    }
    check(problems.length === 0, `${where}: no console errors (${problems.join("; ")})`);
    await page.close();

    where = `${viewport.name}, april with an unreadable joiner`;
    ({ page, problems } = await openGraphOf(context, brokenAprilPath, where));
    await page.selectOption("#graph-picker", "2");
    await waitForGraph(page, "joiner");
    const broken = await page.evaluate(() => ({ error: document.querySelector("#graph").dataset.error, side: document.querySelector("#graph-error")?.textContent ?? "", option: document.querySelector("#graph-picker").selectedOptions[0]?.textContent }));
    check(broken.error.length > 0 && broken.side.includes(broken.error) && /not readable/.test(broken.option), `${where}: the joiner shows why it is not drawn (${JSON.stringify(broken)})`);
    check(problems.length === 0, `${where}: no console errors (${problems.join("; ")})`);
    await page.close();

    // a real PyTorch export
    if (existsSync(silero)) {
      where = `${viewport.name}, silero_vad_v5.onnx`;
      ({ page, problems } = await openGraphOf(context, silero, where));
      const shown = await readableFirstView(page, where);
      timings.push(`${where}: ${shown.sourceNodes} nodes → ${shown.nodes} boxes, layout ${shown.engine} in ${shown.layoutMs} ms`);
      // issue 36: the sample-rate check reads `B = 16000` once the small constants are loaded, and the Equal's
      // output (no declared type) has an inferred shape, said so in the node panel and the legend
      await page.fill("#graph-search", '"Equal"');
      await page.waitForFunction(() => /= 16000/.test(document.querySelector("#graph-weights")?.textContent ?? ""), null, { timeout: 30_000 }).catch(() => {});
      const equal = await page.evaluate(() => ({ weights: document.querySelector("#graph-weights")?.textContent ?? "", outputs: document.querySelector("#graph-node-output-values")?.textContent ?? "", legend: document.querySelector("#graph-legend")?.textContent ?? "" }));
      check(/B ⟨⟩ = 16000/.test(equal.weights), `${where}: the Equal's constant is shown with its value (${equal.weights})`);
      check(/bool ⟨⟩ \(inferred by tensorfile\)/.test(equal.outputs), `${where}: the Equal's output shape is inferred and says so (${equal.outputs})`);
      check(/inferred by tensorfile, marked \*/.test(equal.legend), `${where}: the legend says which labels are inferred (${equal.legend})`);
      // the network itself is in the If's branches (one per sample rate): open one
      await page.fill("#graph-search", '"If_0"');
      await page.waitForTimeout(80);
      await page.click("#graph-side button >> text=open then_branch");
      await page.waitForFunction(() => document.querySelector("#graph")?.dataset.depth === "2" && document.querySelector("#graph")?.dataset.engine, null, { timeout: 30_000 });
      await page.waitForTimeout(100);
      const branch = await readableFirstView(page, `${where}, then_branch`);
      check(Number(branch.sourceNodes) > 50, `${where}: the then_branch holds the network (${branch.sourceNodes} nodes)`);
      await page.fill("#graph-search", '"Conv"');
      await page.waitForTimeout(80);
      const conv = await graphData(page);
      check(Number(conv.visibleWeights) >= 1 && Number(conv.weightLabelPx) >= 11, `${where}: a Conv of the branch is shown with its weight row (${conv.visibleWeights} rows at ${conv.weightLabelPx} px)`);
      const link = await page.evaluate(() => document.querySelector("#graph-weights [data-tensor]")?.dataset.tensor ?? "");
      check(link.startsWith("If_0/then_branch/"), `${where}: the branch's Conv weight links to its tensor by its path name (${link})`);
      if (viewport.width > 1000) await page.screenshot({ path: join(work, "silero.png") });
      check(problems.length === 0, `${where}: no console errors (${problems.join("; ")})`);
      await page.close();
    } else console.log(`note: ${silero} not found (npm ci)`);

    // TenniS → ONNX
    where = `${viewport.name}, tsm.create module`;
    ({ page, problems } = await openGraphOf(context, convertibleTsm, where));
    await page.waitForFunction(() => document.querySelector("#graph-export-onnx")?.dataset.state === "convertible", null, { timeout: 30_000 }).catch(() => {});
    const button = await page.evaluate(() => { const b = document.querySelector("#graph-export-onnx"); return b && { disabled: b.disabled, state: b.dataset.state, visible: b.getBoundingClientRect().width > 0 }; });
    check(button && !button.disabled && button.visible, `${where}: Export ONNX is offered (${JSON.stringify(button)})`);
    if (button && !button.disabled) {
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#graph-export-onnx")]);
      const got = readFileSync(await download.path());
      const expected = tf.tsm.toOnnx(tf.tsm.read(readFileSync(convertibleTsm)));
      check(download.suggestedFilename() === "dense.onnx", `${where}: the download is named dense.onnx (${download.suggestedFilename()})`);
      check(Buffer.compare(got, Buffer.from(expected)) === 0, `${where}: the downloaded bytes are tsm.toOnnx's (${got.length} vs ${expected.length} bytes)`);
      const names = tf.onnx.tensorInfos(tf.onnx.read(new Uint8Array(got))).map((i) => i.name);
      check(names.includes("fc/weights") && names.includes("fc/bias"), `${where}: the download reads as ONNX holding the module's weights (${names.join(", ")})`);
    }
    check(problems.length === 0, `${where}: no console errors (${problems.join("; ")})`);
    await page.close();

    where = `${viewport.name}, tsm with an unsupported op`;
    ({ page, problems } = await openGraphOf(context, blockedTsm, where));
    await page.waitForFunction(() => document.querySelector("#graph-export-onnx")?.dataset.state === "blocked", null, { timeout: 30_000 }).catch(() => {});
    const blocked = await page.evaluate(() => { const b = document.querySelector("#graph-export-onnx"); const n = document.querySelector("#graph-onnx-note"); return { disabled: b?.disabled, state: b?.dataset.state, note: n?.textContent ?? "", noteVisible: !!n && !n.hidden && n.getBoundingClientRect().height > 0 }; });
    check(blocked.disabled === true && blocked.noteVisible && blocked.note.includes("frobnicate") && blocked.note.includes("mystery_node"), `${where}: Export ONNX is disabled and names the op and node (${JSON.stringify(blocked)})`);
    check(problems.length === 0, `${where}: no console errors (${problems.join("; ")})`);
    await page.close();
  } finally {
    await context.close();
  }
}

const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
const viewports = [{ name: "1366×768", width: 1366, height: 768 }, { name: "390 px", width: 390, height: 844, isMobile: true, hasTouch: true }];
const timings = [];
try {
  // TENSORFILE_GRAPH_TESTS=onnx runs only the ONNX / april / Export ONNX part (quicker while working on it)
  for (const viewport of process.env.TENSORFILE_GRAPH_TESTS === "onnx" ? [] : viewports) {
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, isMobile: viewport.isMobile ?? false, hasTouch: viewport.hasTouch ?? false, acceptDownloads: true });
    for (const graph of graphs) {
      const where = `${viewport.name}, ${graph.label}`;
      const { page, problems } = await openGraphOf(context, graph.path, where, 120_000);
      const first = await graphData(page);
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
  for (const viewport of viewports) await onnxScenarios(viewport);
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
for (const line of timings) console.log(`  ${line}`);
console.log(`inspector graph test: ${counts.passed} checks passed, ${counts.failures.length} failed`);
process.exit(counts.failures.length === 0 ? 0 : 1);
