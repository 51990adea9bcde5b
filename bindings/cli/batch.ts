/**
 * `tensorfile convert --out-dir DIR --to safetensors|npy FILE… [-j N] [--dtype float32] [--force]`: many files
 * converted on worker threads (`-j`, default the core count; `-j 1` works in the main thread).
 *
 * Each FILE becomes DIR/<its name without the extension>.<safetensors|npy>, byte for byte what the single-file
 * `convert FILE OUT` writes (tests compare them). Before anything is written the main thread checks every output:
 * an existing one needs --force, an input is never overwritten, two inputs may not map to one output (exit 2).
 * Then it hands out files in small batches; for each, a worker writes a temporary file beside the output (the main
 * thread has registered it: an error exit or a signal removes it) and renames it into place. Files up to 256 MiB
 * are converted in memory through loadFile (each tensor read straight into place, one write), bigger ones
 * tensor by tensor as `convert` streams them. A file that fails is reported with its name and counted; the
 * others are still written; the exit status is then 1. A progress bar on a terminal, a summary at the end.
 */
import { closeSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { availableParallelism, cpus } from "node:os";
import { basename, extname, join, resolve } from "node:path";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { formatModule } from "../any.js";
import { npyHeader } from "../export/npy.js";
import { planSafetensors } from "../export/safetensors.js";
import { loadFile } from "../load-file.js";
import { type DecodeOptions, decodedDType } from "../tensor.js";
import { OutputError, OutputRefused, fsReason, placeFile, reserveTemporary } from "./output.js";
import { Progress, type ProgressStream, formatBytes } from "./progress.js";
import { type CliIO, InputError, UsageError, errorLine, isInputError, jsonText, print } from "./common.js";
import { externalDirSetting, pickTensor, setExternalDir } from "./inputs.js";
import { checkSafetensorsNames, convertTensorsTo, noTensorsError } from "./tensor-output.js";

export interface BatchOptions {
  outDir: string;
  to: string | undefined;
  jobs: string | undefined;
  dtype: string | undefined;
  force: boolean;
  /** Print { outDir, to, converted, failed, bytes, files } on standard output instead of the summary line. */
  json?: boolean | undefined;
}

/** One conversion: `input` into `temp`, renamed to `output` when complete. */
interface Job {
  id: number;
  input: string;
  temp: string;
  output: string;
  ext: ".safetensors" | ".npy";
  decode: DecodeOptions;
  /** replace an existing output (otherwise one that appeared meanwhile is left alone: the job fails) */
  force: boolean;
  /** --external-dir (a worker thread has its own copy of inputs.ts's setting) */
  externalDir: string | undefined;
}

type JobResult = { id: number; ok: true; bytes: number } | { id: number; ok: false; message: string; input: boolean };

const WORKER_FLAG = "tensorfileBatchWorker";
/** Inputs up to this size are converted in memory (loadFile, one write); bigger ones are streamed. */
const IN_MEMORY_BYTES = 256 << 20;
/** Files per message to a worker (fewer round trips for corpora of small files). */
const BATCH = 8;

const bytesOf = (data: ArrayBufferView): Uint8Array => new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

function writeParts(path: string, parts: readonly Uint8Array[]): number {
  const fd = openSync(path, "w");
  let total = 0;
  try {
    for (const part of parts) {
      for (let done = 0; done < part.length;) done += writeSync(fd, part, done, part.length - done);
      total += part.length;
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

/** The output's bytes built in memory: the same header and layout `convert` streams to its file. */
async function convertInMemory(job: Job): Promise<number> {
  const loaded = await loadFile(job.input, { ...job.decode, externalData: job.externalDir });
  const module = formatModule(loaded.format);
  const infos = module.tensorInfos(loaded.file as never);
  if (job.ext === ".npy") {
    const tensor = loaded.tensors[infos.indexOf(pickTensor(infos, undefined))]!;
    return writeParts(job.temp, [npyHeader(tensor.dtype, tensor.shape), bytesOf(tensor.data)]);
  }
  if (infos.length === 0)
    throw noTensorsError(
      job.input,
      module.blobs(loaded.file as never).map((b) => b.name),
    );
  checkSafetensorsNames(job.input, infos);
  const plan = planSafetensors(
    infos.map((i) => ({ name: i.name, dtype: decodedDType(i, job.decode), shape: i.shape })),
    { "tensorfile.source": loaded.format },
  );
  const out = new Uint8Array(plan.size);
  out.set(plan.header);
  for (const slot of plan.layout) {
    const data = bytesOf(loaded.tensors[slot.index]!.data);
    if (data.length !== slot.end - slot.begin)
      throw new InputError(`tensor ${slot.name} decoded to ${data.length} bytes, expected ${slot.end - slot.begin}`);
    out.set(data, plan.header.length + slot.begin);
  }
  return writeParts(job.temp, [out]);
}

/** Converts one file into its temporary output and renames it into place; failures are reported, not thrown. */
async function runJob(job: Job): Promise<JobResult> {
  const quiet: ProgressStream = { isTTY: false, write: () => true };
  setExternalDir(job.externalDir);
  try {
    let bytes: number;
    if (statSync(job.input).size <= IN_MEMORY_BYTES) {
      bytes = await convertInMemory(job);
    } else {
      await convertTensorsTo({ stdout: quiet, stderr: quiet }, job.input, job.temp, job.ext, job.decode);
      bytes = statSync(job.temp).size;
    }
    placeFile(job.temp, job.output, job.force);
    return { id: job.id, ok: true, bytes };
  } catch (error) {
    rmSync(job.temp, { force: true });
    const input = isInputError(error) || error instanceof UsageError;
    return {
      id: job.id,
      ok: false,
      input,
      message: input ? errorLine(error) : `internal error: ${(error as Error)?.message ?? String(error)}`,
    };
  }
}

// a worker thread started by runBatch: convert each batch of jobs it is sent, answer with their results
if (!isMainThread && (workerData as Record<string, unknown> | null)?.[WORKER_FLAG] === true) {
  parentPort!.on("message", (jobs: Job[]) => {
    void (async () => {
      const results: JobResult[] = [];
      for (const job of jobs) results.push(await runJob(job));
      parentPort!.postMessage(results);
    })();
  });
}

function defaultJobs(): number {
  return typeof availableParallelism === "function" ? availableParallelism() : Math.max(1, cpus().length);
}

/** Checks every output before anything is written: clashes, inputs, existing files without --force. */
async function checkOutputs(inputs: readonly string[], outputs: readonly string[], force: boolean): Promise<void> {
  const problems: string[] = [];
  const byOutput = new Map<string, number>();
  outputs.forEach((out, i) => {
    const key = resolve(out);
    const first = byOutput.get(key);
    if (first !== undefined)
      problems.push(
        `${inputs[first]} and ${inputs[i]} would both be written to ${out} (rename one, or convert them into different folders)`,
      );
    else byOutput.set(key, i);
  });
  const identity = async (path: string) => {
    try {
      const s = await stat(path);
      return `${s.dev}:${s.ino}`;
    } catch {
      return undefined;
    }
  };
  const inputIds = new Map<string, string>();
  for (const input of inputs) {
    const id = await identity(input);
    if (id) inputIds.set(id, input);
  }
  const inputPaths = new Map(inputs.map((p) => [resolve(p), p]));
  for (const out of outputs) {
    const id = await identity(out);
    const input = id ? inputIds.get(id) : inputPaths.get(resolve(out));
    if (input !== undefined) problems.push(`${out} is the input ${input}: refusing to write over it`);
    else if (id && !force) problems.push(`${out} exists (use --force to overwrite it)`);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 10).join("\n  ");
    throw new OutputRefused(
      `${problems.length} output${problems.length === 1 ? "" : "s"} refused:\n  ${shown}${problems.length > 10 ? `\n  … and ${problems.length - 10} more` : ""}`,
    );
  }
}

/** Runs `convert --out-dir`; returns the exit status (usage problems are thrown: UsageError, OutputRefused). */
export async function runBatch(io: CliIO, inputs: string[], options: BatchOptions): Promise<number> {
  if (inputs.length === 0) throw new UsageError("convert --out-dir DIR --to safetensors|npy takes one or more FILEs");
  if (options.to !== "safetensors" && options.to !== "npy") {
    throw new UsageError(
      `convert --out-dir needs --to safetensors or --to npy${options.to === undefined ? "" : `, not ${options.to}`}`,
    );
  }
  if (options.dtype !== undefined && options.dtype !== "float32")
    throw new UsageError(`--dtype takes float32, not ${options.dtype}`);
  const jobs = options.jobs === undefined ? defaultJobs() : Number(options.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 1024)
    throw new UsageError(`-j takes a number of threads from 1 to 1024, not ${options.jobs}`);
  for (const input of inputs) {
    if (input === "-" || /^https?:\/\//i.test(input))
      throw new UsageError(
        `convert --out-dir converts files, not ${input === "-" ? "standard input" : "URLs"} (convert it alone: tensorfile convert ${input} OUT)`,
      );
  }
  const ext = options.to === "npy" ? ".npy" : ".safetensors";
  const outputs = inputs.map((input) => join(options.outDir, `${basename(input, extname(input))}${ext}`));
  await checkOutputs(inputs, outputs, options.force);
  await mkdir(options.outDir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    const reason =
      error.code === "EEXIST" || error.code === "ENOTDIR"
        ? "it (or a folder above it) is a file, not a folder"
        : fsReason(error);
    throw new OutputError(`cannot create the folder ${options.outDir}: ${reason}`);
  });
  const decode: DecodeOptions = options.dtype === "float32" ? { dtype: "float32" } : {};

  const sizes = await Promise.all(
    inputs.map((p) =>
      stat(p).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  const progress = new Progress(
    io.stderr,
    "convert",
    sizes.reduce((a, b) => a + b, 0),
  );
  const started = Date.now();
  let failed = 0;
  const failures = new Map<number, string>();
  let written = 0;
  const threads = Math.min(jobs, Math.ceil(inputs.length / BATCH));
  const reserved = new Map<number, () => void>();
  const makeJob = (id: number): Job => {
    const { temp, release } = reserveTemporary(outputs[id]!);
    reserved.set(id, release);
    return {
      id,
      input: inputs[id]!,
      temp,
      output: outputs[id]!,
      ext,
      decode,
      force: options.force,
      externalDir: externalDirSetting(),
    };
  };
  const finish = (result: JobResult): void => {
    reserved.get(result.id)?.();
    reserved.delete(result.id);
    if (result.ok) {
      written += result.bytes;
    } else {
      failed++;
      failures.set(result.id, result.message);
      progress.finish();
      io.stderr.write(`tensorfile: ${inputs[result.id]}: ${result.message}\n`);
    }
    progress.advance(sizes[result.id]!, basename(inputs[result.id]!));
  };

  let next = 0;
  const take = (): Job[] => {
    const batch: Job[] = [];
    while (next < inputs.length && batch.length < BATCH) batch.push(makeJob(next++));
    return batch;
  };
  if (threads <= 1) {
    while (next < inputs.length) finish(await runJob(makeJob(next++)));
  } else {
    const workers = Array.from(
      { length: threads },
      () => new Worker(new URL(import.meta.url), { workerData: { [WORKER_FLAG]: true } }),
    );
    try {
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((done) => {
              let current: Job[] = [];
              const send = () => {
                current = take();
                if (current.length === 0) done();
                else worker.postMessage(current);
              };
              worker.on("message", (results: JobResult[]) => {
                results.forEach(finish);
                send();
              });
              worker.on("error", (error) => {
                // a worker that dies fails its current batch; the rest go to the others (or fail too)
                for (const job of current)
                  finish({
                    id: job.id,
                    ok: false,
                    input: false,
                    message: `internal error: worker failed: ${error.message}`,
                  });
                current = [];
                done();
              });
              send();
            }),
        ),
      );
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
    // jobs a failed worker never took
    while (next < inputs.length) finish(await runJob(makeJob(next++)));
  }
  progress.finish();
  const seconds = (Date.now() - started) / 1000;
  const ok = inputs.length - failed;
  if (options.json) {
    print(
      io.stdout,
      jsonText({
        outDir: options.outDir,
        to: options.to,
        converted: ok,
        failed,
        bytes: written,
        files: inputs.map((input, i) => ({
          input,
          output: outputs[i]!,
          ok: !failures.has(i),
          ...(failures.has(i) ? { error: failures.get(i) } : {}),
        })),
      }),
    );
    return failed > 0 ? 1 : 0;
  }
  io.stderr.write(
    `converted ${ok} of ${inputs.length} file${inputs.length === 1 ? "" : "s"} into ${options.outDir} (${formatBytes(written)} written, ${seconds.toFixed(1)} s, ${threads} thread${threads === 1 ? "" : "s"})${failed > 0 ? `; ${failed} failed` : ""}\n`,
  );
  return failed > 0 ? 1 : 0;
}
