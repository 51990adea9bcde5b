// Running the CLI from tests: in-process through runCli (fast; stdout/stderr captured as text, never a TTY) or
// as the built `dist/cli.js` in a child process (exit codes, signals, pipes and stdin as a user sees them).
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
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

/**
 * Peak RSS (bytes) of `node dist/cli.js ARGS…`, from process.resourceUsage() at exit, and its exit status; the
 * preload that reports it is written once into `dir` (a test's scratch folder).
 */
export function peakRss(dir: string, args: string[]): { rss: number; status: number | null; stderr: string } {
  const preload = join(dir, "report-rss.cjs");
  if (!existsSync(preload)) {
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeSync(2, "\\nmaxRSS=" + process.resourceUsage().maxRSS + "\\n"));\n`,
    );
  }
  const r = spawnSync(process.execPath, ["--require", preload, BUILT_CLI, ...args], {
    encoding: "utf8",
    timeout: 600_000,
    killSignal: "SIGKILL",
  });
  const kib = /maxRSS=(\d+)/.exec(r.stderr)?.[1];
  return { rss: kib === undefined ? Number.NaN : Number(kib) * 1024, status: r.status, stderr: r.stderr };
}
