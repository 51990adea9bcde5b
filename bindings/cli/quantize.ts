/**
 * `tensorfile convert IN.onnx|IN.april|IN.tsm OUT --quantize fp16|bf16|i8`: an ONNX model (or each network of an
 * .april file, or the ONNX translation of a TenniS module) converted by onnx.quantize, written in the input's
 * format (.onnx for a TenniS module), with a report of what was done (`--json` for the same as JSON). `--check`
 * runs the original and the converted model in onnxruntime-web (when the user has it installed: an optional peer
 * dependency, imported only here) and refuses (exit 1, nothing written) when an output's cosine distance is above
 * the tolerance.
 */
import { createWriteStream } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { extname, join } from "node:path";
import * as april from "../formats/april.js";
import * as npy from "../formats/npy.js";
import * as onnx from "../formats/onnx.js";
import * as tsm from "../formats/tsm.js";
import type { OnnxModel, QuantizeMode, QuantizeReport } from "../formats/onnx.js";
import * as kernels from "../kernels/index.js";
import { writePiecesTo } from "../export/stream.js";
import { quantizedPieces as aprilQuantizedPieces } from "../formats/april/quantize-stream.js";
import { type OutputPiece, quantizedPieces as onnxQuantizedPieces } from "../formats/onnx/quantize-stream.js";
import { type CliIO, InputError, UsageError, jsonText, print, writeStdout } from "./common.js";
import { detectInputFormat, openSource, readWhole } from "./inputs.js";
import { checkOutput, writeAtomically } from "./output.js";
import { Progress } from "./progress.js";
import { parseInputs, parseOpset } from "./tsm-onnx.js";
import { capabilitiesOf } from "../formats/registry.js";

export const QUANTIZE_HELP = `  --quantize fp16|bf16|i8  for an .onnx or .april OUT from the same format (or an .onnx OUT from a TenniS module):
                fp16: float32 weights and computation in float16 (Casts around the ops kept float32);
                bf16: weights stored as bfloat16 (opset 13+); i8: MatMul/Gemm/Conv/LSTM weights as int8 per channel.
                Prints what was done (see docs/changing-a-model.md). Streamed from IN (its structure and 16 MiB
                of a weight at a time in memory) unless --check or a TenniS IN
  --keep-io true|false  fp16: keep the graph's inputs and outputs float32 (default true)
  --check       run the original and the converted model in onnxruntime-web (install it: npm install
                onnxruntime-web) and print per output max |difference|, max relative difference and cosine;
                exit 1 and nothing written when an output's 1 - cosine is above the tolerance (and its largest
                difference above the tolerance times its largest |value|)
  --inputs DIR  for --check: DIR/<input name>.npy (an .april: DIR/<network>/<input name>.npy); others generated
  --shape NAME=DIMS[,…]  for --check: a symbolic dim's size (batch=1) or an input's shape (input=1x512)
  --tolerance X for --check: the largest 1 - cosine allowed (default fp16 0.001, bf16 0.001, i8 0.01)
  --json        the report as JSON on standard output`;

/** The options the quantize route reads (convert's, as parsed). */
export interface QuantizeCliOptions {
  quantize?: string;
  "keep-io"?: string;
  check?: boolean;
  inputs?: string;
  shape?: string;
  tolerance?: string;
  json?: boolean;
  force?: boolean;
  opset?: string;
  input?: string;
}

/** The default --tolerance per mode (the largest 1 - cosine similarity allowed per output). */
export const DEFAULT_TOLERANCE: Readonly<Record<QuantizeMode, number>> = { fp16: 1e-3, bf16: 1e-3, i8: 1e-2 };

/** What --check measured for one output. */
export interface OutputCheck {
  /** The network (an .april) and the output's name. */
  output: string;
  maxAbsDifference: number;
  maxRelativeDifference: number;
  cosine: number;
  passed: boolean;
}

/** True for the options only the quantize route takes. */
export function quantizeOnlyOption(options: QuantizeCliOptions): string | undefined {
  for (const name of ["keep-io", "check", "inputs", "shape", "tolerance"] as const)
    if (options[name] !== undefined) return name;
  return undefined;
}

