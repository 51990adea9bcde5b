// "tensorfile/<format>": each format namespace as a subpath, so that bundlers keep only what is imported of it
// (esbuild cannot tree-shake a namespace re-exported by the main entry). package.json "exports" has one per format
// of FORMATS; in Node (import and require) and Deno it is the main entry's namespace itself (same functions, one
// FormatError class), and the per-file module bundlers get has the same names.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { FORMATS } from "../../bindings/any.js";

const root = resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as {
  exports: Record<string, Record<string, string>>;
};
const built = existsSync(resolve(root, "dist/formats/spraak.node.js"));
const ids = FORMATS.map((f) => f.id);

describe("tensorfile/<format> subpaths", () => {
  it("are in package.json exports for exactly the formats of FORMATS, with the conditions of tensorfile/kernels", () => {
    const subpaths = Object.keys(pkg.exports).filter(
      (key) => ![".", "./kernels", "./node", "./package.json"].includes(key),
    );
    expect(subpaths.map((key) => key.slice(2)).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      expect(pkg.exports[`./${id}`], id).toEqual({
        types: `./dist/formats/${id}.d.ts`,
        node: `./dist/formats/${id}.node.js`,
        deno: `./dist/formats/${id}.node.js`,
        default: `./dist/formats/${id}.js`,
      });
    }
  });

  it.skipIf(!built)(
    "in Node (import and require) are the main entry's namespaces; the per-file modules have the same names",
    () => {
      const out = JSON.parse(
        execFileSync(
          process.execPath,
          [
            "--input-type=module",
            "-e",
            `
      import * as tf from "tensorfile";
      import { createRequire } from "node:module";
      const require = createRequire(process.cwd() + "/");
      const report = {};
      for (const id of ${JSON.stringify(ids)}) {
        const sub = await import("tensorfile/" + id);
        const required = require("tensorfile/" + id);
        const perFile = await import(process.cwd() + "/dist/formats/" + id + ".js");
        const ns = tf[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())];
        const names = Object.keys(ns).sort();
        report[id] = {
          sub: Object.keys(sub).sort().join() === names.join(), perFile: Object.keys(perFile).sort().join() === names.join(),
          same: names.every((n) => sub[n] === ns[n] && required[n] === ns[n]), count: names.length,
        };
      }
      let sameError = false;
      try { (await import("tensorfile/spraak")).read(new Uint8Array([0x2e, 0x73, 0x70, 0x72, 0x0a])); } catch (e) { sameError = e instanceof tf.FormatError; }
      console.log(JSON.stringify({ report, sameError }));`,
          ],
          { cwd: root, encoding: "utf8" },
        ),
      );
      for (const id of ids)
        expect(out.report[id], id).toEqual({ sub: true, perFile: true, same: true, count: expect.any(Number) });
      expect(out.report.spraak.count).toBeGreaterThan(20);
      expect(out.sameError).toBe(true);
    },
  );
});
