// The docs checks (scripts/check-links.mjs, check-examples.mjs, check-cycles.mjs) on small trees made here: each
// script takes its root from its own location, so a copy of it in a scratch folder checks that folder. The
// scratch folders live inside the repository so that the scripts still resolve their dependencies (dpdm) from
// its node_modules.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const scratches: string[] = [];

/** A scratch tree with the given files (path -> text) and a copy of the named scripts in scripts/. */
function tree(files: Record<string, string>, scripts: string[]): string {
  const root = mkdtempSync(join(repo, ".tmp-docs-checks-"));
  scratches.push(root);
  mkdirSync(join(root, "scripts"));
  for (const script of scripts) copyFileSync(join(repo, "scripts", script), join(root, "scripts", script));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function run(root: string, script: string, ...args: string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [join(root, "scripts", script), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

afterEach(() => {
  for (const root of scratches.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("check-links", () => {
  const docs = {
    "docs/README.md": '# Index\n\n## The `loadFile` path: from disk\n\n## Twice\n\n## Twice\n\n<a id="kept"></a>\n',
    "docs/guide.md": "# Guide\n",
  };

  it("passes links to files, folders, headings (code spans, punctuation, repeats) and explicit anchors", () => {
    const root = tree(
      {
        ...docs,
        "README.md":
          "[a](docs/README.md) [b](docs/) [c](docs/README.md#the-loadfile-path-from-disk) [d](docs/README.md#twice-1) " +
          "[e](docs/README.md#kept) [f](#readme) [g](https://example.org/x#y) ![h](docs/guide.md)\n\n# Readme\n\n" +
          "```md\n[not a link](nowhere.md)\n```\n\nand `[code](nowhere.md)`\n",
      },
      ["check-links.mjs"],
    );
    const { status, out } = run(root, "check-links.mjs");
    expect(out).toContain("all resolve");
    expect(status).toBe(0);
  });

  it("fails on a missing file and on a missing anchor, naming each", () => {
    const root = tree(
      { ...docs, "README.md": "[a](docs/nope.md) [b](docs/README.md#no-such-heading) [c](docs/guide.md#guide)\n" },
      ["check-links.mjs"],
    );
    const { status, out } = run(root, "check-links.mjs");
    expect(status).toBe(1);
    expect(out).toContain("README.md:1: docs/nope.md: no such file");
    expect(out).toContain("has no heading with the anchor #no-such-heading");
    expect(out).toContain("2 broken of 3");
  });

  it("checks the anchor of a page that exists", () => {
    const files = { ...docs, "README.md": "[o](docs/formats/onnx.md#reading)\n" };
    const absent = run(tree(files, ["check-links.mjs"]), "check-links.mjs");
    expect(absent.status).toBe(1);
    expect(absent.out).toContain("docs/formats/onnx.md#reading: no such file or folder (docs/formats/onnx.md)");
    const present = run(tree({ ...files, "docs/formats/onnx.md": "# ONNX\n" }, ["check-links.mjs"]), "check-links.mjs");
    expect(present.status).toBe(1);
    expect(present.out).toContain("has no heading with the anchor #reading");
  });
});

describe("check-examples (the markdown part)", () => {
  const example =
    'import { x } from "y";\n{\n  // #region shown\n  const a = 1;\n  if (a) {\n    console.log(a);\n  }\n  // #endregion shown\n}\n';

  it("passes a block equal to its example's region (common indent removed) or to the whole file", () => {
    const root = tree(
      {
        "examples/x.mjs": example,
        "README.md":
          "<!-- example: examples/x.mjs#shown -->\n```js\nconst a = 1;\nif (a) {\n  console.log(a);\n}\n```\n\n" +
          '<!-- example: examples/x.mjs -->\n```js\nimport { x } from "y";\n{\n  const a = 1;\n  if (a) {\n    console.log(a);\n  }\n}\n```\n\n```sh\nnot checked\n```\n',
      },
      ["check-examples.mjs"],
    );
    const { status, out } = run(root, "check-examples.mjs", "--no-run");
    expect(out).toContain("2 code blocks");
    expect(status).toBe(0);
  });

  it("fails on a drifted block, a block without a marker and a marker naming nothing", () => {
    const root = tree(
      {
        "examples/x.mjs": example,
        "README.md":
          "<!-- example: examples/x.mjs#shown -->\n```js\nconst a = 2;\nif (a) {\n  console.log(a);\n}\n```\n\n" +
          "```ts\nconst unmarked = true;\n```\n\n<!-- example: examples/gone.mjs -->\n```js\n1;\n```\n\n" +
          "<!-- example: examples/x.mjs#nope -->\n```js\n1;\n```\n",
      },
      ["check-examples.mjs"],
    );
    const { status, out } = run(root, "check-examples.mjs", "--no-run");
    expect(status).toBe(1);
    expect(out).toContain("README.md:2: the block differs from examples/x.mjs#shown at its line 1");
    expect(out).toContain("README.md:9: a ts block without");
    expect(out).toContain("examples/gone.mjs, which does not exist");
    expect(out).toContain('has no region "nope"');
  });

  it("--update rewrites a drifted block to its example", () => {
    const root = tree(
      {
        "examples/x.mjs": example,
        "README.md": "# r\n",
        "docs/a.md": "<!-- example: examples/x.mjs#shown -->\n```js\nold\n```\n",
      },
      ["check-examples.mjs"],
    );
    expect(run(root, "check-examples.mjs", "--no-run", "--update").out).toContain("update docs/a.md:2");
    expect(run(root, "check-examples.mjs", "--no-run").status).toBe(0);
  });
});

describe("check-cycles", () => {
  it("passes an acyclic tree and fails on a cycle (type-only imports count), printing it", () => {
    const acyclic = tree(
      {
        "bindings/a.ts": 'import { b } from "./b.js";\nexport const a = b;\n',
        "bindings/b.ts": "export const b = 1;\n",
        "web/src/main.ts": "export {};\n",
      },
      ["check-cycles.mjs"],
    );
    const passed = run(acyclic, "check-cycles.mjs");
    expect(passed.out).toContain("no import cycle among 3 modules");
    expect(passed.status).toBe(0);

    const cyclic = tree(
      {
        "bindings/a.ts": 'import { b } from "./b.js";\nexport const a = b;\n',
        "bindings/b.ts": 'import type { C } from "./c/c.js";\nexport const b = 1;\nexport type B = C;\n',
        "bindings/c/c.ts": 'import { a } from "../a.js";\nexport type C = typeof a;\n',
        "web/src/main.ts": "export {};\n",
      },
      ["check-cycles.mjs"],
    );
    const failed = run(cyclic, "check-cycles.mjs");
    expect(failed.status).toBe(1);
    expect(failed.out).toContain("1 import cycle among 4 modules");
    const cycle = failed.out.split("\n").find((line) => line.includes(" -> ")) ?? "";
    for (const module of ["bindings/a.ts", "bindings/b.ts", "bindings/c/c.ts"]) expect(cycle).toContain(module);
  });

  it("checks only the folders named: a cycle in web/src fails the whole check, not `check-cycles.mjs bindings`", () => {
    const root = tree(
      {
        "bindings/a.ts": "export const a = 1;\n",
        "web/src/app.ts":
          'import { view } from "./view.js";\nimport { a } from "../../bindings/a.js";\nexport const app = view + a;\n',
        "web/src/view.ts":
          'import type { app } from "./app.js";\nexport const view = 2;\nexport type App = typeof app;\n',
      },
      ["check-cycles.mjs"],
    );
    const whole = run(root, "check-cycles.mjs");
    expect(whole.status).toBe(1);
    expect(whole.out).toContain("1 import cycle among 3 modules");
    const cycle = whole.out.split("\n").find((line) => line.includes(" -> ")) ?? "";
    for (const module of ["web/src/app.ts", "web/src/view.ts"]) expect(cycle).toContain(module);
    const bindingsOnly = run(root, "check-cycles.mjs", "bindings");
    expect(bindingsOnly.status).toBe(0);
    expect(bindingsOnly.out).toContain("no import cycle among 1 modules (bindings/**/*.ts)");
    const webOnly = run(root, "check-cycles.mjs", "./web/src/");
    expect(webOnly.status).toBe(1);
    expect(webOnly.out).toContain("1 import cycle");
    const missing = run(root, "check-cycles.mjs", "no-such-folder");
    expect(missing.status).toBe(2);
    expect(missing.out).toContain("no folder no-such-folder");
  });
});