function parseMode(text: string): QuantizeMode {
  if (text !== "fp16" && text !== "bf16" && text !== "i8")
    throw new UsageError(`--quantize takes fp16, bf16 or i8 for ONNX, .april and TenniS inputs, not ${text}`);
  return text;
}

function parseShapes(text: string | undefined): { dims: Record<string, number>; shapes: Record<string, number[]> } {
  const dims: Record<string, number> = {};
  const shapes: Record<string, number[]> = {};
  for (const item of text?.split(",") ?? []) {
    const match = /^(.+)=(\d+(?:x\d+)*)$/.exec(item);
    if (!match)
      throw new UsageError(`--shape takes NAME=DIMS (a symbolic dim: batch=1; an input: input=1x512), not ${item}`);
    const values = match[2]!.split("x").map(Number);
    if (values.length === 1) dims[match[1]!] = values[0]!;
    shapes[match[1]!] = values;
  }
  return { dims, shapes };
}

const KIB = 1024;
function sizeText(bytes: number): string {
  if (bytes < 10 * KIB) return `${bytes} B`;
  if (bytes < 10 * KIB * KIB) return `${(bytes / KIB).toFixed(1)} KiB`;
  return `${(bytes / KIB / KIB).toFixed(1)} MiB`;
}

/** The report as lines of text (one network: `prefix` names it). */
export function reportText(report: QuantizeReport, prefix = ""): string[] {
  const lines: string[] = [];
  const ratio =
    report.weightBytesBefore > 0 ? ` (${(report.weightBytesAfter / report.weightBytesBefore).toFixed(2)}x)` : "";
  lines.push(
    `${prefix}${report.mode}: ${report.tensorsConverted} tensors converted; weights ${sizeText(report.weightBytesBefore)} -> ${sizeText(report.weightBytesAfter)}${ratio}`,
  );
  if (report.mode === "fp16") {
    lines.push(`${prefix}values clamped to ±65504: ${report.clamped}; flushed to zero: ${report.flushed}`);
    lines.push(
      `${prefix}ops computing in float16: ${report.opsFloat16}; Casts added: ${report.nodesAdded}; Cast(to=FLOAT) retargeted to FLOAT16: ${report.castsRetargeted}`,
    );
    if (report.opsKeptFloat32.length > 0) {
      lines.push(
        `${prefix}ops left in float32: ${report.opsKeptFloat32.map((o) => `${o.opType} x${o.count} (${o.reason})`).join(", ")}`,
      );
    }
  } else {
    lines.push(
      `${prefix}values flushed to zero: ${report.flushed}; ${report.mode === "bf16" ? "Casts" : "dequantizing nodes"} added: ${report.nodesAdded}`,
    );
  }
  if (report.tensorsKept.length > 0) {
    const reasons = new Map<string, number>();
    for (const k of report.tensorsKept) reasons.set(k.reason, (reasons.get(k.reason) ?? 0) + 1);
    lines.push(`${prefix}float32 tensors left as they are: ${[...reasons].map(([r, n]) => `${n} ${r}`).join("; ")}`);
  }
  for (const note of report.notes) lines.push(`${prefix}note: ${note}`);
  return lines;
}

// --------------------------------------------------------------------------------------------- --check

type Ort = typeof import("onnxruntime-web");
type OrtTensor = import("onnxruntime-web").Tensor;

/** onnxruntime-web, imported when the user has it installed (an optional peer dependency). */
export async function loadOrt(specifier = "onnxruntime-web"): Promise<Ort> {
  try {
    const ort = (await import(/* @vite-ignore */ specifier)) as Ort;
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = "error";
    return ort;
  } catch (cause) {
    throw new InputError(
      `--check runs the models in onnxruntime-web, which is not installed here (${(cause as Error).message.split("\n")[0]}): install it with "npm install onnxruntime-web" (an optional peer dependency of tensorfile), or leave out --check`,
    );
  }
}

const NPY_TYPES: Record<string, string> = {
  float32: "float32",
  float16: "float16",
  float64: "float64",
  int64: "int64",
  int32: "int32",
  int8: "int8",
  uint8: "uint8",
  bool: "bool",
};

