// After tsc: single-file bundles of the entry points that processes start from, and the CLI made executable.
//
// - dist/index.modules.js: tsc's main entry, renamed (it imports the per-file modules beside it). The exports map
//   gives it to bundlers ("default"), which tree-shake it to what an application imports.
// - dist/index.js: an esbuild bundle of it, one file, for Node and Deno ("node"/"deno" conditions, and relative
//   imports): one file to resolve, read and compile instead of ~50, with fflate (SPRAAK gzip only) evaluated on
//   first use instead of at import (its tables cost ~15 ms of start-up). dist/node.js re-exports it.
// - dist/cli.js: the bin, bundled the same way.
// Declarations (.d.ts) are tsc's; "types" in the exports map serves every condition.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));

/**
 * `import { Inflate, gzipSync } from "fflate"` becomes a module whose exports load fflate on their first call
 * (esbuild wraps a require()d module in a lazy initializer).
 */
const lazyFflate = {
  name: "lazy-fflate",
  setup(b) {
    b.onResolve({ filter: /^fflate$/ }, (args) => (args.pluginData === "real" ? undefined : { path: "lazy-fflate", namespace: "lazy-fflate" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-fflate" }, () => ({
      resolveDir: dist,
      pluginData: "real",
      contents: `let real;
const load = () => (real ??= require("fflate"));
export function Inflate(callback) { return new (load().Inflate)(callback); }
export function gzipSync(data, options) { return load().gzipSync(data, options); }`,
    }));
  },
};

// tsc's index.js -> index.modules.js (its source map too); skipped when dist/index.js is already the bundle
const modules = dist + "index.modules.js";
if (!readFileSync(dist + "index.js", "utf8").includes('from "./formats/bw2l.js"')) {
  console.error("finish-build: dist/index.js is not tsc's output (run tsc first: npm run build)");
  process.exit(1);
}
renameSync(dist + "index.js", modules);
renameSync(dist + "index.js.map", modules + ".map");
writeFileSync(modules, readFileSync(modules, "utf8").replace("//# sourceMappingURL=index.js.map", "//# sourceMappingURL=index.modules.js.map"));
const map = JSON.parse(readFileSync(modules + ".map", "utf8"));
map.file = "index.modules.js";
writeFileSync(modules + ".map", JSON.stringify(map));

for (const [entry, out, platform] of [["index.modules.js", "index.js", "neutral"], ["cli.js", "cli.js", "node"]]) {
  const result = await build({
    entryPoints: [dist + entry], outfile: dist + out, allowOverwrite: true,
    bundle: true, format: "esm", platform, target: "es2022", mainFields: ["module", "main"],
    sourcemap: true, legalComments: "inline", logLevel: "warning", plugins: [lazyFflate],
  });
  if (result.errors.length > 0 || result.warnings.length > 0) process.exit(1);
}
const cli = new URL("../dist/cli.js", import.meta.url);
if (existsSync(cli)) chmodSync(cli, 0o755);
