// What derives from the format registry (bindings/formats/registry.ts) in the repository's JSON files: package.json's
// "./<id>" subpath exports and typedoc.json's entry points for the format facades, in the registry's order. Other
// entries ("." , "./kernels", "./node", index.ts…) are kept as they are, where they are.
// Usage: node scripts/sync-registry.mjs [--check]   (--check: exit 1 and say what differs, write nothing)
// test/formats/registry.test.ts runs the same comparison against the registry itself.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The format ids in the registry's order, read from registry.ts's READINGS list and its imports. */
export function registryIds(text = readFileSync(join(root, "bindings/formats/registry.ts"), "utf8")) {
  const folders = new Map([...text.matchAll(/^import \{[^}]*\breading as (\w+) \} from "\.\/([\w-]+)\/format\.js";$/gm)].map((m) => [m[1], m[2]]));
  const list = /export const READINGS[^=]*=\s*\[([^\]]*)\]/.exec(text);
  if (!list) throw new Error("sync-registry: no READINGS list in bindings/formats/registry.ts");
  return [...list[1].matchAll(/\w+/g)].map((m) => {
    const id = folders.get(m[0]);
    if (!id) throw new Error(`sync-registry: ${m[0]} is not a reading imported from ./<id>/format.js`);
    return id;
  });
}

/** One format's subpath export, as the build writes its files. */
function subpath(id) {
  return {
    types: `./dist/formats/${id}.d.ts`,
    node: `./dist/formats/${id}.node.js`,
    deno: `./dist/formats/${id}.node.js`,
    default: `./dist/formats/${id}.js`,
  };
}

/** `entries` (an object's entries or an array) with the format ones replaced, in `ids` order, where the first was. */
function replaceFormats(entries, isFormat, fresh) {
  const at = entries.findIndex(isFormat);
  const kept = entries.filter((e) => !isFormat(e));
  kept.splice(at < 0 ? kept.length : at, 0, ...fresh);
  return kept;
}

/** package.json and typedoc.json as the registry `ids` want them. */
export function expectedFiles(ids, packageJson, typedocJson) {
  const isFormatExport = ([key, value]) => typeof value === "object" && typeof value.types === "string" && value.types.startsWith("./dist/formats/");
  const exports = Object.fromEntries(replaceFormats(Object.entries(packageJson.exports), isFormatExport, ids.map((id) => [`./${id}`, subpath(id)])));
  const isFormatEntry = (path) => /^bindings\/formats\/[\w-]+\.ts$/.test(path);
  const entryPoints = replaceFormats(typedocJson.entryPoints, isFormatEntry, ids.map((id) => `bindings/formats/${id}.ts`));
  return { packageJson: { ...packageJson, exports }, typedocJson: { ...typedocJson, entryPoints } };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const files = { packageJson: join(root, "package.json"), typedocJson: join(root, "typedoc.json") };
  const texts = Object.fromEntries(Object.entries(files).map(([k, p]) => [k, readFileSync(p, "utf8")]));
  const wanted = expectedFiles(registryIds(), JSON.parse(texts.packageJson), JSON.parse(texts.typedocJson));
  let stale = 0;
  for (const [key, path] of Object.entries(files)) {
    const text = `${JSON.stringify(wanted[key], null, 2)}\n`;
    if (text === texts[key]) continue;
    stale++;
    if (check) console.error(`sync-registry: ${path} is not what the registry says (run node scripts/sync-registry.mjs)`);
    else writeFileSync(path, text);
  }
  if (check && stale > 0) process.exit(1);
  console.log(check ? "sync-registry: package.json and typedoc.json match the registry" : `sync-registry: ${stale} file(s) written`);
}