async function readInputs(ort: Ort, dir: string | undefined): Promise<Map<string, OrtTensor>> {
  const out = new Map<string, OrtTensor>();
  if (dir === undefined) return out;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (cause) {
    throw new InputError(`--inputs ${dir}: ${(cause as Error).message}`);
  }
  for (const name of names.filter((n) => n.endsWith(".npy"))) {
    const t = npy.tensors(npy.read(new Uint8Array(await readFile(join(dir, name)))))[0]!;
    const type = NPY_TYPES[t.dtype];
    if (!type) throw new InputError(`--inputs: ${join(dir, name)} holds ${t.dtype}, which --check cannot feed`);
    out.set(name.slice(0, -4), new ort.Tensor(type as "float32", t.data as Float32Array, t.shape));
  }
  return out;
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Feeds for a model: the given .npy inputs, others generated (floats uniform in [-1, 1), integers 1, bools true). */
function feedsFor(
  ort: Ort,
  model: OnnxModel,
  given: Map<string, OrtTensor>,
  shapes: ReturnType<typeof parseShapes>,
): Record<string, OrtTensor> {
  const feeds: Record<string, OrtTensor> = {};
  const initializers = new Set(model.graph?.initializers.map((t) => t.name));
  const random = seeded(1);
  for (const v of model.graph?.inputs ?? []) {
    if (initializers.has(v.name)) continue;
    const have = given.get(v.name);
    if (have) {
      feeds[v.name] = have;
      continue;
    }
    const shape =
      shapes.shapes[v.name] ??
      (v.type.shape ?? []).map((d) => (typeof d === "number" ? d : typeof d === "string" ? (shapes.dims[d] ?? 1) : 1));
    const count = shape.reduce((x, y) => x * y, 1);
    switch (v.type.elemType) {
      case 1:
        feeds[v.name] = new ort.Tensor(
          "float32",
          Float32Array.from({ length: count }, () => random() * 2 - 1),
          shape,
        );
        break;
      case 10:
        feeds[v.name] = new ort.Tensor(
          "float16",
          new Uint16Array(count).map(() => 0x3800),
          shape,
        );
        break; // 0.5
      case 7:
        feeds[v.name] = new ort.Tensor("int64", new BigInt64Array(count).fill(1n), shape);
        break;
      case 6:
        feeds[v.name] = new ort.Tensor("int32", new Int32Array(count).fill(1), shape);
        break;
      case 9:
        feeds[v.name] = new ort.Tensor("bool", new Uint8Array(count).fill(1), shape);
        break;
      default:
        throw new InputError(
          `--check cannot generate input ${v.name} (${onnx.dataTypeName(v.type.elemType ?? 0)}): give it with --inputs DIR`,
        );
    }
  }
  return feeds;
}

function asFloat32(t: OrtTensor): Float32Array {
  if (t.type === "float32") return t.data as Float32Array;
  if (t.type === "float16") return kernels.f16ToF32(t.data as Uint16Array);
  const data = t.data as ArrayLike<number | bigint>;
  return Float32Array.from({ length: data.length }, (_, i) => Number(data[i]));
}

/**
 * One output of the converted model (`got`) against the original's (`want`). The kernels' diffStats gives the
 * max |difference| and the sums of the cosine (over the pairs where both are finite; NaN opposite NaN is equal, a
 * NaN or infinity opposite anything else is infinitely far, so such an output fails). The relative difference is
 * measured here, over the reference's non-zero values: diffStats's maxRel is infinite wherever the reference is 0,
 * which a ReLU or sigmoid output has everywhere, and would say nothing.
 */
export function compareOutput(
  label: string,
  want: OrtTensor,
  got: OrtTensor | undefined,
  tolerance: number,
): OutputCheck {
  const a = asFloat32(want);
  const b = got === undefined ? undefined : asFloat32(got);
  if (b === undefined || a.length !== b.length)
    return {
      output: label,
      maxAbsDifference: Number.NaN,
      maxRelativeDifference: Number.NaN,
      cosine: Number.NaN,
      passed: false,
    };
  const stats = kernels.diffStats(b, a);
  let maxRel = 0;
  let maxRef = 0;
  for (let i = 0; i < a.length; i++) {
    const x = Math.abs(a[i]!);
    if (x > maxRef && x < Infinity) maxRef = x;
    if (x > 0 && x < Infinity) {
      const rel = Math.abs(b[i]! - a[i]!) / x;
      if (rel > maxRel) maxRel = rel;
    }
  }
  const { dot, normA2, normB2 } = stats;
  const cosine = normA2 === 0 && normB2 === 0 ? 1 : normA2 === 0 || normB2 === 0 ? 0 : dot / Math.sqrt(normA2 * normB2);
  // an output of values near zero (a sigmoid map of a blank image) has a cosine that means little: it also passes
  // when its largest difference is within the tolerance times its largest value
  const passed = stats.maxAbs < Infinity && (1 - cosine <= tolerance || stats.maxAbs <= tolerance * maxRef);
  return { output: label, maxAbsDifference: stats.maxAbs, maxRelativeDifference: maxRel, cosine, passed };
}

async function run(
  ort: Ort,
  bytes: Uint8Array,
  feeds: Record<string, OrtTensor>,
  which: string,
): Promise<Record<string, OrtTensor>> {
  try {
    const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 3 });
    try {
      return await session.run(feeds);
    } finally {
      await session.release();
    }
  } catch (cause) {
    throw new InputError(`--check: onnxruntime-web could not run the ${which}: ${(cause as Error).message}`);
  }
}

