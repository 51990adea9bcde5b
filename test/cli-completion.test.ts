// tensorfile completion: the bash script is run by bash itself (COMP_WORDS set as bash sets them, then
// _tensorfile, then COMPREPLY printed), with a `tensorfile` on PATH that is the built CLI, so tensor names come
// from a real file's headers; zsh and fish scripts are checked for syntax by their shells where installed.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { BUILT_CLI, cli } from "./helpers/cli.js";

const has = (shell: string) => spawnSync("sh", ["-c", `command -v ${shell}`], { stdio: "ignore" }).status === 0;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-completion-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bin = join(dir, "bin");
spawnSync("mkdir", ["-p", bin]);
writeFileSync(join(bin, "tensorfile"), `#!/bin/sh\nexec "${process.execPath}" "${BUILT_CLI}" "$@"\n`);
chmodSync(join(bin, "tensorfile"), 0o755);
const model = join(dir, "weights.safetensors");
const names = ["encoder.conv.weight", "encoder.conv.bias", "decoder.linear.weight"];
writeFileSync(
  model,
  writeSafetensors(
    names.map((name) => ({ name, dtype: "float32", shape: [2], data: new Float32Array(2) }) as NamedTensor),
  ),
);

/** COMPREPLY of the bash completion for the words typed so far (the last one being completed). */
async function bashComplete(...words: string[]): Promise<string[]> {
  const script = join(dir, "completion.bash");
  writeFileSync(script, (await cli("completion", "bash")).stdout);
  const quoted = words.map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(" ");
  const program = `source '${script}'\nCOMP_WORDS=(tensorfile ${quoted})\nCOMP_CWORD=${words.length}\n_tensorfile\nprintf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync("bash", ["-c", program], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split("\n").filter((l) => l !== "");
}

describe.skipIf(!has("bash"))("tensorfile completion bash", () => {
  it("completes commands, each command's options, files and the tensor names of the FILE typed", async () => {
    expect(await bashComplete("st")).toEqual(["stats"]);
    expect((await bashComplete("")).sort()).toEqual(
      expect.arrayContaining(["inspect", "convert", "show", "completion", "help"]),
    );
    expect(await bashComplete("diff", "a", "b", "--only")).toEqual(["--only-different"]);
    expect(await bashComplete("stats", "--ten")).toEqual(["--tensor"]);
    expect(await bashComplete("show", "weights.safetensors", "enc")).toEqual([
      "encoder.conv.weight",
      "encoder.conv.bias",
    ]);
    expect((await bashComplete("stats", "weights.safetensors", "--tensor", "")).sort()).toEqual([...names].sort());
    expect(await bashComplete("inspect", "weights.saf")).toEqual(["weights.safetensors"]);
    expect(await bashComplete("help", "dif")).toEqual(["diff"]);
    // a FILE that is not there gives no names and no error text
    expect(await bashComplete("show", "missing.onnx", "")).toEqual([]);
  });
});

describe("tensorfile completion", () => {
  it("--tensors FILE prints one name a line; a file that does not open prints nothing, exit 0", async () => {
    expect(await cli("completion", "--tensors", model)).toEqual({
      code: 0,
      stdout: `${names.join("\n")}\n`,
      stderr: "",
    });
    expect(await cli("completion", "--tensors", join(dir, "nothing"))).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("an unknown or missing shell is a usage error", async () => {
    expect((await cli("completion", "powershell")).code).toBe(2);
    expect((await cli("completion")).code).toBe(2);
  });

  for (const shell of ["zsh", "fish"] as const) {
    it.skipIf(!has(shell))(`the ${shell} script parses in ${shell}`, async () => {
      const path = join(dir, `completion.${shell}`);
      writeFileSync(path, (await cli("completion", shell)).stdout);
      const r = spawnSync(shell, shell === "zsh" ? ["-n", path] : ["--no-execute", path], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    });
  }

  it("every script names every command and option of the usage", async () => {
    const usage = (await cli("--help")).stdout;
    const commands = [...new Set([...usage.matchAll(/^ {2}tensorfile (\w+)/gm)].map((m) => m[1]!))];
    for (const shell of ["bash", "zsh", "fish"]) {
      const script = (await cli("completion", shell)).stdout;
      for (const command of commands) expect(script, `${shell}: ${command}`).toContain(command);
      expect(script).toContain("only-different");
    }
  });
});
