#!/usr/bin/env node
// Fails (exit 1) when a module imports from a layer above its own, or one format imports another outside the
// declared ties. The rules are data: the layer table and the ties table of docs/architecture.md ("## The
// layers"), read by this script, so the page and the check cannot disagree.
//
//   node scripts/check-layers.mjs          # or: npm run check:layers
//   node scripts/check-layers.mjs --json   # the violations as JSON
//   node scripts/check-layers.mjs --doc FILE --root DIR   # another page or tree (the tests use this)
//
// The layer table: one row a layer, bottom first; its "modules" cell lists globs in backticks, relative to the
// root (`bindings/errors.ts`, `bindings/io/**`, `bindings/formats/*/**`). A module belongs to the row of the most
// specific glob that matches it (the most characters outside wildcards; the earlier row on a tie), so
// `bindings/formats/*/format.ts` in one row takes those modules from `bindings/formats/*/**` in another. It may
// import from its own layer and any row above it in the table (a lower layer).
// Every .ts module under bindings/ and web/src/ must match a row: a new folder is placed on purpose.
//
// Formats: a module of formats/<x>/ (or the facade formats/<x>.ts) may import, among the formats, only its own
// folder, the rows' shared modules outside formats/<name>/, and the ties table's "from -> to" pairs, each a pair of
// globs in backticks (`bindings/formats/npz/**` | `bindings/formats/npy/parse.ts`).
//
// The import graph comes from dpdm over the TypeScript sources, as in check-cycles.mjs: `import type`, `export …
// from` and dynamic import() edges all count.
import { parseDependencyTree } from "dpdm";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { existsSync, readFileSync } from "node:fs";

const argValue = (flag) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const root = path.resolve(argValue("--root") ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
const docPath = path.resolve(root, argValue("--doc") ?? "docs/architecture.md");
const json = process.argv.includes("--json");

/** `a/**`, `a/*.ts`, `a/b.ts` → a RegExp over root-relative paths with forward slashes. */
export function globToRegExp(glob) {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      out += ".*";
      i++;
      if (glob[i + 1] === "/") i++;
    } else if (c === "*") out += "[^/]*";
    else out += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/** The rows of the first Markdown table after `heading` whose header has a cell named `column`. */
function tableAfter(text, heading, column) {
  const start = text.indexOf(heading);
  if (start < 0) return null;
  const lines = text.slice(start).split("\n");
  for (let i = 0; i < lines.length - 1; i++) {
    if (!lines[i].startsWith("|") || !/^\|[\s|:-]+\|$/.test(lines[i + 1].trim())) continue;
    const cells = (line) => line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
    const header = cells(lines[i]).map((c) => c.toLowerCase());
    if (!header.includes(column)) continue;
    const rows = [];
    for (let j = i + 2; j < lines.length && lines[j].startsWith("|"); j++) {
      const row = cells(lines[j]);
      rows.push(Object.fromEntries(header.map((h, k) => [h, row[k] ?? ""])));
    }
    return rows;
  }
  return null;
}

const codeSpans = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

function fail(message) {
  console.error(`check-layers: ${message}`);
  process.exit(2);
}

if (!existsSync(docPath)) fail(`no ${path.relative(root, docPath)}`);
const doc = readFileSync(docPath, "utf8");
const layerRows = tableAfter(doc, "## The layers", "modules");
if (!layerRows || layerRows.length === 0) fail(`no layer table (a table with a "modules" column) under "## The layers" in ${docPath}`);
const layers = layerRows.map((row, rank) => ({
  name: row.layer.replace(/`/g, ""),
  rank,
  globs: codeSpans(row.modules).filter((g) => g.includes("/")).map((g) => ({ glob: g, re: globToRegExp(g) })),
}));
for (const layer of layers) if (layer.globs.length === 0) fail(`the layer "${layer.name}" names no module glob (in backticks, with a folder)`);
const tieRows = tableAfter(doc, "## The layers", "to") ?? [];
const ties = tieRows.map((row) => ({ from: codeSpans(row.from)[0], to: codeSpans(row.to)[0] })).filter((t) => t.from && t.to).map((t) => ({ ...t, fromRe: globToRegExp(t.from), toRe: globToRegExp(t.to) }));

const specificity = (glob) => glob.replace(/\*/g, "").length;
const layerOf = (file) => {
  let best = null;
  for (const layer of layers) {
    for (const g of layer.globs) {
      if (g.re.test(file) && (best === null || specificity(g.glob) > best.score)) best = { layer, score: specificity(g.glob) };
    }
  }
  return best?.layer;
};
/** formats/<x>/… and formats/<x>.ts → "x"; any other module → null. */
const formatOf = (file) => /^bindings\/formats\/([^/]+?)(?:\.ts$|\/)/.exec(file)?.[1] ?? null;
const isFormatModule = (file) => {
  const name = formatOf(file);
  return name !== null && existsSync(path.join(root, "bindings/formats", name)) && (file.startsWith(`bindings/formats/${name}/`) || file === `bindings/formats/${name}.ts`);
};

const folders = ["bindings", "web/src"].filter((f) => existsSync(path.join(root, f)));
const tree = await parseDependencyTree(folders.map((f) => `${f}/**/*.ts`), {
  cwd: root,
  context: root,
  tsconfig: existsSync(path.join(root, "tsconfig.json")) ? path.join(root, "tsconfig.json") : undefined,
  transform: false,
  skipDynamicImports: false,
  include: /\.ts$/,
  exclude: /node_modules/,
});

const problems = [];
const modules = Object.keys(tree).filter((id) => folders.some((f) => id.startsWith(`${f}/`)) && id.endsWith(".ts") && !id.endsWith(".d.ts"));
for (const file of modules.sort()) {
  const own = layerOf(file);
  if (!own) {
    problems.push({ file, problem: "is in no layer of the table (add its folder to a row of docs/architecture.md)" });
    continue;
  }
  for (const dep of tree[file] ?? []) {
    const target = dep.id;
    if (!target || !folders.some((f) => target.startsWith(`${f}/`))) continue;
    const theirs = layerOf(target);
    if (!theirs) continue; // reported as its own file
    if (theirs.rank > own.rank) {
      problems.push({ file, imports: target, problem: `imports up a layer: "${own.name}" may not import from "${theirs.name}"` });
      continue;
    }
    if (isFormatModule(file) && isFormatModule(target) && formatOf(file) !== formatOf(target)) {
      const tied = ties.some((t) => t.fromRe.test(file) && t.toRe.test(target));
      if (!tied) problems.push({ file, imports: target, problem: `one format imports another (formats/${formatOf(file)} -> formats/${formatOf(target)}) outside the declared ties` });
    }
  }
}

if (json) console.log(JSON.stringify({ modules: modules.length, layers: layers.map((l) => l.name), problems }, null, 2));
else if (problems.length === 0) console.log(`check-layers: ${modules.length} modules in ${layers.length} layers, every import runs down (or within) a layer; ${ties.length} declared ties between formats`);
else {
  console.log(`check-layers: ${problems.length} problem${problems.length === 1 ? "" : "s"} (the table: docs/architecture.md, "The layers"):`);
  for (const p of problems) console.log(`  ${p.file}${p.imports ? ` -> ${p.imports}` : ""}: ${p.problem}`);
}
process.exit(problems.length === 0 ? 0 : 1);
