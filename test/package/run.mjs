// The package as users install it: `npm pack`, install the tarball into a fresh temporary project, then an ESM
// import, a CommonJS require, the tensorfile/kernels and tensorfile/<format> subpaths, `npx tensorfile --help`, a strict TypeScript example
// (test/package/usage.ts; skipLibCheck false; module resolution node16, nodenext and bundler) and an esbuild browser
// bundle of the installed package run in headless Chromium. Usage: npm run test:package (after npm run build). Exits 1 on failure.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const work = mkdtempSync(join(tmpdir(), "tensorfile-package-"));
let failures = 0;
function step(name, fn) {
  return Promise.resolve().then(fn).then(
    (detail) => console.log(`package: ok   ${name}${detail ? ` (${detail})` : ""}`),
    (error) => {
      failures++;
      console.error(`package: FAIL ${name}: ${error.stderr?.toString() || error.stdout?.toString() || error.message}`);
    },
  );
}
const run = (cmd, args, cwd = work) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_update_notifier: "false" } }).toString();

try {
  // pack without running prepack again (the caller built dist/)
  const tgz = run("npm", ["pack", "--ignore-scripts", "--pack-destination", work, "--silent"], root).trim().split("\n").pop();
  const tarball = join(work, tgz);
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "fresh-project", version: "1.0.0", private: true }));
  const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", tarball], { cwd: work, encoding: "utf8" });
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr}`);
  const warned = /install script|allowScripts|deprecated tensorfile/i.test(install.stderr) ? install.stderr : "";
  console.log(`package: installed ${tgz}${warned ? ` (npm said: ${warned.trim()})` : ", no install-script warning"}`);
  if (/install script/i.test(install.stderr)) failures++;
  const files = readdirSync(join(work, "node_modules/tensorfile"));
  await step("the package holds dist, LICENSE, README.md, CHANGELOG.md and package.json only", () => {
    const extra = files.filter((f) => !["dist", "LICENSE", "README.md", "CHANGELOG.md", "package.json"].includes(f));
    if (extra.length > 0 || !files.includes("LICENSE")) throw new Error(`files: ${files.join(", ")}`);
    const cites = spawnSync("grep", ["-rlE", "\\.\\./shared|shared/notes|test/runtimes|test/helpers", join(work, "node_modules/tensorfile/dist"), "--include=*.d.ts"], { encoding: "utf8" }).stdout.trim();
    if (cites) throw new Error(`declarations cite files not in the package: ${cites}`);
    const withSources = spawnSync("grep", ["-rl", "sourcesContent", join(work, "node_modules/tensorfile/dist"), "--include=*.map"], { encoding: "utf8" }).stdout.trim();
    if (withSources) throw new Error(`source maps carry the sources (sourcesContent): ${withSources.split("\n").slice(0, 3).join(", ")}`);
    return files.join(", ");
  });

  await step("ESM import", () => run("node", ["--input-type=module", "-e",
    'import * as tf from "tensorfile"; const b = tf.bw2l.write(tf.bw2l.create({ layers: [] })); if (tf.detectFormat(b) !== "bw2l") throw new Error("detect"); console.log(Object.keys(tf).length)']).trim() + " exports");
  await step("CommonJS require", () => run("node", ["-e",
    'const tf = require("tensorfile"); const h = tf.kernels.f16ToF32(new Uint16Array([0x3c00])); if (h[0] !== 1) throw new Error("f16"); console.log(typeof tf.readAny)']).trim());
  await step("tensorfile/kernels: the main entry's kernels in Node; a bundle of one kernel holds one WASM module", async () => {
    run("node", ["--input-type=module", "-e",
      'import { f16ToF32, setBackend } from "tensorfile/kernels"; import { kernels } from "tensorfile"; setBackend("js"); if (kernels.getBackend() !== "js" || f16ToF32 !== kernels.f16ToF32) throw new Error("two module states")']);
    const result = await build({ stdin: { contents: `import { f16ToF32 } from "tensorfile/kernels"; globalThis.x = f16ToF32;`, resolveDir: work },
      bundle: true, platform: "browser", format: "esm", minify: true, write: false, metafile: true, logLevel: "silent", absWorkingDir: work });
    const kept = Object.entries(Object.values(result.metafile.outputs)[0].inputs).filter(([, input]) => input.bytesInOutput > 0);
    const modules = kept.map(([path]) => path).filter((path) => path.endsWith(".wasm.js")).map((path) => path.split("/").pop());
    if (modules.join() !== "convert.wasm.js") throw new Error(`WASM modules bundled: ${modules.join(", ")}`);
    return `${(result.outputFiles[0].contents.length / 1024).toFixed(1)} KB minified`;
  });
  await step("tensorfile/<format> subpaths: the main entry's namespaces in Node; a bundle of spraak.read has no transposes", async () => {
    const ids = JSON.parse(run("node", ["--input-type=module", "-e", `import * as tf from "tensorfile";
