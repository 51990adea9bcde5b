// Running the CLI from tests: in-process through runCli (fast; stdout/stderr captured as text, never a TTY) or
// as the built `dist/cli.js` in a child process (exit codes, signals, pipes and stdin as a user sees them).
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../bindings/cli/run.js";

/** The built CLI (run `npm run build` first; `npm test` does). */
export const BUILT_CLI = resolve(dirname(fileURLToPath(import.meta.url)), "../../dist/cli.js");

/** Runs `tensorfile ARGV…` in-process; returns its exit code and what it wrote. */
export async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { isTTY: false, write: (t: string) => (stdout += t) },
    stderr: { isTTY: false, write: (t: string) => (stderr += t) },
  });
  return { code, stdout, stderr };
}
