// The inspector's sources have no import cycle, type-only imports included (issue 26: the views imported app.ts,
// which imports them). dpdm parses the real import graph from web/src/main.ts.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCircular, parseDependencyTree } from "dpdm";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

describe("web/src import graph", () => {
  it("has no cycle, counting type-only imports", async () => {
    const tree = await parseDependencyTree(["web/src/main.ts"], {
      cwd: root,
      context: root,
      transform: false,
      tsconfig: resolve(root, "tsconfig.json"),
      include: /web\/src/,
    });
    expect(Object.keys(tree).some((file) => file.endsWith("graph-view.ts"))).toBe(true);
    expect(parseCircular(tree)).toEqual([]);
  });
  it("no view module imports app.ts", async () => {
    const tree = await parseDependencyTree(["web/src/main.ts"], {
      cwd: root,
      context: root,
      transform: false,
      tsconfig: resolve(root, "tsconfig.json"),
      include: /web\/src/,
    });
    const offenders = Object.entries(tree)
      .filter(([file]) => /-view\.ts$/.test(file))
      .filter(([, deps]) => (deps ?? []).some((d) => d.id?.endsWith("ui/app.ts")))
      .map(([file]) => file);
    expect(offenders).toEqual([]);
  });
});