const ids = tf.FORMATS.map((f) => f.id);
for (const id of ids) {
  const sub = await import("tensorfile/" + id);
  const names = Object.keys(sub);
  const ns = tf[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())];
  if (names.length === 0 || names.some((n) => sub[n] !== ns[n]) || names.length !== Object.keys(ns).length) throw new Error(id + ": not the main entry's namespace");
}
try { (await import("tensorfile/spraak")).read(new Uint8Array(3)); } catch (e) { if (!(e instanceof tf.FormatError)) throw new Error("two FormatError classes"); }
console.log(JSON.stringify(ids));`]));
    const result = await build({ stdin: { contents: `import * as spraak from "tensorfile/spraak"; globalThis.x = spraak.read;`, resolveDir: work },
      bundle: true, platform: "browser", format: "esm", minify: true, write: false, metafile: true, logLevel: "silent", absWorkingDir: work });
    const kept = Object.entries(Object.values(result.metafile.outputs)[0].inputs).filter(([, input]) => input.bytesInOutput > 0).map(([path]) => path);
    if (kept.some((path) => path.endsWith("transpose.wasm.js") || path.endsWith("/writer.js"))) throw new Error(`spraak.read bundled: ${kept.join(", ")}`);
    return `${ids.length} subpaths; spraak.read ${(result.outputFiles[0].contents.length / 1024).toFixed(1)} KB minified`;
  });
  await step("npx tensorfile --help", () => {
    const out = run("npx", ["--no-install", "tensorfile", "--help"]);
    if (!out.includes("tensorfile inspect")) throw new Error(out);
    return out.split("\n")[0];
  });

  const tsc = join(root, "node_modules/typescript/bin/tsc");
  copyFileSync(join(root, "test/package/usage.ts"), join(work, "usage.ts"));
  copyFileSync(join(root, "test/package/usage-subpaths.ts"), join(work, "usage-subpaths.ts"));
  for (const [module, resolution] of [["node16", "node16"], ["nodenext", "nodenext"], ["esnext", "bundler"], ["commonjs", "node10"]]) {
    // node10 reads no "exports", so it has no subpaths (tensorfile/kernels, tensorfile/spraak, …)
    const files = resolution === "node10" ? ["usage.ts"] : ["usage.ts", "usage-subpaths.ts"];
    await step(`strict TypeScript (module ${module}, moduleResolution ${resolution}, skipLibCheck false): ${files.join(", ")}`, () => {
      const config = { compilerOptions: { strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false,
        module, moduleResolution: resolution, target: "es2022", lib: ["es2022", "dom"], types: [], noEmit: true }, files };
      writeFileSync(join(work, "tsconfig.json"), JSON.stringify(config));
      // node16/nodenext/bundler: an ESM project; commonjs/node10: a CommonJS one (types through "types")
      writeFileSync(join(work, "package.json"), JSON.stringify({ name: "fresh-project", version: "1.0.0", private: true, ...(module === "commonjs" ? {} : { type: "module" }) }));
      run("node", [tsc, "-p", "tsconfig.json"]);
    });
  }

  // a CommonJS project (no "type": "module") in TypeScript: nodenext compiles its import of the package to a require()
  // Node >= 20.19 runs; node16 refuses it with TS1479 (what docs/bundlers.md says)
  await step("strict TypeScript in a CommonJS project: module nodenext compiles, node16 gives TS1479", () => {
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "fresh-project", version: "1.0.0", private: true }));
    const compile = (module) => {
      const config = { compilerOptions: { strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false,
        module, moduleResolution: module, target: "es2022", lib: ["es2022", "dom"], types: [], noEmit: true }, files: ["usage.ts", "usage-subpaths.ts"] };
      writeFileSync(join(work, "tsconfig.json"), JSON.stringify(config));
      return spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: work, encoding: "utf8" });
    };
    const nodenext = compile("nodenext");
    if (nodenext.status !== 0) throw new Error(`module nodenext: ${nodenext.stdout}${nodenext.stderr}`);
    const node16 = compile("node16");
    if (node16.status === 0 || !node16.stdout.includes("TS1479")) throw new Error(`module node16 was expected to fail with TS1479: ${node16.stdout}`);
    return "TS1479 with node16";
  });

  await step("esbuild browser bundle of the installed package, run in Chromium", async () => {
    const entry = join(work, "entry.mjs");
    writeFileSync(entry, `import * as tf from "tensorfile";
const bytes = tf.bw2l.write(tf.bw2l.create({ layers: [] }));
const opened = await tf.readFromAny(tf.fromBlob(new Blob([bytes])));
window.__result = opened.format + " " + tf.kernels.f16ToF32(new Uint16Array([0x4000]))[0];`);
    const result = await build({ entryPoints: [entry], bundle: true, platform: "browser", format: "esm", write: false, logLevel: "silent", absWorkingDir: work });
    if (result.warnings.length > 0) throw new Error(`esbuild warnings: ${result.warnings.map((w) => w.text).join("; ")}`);
    const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
    if (!existsSync(executablePath)) throw new Error(`${executablePath} not found`);
    const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"] });
    try {
      const page = await browser.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.setContent(`<script type="module">${result.outputFiles[0].text.replace(/<\/script/g, "<\\/script")}</script>`);
      await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30_000 });
      const got = await page.evaluate(() => window.__result);
      if (got !== "bw2l 2" || errors.length > 0) throw new Error(`got ${got}; errors: ${errors.join("; ")}`);
      return got;
    } finally {
      await browser.close();
    }
  });
} catch (error) {
  failures++;
  console.error(`package: FAIL ${error.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(failures === 0 ? "package: all checks passed" : `package: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
