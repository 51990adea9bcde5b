// Graph layout quality against dagre (issue 36): whisper-like transformer exports made here with onnx.create
// (decomposed LayerNorm, attention with Reshape/Transpose, GELU, residual Adds: long edges, like PyTorch's
// exports), folded the way the page folds them (graph-onnx.ts), laid out by the page's layered layout and by
// @dagrejs/dagre (a child process with a large stack and a time limit: dagre overflows the default stack near
// 2,000 boxes and takes minutes beyond). For each: edge crossings (segment pairs that cross, endpoints shared by
// a box excluded), total edge length, the bounding box (what "fit" shows) and the time. No thresholds: it prints
// the numbers and the ratios ours/dagre.
// Usage: npm run build && node bench/graph-quality.bench.mjs [nodes…]   (default 500 1000 3790 7534)
//        DAGRE_SECONDS=120 limits each dagre run (default 180).
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

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

/** A whisper-like encoder of about `target` ONNX nodes (≈ 50 per layer). */
function whisperLike(target) {
  const nodes = [];
  const initializers = [];
  let k = 0;
  const weight = (dims) => {
    const name = `w${initializers.length}`;
    initializers.push({ name, dtype: "float32", dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)) });
    return name;
  };
  const op = (opType, inputs, attributes) => {
    const out = `v${k++}`;
    nodes.push({ name: `${opType}_${k}`, opType, inputs, outputs: [out], ...(attributes ? { attributes } : {}) });
    return out;
  };
  const layerNorm = (x) => {
    const mean = op("ReduceMean", [x], { axes: [-1] });
    const d = op("Sub", [x, mean]);
    const v = op("ReduceMean", [op("Pow", [d, weight([])])], { axes: [-1] });
    const n = op("Div", [d, op("Sqrt", [op("Add", [v, weight([])])])]);
    return op("Add", [op("Mul", [n, weight([4])]), weight([4])]);
  };
  const linear = (x) => op("Add", [op("MatMul", [x, weight([4, 4])]), weight([4])]);
  const heads = (x) => op("Transpose", [op("Reshape", [x, weight([4])])], { perm: [0, 2, 1, 3] });
  let x = op("Conv", ["mel", weight([4, 4, 3]), weight([4])]);
  x = op("Add", [op("Transpose", [x], { perm: [0, 2, 1] }), weight([4, 4])]);
  while (nodes.length + 52 <= target) {
    const h = layerNorm(x);
    const q = heads(linear(h));
    const kk = heads(linear(h));
    const v = heads(linear(h));
    const scores = op("Softmax", [op("Mul", [op("MatMul", [q, op("Transpose", [kk], { perm: [0, 1, 3, 2] })]), weight([])])], { axis: -1 });
    const attended = op("Reshape", [op("Transpose", [op("MatMul", [scores, v])], { perm: [0, 2, 1, 3] }), weight([3])]);
    x = op("Add", [x, linear(attended)]);
    const m = linear(layerNorm(x));
    const gelu = op("Mul", [op("Mul", [m, op("Add", [op("Erf", [op("Div", [m, weight([])])]), weight([])])]), weight([])]);
    x = op("Add", [x, linear(gelu)]);
  }
  while (nodes.length < target - 1) x = op("Relu", [x]);
  nodes.push({ name: "final", opType: "Identity", inputs: [layerNorm(x)], outputs: ["out"] });
  const bytes = onnx.write(onnx.create({ graph: { name: `whisper-${target}`, inputs: [{ name: "mel", dtype: "float32", shape: [1, 80, 3000] }], outputs: [{ name: "out", dtype: "float32", shape: [1, 1500, 4] }], initializers, nodes } }));
  return lib.onnxGraphDocument(onnx.read(bytes)).graphs[0];
}

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
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const fmt = (m) => `${m.crossings} crossings, edge length ${m.length.toLocaleString("en-US")}, box ${m.width}×${m.height}`;
for (const target of sizes.length > 0 ? sizes : [500, 1000, 3790, 7534]) {
  const model = whisperLike(target);
  const input = lib.layoutInput(model);
  let t = performance.now();
  const ours = lib.layeredLayout(input.nodes, input.edges);
  const oursMs = performance.now() - t;
  const oursM = measure(ours, input);
  console.log(`${model.name}: ${model.sourceNodes} ONNX nodes → ${model.nodes.length} boxes, ${model.edges.length} edges`);
  console.log(`  layered: ${fmt(oursM)}, ${oursMs.toFixed(0)} ms`);
  // dagre in a child (a big stack, a time limit)
  const inputPath = join(dir, `input-${target}.json`);
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