async function checkPair(
  ort: Ort,
  label: string,
  original: Uint8Array,
  converted: Uint8Array,
  model: OnnxModel,
  given: Map<string, OrtTensor>,
  shapes: ReturnType<typeof parseShapes>,
  tolerance: number,
): Promise<OutputCheck[]> {
  const feeds = feedsFor(ort, model, given, shapes);
  const want = await run(ort, original, feeds, `original ${label || "model"}`);
  const convertedFeeds = { ...feeds };
  // --keep-io false: float32 inputs that became float16 are fed as float16
  const quantized = onnx.read(converted);
  for (const v of quantized.graph?.inputs ?? []) {
    const feed = feeds[v.name];
    if (feed && v.type.elemType === 10 && feed.type === "float32") {
      convertedFeeds[v.name] = new ort.Tensor(
        "float16",
        kernels.f32ToF16(feed.data as Float32Array),
        feed.dims as number[],
      );
    }
  }
  const got = await run(ort, converted, convertedFeeds, `converted ${label || "model"}`);
  return Object.keys(want).map((name) =>
    compareOutput(label ? `${label}/${name}` : name, want[name]!, got[name], tolerance),
  );
}

// ------------------------------------------------------------------------------------------- the command

/**
 * How --quantize takes a format, from its capabilities: one ONNX model (`model`: onnx), a file of ONNX networks
 * quantized each (`networks`: april), or a model converted to ONNX first (`converted`: TenniS); undefined for a
 * format it does not quantize.
 */
export type QuantizeKind = "model" | "networks" | "converted";

/** The {@link QuantizeKind} of format `format` (an id from detectFormat), or undefined. */
export function quantizeKindOf(format: string | undefined): QuantizeKind | undefined {
  const capabilities = format === undefined ? undefined : capabilitiesOf(format);
  if (capabilities?.convertsTo?.includes("onnx")) return "converted";
  if (capabilities?.edit === undefined) return undefined;
  return capabilities.edit.networks ? "networks" : "model";
}

