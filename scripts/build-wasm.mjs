// Compiles the WebAssembly kernel families (scripts/wasm-families.mjs) into build/<name>.wasm (and .wat), each at
// its own memoryBase, and checks that each module's static data fits its slot and that every kernel exported by
// assembly/index.ts belongs to a family. Run by `npm run build` (npm run asbuild).
// Usage: node scripts/build-wasm.mjs [--out DIR] [--target release|debug]
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import asc from "assemblyscript/asc";
import { FAMILIES, slotEnd } from "./wasm-families.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Exported names of an AssemblyScript file's `export { … } from` lists and `export function`s. */
export function exportedNames(path) {
  const text = readFileSync(path, "utf8").replace(/\/\/.*$/gm, "");
  const names = new Set();
  for (const m of text.matchAll(/export\s*\{([^}]*)\}/g)) for (const n of m[1].split(",")) if (n.trim()) names.add(n.trim().split(/\s+as\s+/).pop());
  for (const m of text.matchAll(/export\s+function\s+(\w+)/g)) names.add(m[1]);
  return names;
}

/** The asc arguments for one family (the embedded-WASM test rebuilds with the same). */
export function ascArguments(family, outFile, target = "release") {
  const args = [
    `assembly/families/${family.name}.ts`, "--config", "asconfig.json", "--target", target,
    "--memoryBase", String(family.memoryBase), "--outFile", outFile, "--textFile", outFile.replace(/\.wasm$/, ".wat"),
  ];
  if (family.optimizeLevel !== undefined) args.push("--optimizeLevel", String(family.optimizeLevel));
  if (family.shrinkLevel !== undefined) args.push("--shrinkLevel", String(family.shrinkLevel));
  return args;
}

/** Compiles every family into `out`; returns the modules' bytes by name. Throws on a compile or layout error. */
export async function buildFamilies(out = join(root, "build"), target = "release") {
  mkdirSync(out, { recursive: true });
  const all = exportedNames(join(root, "assembly/index.ts"));
  const covered = new Set();
  const built = {};
  for (const [index, family] of FAMILIES.entries()) {
    const outFile = join(out, `${family.name}.wasm`);
    let stderr = "";
    const { error } = await asc.main(ascArguments(family, outFile, target), {
      stdout: { write: () => true }, stderr: { write: (s) => { stderr += s; return true; } },
    });
    if (error) throw new Error(`asc ${family.name}: ${error.message}\n${stderr}`);
    const bytes = readFileSync(outFile);
    // where its static data ends: instantiate on a scratch memory and ask
    const memory = new WebAssembly.Memory({ initial: 1 });
    const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports;
    const end = exports.staticEnd();
    if (end > slotEnd(index)) {
      throw new Error(`wasm family ${family.name}: static data ends at ${end}, past its slot [${family.memoryBase}, ${slotEnd(index)}): move the next slots in scripts/wasm-families.mjs`);
    }
    for (const name of Object.keys(exports)) covered.add(name);
    built[family.name] = { bytes, staticEnd: end };
  }
  const missing = [...all].filter((name) => !covered.has(name));
  if (missing.length > 0) {
    throw new Error(`assembly/index.ts exports ${missing.join(", ")}, which no family module does: export them from a file in assembly/families/ (see scripts/wasm-families.mjs)`);
  }
  return built;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const option = (name, fallback) => { const i = argv.indexOf(name); return i < 0 ? fallback : argv[i + 1]; };
  try {
    const built = await buildFamilies(option("--out", join(root, "build")), option("--target", "release"));
    for (const [index, family] of FAMILIES.entries()) {
      const { bytes, staticEnd } = built[family.name];
      console.log(`build-wasm: ${family.name.padEnd(12)} ${String(bytes.length).padStart(6)} bytes, static data [${family.memoryBase}, ${staticEnd}) of [${family.memoryBase}, ${slotEnd(index)})`);
    }
  } catch (error) {
    console.error(`build-wasm: ${error.message}`);
    process.exit(1);
  }
}
