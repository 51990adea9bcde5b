#!/usr/bin/env node
// Fails (exit 1) when any module in bindings/ or web/src/ (or the folders named) is part of an import cycle, and
// prints every cycle.
//
// The graph comes from dpdm (https://github.com/acrazing/dpdm), already a devDependency, over the TypeScript
// sources themselves: it resolves NodeNext's "./x.js" specifiers to "./x.ts", follows `export … from` and dynamic
// `import()`, and counts `import type` edges too (a type-only cycle is still two modules that cannot be read, moved
// or tested one without the other; the house rule is "no import cycles"). It needs no build and no bundler config.
//
//   node scripts/check-cycles.mjs            # or: npm run check:cycles (bindings/ and web/src/)
//   node scripts/check-cycles.mjs bindings   # only the modules under the folders named (npm run check:cycles -- bindings)
//   node scripts/check-cycles.mjs --json     # the cycles as JSON arrays of paths
import { parseDependencyTree, parseCircular } from "dpdm";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { existsSync } from "node:fs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const folderArgs = process.argv.slice(2).filter((a) => !a.startsWith("--")).map((a) => a.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+$/, ""));
const folders = folderArgs.length > 0 ? folderArgs : ["bindings", "web/src"];
for (const folder of folders) {
  if (!existsSync(path.join(root, folder))) {
    console.error(`check-cycles: no folder ${folder} in ${root}`);
    process.exit(2);
  }
}
const roots = folders.map((folder) => `${folder}/**/*.ts`);

const tree = await parseDependencyTree(roots, {
  cwd: root,
  context: root,
  tsconfig: existsSync(path.join(root, "tsconfig.json")) ? path.join(root, "tsconfig.json") : undefined,
  transform: false, // keep `import type` edges
  skipDynamicImports: false,
  include: /\.ts$/,
  exclude: /node_modules/,
});

const modules = Object.keys(tree).filter((id) => folders.some((folder) => id.startsWith(`${folder}/`)));
if (modules.length === 0) {
  console.error("check-cycles: dpdm found no modules under " + roots.join(", ") + " (wrong working folder?)");
  process.exit(2);
}

const cycles = parseCircular(tree, false, []);
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(cycles, null, 2));
} else if (cycles.length === 0) {
  console.log(`check-cycles: no import cycle among ${modules.length} modules (${roots.join(", ")})`);
} else {
  console.log(`check-cycles: ${cycles.length} import cycle${cycles.length === 1 ? "" : "s"} among ${modules.length} modules:`);
  cycles.forEach((cycle, i) => console.log(`  ${i + 1}) ${[...cycle, cycle[0]].join(" -> ")}`));
}
process.exit(cycles.length === 0 ? 0 : 1);
