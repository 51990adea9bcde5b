/**
 * The CLI's layout (docs/architecture.md, "The command line"): run.ts only dispatches, one module per command, and
 * a shared layer that imports no command. Checked on the import graph of the sources (dpdm, as scripts/check-cycles.mjs
 * builds it: type-only and dynamic imports count), so a helper moved back into a command, or a command imported by
 * the shared layer, fails here before it can become a cycle.
 */
import { parseCircular, parseDependencyTree } from "dpdm";
import { readdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The shared layer: what every command may import. */
const SHARED = [
  "common.ts",
  "args.ts",
  "inputs.ts",
  "stream-input.ts",
  "output.ts",
  "progress.ts",
  "tensor-output.ts",
  "warnings.ts",
];
/** One module per command (and the helpers of one command: batch.ts and tsm-onnx.ts serve convert and inspect). */
const COMMANDS = ["inspect.ts", "verify.ts", "convert.ts", "extract.ts", "stats.ts", "view.ts", "patch.ts", "diff.ts"];

/** bindings/cli/<file> -> the bindings/cli/ files it imports (directly). */
async function cliImports(): Promise<Map<string, string[]>> {
  const files = readdirSync(resolve(root, "bindings/cli"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `bindings/cli/${f}`);
  const tree = await parseDependencyTree(["bindings/cli.ts", ...files], {
    context: root,
    transform: false,
    skipDynamicImports: false,
    extensions: [".ts", ".js"],
  });
  const edges = new Map<string, string[]>();
  for (const [id, deps] of Object.entries(tree)) {
    if (!id.startsWith("bindings/cli")) continue;
    edges.set(
      id,
      (deps ?? []).map((d) => d.id ?? "").filter((d) => d.startsWith("bindings/cli/")),
    );
  }
  return edges;
}

describe("the CLI's modules", () => {
  it("run.ts is imported by cli.ts only, the shared layer imports no command, and there is no cycle", async () => {
    const edges = await cliImports();
    for (const file of [...SHARED, ...COMMANDS, "run.ts"]) expect(edges.has(`bindings/cli/${file}`), file).toBe(true);

    const importersOfRun = [...edges].filter(([, deps]) => deps.includes("bindings/cli/run.ts")).map(([id]) => id);
    expect(importersOfRun).toEqual(["bindings/cli.ts"]);

    const shared = new Set(SHARED.map((f) => `bindings/cli/${f}`));
    for (const file of shared) {
      const outside = edges.get(file)!.filter((d) => !shared.has(d));
      expect(outside, `${file} imports only the shared layer`).toEqual([]);
    }

    // run.ts reaches every command directly: it is the dispatcher
    for (const command of COMMANDS)
      expect(edges.get("bindings/cli/run.ts"), command).toContain(`bindings/cli/${command}`);

    const tree = await parseDependencyTree(["bindings/cli.ts"], {
      context: root,
      transform: false,
      skipDynamicImports: false,
      extensions: [".ts", ".js"],
    });
    expect(parseCircular(tree)).toEqual([]);
  }, 120_000); // 19 s under two busy loops: 60 s left too little room when the whole suite runs beside it
});
