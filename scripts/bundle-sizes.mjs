#!/usr/bin/env node
// The bundle sizes table of docs/bundlers.md, measured from the current build (npm run build first) with the same
// esbuild and Vite builds as test/runtimes/bundle.mjs (minified, browser, then gzip).
//   node scripts/bundle-sizes.mjs            prints the table
//   node scripts/bundle-sizes.mjs --write    puts it in docs/bundlers.md, between the bundle-sizes markers
//   node scripts/bundle-sizes.mjs --check    exits 1 when a documented size is off by more than 10 % + 0.5 KB
//                                            from the one measured (what CI runs), naming the rows
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { bundle, bundleWithVite } from "../test/runtimes/bundle.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const docPath = resolve(root, "docs/bundlers.md");
const START = "<!-- bundle-sizes:start (node scripts/bundle-sizes.mjs --write) -->";
const END = "<!-- bundle-sizes:end -->";

/** Each row: what it says you import, and the entry modules measured (several: one cell "a / b / c"). */
const ROWS = [
  ["everything (`import * as tf`)", [`import * as tf from "tensorfile"; globalThis.tf = tf;`]],
  ["`readFromAny` + `fromBlob` (every format's readers)", [`import { readFromAny, fromBlob } from "tensorfile"; globalThis.x = [readFromAny, fromBlob];`]],
  ["`{ spraak }` from `\"tensorfile\"`, using `spraak.read`", [`import { spraak } from "tensorfile"; globalThis.x = spraak.read;`]],
  ["`spraak.read` from `\"tensorfile/spraak\"`", [`import * as spraak from "tensorfile/spraak"; globalThis.x = spraak.read;`]],
  ["all of `\"tensorfile/spraak\"` (read, write, patch, corpus helpers)", [`import * as spraak from "tensorfile/spraak"; globalThis.x = spraak;`]],
  ["`{ tsm }` / `{ primitiv }` / `{ bw2l }` from `\"tensorfile\"`, using `read`", [
    `import { tsm } from "tensorfile"; globalThis.x = tsm.read;`,
    `import { primitiv } from "tensorfile"; globalThis.x = primitiv.read;`,
    `import { bw2l } from "tensorfile"; globalThis.x = bw2l.read;`,
  ]],
  ["`read` + `tensors` from `\"tensorfile/bw2l\"`", [`import { read, tensors } from "tensorfile/bw2l"; globalThis.x = [read, tensors];`]],
  ["`{ onnx }` from `\"tensorfile\"`, using `onnx.read`", [`import { onnx } from "tensorfile"; globalThis.x = onnx.read;`]],
  ["`read` + `tensors` from `\"tensorfile/onnx\"`", [`import { read, tensors } from "tensorfile/onnx"; globalThis.x = [read, tensors];`]],
  ["`{ kernels }` from `\"tensorfile\"`, using `f16ToF32`", [`import { kernels } from "tensorfile"; globalThis.x = kernels.f16ToF32;`]],
  ["`f16ToF32` from `\"tensorfile/kernels\"`", [`import { f16ToF32 } from "tensorfile/kernels"; globalThis.x = f16ToF32;`]],
  ["`stats` + `histogram` from `\"tensorfile/kernels\"`", [`import { stats, histogram } from "tensorfile/kernels"; globalThis.x = [stats, histogram];`]],
  ["`writeSafetensors` + `writeNpy`", [`import { writeSafetensors, writeNpy } from "tensorfile"; globalThis.x = [writeSafetensors, writeNpy];`]],
];

const kb = (text) => gzipSync(text).length / 1024;
const cell = (sizes) => `${sizes.map((s) => s.toFixed(1)).join(" / ")} KB`;

async function measure() {
  const rows = [];
  for (const [label, sources] of ROWS) {
    const esbuild = [];
    const vite = [];
    for (const [i, source] of sources.entries()) {
      esbuild.push(kb(await bundle(source, `${label} ${i}`)));
      vite.push(kb(await bundleWithVite(source, `${label} ${i}`)));
    }
    rows.push({ label, esbuild, vite });
  }
  return rows;
}

function render(rows) {
  return [
    "| you import | esbuild | Vite |",
    "|---|---:|---:|",
    ...rows.map((r) => `| ${r.label} | ${cell(r.esbuild)} | ${cell(r.vite)} |`),
  ].join("\n");
}

/** The documented sizes by row label: { esbuild: number[], vite: number[] }. */
function documented(doc) {
  const table = between(doc);
  const sizes = new Map();
  for (const line of table.split("\n").slice(2)) {
    const cells = line.slice(1, -1).split("|").map((c) => c.trim());
    if (cells.length !== 3) continue;
    const numbers = (c) => c.replace(/ KB$/, "").split(" / ").map(Number);
    sizes.set(cells[0], { esbuild: numbers(cells[1]), vite: numbers(cells[2]) });
  }
  return sizes;
}

function between(doc) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/bundlers.md: no ${START} … ${END} markers`);
  return doc.slice(start + START.length, end).trim();
}

const mode = process.argv[2] ?? "--print";
if (!["--print", "--write", "--check"].includes(mode)) {
  console.error("usage: node scripts/bundle-sizes.mjs [--write | --check]");
  process.exit(2);
}
const rows = await measure();
const table = render(rows);
const doc = readFileSync(docPath, "utf8");
if (mode === "--print") {
  console.log(table);
} else if (mode === "--write") {
  between(doc); // the markers exist
  const start = doc.indexOf(START) + START.length;
  writeFileSync(docPath, `${doc.slice(0, start)}\n${table}\n${doc.slice(doc.indexOf(END))}`);
  console.log(`bundle-sizes: wrote ${rows.length} rows into docs/bundlers.md`);
} else {
  const written = documented(doc);
  const stale = [];
  for (const r of rows) {
    const d = written.get(r.label);
    if (!d) {
      stale.push(`${r.label}: not in the doc`);
      continue;
    }
    for (const bundler of ["esbuild", "vite"]) {
      r[bundler].forEach((measured, i) => {
        const said = d[bundler][i];
        if (!(Math.abs(measured - said) <= 0.1 * measured + 0.5)) stale.push(`${r.label} (${bundler}): the doc says ${said} KB, measured ${measured.toFixed(1)} KB`);
      });
    }
  }
  if (written.size !== rows.length) stale.push(`the doc has ${written.size} rows, the script measures ${rows.length}`);
  if (stale.length > 0) {
    console.error(`bundle-sizes: docs/bundlers.md is out of date (run node scripts/bundle-sizes.mjs --write):\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`bundle-sizes: docs/bundlers.md's ${rows.length} rows are within 10 % + 0.5 KB of the current build`);
}