/** `convert IN OUT --quantize MODE …` for ONNX, .april and TenniS inputs; other inputs are refused (exit 2). */
export async function quantizeConvert(
  io: CliIO,
  input: string,
  output: string,
  options: QuantizeCliOptions,
): Promise<number> {
  const mode = parseMode(options.quantize ?? "");
  const keep = options["keep-io"];
  if (keep !== undefined && keep !== "true" && keep !== "false")
    throw new UsageError(`--keep-io takes true or false, not ${keep}`);
  if (keep !== undefined && mode !== "fp16")
    throw new UsageError(
      "--keep-io goes with --quantize fp16 (bf16 and i8 never change the graph's inputs and outputs)",
    );
  for (const name of ["inputs", "shape", "tolerance"] as const)
    if (options[name] !== undefined && !options.check) throw new UsageError(`--${name} goes with --check`);
  const tolerance = options.tolerance === undefined ? DEFAULT_TOLERANCE[mode] : Number(options.tolerance);
  if (!(tolerance >= 0) || !/^\s*[\d.e+-]+\s*$/i.test(options.tolerance ?? "0"))
    throw new UsageError(`--tolerance takes a number >= 0 (the largest 1 - cosine allowed), not ${options.tolerance}`);
  const shapes = parseShapes(options.shape);
  // the first bytes decide (convert routed here on them): a model is read whole only when --check runs it
  const format = await detectInputFormat(input);
  const kind = quantizeKindOf(format);
  if (format === undefined || kind === undefined)
    throw new UsageError(
      `--quantize ${mode} applies to ONNX models, .april files and TenniS modules (and to bw2l re-encodes as fp16|i8); ${input} is none of these`,
    );
  // a converted model is written as ONNX, the others in their own format
  const writtenFormat = kind === "converted" ? "onnx" : format;
  const wanted = capabilitiesOf(writtenFormat)?.module.extensions[0] ?? ".onnx";
  if (extname(output).toLowerCase() !== wanted)
    throw new UsageError(
      `--quantize writes ${kind === "converted" ? "an ONNX model" : `the input's format`}: OUT must end in ${wanted}, not ${extname(output) || "(nothing)"}`,
    );
  if ((options.opset !== undefined || options.input !== undefined) && kind !== "converted")
    throw new UsageError(`--${options.opset !== undefined ? "opset" : "input"} goes with a TenniS input`);
  await checkOutput(output, [input], { force: options.force ?? false });
  const ort = options.check ? await loadOrt() : undefined;

  const keepIO = keep !== "false";
  const reports: { network: string; report: QuantizeReport }[] = [];
  if (!ort && kind !== "converted") {
    const size = await streamQuantized(io, input, output, kind, { mode, keepIO }, reports, options.force ?? false);
    return finish(
      io,
      input,
      output,
      mode,
      writtenFormat,
      reports,
      [],
      undefined,
      tolerance,
      size,
      options.json ?? false,
    );
  }
  const bytes = await readWhole(input);
  // --check (which runs both models) and TenniS inputs (translated in memory): the model is converted in memory
  let written: Uint8Array | undefined;
  let stream: (sink: import("node:fs").WriteStream) => Promise<number>;
  const checks: OutputCheck[] = [];
  const given = ort ? await readInputs(ort, options.inputs) : new Map<string, OrtTensor>();
  if (kind === "networks") {
    const file = april.read(bytes);
    const result = april.quantizeWithReport(file, { mode, keepIO });
    for (const [network, report] of Object.entries(result.reports)) reports.push({ network, report: report! });
    stream = (sink) => april.writeTo(result.file, sink);
    if (ort) {
      written = april.write(result.file);
      const after = april.read(written);
      for (const network of april.NETWORK_NAMES) {
        const before = file.onnx?.[network];
        if (!before) continue;
        const sub = await readInputs(
          ort,
          options.inputs === undefined ? undefined : join(options.inputs, network),
        ).catch(() => new Map<string, OrtTensor>());
        checks.push(
          ...(await checkPair(
            ort,
            network,
            new Uint8Array(file.networks[network] as Uint8Array),
            new Uint8Array(after.networks[network] as Uint8Array),
            before,
            sub.size > 0 ? sub : given,
            shapes,
            tolerance,
          )),
        );
      }
    }
  } else {
    let original = bytes;
    if (kind === "converted") {
      const usage = (m: string) => new UsageError(m);
      original = tsm.toOnnx(tsm.read(bytes), {
        opset: parseOpset(options.opset, usage),
        inputs: parseInputs(options.input?.split(","), usage),
      });
    }
    const model = onnx.read(original);
    const result = onnx.quantizeWithReport(model, { mode, keepIO });
    reports.push({ network: "", report: result.report });
    stream = (sink) => onnx.writeTo(result.model, sink);
    if (ort) {
      written = onnx.write(result.model);
      checks.push(...(await checkPair(ort, "", original, written, model, given, shapes, tolerance)));
    }
  }

  const failed = checks.filter((c) => !c.passed);
  let size = written?.length ?? 0;
  if (failed.length === 0) {
    size = await writeAtomically(
      output,
      async (temp) => {
        if (written) {
          await writeFile(temp, written);
          return written.length;
        }
        return stream(createWriteStream(temp));
      },
      { force: options.force ?? false },
    );
  }
  return finish(io, input, output, mode, writtenFormat, reports, checks, ort, tolerance, size, options.json ?? false);
}

