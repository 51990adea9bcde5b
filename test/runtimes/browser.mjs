// Browser test: headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) loads the built
// package in a page served on 127.0.0.1 with a plain <script type="module"> and an import map for the
// dependencies, runs the kernel smoke check (WASM vs TS twin) and reads a Blob through fromBlob.
// A second page runs the same checks on the esbuild browser bundle that test/runtimes/bundle.mjs writes
// (build/bundle/smoke.js), as a bundler user would ship it.
// Run with `npm run test:browser` after `npm run build`. Exits 1 on failure.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  console.error(`browser test: ${executablePath} not found (apt-get install chromium)`);
  process.exit(1);
}

const page = `<!doctype html><meta charset="utf-8"><title>tensorfile browser test</title>
<script type="importmap">{ "imports": {
  "@assemblyscript/loader": "/node_modules/@assemblyscript/loader/index.js",
  "fflate": "/node_modules/fflate/esm/browser.js",
  "tensorfile/spraak": "/dist/formats/spraak.node.js",
  "tensorfile/kernels": "/dist/kernels.node.js"
} }</script>
<script type="module">
import * as tf from "/dist/index.js";
import * as spraak from "tensorfile/spraak";
import { f16ToF32 } from "tensorfile/kernels";
import { smoke } from "/test/runtimes/smoke.mjs";
try {
  const checks = await smoke(tf);
  // the subpaths as the README maps them without a bundler: re-exports of the same index.js
  if (spraak.read !== tf.spraak.read || f16ToF32 !== tf.kernels.f16ToF32) throw new Error("the mapped subpaths are not the main entry's");
  checks.push("mapped subpaths");
  // fromBlob: a Blob read back in ranges
  const bytes = new Uint8Array(200000).map((_, i) => (i * 7) & 255);
  const source = tf.fromBlob(new Blob([bytes]));
  const part = await source.read(123456, 1000);
  if (part.length !== 1000 || part[0] !== bytes[123456] || part[999] !== bytes[124455]) throw new Error("fromBlob range differs");
  checks.push("fromBlob");
  window.__result = { ok: true, checks, userAgent: navigator.userAgent };
} catch (e) {
  window.__result = { ok: false, error: String(e && e.stack || e) };
}
</script>`;

const bundledPage = `<!doctype html><meta charset="utf-8"><title>tensorfile bundle test</title>
<script type="module" src="/build/bundle/smoke.js"></script>
<script type="module">
try {
  const tf = globalThis.__tensorfile;
  const checks = await globalThis.__smoke(tf);
  const bytes = new Uint8Array(5000).map((_, i) => i & 255);
  const part = await tf.fromBlob(new Blob([bytes])).read(100, 10);
  if (part[0] !== 100) throw new Error("fromBlob range differs");
  let refused = "";
  try { await tf.fromFile("x.b2l"); } catch (e) { refused = String(e.message); }
  if (!/fromBlob/.test(refused)) throw new Error("fromFile in a browser should say to use fromBlob, said: " + refused);
  checks.push("fromBlob", "fromFile refused");
  window.__result = { ok: true, checks, userAgent: navigator.userAgent };
} catch (e) {
  window.__result = { ok: false, error: String(e && e.stack || e) };
}
</script>`;

const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".map": "application/json" };
const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (url.pathname === "/" || url.pathname === "/bundled") {
    res.writeHead(200, { "content-type": "text/html" }).end(url.pathname === "/" ? page : bundledPage);
    return;
  }
  const path = join(root, decodeURIComponent(url.pathname));
  if (!path.startsWith(root) || !existsSync(path)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(await readFile(path));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const { port } = server.address();

const browser = await chromium.launch({
  executablePath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--no-first-run", "--disable-sync", "--disable-quic"],
});
let failed = false;
try {
  for (const [label, path] of [["import map", "/"], ["esbuild bundle", "/bundled"]]) {
    if (path === "/bundled" && !existsSync(join(root, "build/bundle/smoke.js"))) {
      console.error("browser test: build/bundle/smoke.js missing (run node test/runtimes/bundle.mjs first)");
      failed = true;
      continue;
    }
    const tab = await browser.newPage();
    tab.on("pageerror", (e) => console.error("page error:", e.message));
    await tab.goto(`http://127.0.0.1:${port}${path}`);
    await tab.waitForFunction(() => window.__result !== undefined, null, { timeout: 60_000 });
    const result = await tab.evaluate(() => window.__result);
    if (result.ok) {
      console.log(`browser (${label}): ${result.checks.length} checks passed in ${result.userAgent.match(/Chrom\S+/)?.[0] ?? "chromium"} (${result.checks.join(", ")})`);
    } else {
      console.error(`browser test (${label}) failed: ${result.error}`);
      failed = true;
    }
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);
