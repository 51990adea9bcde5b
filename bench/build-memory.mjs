// Peak memory of building a large bw2l file (issue 12, "Builders"): bw2l.create() with one 2-D float32 param of
// --mib MiB (row-major, stored column-major), then write() or writeTo() a file stream. Each case runs in a child
// process under GNU time; the table shows its peak RSS above a child that only allocates and fills the input.
//
//   node bench/build-memory.mjs [--mib 256]
//
// Needs `npm run build` first. The output file goes under /tmp and is deleted.
//
// 256 MiB, 2 cores (one busy with a fuzz campaign): create() transposing eagerly through the kernels' work memory:
// write 771 MiB, writeTo 518 MiB; the column-major payload made in bands at write time: write 355 MiB (the output
// itself is 256 MiB), writeTo 131 MiB.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

if (args[0] === "--child") {
  const [, mode, mibText, out] = args;
  const lib = await import(join(root, "dist/index.js"));
  const { createWriteStream, writeFileSync } = await import("node:fs");
  const side = Math.round(Math.sqrt((Number(mibText) * 1024 * 1024) / 4));
  const data = new Float32Array(side * side);
  for (let i = 0; i < data.length; i++) data[i] = (i % 1000) * 0.001;
  if (mode === "input") process.exit(0);
  const file = lib.bw2l.create({ layers: [{ arch: "L", params: [{ dims: [side, side], data }] }] });
  if (mode === "write") writeFileSync(out, lib.bw2l.write(file));
  else await lib.bw2l.writeTo(file, createWriteStream(out));
  process.exit(0);
}

const mib = Number(args[args.indexOf("--mib") + 1] ?? 256) || 256;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-build-memory-"));
const out = join(dir, "big.b2l");
function peak(mode) {
  const run = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, fileURLToPath(import.meta.url), "--child", mode, String(mib), out], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`${mode} failed: ${run.stderr}`);
  return Number(run.stderr.trim().split("\n").at(-1)) / 1024;
}
const input = peak("input");
const rows = [];
for (const mode of ["write", "writeTo"]) rows.push(`| bw2l.create + ${mode} | ${Math.round(peak(mode) - input)} MiB |`);
rmSync(dir, { recursive: true, force: true });
console.log(`One ${mib} MiB 2-D float32 param; peak RSS above a process holding only the input (${Math.round(input)} MiB):\n`);
console.log(["| case | peak RSS above input |", "|---|---:|", ...rows].join("\n"));
