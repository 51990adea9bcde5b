// Builds the inspector page: web/src/main.ts (the page, its workers and the library, WASM included) bundled by
// esbuild into one classic script, inlined with web/style.css into web/index.html, written as ONE self-contained
// file dist/web/index.html. It works from file:// (Chromium refuses module scripts and fetches of sibling files
// there), from any static host and from `tensorfile view`. The workers are the same script, started from a Blob
// URL of its own text (web/src/main.ts). Prints the gzip size; fails above the 250 KB budget (issue 17).
// Usage: node scripts/build-web.mjs [--out FILE]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outArg = process.argv.indexOf("--out");
const out = outArg > 0 ? resolve(process.argv[outArg + 1]) : join(root, "dist/web/index.html");
const BUDGET_GZIP_BYTES = 250 * 1024;

const result = await build({
  entryPoints: [join(root, "web/src/main.ts")],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  minify: true,
  write: false,
  charset: "utf8",
  legalComments: "eof",
  logLevel: "silent",
  define: { "process.env.NODE_ENV": '"production"' },
});
const problems = [...result.errors, ...result.warnings];
if (problems.length > 0) {
  console.error(`build-web: esbuild reported:\n${problems.map((p) => `  ${p.location?.file ?? ""}:${p.location?.line ?? ""} ${p.text}`).join("\n")}`);
  process.exit(1);
}
let script = result.outputFiles[0].text;
// inside an inline <script>, "</script" would end it ("<\/" means the same in strings, templates and regexps),
// and "<!--" followed by "<script" would change how the HTML parser reads the rest
script = script.replace(/<\/script/gi, "<\\/script");
if (script.includes("<!--")) {
  console.error("build-web: the script contains \"<!--\"; write it another way in the source");
  process.exit(1);
}
if (/(?:^|[;}\s])import[^(]*?from\s*["']node:/.test(script)) {
  console.error("build-web: the page statically imports a node: module");
  process.exit(1);
}
const style = readFileSync(join(root, "web/style.css"), "utf8");
const template = readFileSync(join(root, "web/index.html"), "utf8");
if (!template.includes("/*STYLE*/") || !template.includes("/*SCRIPT*/")) {
  console.error("build-web: web/index.html needs the /*STYLE*/ and /*SCRIPT*/ placeholders");
  process.exit(1);
}
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
const html = template
  .replace("/*STYLE*/", () => style)
  .replace("/*SCRIPT*/", () => script)
  .replace(/__VERSION__/g, version);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
const gzip = gzipSync(html, { level: 9 }).length;
console.log(`build-web: ${out.replace(`${root}/`, "")} ${(html.length / 1024).toFixed(1)} KB, ${(gzip / 1024).toFixed(1)} KB gzip (budget ${BUDGET_GZIP_BYTES / 1024} KB)`);
if (gzip > BUDGET_GZIP_BYTES) {
  console.error(`build-web: over the size budget by ${((gzip - BUDGET_GZIP_BYTES) / 1024).toFixed(1)} KB gzip`);
  process.exit(1);
}
