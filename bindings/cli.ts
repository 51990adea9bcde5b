#!/usr/bin/env node
// The `tensorfile` bin. All the work is in cli/run.ts.
import { isMainThread } from "node:worker_threads";
import { runCli } from "./cli/run.js";

// Output into a closed pipe (`tensorfile inspect F | head -1`) ends quietly with exit 0, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

// in a worker thread of `convert --out-dir` (cli/batch.ts runs this same file as its workers) there is no command line
if (isMainThread) runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`tensorfile: internal error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
