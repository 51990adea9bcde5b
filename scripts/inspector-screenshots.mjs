// Screenshots of the inspector for docs/inspector.md, into docs/img/ (small PNGs): the graph view of a generated
// 3,000-node TenniS module (first view, a search hit with its node panel), the same at phone width, the tensor
// view, the table grouped by layer, a diff with a NaN and a difference heatmap, a line plot, a track with .seg. Headless Debian chromium through playwright-core.
// Also the ONNX graph (silero_vad_v5.onnx from @ricky0123/vad-web, its If branch opened).
// Usage: npm run build && node scripts/inspector-screenshots.mjs [onnx]   (onnx: only docs/img/inspector-graph-onnx.png)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "docs/img");
mkdirSync(out, { recursive: true });
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const { resnetModule } = await import(pathToFileURL(join(root, "test/helpers/big-graph.mjs")).href);
const only = process.argv[2];
const silero = join(root, "node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx");
const work = mkdtempSync(join(tmpdir(), "inspector-shots-"));
const write = (name, bytes) => {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
};
const graph = write("resnet-3000.tsm", tf.tsm.write(resnetModule(tf.tsm, 3000, 32)));
const model = write("model.safetensors", tf.writeSafetensors(Array.from({ length: 4 }, (_, layer) => [
  { name: `encoder.layers.${layer}.attention.weight`, dtype: "float32", shape: [64, 64], data: Float32Array.from({ length: 4096 }, (_, i) => Math.sin(i * 0.37 + layer) * Math.exp(-(i % 64) / 40)) },
  { name: `encoder.layers.${layer}.attention.bias`, dtype: "float32", shape: [64], data: Float32Array.from({ length: 64 }, (_, i) => Math.cos(i / 7) * 0.1) },
]).flat()));
const nanA = write("a.safetensors", tf.writeSafetensors([{ name: "w", dtype: "float32", shape: [4], data: Float32Array.from([1, NaN, 3, 4]) }, { name: "v", dtype: "float32", shape: [3], data: Float32Array.from([1, 2, 3]) }]));
const nanB = write("b.safetensors", tf.writeSafetensors([{ name: "w", dtype: "float32", shape: [4], data: Float32Array.from([1, 2, 3, 4]) }, { name: "v", dtype: "float32", shape: [3], data: Float32Array.from([1, 2, 3.5]) }]));

const line = write("signal.npy", tf.writeNpy({ name: "x", dtype: "float32", shape: [200_000], data: Float32Array.from({ length: 200_000 }, (_, i) => Math.sin(i / 3000) + (i === 123_456 ? 4 : 0) + 0.1 * Math.sin(i / 7)) }));
const { exampleFiles } = await import(pathToFileURL(join(root, "dist/examples.js")).href);
const track = write("demo.trk", exampleFiles().find((e) => e.name === "demo.trk").bytes);
const seg = write("demo.seg", new TextEncoder().encode(".spr\nDATA SEG\nDIM1 4\nDIM2 1\nTIMEBASE DISCRETE\nFSHIFT 0.01\n#\ndemo h# 0 8\n- s 8 14\n- ih 22 16\n- k 38 12\n"));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
const shoot = async (page, name) => {
  await page.screenshot({ path: join(out, name) });
  console.log(`docs/img/${name}`);
};
async function openPage(width, height, paths, mobile = false) {
  const page = await browser.newPage({ viewport: { width, height }, isMobile: mobile, hasTouch: mobile, colorScheme: "light" });
  await page.goto(pathToFileURL(join(root, "dist/web/index.html")).href);
  await page.setInputFiles("#open-file", paths);
  await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
  return page;
}
try {
  // ONNX: silero_vad_v5.onnx (a real PyTorch export), its If's then_branch opened, a Conv found
  if (existsSync(silero)) {
    const page = await openPage(1100, 680, silero);
    await page.click('[data-view="graph"]');
    await page.waitForFunction(() => document.querySelector("#graph")?.dataset.engine, null, { timeout: 60_000 });
    await page.fill("#graph-search", '"If_0"');
    await page.click("#graph-side button >> text=open then_branch");
    await page.waitForFunction(() => document.querySelector("#graph")?.dataset.depth === "2" && document.querySelector("#graph")?.dataset.engine, null, { timeout: 60_000 });
    await page.fill("#graph-search", '"Conv"');
    await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 60_000 }).catch(() => {});
    await page.waitForTimeout(300);
    await shoot(page, "inspector-graph-onnx.png");
    await page.close();
  }
  if (only !== "onnx") {
    let page = await openPage(1100, 680, graph);
    await page.click('[data-view="graph"]');
    await page.waitForFunction(() => document.querySelector("#graph")?.dataset.engine, null, { timeout: 60_000 });
    await page.waitForTimeout(300);
    await shoot(page, "inspector-graph.png");
    await page.fill("#graph-search", "block3/conv_b");
    await page.waitForTimeout(300);
    await shoot(page, "inspector-graph-search.png");
    await page.close();
    page = await openPage(390, 760, graph, true);
    await page.click('[data-view="graph"]');
    await page.waitForFunction(() => document.querySelector("#graph")?.dataset.engine, null, { timeout: 60_000 });
    await page.waitForTimeout(300);
    await shoot(page, "inspector-graph-phone.png");
    await page.close();
    page = await openPage(1100, 680, model);
    await page.waitForFunction(() => document.body.dataset.stats === "done", null, { timeout: 60_000 });
    await page.check("#group-layer");
    await page.waitForTimeout(200);
    await shoot(page, "inspector-table-layers.png");
    await page.dblclick('#tensor-table .grid-row[data-name="encoder.layers.0.attention.weight"] .name');
    await page.waitForSelector("#tensor-stats", { timeout: 30_000 });
    await page.waitForTimeout(500);
    await shoot(page, "inspector-tensor.png");
    await page.close();
    page = await openPage(1100, 560, [nanA, nanB]);
    await page.waitForSelector("#diff-table tr[data-name='w']", { timeout: 30_000 });
    await page.click("#diff-table tr[data-name='v']");
    await page.waitForSelector("#diff-heatmap", { timeout: 30_000 });
    await page.waitForTimeout(300);
    await shoot(page, "inspector-diff-nan.png");
    await page.close();
    page = await openPage(1100, 560, line);
    await page.waitForFunction(() => document.querySelector("#line-plot")?.dataset.window, null, { timeout: 30_000 });
    await page.waitForTimeout(300);
    await shoot(page, "inspector-line-plot.png");
    await page.close();
    page = await openPage(1100, 760, [track, seg]);
    await page.waitForSelector("#segments[data-count]", { timeout: 30_000 });
    await page.waitForTimeout(300);
    await shoot(page, "inspector-speech-seg.png");
    await page.close();
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
