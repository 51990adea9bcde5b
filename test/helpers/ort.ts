/**
 * onnxruntime-web in Node for tests: one thread, and every message ORT logs at warning level or above collected
 * (session logSeverityLevel 1), so a test can assert an exported model loads with no warnings. ORT's wasm module
 * logs with fs.writeSync(1|2) in Node, so that is what is intercepted (plus console and process.stderr).
 */
import fs from "node:fs";
import * as ort from "onnxruntime-web";

ort.env.wasm.numThreads = 1;
ort.env.logLevel = "warning";

export { ort };

export interface RunResult {
  outputs: Record<string, ort.Tensor>;
  /** What ORT printed (console and stderr) while creating the session and running it, without [I]/[V] info lines. */
  messages: string[];
}

/** Creates a session over `model`, runs it on `feeds`, and returns the outputs with every message ORT printed. */
export async function runOnnx(model: Uint8Array, feeds: Record<string, ort.Tensor>): Promise<RunResult> {
  const messages: string[] = [];
  const saved = {
    warn: console.warn,
    error: console.error,
    log: console.log,
    write: process.stderr.write,
    writeSync: fs.writeSync,
  };
  const keep = (...args: unknown[]): void => {
    messages.push(args.map(String).join(" "));
  };
  console.warn = keep;
  console.error = keep;
  console.log = keep;
  process.stderr.write = ((chunk: unknown) => {
    messages.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd === 1 || fd === 2) {
      messages.push(String(data));
      return typeof data === "string" ? data.length : 0;
    }
    return (saved.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync;
  try {
    const session = await ort.InferenceSession.create(model, {
      logSeverityLevel: 1,
      logVerbosityLevel: 0,
      graphOptimizationLevel: "all",
    });
    try {
      const outputs = await session.run(feeds);
      return { outputs, messages: messages.filter((m) => !/\[[IV]:onnxruntime/.test(m) && m.trim() !== "") };
    } finally {
      await session.release();
    }
  } finally {
    console.warn = saved.warn;
    console.error = saved.error;
    console.log = saved.log;
    process.stderr.write = saved.write;
    fs.writeSync = saved.writeSync;
  }
}