/**
 * A .onnx or .april IN converted straight from its source into OUT (no --check): its structure and one weight at a
 * time in memory (onnx/quantize-stream.ts), a progress bar on a terminal. The reports are complete once written.
 */
async function streamQuantized(
  io: CliIO,
  input: string,
  output: string,
  kind: "model" | "networks",
  options: { mode: QuantizeMode; keepIO: boolean },
  reports: { network: string; report: QuantizeReport }[],
  force: boolean,
): Promise<number> {
  const source = await openSource(input);
  try {
    let pieces: OutputPiece[];
    let total: number;
    if (kind === "networks") {
      const converted = await aprilQuantizedPieces(source, options);
      for (const [network, report] of Object.entries(converted.reports)) reports.push({ network, report: report! });
      ({ pieces, size: total } = converted);
    } else {
      const converted = await onnxQuantizedPieces(source, options);
      reports.push({ network: "", report: converted.report });
      ({ pieces, size: total } = converted);
    }
    const progress = new Progress(io.stderr, `--quantize ${options.mode}`, total);
    try {
      return await writeAtomically(
        output,
        (temp) =>
          writePiecesTo(
            createWriteStream(temp),
            pieces.map((p) => counted(p, progress)),
            { caller: "convert" },
          ),
        { force },
      );
    } finally {
      progress.finish();
    }
  } finally {
    await source.close?.();
  }
}

async function* counted(piece: OutputPiece, progress: Progress): AsyncGenerator<Uint8Array> {
  if (piece instanceof Uint8Array) {
    yield piece;
    progress.advance(piece.length);
    return;
  }
  for await (const chunk of piece) {
    yield chunk;
    progress.advance(chunk.length);
  }
}

/** Prints the reports and --check's results (or the JSON); exit 1 when a check failed (nothing was written). */
async function finish(
  io: CliIO,
  input: string,
  output: string,
  mode: QuantizeMode,
  writtenFormat: string,
  reports: { network: string; report: QuantizeReport }[],
  checks: OutputCheck[],
  ort: Ort | undefined,
  tolerance: number,
  size: number,
  json: boolean,
): Promise<number> {
  const failed = checks.filter((c) => !c.passed);
  if (json) {
    await writeStdout(
      io,
      `${jsonText({ input, output, mode, written: failed.length === 0, bytes: failed.length === 0 ? size : undefined, reports, check: ort ? { tolerance, outputs: checks } : undefined })}\n`,
    );
  } else {
    for (const { network, report } of reports)
      for (const line of reportText(report, network ? `${network}: ` : "")) print(io.stderr, line);
    for (const c of checks) {
      print(
        io.stderr,
        `check ${c.output}: max |difference| ${c.maxAbsDifference.toPrecision(3)}, max relative ${c.maxRelativeDifference.toPrecision(3)}, cosine ${c.cosine.toFixed(6)}${c.passed ? "" : ` (1 - cosine above the tolerance ${tolerance})`}`,
      );
    }
  }
  if (failed.length > 0) {
    print(
      io.stderr,
      `tensorfile: --check: ${failed.map((c) => c.output).join(", ")} differ by more than the tolerance (1 - cosine > ${tolerance}); nothing written (raise it with --tolerance X)`,
    );
    return 1;
  }
  if (!json) print(io.stderr, `wrote ${output} (${writtenFormat}, ${mode}, ${size} bytes)`);
  return 0;
}
