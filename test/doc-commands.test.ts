/**
 * Every `tensorfile …` command line of README.md and docs/ that no transcript runs (```sh, ```text and unmarked
 * blocks: scripts/check-examples.mjs runs only the `<!-- transcript: … -->` ones) is a command the CLI takes: run
 * with the built CLI in an empty folder, it is never a usage error (exit 2: an unknown command or option, a value
 * an option refuses) and never an internal error; it succeeds (`--version`, `completion bash`) or stops at a file
 * that is not there (exit 1, "no such file"), after its options were parsed. Skips without dist/.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILT_CLI } from "./helpers/cli.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "api" ? [] : markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

interface DocCommand {
  where: string;
  line: string;
  argv: string[];
}

/** The words of a shell command (quotes removed; no expansion), without its redirections. */
function words(command: string): string[] {
  const out: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const m of command.matchAll(pattern)) out.push(m[1] ?? m[2] ?? m[3]!);
  const redirect = out.findIndex((w) => /^\d?>>?$|^</.test(w));
  return redirect < 0 ? out : out.slice(0, redirect);
}

/** The tensorfile commands of one line of a shell block: `$ ` and comments dropped, split at && || | and ;. */
function commandsOfLine(text: string): string[][] {
  const line = text
    .trim()
    .replace(/^\$ /, "")
    .replace(/\s#\s.*$/, "")
    .replace(/\s+#.*$/, "");
  return (
    line
      .split(/\s*(?:&&|\|\||\||;)\s*/)
      .map((part) => words(part))
      .filter((argv) => argv[0] === "tensorfile" || (argv[0] === "npx" && argv[1] === "tensorfile"))
      .map((argv) => (argv[0] === "npx" ? argv.slice(2) : argv.slice(1)))
      // a command (or an option such as --version), not prose that starts with the word
      .filter((argv) => argv.length > 0 && /^(?:[a-z][a-z-]*|--?[a-z-]+)$/.test(argv[0]!))
  );
}

/** Every command line in a fenced block that no example, output or transcript marker covers. */
function uncoveredCommands(): DocCommand[] {
  const found: DocCommand[] = [];
  for (const file of [join(root, "README.md"), ...markdownFiles(join(root, "docs"))]) {
    const lines = readFileSync(file, "utf8").split("\n");
    let inBlock = false;
    let covered = false;
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i]!;
      if (/^\s*```/.test(text)) {
        if (!inBlock) {
          let previous = i - 1;
          while (previous >= 0 && lines[previous]!.trim() === "") previous--;
          covered = /<!--\s*(?:example|output|transcript):/.test(lines[previous] ?? "");
        }
        inBlock = !inBlock;
        continue;
      }
      if (!inBlock || covered) continue;
      for (const argv of commandsOfLine(text))
        found.push({ where: `${relative(root, file)}:${i + 1}`, line: text.trim(), argv });
    }
  }
  return found;
}

/** Runs one documented command in an empty folder; a problem in words, or undefined when the CLI takes it. */
function problem(argv: string[], cwd: string): string | undefined {
  const r = spawnSync(process.execPath, [BUILT_CLI, ...argv], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (/internal error/i.test(r.stderr)) return `internal error: ${r.stderr.trim()}`;
  if (r.status === 0) return undefined;
  if (r.status === 1 && /no such file/.test(r.stderr)) return undefined;
  return `exit ${r.status}: ${r.stderr.trim().split("\n")[0]}`;
}

describe.skipIf(!existsSync(BUILT_CLI))("every documented command form runs", () => {
  it("splits a documented line into its tensorfile commands", () => {
    expect(
      commandsOfLine(
        "$ tensorfile convert demo.b2l w.safetensors && tensorfile patch demo.b2l w.safetensors same.b2l && cmp a b",
      ),
    ).toEqual([
      ["convert", "demo.b2l", "w.safetensors"],
      ["patch", "demo.b2l", "w.safetensors", "same.b2l"],
    ]);
    expect(commandsOfLine(`tensorfile completion zsh > "\${fpath[1]}/_tensorfile"`)).toEqual([["completion", "zsh"]]);
    expect(commandsOfLine("npx tensorfile --version                 # the command line")).toEqual([["--version"]]);
    expect(commandsOfLine("tensorfile diff a.b2l b.b2l --atol 0.6 | tail -1")).toEqual([
      ["diff", "a.b2l", "b.b2l", "--atol", "0.6"],
    ]);
    expect(commandsOfLine("tensorfile reads, a bool, a tuple")).toEqual([]);
  });

  it("a misspelt option, an unknown command or a refused value is caught (the check can fail)", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tensorfile-doc-commands-"));
    try {
      expect(problem(["convert", "model.onnx", "m.onnx", "--quantiz", "fp16"], cwd)).toMatch(/^exit 2: .*--quantiz/);
      expect(problem(["conver", "model.onnx", "m.onnx"], cwd)).toMatch(/^exit 2/);
      expect(problem(["diff", "a.pb", "b.npy", "--atol", "x"], cwd)).toMatch(/^exit 2: .*--atol/);
      expect(problem(["convert", "model.onnx", "m.onnx", "--quantize", "fp16"], cwd)).toBeUndefined();
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("each command line of README.md and docs/ outside the transcripts", () => {
    const commands = uncoveredCommands();
    // README's install, changing-a-model, completion, seetaface6, onnx-tensor, onnx … (at least these)
    expect(commands.length).toBeGreaterThanOrEqual(20);
    const cwd = mkdtempSync(join(tmpdir(), "tensorfile-doc-commands-"));
    try {
      const problems = commands.flatMap(({ where, line, argv }) => {
        const found = problem(argv, cwd);
        return found ? [`${where}: ${line}\n    ${found}`] : [];
      });
      expect(problems, problems.join("\n")).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 600_000);
});
