// Graph layout benchmark (issue 26): the inspector's layered layout (web/src/model/layered-layout.ts, bundled
// here with esbuild) on ResNet-like graphs of 1,000 … 10,000 TenniS nodes made with tsm.create, folded the way
// the page folds them (weights inside their consumers), and dagre on the sizes it can still do, for a same-run
// ratio. Prints milliseconds per layout; no thresholds. The browser number (in the page's layout worker) is
// printed by test/runtimes/inspector-graph.mjs as data-layout-ms.
// Usage: npm run build && node bench/graph-layout.bench.mjs [nodes…]
import { build } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const entry = `
export { layeredLayout } from ${JSON.stringify(join(root, "web/src/model/layered-layout.ts"))};
export { dagreLayout, layoutInput } from ${JSON.stringify(join(root, "web/src/model/layout.ts"))};
export { tsmGraphModel } from ${JSON.stringify(join(root, "web/src/model/graph-tsm.ts"))};
`;
const dir = mkdtempSync(join(tmpdir(), "graph-bench-"));
writeFileSync(join(dir, "entry.ts"), entry);
await build({ entryPoints: [join(dir, "entry.ts")], bundle: true, platform: "node", format: "esm", outfile: join(dir, "bundle.mjs"), logLevel: "error" });
const lib = await import(pathToFileURL(join(dir, "bundle.mjs")).href);
rmSync(dir, { recursive: true, force: true });
const { tsm } = await import(pathToFileURL(join(root, "dist/index.js")).href);
const { resnetModule } = await import(pathToFileURL(join(root, "test/helpers/big-graph.mjs")).href);

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
for (const nodes of sizes.length > 0 ? sizes : [1000, 3000, 10_000]) {
  const module = resnetModule(tsm, nodes);
  const model = lib.tsmGraphModel(tsm.graph(module));
  const input = lib.layoutInput(model);
  let t = performance.now();
  const layout = lib.layeredLayout(input.nodes, input.edges);
  const layered = performance.now() - t;
  let dagre = "skipped (stack overflow above ~2,000 nodes)";
  if (model.nodes.length <= 1500) {
    t = performance.now();
    try {
      lib.dagreLayout(input);
      dagre = `${(performance.now() - t).toFixed(0)} ms`;
    } catch (error) {
      dagre = `failed: ${error.message}`;
    }
  }
  console.log(`${nodes} TenniS nodes → ${model.nodes.length} boxes, ${model.edges.length} edges: layered ${layered.toFixed(0)} ms (${Math.round(layout.width)}×${Math.round(layout.height)} px); dagre ${dagre}`);
}
