#!/usr/bin/env node
// The `tensorfile` bin. All the work is in cli/ (cli/run.ts dispatches to one module per command).
import { isMainThread } from "node:worker_threads";
import { runCli } from "./cli/run.js";

/**
 * A standard stream whose reader may go away (`tensorfile verify BAD GOOD | head -1`): after EPIPE, writes are
 * dropped quietly (their callbacks get the EPIPE error, so that a command streaming data to stdout can stop), and
 * the command still ends with the exit status it would have had: a closed pipe never turns a failure into a success.
 */
function guarded(stream: NodeJS.WriteStream) {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") closed = true;
    else throw error;
  });
  return {
    get isTTY() {
      return !closed && stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean {
      if (closed) {
        callback?.(Object.assign(new Error("standard output closed"), { code: "EPIPE" }));
        return true;
      }
      return stream.write(chunk, callback);
    },
  };
}

// in a worker thread of `convert --out-dir` (cli/batch.ts runs this same file as its workers) there is no command line
if (isMainThread)
  runCli(process.argv.slice(2), { stdout: guarded(process.stdout), stderr: guarded(process.stderr) }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`tensorfile: internal error: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
