// The "tensorfile/<format>" subpaths: one per format of FORMATS in package.json "exports" (types, node, deno,
// default), each file there after the build, and the Node/Deno module one and the same namespace as the main
// entry's (same functions, same FormatError class), so mixing `import { spraak } from "tensorfile"` with
// `import * as spraak from "tensorfile/spraak"` never gives two module states.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { FORMATS } from "../bindings/any.js";

const root = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, Record<string, string>> };
const built = existsSync(join(root, "dist/index.js"));
const FORMAT_SUBPATHS = FORMATS.map((f) => f.id);

describe("tensorfile/<format> subpaths", () => {
  it("exist for every format of FORMATS, with the conditions of the kernels subpath", () => {
    const subpaths = Object.keys(pkg.exports).filter((key) => !["."," ./kernels", "./node", "./package.json"].includes(key));
    expect(subpaths.map((key) => key.slice(2)).sort()).toEqual([...FORMAT_SUBPATHS].sort());
    for (const id of FORMAT_SUBPATHS) {
      expect(pkg.exports[`./${id}`], id).toEqual({
        types: `./dist/formats/${id}.d.ts`, node: `./dist/formats/${id}.node.js`, deno: `./dist/formats/${id}.node.js`, default: `./dist/formats/${id}.js`,
      });
    }
  });

  it.skipIf(!built)("are the main entry's namespaces in Node (the same functions and FormatError), files all built", async () => {
    const main = await import(pathToFileURL(join(root, "dist/index.js")).href);
    for (const id of FORMAT_SUBPATHS) {
      for (const target of Object.values(pkg.exports[`./${id}`]!)) expect(existsSync(join(root, target)), target).toBe(true);
      const sub = await import(pathToFileURL(join(root, pkg.exports[`./${id}`]!.node!)).href);
      expect(Object.keys(sub).sort(), id).toEqual(Object.keys(main[id]).sort());
      for (const name of Object.keys(sub)) expect(sub[name], `${id}.${name}`).toBe(main[id][name]);
    }
    const spraak = await import(pathToFileURL(join(root, "dist/formats/spraak.node.js")).href);
    expect(() => spraak.read(new TextEncoder().encode(".spr\nDIM1 2\n"))).toThrow(main.FormatError);
  });
});
if (!built) console.log("package-exports: dist/ not built (npm run build); the Node subpath check is skipped");
