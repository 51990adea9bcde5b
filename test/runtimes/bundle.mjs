// The package through a bundler, as browser users build it: esbuild --bundle --platform=browser of the built
// package must succeed with no error and no warning; tree-shaking keeps one format small. Prints the gzip sizes
// of a few entry points and writes the full bundle of the smoke page for browser.mjs to run in Chromium.
// Usage: node test/runtimes/bundle.mjs [OUTDIR]  (after npm run build). Exits 1 on an error, a warning or an entry
// over its size budget.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const out = resolve(process.argv[2] ?? join(root, "build/bundle"));
mkdirSync(out, { recursive: true });

/** Bundles `source` (an ES module importing "tensorfile") for the browser; returns the output text. */
export async function bundle(source, name) {
  const result = await build({
    stdin: { contents: source, resolveDir: root, sourcefile: `${name}.mjs` },
    bundle: true, platform: "browser", format: "esm", minify: true, write: false, logLevel: "silent",
    // what the exports map gives bundlers ("default"): the per-file modules, tree-shaken
    alias: { tensorfile: join(root, "dist/index.modules.js"), "tensorfile/kernels": join(root, "dist/kernels.js") },
  });
  const problems = [...result.errors, ...result.warnings];
  if (problems.length > 0) throw new Error(`${name}: esbuild reported ${problems.map((p) => p.text).join("; ")}`);
  const text = result.outputFiles[0].text;
  // a static import of a node: module would fail to load in a browser (fromFile's dynamic one fails only if called)
  if (/(?:^|[;}\s])import[^(]*?from\s*["']node:/.test(text)) throw new Error(`${name}: the browser bundle statically imports a node: module`);
  return text;
}

// Each entry with its size budget (KB gzip), set just above what it measured when the kernels were split into one
// WebAssembly module per family (2026-11-23; everything, readFromAny and bw2l raised by the banded transposes of
// bw2l.create and the streaming writers): a guard against regressions, not a target. Over budget: exit 1.
// Note: esbuild keeps every export of a namespace re-export it reaches (`spraak.read` keeps all of `spraak`,
// `kernels.f16ToF32` all of `kernels`, hence every kernel family); within those, each format keeps only the kernel
// families (bindings/wasm/families.ts) its code can reach. Named imports from "tensorfile/kernels" keep only theirs.
const entries = {
  "everything": [`import * as tf from "tensorfile"; globalThis.tf = tf;`, 98],
  "readFromAny + fromBlob": [`import { readFromAny, fromBlob } from "tensorfile"; globalThis.x = [readFromAny, fromBlob];`, 76],
  "spraak only": [`import { spraak } from "tensorfile"; globalThis.x = spraak.read;`, 33.5],
  "kernels only": [`import { kernels } from "tensorfile"; globalThis.x = kernels.f16ToF32;`, 19],
  "bw2l only": [`import { bw2l } from "tensorfile"; globalThis.x = bw2l.read;`, 27.5],
  "tsm only": [`import { tsm } from "tensorfile"; globalThis.x = tsm.read;`, 25],
  "primitiv only": [`import { primitiv } from "tensorfile"; globalThis.x = primitiv.read;`, 24.5],
  // the subpath: single kernels keep only their families (f16ToF32: the convert module)
  "kernels subpath: f16ToF32": [`import { f16ToF32 } from "tensorfile/kernels"; globalThis.x = f16ToF32;`, 4.5],
  "kernels subpath: stats": [`import { stats, histogram } from "tensorfile/kernels"; globalThis.x = [stats, histogram];`, 10.5],
  "safetensors/npy export": [`import { writeSafetensors, writeNpy } from "tensorfile"; globalThis.x = [writeSafetensors, writeNpy];`, 3],
};
let failed = false;
for (const [name, [source, budget]] of Object.entries(entries)) {
  try {
    const text = await bundle(source, name);
    const kb = gzipSync(text).length / 1024;
    const over = kb > budget;
    console.log(`bundle: ${name.padEnd(26)} ${kb.toFixed(1).padStart(6)} KB gzip (budget ${budget}), no errors or warnings${over ? ": OVER BUDGET" : ""}`);
    if (over) failed = true;
  } catch (error) {
    console.error(`bundle: ${error.message}`);
    failed = true;
  }
}
// the smoke page's script, bundled, for browser.mjs
const smoke = await bundle(`import * as tf from "tensorfile"; import { smoke } from ${JSON.stringify(join(root, "test/runtimes/smoke.mjs"))}; globalThis.__tensorfile = tf; globalThis.__smoke = smoke;`, "smoke page");
writeFileSync(join(out, "smoke.js"), smoke);
process.exit(failed ? 1 : 0);
