// scripts/check-layers.mjs on small trees made here: the layer table and the ties table are read from the tree's
// own docs/architecture.md, so each case writes a page and a few modules and checks what the script says. The
// scratch folders live inside the repository so that the script resolves dpdm from its node_modules.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const scratches: string[] = [];

const PAGE = `# Architecture

## The layers

| layer | modules | imports |
|---|---|---|
| bytes | \`bindings/bytes/**\` | nothing |
| io | \`bindings/io/**\` | bytes |
| formats | \`bindings/formats/**\` | the layers above |
| apps | \`bindings/cli/**\` | the library |

| from | to | why |
|---|---|---|
| \`bindings/formats/b/**\` | \`bindings/formats/a/parse.ts\` | b's members are a's |
`;

function tree(files: Record<string, string>, page = PAGE): string {
  const root = mkdtempSync(join(repo, ".tmp-check-layers-"));
  scratches.push(root);
  mkdirSync(join(root, "scripts"));
  copyFileSync(join(repo, "scripts", "check-layers.mjs"), join(root, "scripts", "check-layers.mjs"));
  for (const [path, text] of Object.entries({ "docs/architecture.md": page, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function run(root: string, ...args: string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [join(root, "scripts", "check-layers.mjs"), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

afterEach(() => {
  for (const root of scratches.splice(0)) rmSync(root, { recursive: true, force: true });
});

const base = {
  "bindings/bytes/errors.ts": "export class E extends Error {}\n",
  "bindings/io/source.ts": 'import { E } from "../bytes/errors.js";\nexport const s = () => new E();\n',
  "bindings/formats/a/parse.ts": 'import { s } from "../../io/source.js";\nexport const parse = () => s();\n',
  "bindings/formats/a.ts": 'export { parse } from "./a/parse.js";\n',
  "bindings/formats/b/reader.ts": 'import { parse } from "../a/parse.js";\nexport const read = () => parse();\n',
  "bindings/cli/run.ts": 'import { read } from "../formats/b/reader.js";\nexport const main = () => read();\n',
};

describe("check-layers", () => {
  it("passes a tree whose imports all run down a layer, or along a declared tie", () => {
    const result = run(tree(base));
    expect(result.out).toMatch(/6 modules in 4 layers, every import runs down/);
    expect(result.status).toBe(0);
  });

  it("fails on an import up a layer, naming both modules and both layers", () => {
    const result = run(
      tree({
        ...base,
        "bindings/io/source.ts": 'import type { read } from "../formats/b/reader.js";\nexport type R = typeof read;\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.out).toContain(
      'bindings/io/source.ts -> bindings/formats/b/reader.ts: imports up a layer: "io" may not import from "formats"',
    );
  });

  it("fails when one format imports another outside the ties (a tie covers only the modules it names)", () => {
    const result = run(
      tree({
        ...base,
        "bindings/formats/a/other.ts": "export const x = 1;\n",
        "bindings/formats/b/view.ts": 'export { x } from "../a/other.js";\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.out).toContain(
      "bindings/formats/b/view.ts -> bindings/formats/a/other.ts: one format imports another (formats/b -> formats/a)",
    );
    expect(result.out).not.toContain("bindings/formats/b/reader.ts");
  });

  it("fails on a module that no row of the table places, and on a dynamic import up a layer", () => {
    const result = run(
      tree({
        ...base,
        "bindings/misc/x.ts": "export const x = 1;\n",
        "bindings/bytes/lazy.ts": 'export const load = () => import("../io/source.js");\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.out).toContain("bindings/misc/x.ts: is in no layer of the table");
    expect(result.out).toContain(
      'bindings/bytes/lazy.ts -> bindings/io/source.ts: imports up a layer: "bytes" may not import from "io"',
    );
  });

  it("refuses a page without a layer table (exit 2), instead of passing everything", () => {
    const result = run(tree(base, "# Architecture\n\n## The layers\n\nNo table here.\n"));
    expect(result.status).toBe(2);
    expect(result.out).toMatch(/no layer table/);
  });

  it("the repository's own page parses into its layers", () => {
    const result = spawnSync(process.execPath, [join(repo, "scripts", "check-layers.mjs"), "--json"], {
      cwd: repo,
      encoding: "utf8",
      timeout: 120_000,
    });
    const report = JSON.parse(result.stdout) as { layers: string[]; modules: number };
    expect(report.layers[0]).toBe("bytes and errors");
    expect(report.layers.at(-1)).toBe("applications");
    expect(report.modules).toBeGreaterThan(100);
  });
});
