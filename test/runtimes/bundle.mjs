// The package through two bundlers, as browser users build it: esbuild --bundle --platform=browser and a Vite
// production build (Rolldown) of the built package must succeed with no error and no warning; tree-shaking keeps
// one format small. "tensorfile" resolves through package.json "exports" (a package may import itself by name), as
// it does in an application. Prints the gzip sizes of a few entry points with both and writes the esbuild bundle
// of the smoke page for browser.mjs to run in Chromium.
// Usage: node test/runtimes/bundle.mjs [OUTDIR]  (after npm run build). Exits 1 on an error, a warning or an entry
// over its size budget.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { build as viteBuild, createLogger } from "vite";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Fails when a browser bundle statically imports a node: module (fromFile's dynamic one fails only if called). */
function checkNoNodeImport(text, name) {
  if (/(?:^|[;}\s])import[^(]*?from\s*["']node:/.test(text)) throw new Error(`${name}: the browser bundle statically imports a node: module`);
}

/** Bundles `source` (an ES module importing "tensorfile") for the browser with esbuild; returns the output text. */
export async function bundle(source, name) {
  const result = await build({
    stdin: { contents: source, resolveDir: root, sourcefile: `${name}.mjs` },
    bundle: true, platform: "browser", format: "esm", minify: true, write: false, logLevel: "silent",
  });
  const problems = [...result.errors, ...result.warnings];
  if (problems.length > 0) throw new Error(`${name}: esbuild reported ${problems.map((p) => p.text).join("; ")}`);
  const text = result.outputFiles[0].text;
  checkNoNodeImport(text, name);
  return text;
}

/** The same with a Vite production build (Rolldown; minified, one chunk); returns the output text. */
export async function bundleWithVite(source, name) {
  mkdirSync(join(root, "build"), { recursive: true });
  const dir = mkdtempSync(join(root, "build/vite-entry-"));
  try {
    const entry = join(dir, "entry.js");
    writeFileSync(entry, source);
    const warnings = [];
    const logger = createLogger("warn");
    logger.warn = (message) => warnings.push(message);
    logger.warnOnce = (message) => warnings.push(message);
    const result = await viteBuild({
      configFile: false, root: dir, logLevel: "warn", customLogger: logger,
      build: { write: false, minify: true, rolldownOptions: { input: entry, onwarn: (warning) => warnings.push(warning.message) } },
    });
    if (warnings.length > 0) throw new Error(`${name}: vite warned: ${warnings.join("; ")}`);
    const chunks = (Array.isArray(result) ? result[0] : result).output.filter((o) => o.type === "chunk");
    const text = chunks.map((chunk) => chunk.code).join("\n");
    checkNoNodeImport(text, name);
    return text;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Each entry with its esbuild size budget (KB gzip), set just above what it measured after the row-major formats
// left out the transposes and readFromAny the writers (2026-11-23): a guard against regressions, not a target.
// 2026-11-25 (issue 23): about +0.7 KB where the kernels come along, for their argument checks (TypeErrors).
// Over budget: exit 1. Vite's sizes are printed beside them.
// Note: esbuild keeps every export of a namespace that the main entry re-exports (`spraak.read` from "tensorfile"
// keeps all of `spraak`, `kernels.f16ToF32` all of `kernels`, evanw/esbuild#1420); Vite (Rolldown) keeps only what
// is used. The subpaths ("tensorfile/spraak", "tensorfile/kernels") are per-file modules both bundlers shake.
const entries = {
  // the ONNX format (reader, writer, patcher) and april's weights through it added ~12 KB and ~7 KB (2026-11-25)
  // SPRAAK's multi-member gzip reader (fflate's Gunzip streamed) added ~0.7 KB to spraak (2026-11-25);
  // tsm.toOnnx (the TenniS->ONNX translation and the ONNX builder) added ~10 KB to the tsm namespace, which esbuild keeps
  // whole (Vite: tsm.read alone stays 5 KB) (2026-11-25)
  // the ONNX header walk for asynchronous sources (fromBlob, fromUrl: the browser's path) added ~0.5 KB to readFromAny;
  // large typed-field ONNX weights decoded and patched in pieces (typed-chunks.ts) ~1.7 KB more to everything (2026-11-26)
  // the onnx-tensor format (.pb TensorProto files: its detector, the bare-tensor reader over the ONNX parser, the
  // name-picks-the-parser rule) added ~2.0 KB to everything and ~1.6 KB to readFromAny; fromUrl's version check
  // (If-Range, ETag/Last-Modified) and least body rate, and the FIFO/device refusal of the file openers
  // (io/url-checks.ts, io/file-kind.ts) ~0.8 KB to everything; editing ONNX/april objects (onnx/edit.ts,
  // edit-write.ts: ~6.5 KB) and onnx.quantize/april.quantize (quantize.ts: ~5.5 KB) ~12 KB more; together with ONNX
  // 1.22's field table (onnx/schema.ts: every field known, groups skipped), external data resolved only from a real
  // path (io/regular-file.ts, onnx/external.ts, external-write.ts) and unique names (bytes/names.ts): everything 152.6 KB,
  // readFromAny 62.2 KB measured (2026-11-27)
  // then (2026-11-27, second round): the format registry's records (+0.2 KB to readFromAny, measured alone), ONNX
  // nodes parsed on first use with a fast varint and ASCII path (+1.1 KB wherever onnx.read goes), PatchError and
  // its throw sites, openTensorFolder's export, the streaming quantizeTo (onnx and april) and io/sink.ts: everything
  // 156.7 KB, readFromAny 64.0 KB measured
  // then (2026-11-27, third round; esbuild metafiles against d8aca1c, minified bytes): the ONNX reader's scan of
  // unparsed nodes for Constants' weights and tensors() without an object per node (reader-scan.ts +1.1 KB,
  // view.ts +0.9 KB, reader-graph.ts/wire.ts +0.3 KB), the transpose kernels' padded result pitch (+0.3 KB),
  // npz's checked memberOf (+0.3 KB) and the formats' titles (+0.1 KB) wherever readFromAny goes; in everything
  // also stats.wasm's float32-lane histogram (+1.1 KB), npz's streamed deflated members (+1.0 KB), bw2l's
  // reencode and the edit quantize capabilities (+0.6 KB), and the streamed rewriters of onnx and april as the
  // rewritePieces capability (+0.5 KB; 0.18 KB gzip): everything 159.2 KB, readFromAny 65.3 KB measured
  "everything": [`import * as tf from "tensorfile"; globalThis.tf = tf;`, 159.5],
  "readFromAny + fromBlob": [`import { readFromAny, fromBlob } from "tensorfile"; globalThis.x = [readFromAny, fromBlob];`, 65.5],
  "spraak only": [`import { spraak } from "tensorfile"; globalThis.x = spraak.read;`, 31],
  // the float32-lane range test of histogramF32 (stats.wasm 7468 -> 8003 bytes) and the transposes' padded result
  // pitch (kernels/transpose.ts): kernels 19.3 KB; the pitch alone in bw2l's namespace: 28.6 KB (2026-11-27)
  "kernels only": [`import { kernels } from "tensorfile"; globalThis.x = kernels.f16ToF32;`, 19.5],
  "bw2l only": [`import { bw2l } from "tensorfile"; globalThis.x = bw2l.read;`, 29],
  // tsm.toOnnx's dtype tables and input checks (every model it writes loads in onnxruntime) travel with the tsm
  // namespace (34.2 KB), and unique names (bytes/names.ts) with primitiv's (24.7 KB) (2026-11-27)
  "tsm only": [`import { tsm } from "tensorfile"; globalThis.x = tsm.read;`, 35],
  // PatchError's constructor with the patch encoder's refusals: 25.1 KB (2026-11-27, second round)
  "primitiv only": [`import { primitiv } from "tensorfile"; globalThis.x = primitiv.read;`, 25.5],
  // the subpaths: single functions keep only what they reach (f16ToF32: the convert module)
  "subpath spraak: read": [`import * as spraak from "tensorfile/spraak"; globalThis.x = spraak.read;`, 12.5],
  "subpath spraak: all": [`import * as spraak from "tensorfile/spraak"; globalThis.x = spraak;`, 31],
  "subpath bw2l: read+tensors": [`import { read, tensors } from "tensorfile/bw2l"; globalThis.x = [read, tensors];`, 16],
  // ONNX 1.22's field table (onnx/schema.ts) and the reader's record of each message for edits: 17.8 KB (2026-11-27)
  // nodes parsed on first use (the scan that defers a node only when it will parse), varints without BigInt and
  // short ASCII strings without TextDecoder (issue 34: read 0.1-0.4x of onnx-proto's decode): 19.6 KB (2026-11-27)
  // Constants' weights taken from unparsed node bytes and tensors() visiting waiting nodes without an object per
  // node (reader-scan.ts, view.ts): 20.4 KB (2026-11-27, third round)
  "subpath onnx: read+tensors": [`import { read, tensors } from "tensorfile/onnx"; globalThis.x = [read, tensors];`, 20.5],
  "subpath kernels: f16ToF32": [`import { f16ToF32 } from "tensorfile/kernels"; globalThis.x = f16ToF32;`, 4.5],
  "subpath kernels: stats": [`import { stats, histogram } from "tensorfile/kernels"; globalThis.x = [stats, histogram];`, 10.5],
  "safetensors/npy export": [`import { writeSafetensors, writeNpy } from "tensorfile"; globalThis.x = [writeSafetensors, writeNpy];`, 3],
};
// run as a script (scripts/bundle-sizes.mjs imports bundle and bundleWithVite only)
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();

async function main() {
const out = resolve(process.argv[2] ?? join(root, "build/bundle"));
mkdirSync(out, { recursive: true });
let failed = false;
for (const [name, [source, budget]] of Object.entries(entries)) {
  try {
    const kb = gzipSync(await bundle(source, name)).length / 1024;
    const viteKb = gzipSync(await bundleWithVite(source, name)).length / 1024;
    const over = kb > budget;
    console.log(`bundle: ${name.padEnd(28)} esbuild ${kb.toFixed(1).padStart(5)} KB gzip (budget ${budget}), vite ${viteKb.toFixed(1).padStart(5)} KB, no errors or warnings${over ? ": OVER BUDGET" : ""}`);
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
}
