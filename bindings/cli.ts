#!/usr/bin/env node
// The `tensorfile` bin. All the work is in cli/run.ts.
import { runCli } from "./cli/run.js";

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`tensorfile: internal error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
