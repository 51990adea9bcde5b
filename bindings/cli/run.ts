/**
 * The `tensorfile` command line (the README, "Command line"):
 *   tensorfile inspect FILE… [--json] [--full]
 *   tensorfile verify FILE… [--strict] [--json]
 *   tensorfile convert IN OUT [--dtype float32] [--quantize fp16|i8] [--tensor NAME] [--force] [--to json|npy]
 *   tensorfile extract FILE DIR [--dtype float32] [--force]
 * FILE may be "-" (stdin), a pipe or other non-regular file (read whole) or an http(s) URL (Range requests).
 * Exit status 0 on success, 1 when the input is bad (the error on stderr, prefixed "tensorfile: "), 2 on a
 * usage error. Outputs go through a temporary file renamed into place (cli/output.ts). inspect, convert to
 * .safetensors/.npy/.json and extract open the file lazily (headers only) and stream tensor by tensor.
 */
import { createWriteStream } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, extname, join, sep } from "node:path";
import { parseArgs } from "node:util";
import { closestNames, formatModule, readAny, readFromAny } from "../any.js";
import { isFormatError } from "../errors.js";
import { npyHeader } from "../export/npy.js";
import { planSafetensors } from "../export/safetensors.js";
import { type LazyTensors, decodeInChunks, writeNpyTo, writePiecesTo, writeSafetensorsTo } from "../export/stream.js";
import { FORMATS } from "../any.js";
import type { EmbeddedBlob, FormatModule, InspectResult } from "../formats/types.js";
import type { ByteRange } from "../io/byte-reader.js";
import { type ByteSource, SourceError, fromBytes, fromUrl, readExactly, sourceSize } from "../io/source.js";
import { openFileAccess } from "../io/file-access.js";
import { verifyFrom as npzVerifyFrom } from "../formats/npz.js";
import { openFile } from "../load-file.js";
import { type DecodeOptions, type TensorInfo, decodedDType } from "../tensor.js";
import { runBatch } from "./batch.js";
import { InputNameError, convertTsmToOnnx, onnxVerdictText, parseInputs, parseOpset, tsmOnnxVerdict } from "./tsm-onnx.js";
import { summarizeWarnings } from "./warnings.js";
import { OutputError, OutputRefused, checkOutput, fsReason, writeAtomically } from "./output.js";
import { Progress, type ProgressStream, formatBytes } from "./progress.js";
import { type StatsCommandOptions, statsCommand } from "./stats.js";
import { type ViewCommandOptions, viewCommand } from "./view.js";
import { DIFF_HELP, DIFF_OPTIONS, type DiffCommandOptions, diffCommand } from "./diff.js";
import { PATCH_HELP, PATCH_OPTIONS, type PatchCommandOptions, patchCommand } from "./patch.js";

export interface CliIO {
  stdout: ProgressStream;
  stderr: ProgressStream;
}

export class UsageError extends Error {}
/** The input is bad (exit 1) for a reason that is not a FormatError. */
export class InputError extends Error {}

const USAGE = `Usage:
  tensorfile inspect FILE… [--json] [--full]
  tensorfile verify FILE… [--strict] [--json]
  tensorfile convert IN OUT [--dtype float32] [--quantize fp16|i8] [--tensor NAME] [--force]
  tensorfile convert MODEL.tsm|MODEL.csta OUT.onnx [--opset N] [--input NAME=DTYPE[:SHAPE]] [--force]
  tensorfile convert --out-dir DIR --to safetensors|npy FILE… [-j N] [--dtype float32] [--force]
  tensorfile extract FILE DIR [--dtype float32] [--force]
  tensorfile stats FILE… [--tensor NAME] [--json]
  tensorfile view [FILE…] [--port N] [--open]
  tensorfile patch MODEL WEIGHTS OUT [--partial] [--force] [--tensor NAME]
  tensorfile diff A B [--atol X] [--rtol Y] [--json]

FILE may be "-" (standard input), a pipe or device, or an http(s) URL (read with Range requests; every command
reading files takes --timeout SECONDS: a URL that sends nothing for that long fails, default 30).
Formats: bw2l (.b2l), april (.april), tsm (.tsm, SeetaFace6 .csta), primitiv, spraak (.spr .trk .sam .cor .seg .key), onnx (.onnx);
read only: safetensors, npy, npz.
Run "tensorfile COMMAND --help" for one command.`;

const OUTPUT_RULES = `Outputs are written in a hidden temporary folder beside OUT and put in place when complete (Ctrl-C leaves
nothing behind); an existing OUT (or a non-empty DIR) needs --force, and without it an OUT that appears while
writing is left alone (exit 1); writing over the input, or replacing a DIR that holds the input or the current
folder, is refused (exit 2); missing parent folders are created.`;

const HELP: Record<string, string> = {
  inspect: `tensorfile inspect FILE… [--json] [--full]

Prints the format, version, metadata and a table of tensors (name, dtype, shape, bytes), plus what the format
holds beyond tensors. Reads only the headers, so it is instant on multi-GB files. With several FILEs, one
result per file and a summary; exit 1 if any failed.
  --json   print one JSON object per file: { "format", "version", "meta", "tensors": [{ "name", "dtype", "shape", "byteLength" }], … }
           (several FILEs: a JSON array of { "file", … } objects)
  --full   do not shorten long values to one line of 100 characters`,
  convert: `tensorfile convert IN OUT [--dtype float32] [--quantize fp16|i8] [--tensor NAME] [--force] [--to json|npy]

OUT's extension picks the target:
  .safetensors  every tensor, row-major, logical shape (streamed tensor by tensor)
  .npy          one tensor: --tensor NAME, or the only one
  .json         what "inspect --json" prints
  an extension of the input's format: a re-encode (.csta -> .tsm unwraps the TenniS module, .tsm -> .csta wraps it;
                not for the input formats safetensors, npy and npz)
  -             standard output, with --to json or --to npy
  .onnx         a TenniS module (.tsm) or SeetaFace6 .csta as a standard ONNX model (refused, exit 1 and nothing
                written, when an op cannot be translated exactly: the message lists the ops and node names)
  --opset N     the ONNX opset for an .onnx OUT (13 to 21, default 17)
  --input NAME=DTYPE[:SHAPE][,…]  for an .onnx OUT: the dtype (and shape, e.g. 1x227x227x3) of module inputs
                that do not declare them (float32 otherwise)
  --dtype float32   every real-valued tensor as float32 (widens float16, bfloat16 and float8, dequantizes int8
                    with a scale and offset)
                    (for .safetensors/.npy; for a bw2l re-encode: store float32 params)
  --quantize fp16|i8  bw2l re-encode: store float32 layer params as float16 or as int8 (version 1) with per-layer scale/offset
  --tensor NAME     the tensor for .npy (or the only tensor to put in .safetensors)
  --force           overwrite an existing OUT

tensorfile convert --out-dir DIR --to safetensors|npy FILE… [-j N] [--dtype float32] [--force]

Many files at once, on worker threads: each FILE becomes DIR/<its name without extension>.safetensors (or .npy,
for files holding one tensor), exactly as "convert FILE OUT" writes it. A file that fails is reported and counted
(exit 1) and the others are still written; a summary at the end.
  -j N              threads (default: the number of cores; -j 1 converts in the main thread)
${OUTPUT_RULES}`,
  extract: `tensorfile extract FILE DIR [--dtype float32] [--force]

Writes every tensor as DIR/<name>.npy (a "/" in a name becomes a folder), every embedded blob (april networks,
bw2l data sections, …) as a file, and DIR/meta.json (what "inspect --json" prints, plus "files": which file
holds which tensor or blob; names with "..", empty parts or parts over 200 bytes are made safe).
${OUTPUT_RULES}`,
  verify: `tensorfile verify FILE… [--strict] [--json]

Reads the whole file with every check on and decodes every tensor; prints what it found and warns about what a
reference runtime would refuse (for example an .april file whose params do not follow the joiner).
  --strict  exit 1 on warnings too
  --json    one JSON line per file: { "file", "ok", "format", "version", "tensors", "warnings", "error": { "code", "offset", "field", "message" } }`,
  patch: PATCH_HELP,
  diff: DIFF_HELP,
};

HELP.stats = `tensorfile stats FILE… [--tensor NAME] [--json]

Per-tensor statistics of the values (float16, bfloat16 and float8 widened, int8 with a scale dequantized): min,
max, mean, std (population), counts of NaN, +Inf and -Inf, and the share of zeros; non-finite values are kept out
of min, max, mean and std. Tensors are loaded one at a time. Format-specific dtypes (complex, characters, …) are
skipped. With several FILEs, one section per file and a summary; exit 1 if any failed.
  --tensor NAME  only this tensor
  --json         { "format", "tensors": [{ "name", "dtype", "shape", "count", "min", "max", "mean", "std",
                 "nan", "posInf", "negInf", "zeros" }] }; non-finite numbers are the strings "NaN", "Infinity",
                 "-Infinity" (min/max/mean/std are "NaN" when a tensor has no finite value)
                 (several FILEs: a JSON array of { "file", … } objects)`;

HELP.view = `tensorfile view [FILE…] [--port N] [--open]

Serves the inspector page and the FILEs (with HTTP Range) on 127.0.0.1 only, prints the page's URL as the first
line of standard output (with #url= for a single FILE) and serves until Ctrl-C (SIGINT) or SIGTERM. Only the
listed files are served, at /files/<i>/<name>; /files.json lists them as [{ "name", "url", "size" }].
  --port N   the port (default 0: any free port)
  --open     open the page in the default browser (xdg-open, open or start; a failure is only a warning)`;

/** The options each command takes (parseArgs form) — one table for parsing, "did you mean" and help. */
const OPTIONS = {
  inspect: { json: { type: "boolean" }, full: { type: "boolean" } },
  verify: { strict: { type: "boolean" }, json: { type: "boolean" } },
  convert: { dtype: { type: "string" }, quantize: { type: "string" }, tensor: { type: "string" }, force: { type: "boolean" }, to: { type: "string" }, "out-dir": { type: "string" }, jobs: { type: "string", short: "j" }, opset: { type: "string" }, input: { type: "string" } },
  extract: { dtype: { type: "string" }, force: { type: "boolean" } },
  stats: { tensor: { type: "string" }, json: { type: "boolean" } },
  view: { port: { type: "string" }, open: { type: "boolean" } },
  patch: PATCH_OPTIONS,
  diff: DIFF_OPTIONS,
} as const satisfies Record<string, Record<string, { type: "boolean" | "string"; short?: string }>>;

type AnyModule = FormatModule<unknown, unknown, unknown>;

export function print(stream: ProgressStream, text: string): void {
  stream.write(`${text}\n`);
}

function isUrl(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

let stdinBytes: Promise<Uint8Array> | undefined;
/** --timeout SECONDS as milliseconds, for URL inputs (undefined: fromUrl's default). */
let urlIdleTimeoutMs: number | undefined;

/** Standard input, read whole (once: "-" can be named once per command). */
function readStdin(): Promise<Uint8Array> {
  stdinBytes ??= (async () => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  })();
  return stdinBytes;
}

/**
 * A ByteSource for FILE: "-" is standard input and a pipe, FIFO or device (/dev/stdin) is read whole (their
 * size is not known ahead); an http(s) URL is read with Range requests; a regular file through a file handle.
 */
export async function openSource(path: string): Promise<ByteSource> {
  if (path === "-") return fromBytes(await readStdin(), "stdin");
  if (isUrl(path)) return fromUrl(path, { idleTimeoutMs: urlIdleTimeoutMs });
  let isFile: boolean;
  try {
    const s = await stat(path);
    if (s.isDirectory()) throw new InputError(`${path} is a folder, not a file`);
    isFile = s.isFile();
  } catch (cause) {
    if (cause instanceof InputError) throw cause;
    throw new SourceError(`cannot open ${path}: ${fsReason(cause, "input")}`, { cause });
  }
  // positioned synchronous reads (no thread-pool round trip per range): each tensor is one read
  if (isFile) return (await openFileAccess(path, "tensorfile")).source();
  try {
    return fromBytes(new Uint8Array(await readFile(path)), path);
  } catch (cause) {
    // /dev/stdin cannot be opened when standard input is a socket (as Node gives its children): read it directly
    if ((cause as NodeJS.ErrnoException).code === "ENXIO" && /^\/(dev\/stdin|dev\/fd\/0|proc\/self\/fd\/0)$/.test(path)) return fromBytes(await readStdin(), path);
    throw new SourceError(`cannot read ${path}: ${fsReason(cause, "input")}`, { cause });
  }
}

/** The whole of FILE in memory (regular files in chunks above 1 GiB, past Node's 2 GiB readFile limit). */
async function readWhole(path: string): Promise<Uint8Array> {
  const source = await openSource(path);
  try {
    const { size } = await sourceSize(source);
    return await readExactly(source, 0, size, "tensorfile");
  } finally {
    await source.close?.();
  }
}

export async function openLazy(path: string) {
  const source = await openSource(path);
  try {
    const opened = await readFromAny(source);
    return { source, ...opened, module: formatModule(opened.format) as AnyModule };
  } catch (error) {
    await source.close?.();
    throw error;
  }
}

/**
 * Every tensor of FILE decoded once and let go (verify needs their count and size, not their values), with the
 * file's object and its module. A regular file is opened lazily: headers first, then each tensor read and decoded
 * on its own (a plainly stored one 16 MiB at a time, a large deflated npz member as it inflates), so memory stays
 * flat whatever the file size; the checks of verify and inspect give the same results on this header-level
 * object as on read()'s (npz: its stored members' CRC-32s read in chunks). Anything that is not a regular file is
 * read whole.
 */
async function readAndDecode(path: string): Promise<{ module: AnyModule; file: unknown; tensors: { count: number; bytes: number }; size: number; read: number; warnings?: string[] }> {
  if (path !== "-" && !isUrl(path) && (await stat(path).then((s) => s.isFile(), () => false))) {
    const access = await openFileAccess(path, "tensorfile");
    try {
      // the bytes actually read are counted: what verify says it checked (an april file's networks, for
      // example, are not read: they are opaque blobs)
      const source = countingSource(access.source());
      const opened = { ...(await readFromAny(source)), source };
      let bytes = 0;
      const infos = opened.tensorInfos();
      for (const info of infos) {
        for await (const piece of decodeInChunks(opened, info, {})) bytes += piece.byteLength;
      }
      // npz: the CRC-32s of stored members, read in chunks (deflated ones were checked as they inflated)
      const warnings = opened.format === "npz" ? await npzVerifyFrom(source, opened.file) : undefined;
      const module = formatModule(opened.format) as AnyModule;
      return { module, file: opened.file, tensors: { count: infos.length, bytes }, size: source.size, read: Math.min(source.size, source.bytesRead), warnings };
    } finally {
      access.close();
    }
  }
  const bytes = await readWhole(path);
  const { module, file } = readWholeAny(bytes);
  const all = module.tensors(file);
  return { module, file, tensors: { count: all.length, bytes: all.reduce((a, t) => a + t.data.byteLength, 0) }, size: bytes.length, read: bytes.length };
}

/** `source`, counting the bytes its reads return (`bytesRead`). */
function countingSource(source: ByteSource & { size: number }): ByteSource & { size: number; bytesRead: number } {
  const counted = {
    size: source.size,
    name: source.name,
    bytesRead: 0,
    read: async (offset: number, length: number) => {
      const bytes = await source.read(offset, length);
      counted.bytesRead += bytes.length;
      return bytes;
    },
    ...(source.readSync && {
      readSync: (offset: number, length: number) => {
        const bytes = source.readSync!(offset, length);
        counted.bytesRead += bytes.length;
        return bytes;
      },
    }),
    ...(source.readInto && {
      readInto: async (target: Uint8Array, offset: number) => {
        const n = await source.readInto!(target, offset);
        counted.bytesRead += n;
        return n;
      },
    }),
  };
  return counted;
}

/** Reads a whole file of any format; the module that read it comes along. */
function readWholeAny(bytes: Uint8Array): { module: AnyModule; file: unknown } {
  const { format, file } = readAny(bytes);
  return { module: formatModule(format) as AnyModule, file };
}


const MAX_NAME_BYTES = 200;

/** FNV-1a of a string, as 8 hex digits (to keep shortened file names distinct). */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * A relative file path for a tensor or blob name: "/" makes folders; "", "." and ".." parts cannot escape DIR;
 * a part too long for a file system (over 200 UTF-8 bytes with `suffix`) is cut and given a hash of the whole.
 */
function safeRelativePath(name: string, suffix = ""): string {
  const parts = name.split(/[/\\]/).map((p) => (p === "" || p === "." || p === ".." ? `_${p.replace(/\./g, "dot")}` : p));
  return parts.map((part, i) => {
    const end = i === parts.length - 1 ? suffix : "";
    if (new TextEncoder().encode(part + end).length <= MAX_NAME_BYTES) return part + end;
    let cut = part;
    while (new TextEncoder().encode(`${cut}~${shortHash(part)}${end}`).length > MAX_NAME_BYTES) cut = cut.slice(0, -1);
    return `${cut}~${shortHash(part)}${end}`;
  }).join(sep);
}

export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

function valueText(value: unknown, full: boolean): string {
  const replacer = (_k: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v);
  if (!full && Array.isArray(value) && value.length > 16) {
    // a long list (a million sections) shown shortened: only its first elements are turned into JSON
    let start = "[";
    for (let i = 0; i < value.length && start.length <= 200; i++) start += `${i > 0 ? "," : ""}${JSON.stringify(value[i], replacer) ?? "null"}`;
    const oneLine = start.replace(/\s+/g, " ");
    if (oneLine.length > 100) return `${oneLine.slice(0, 97)}... (--full shows all)`;
  }
  const text = typeof value === "string" ? value : JSON.stringify(value, replacer);
  const oneLine = (text ?? "undefined").replace(/\s+/g, " ");
  if (typeof value === "string" && value === "") return '""';
  return full || oneLine.length <= 100 ? oneLine : `${oneLine.slice(0, 97)}... (--full shows all)`;
}

/** How a person reads the version: SPRAAK's is the header kind, the others a number. */
function versionText(info: InspectResult): string {
  if (info.version === null || info.version === undefined) return "";
  if (typeof info.version === "string" && info.version.startsWith(".")) return ` (${info.version} header)`;
  return ` (version ${info.version})`;
}

/** A meta value as a person reads it: tsm's reserved header bytes as bytes, not as one run of hex digits. */
function metaText(format: string, key: string, value: unknown, full: boolean): string {
  if (format === "tsm" && key === "reserved" && typeof value === "string") {
    if (value === "") return "all zero";
    const bytes = value.match(/../g) ?? [];
    return `${bytes.join(" ")} (then zeros)`;
  }
  if (format === "tsm" && key === "onnx") return onnxVerdictText(value);
  return valueText(value, full);
}

function printInspect(io: CliIO, path: string, info: InspectResult, full: boolean): void {
  const out = io.stdout;
  print(out, `file     ${path}`);
  print(out, `format   ${info.format}${versionText(info)}`);
  const metaKeys = Object.keys(info.meta ?? {});
  if (metaKeys.length > 0) {
    print(out, "meta");
    const width = Math.min(28, metaKeys.reduce((w, k) => Math.max(w, k.length), 0)); // (no spread: any count)
    for (const key of metaKeys) print(out, `  ${key.padEnd(width)}  ${metaText(info.format, key, info.meta[key], full)}`);
  }
  const total = info.tensors.reduce((a, t) => a + t.byteLength, 0);
  print(out, `tensors  ${info.tensors.length} (${formatBytes(total)})`);
  if (info.tensors.length > 0) {
    // (no table of rows held: widths in a first pass, then the lines written in batches; a million tensors)
    const header = ["name", "dtype", "shape", "bytes"];
    const widths = header.map((h) => h.length);
    for (const t of info.tensors) {
      widths[0] = Math.max(widths[0]!, t.name.length);
      widths[1] = Math.max(widths[1]!, t.dtype.length);
      widths[2] = Math.max(widths[2]!, shapeText(t.shape).length);
      widths[3] = Math.max(widths[3]!, String(t.byteLength).length);
    }
    const line = (name: string, dtype: string, shape: string, bytes: string) =>
      `  ${name.padEnd(widths[0]!)}  ${dtype.padEnd(widths[1]!)}  ${shape.padEnd(widths[2]!)}  ${bytes.padStart(widths[3]!)}`.trimEnd();
    print(out, line("name", "dtype", "shape", "bytes"));
    let batch = "";
    for (const t of info.tensors) {
      batch += `${line(t.name, t.dtype, shapeText(t.shape), String(t.byteLength))}\n`;
      if (batch.length >= 65536) {
        out.write(batch);
        batch = "";
      }
    }
    if (batch !== "") out.write(batch);
  }
  for (const key of Object.keys(info)) {
    if (["format", "version", "meta", "tensors"].includes(key)) continue;
    const value = info[key];
    const count = Array.isArray(value) ? ` (${value.length})` : "";
    print(out, `${key}${count}  ${valueText(value, full)}`);
  }
}

export function jsonText(value: unknown, indent = 2): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v), indent);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The one-line message of an error from reading FILE, with a hint where the cause is likely. */
export function errorLine(error: unknown): string {
  const errno = error as NodeJS.ErrnoException;
  // a raw file-system error (EISDIR: illegal operation…): in words, with the path it is about
  if (!isFormatError(error) && /^E[A-Z]+$/.test(String(errno?.code ?? "")) && String(errno.message).startsWith(`${errno.code}:`)) {
    return `${typeof errno.path === "string" ? `${errno.path}: ` : ""}${fsReason(error, "input")}`;
  }
  const message = (error as Error)?.message ?? String(error);
  let line = message.startsWith("tensorfile: ") ? message.slice("tensorfile: ".length) : message;
  if (isFormatError(error) && error.format === "spraak" && /\d+ bytes? short/.test(message)) {
    line += " (hint: a binary file a few bytes short was often copied as text, which turns CRLF into LF inside the data: git autocrlf, FTP ASCII mode; get a binary copy)";
  }
  return line;
}

export function isInputError(error: unknown): boolean {
  return isFormatError(error) || error instanceof InputError || error instanceof SourceError || error instanceof OutputError ||
    /^E[A-Z]+$/.test(String((error as NodeJS.ErrnoException)?.code ?? ""));
}

async function inspectCommand(io: CliIO, paths: string[], options: { json?: boolean; full?: boolean }): Promise<number> {
  if (paths.length === 0) throw new UsageError("inspect takes one or more FILEs");
  const many = paths.length > 1;
  const results: unknown[] = [];
  let failed = 0;
  for (const [i, path] of paths.entries()) {
    try {
      const opened = await openLazy(path);
      try {
        const info = opened.module.inspect(opened.file);
        if (opened.format === "tsm") info.meta.onnx = await tsmOnnxVerdict(opened.source);
        if (options.json) {
          if (many) results.push({ file: path, ...info });
          else print(io.stdout, jsonText(info));
        } else {
          if (many && i > 0) print(io.stdout, "");
          printInspect(io, path, info, options.full ?? false);
        }
      } finally {
        await opened.source.close?.();
      }
    } catch (error) {
      if (!isInputError(error)) throw error;
      failed++;
      print(io.stderr, `tensorfile: ${many ? `${path}: ` : ""}${errorLine(error)}`);
      if (options.json && many) results.push({ file: path, error: errorJson(error) });
    }
  }
  if (options.json && many) print(io.stdout, jsonText(results));
  if (many) print(options.json ? io.stderr : io.stdout, `${paths.length - failed} of ${plural(paths.length, "file")} read${failed > 0 ? `, ${failed} failed` : ""}`);
  return failed > 0 ? 1 : 0;
}

function errorJson(error: unknown): Record<string, unknown> {
  if (isFormatError(error)) return { code: error.code, offset: error.offset ?? null, field: error.field ?? null, message: error.message };
  return { code: error instanceof SourceError ? "SOURCE" : "INPUT", offset: null, field: null, message: (error as Error)?.message ?? String(error) };
}

async function writeTensorsSafetensors(io: CliIO, source: ByteSource, module: AnyModule, infos: TensorInfo[], outPath: string,
  options: DecodeOptions, label: string): Promise<void> {
  const size = planSafetensors(infos.map((i) => ({ name: i.name, dtype: decodedDType(i, options), shape: i.shape }))).size;
  const progress = new Progress(io.stderr, "convert", size);
  let reported = 0;
  // the public streaming writer: one tensor is written while the next is read and decoded
  try {
    await writeSafetensorsTo(createWriteStream(outPath), {
      tensorInfos: () => infos,
      loadTensor: (info, decode) => module.loadTensor(source, info, decode),
      source, // plainly stored tensors stream in 16 MiB chunks (flat memory on any size)
    }, {
      metadata: { "tensorfile.source": label },
      decode: options,
      onProgress: (written, _total, name) => {
        progress.advance(written - reported, name);
        reported = written;
      },
    });
  } finally {
    progress.finish();
  }
}

export function pickTensor(infos: TensorInfo[], name: string | undefined): TensorInfo {
  if (name !== undefined) {
    const found = infos.find((i) => i.name === name);
    if (!found) {
      const close = closestNames(name, infos.map((i) => i.name));
      throw new InputError(`no tensor named "${name}"${close.length > 0 ? `; the closest: ${close.join(", ")}` : " (the file holds no tensors)"}`);
    }
    return found;
  }
  if (infos.length === 1) return infos[0]!;
  if (infos.length === 0) throw new InputError("the file holds no tensors: use \"tensorfile extract\" for what it holds (networks, data sections)");
  throw new UsageError(`the file holds ${infos.length} tensors: name one with --tensor (${infos.slice(0, 10).map((i) => i.name).join(", ")}${infos.length > 10 ? ", …" : ""})`);
}

/**
 * An opened file as the streaming writers take it: its tensors loaded by its format, and its source, so that large
 * tensors stream in chunks (plainly stored) or bands of rows (column-major) instead of whole.
 */
function lazyTensors(opened: Awaited<ReturnType<typeof openLazy>>, infos: TensorInfo[]): LazyTensors {
  return { tensorInfos: () => infos, loadTensor: (i, d) => opened.module.loadTensor(opened.source, i, d), source: opened.source };
}

/** Standard output was closed by its reader while data was streamed to it (exit 141, as for SIGPIPE). */
export class StdoutClosed extends Error {}

/** Writes to standard output, resolving when the chunk is handed over; rejects with StdoutClosed on EPIPE (cli.ts). */
function writeStdout(io: CliIO, bytes: Uint8Array | string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = io.stdout as ProgressStream & { write(chunk: Uint8Array | string, callback?: (error?: Error | null) => void): unknown };
    if (stream.write.length >= 2) {
      stream.write(bytes, (error) => {
        if ((error as NodeJS.ErrnoException | null | undefined)?.code === "EPIPE") reject(new StdoutClosed("standard output closed"));
        else resolve();
      });
    } else {
      stream.write(typeof bytes === "string" ? bytes : new TextDecoder("latin1").decode(bytes));
      resolve();
    }
  });
}

const TENSOR_OUTPUTS = [".safetensors", ".npy", ".json"];

/**
 * What OUT may end in for this input: the tensor outputs and the input format's own extensions (none for the
 * input formats safetensors, npy and npz, which are never re-encoded).
 */
function allowedExtensions(module: AnyModule, input: string): string[] {
  if (module.inputOnly) return [...TENSOR_OUTPUTS];
  const own = [...module.extensions];
  const inputExt = extname(input).toLowerCase();
  const otherFormats = FORMATS.filter((f) => f.id !== module.id).flatMap((f) => [...f.extensions]);
  if (inputExt && !own.includes(inputExt) && !otherFormats.includes(inputExt) && !TENSOR_OUTPUTS.includes(inputExt)) own.push(inputExt);
  return [...TENSOR_OUTPUTS, ...own];
}

/**
 * IN's tensors written to `path` (the output or its temporary file): every tensor as .safetensors, or one as .npy
 * (`tensor`, or the only one). convert and convert --out-dir (cli/batch.ts) both write through here.
 */
async function writeTensorOutput(io: CliIO, opened: Awaited<ReturnType<typeof openLazy>>, input: string, path: string,
  ext: ".npy" | ".safetensors", decode: DecodeOptions, tensor: string | undefined): Promise<void> {
  let infos = opened.module.tensorInfos(opened.file);
  if (ext === ".safetensors" && infos.length === 0 && tensor === undefined) throw noTensorsError(input, opened.module.blobs(opened.file).map((b) => b.name));
  if (ext === ".npy") {
    // large tensors stream in chunks or bands of rows (flat memory), as extract writes them
    await writeNpyTo(createWriteStream(path), { file: lazyTensors(opened, infos), info: pickTensor(infos, tensor), decode });
    return;
  }
  if (tensor !== undefined) infos = [pickTensor(infos, tensor)];
  await writeTensorsSafetensors(io, opened.source, opened.module, infos, path, decode, opened.format);
}

/** The error for a .safetensors output of a file without tensors, naming what `extract` would give instead. */
export function noTensorsError(input: string, blobNames: readonly string[]): InputError {
  return new InputError(`${input} holds no tensors, so a .safetensors output would be empty${blobNames.length > 0 ? `; its contents (${blobNames.join(", ")}) come out with "tensorfile extract ${input} DIR"` : ""}`);
}

/** convert IN into `path` as .safetensors or .npy, opening and closing IN (for convert --out-dir's workers). */
export async function convertTensorsTo(io: CliIO, input: string, path: string, ext: ".npy" | ".safetensors", decode: DecodeOptions): Promise<void> {
  const opened = await openLazy(input);
  try {
    await writeTensorOutput(io, opened, input, path, ext, decode, undefined);
  } finally {
    await opened.source.close?.();
  }
}

interface ConvertOptions { dtype?: string; quantize?: string; tensor?: string; force?: boolean; to?: string; "out-dir"?: string; jobs?: string; opset?: string; input?: string }

async function convertCommand(io: CliIO, args: string[], options: ConvertOptions): Promise<number> {
  if (options["out-dir"] !== undefined) {
    if (options.quantize !== undefined || options.tensor !== undefined) throw new UsageError(`--${options.quantize !== undefined ? "quantize" : "tensor"} does not go with --out-dir`);
    return runBatch(io, args, { outDir: options["out-dir"], to: options.to, jobs: options.jobs, dtype: options.dtype, force: options.force ?? false });
  }
  if (options.jobs !== undefined) throw new UsageError("-j goes with --out-dir (converting many files)");
  if (args.length !== 2) throw new UsageError("convert takes IN and OUT (or --out-dir DIR --to safetensors|npy FILE…)");
  const [input, output] = args as [string, string];
  if (options.dtype !== undefined && options.dtype !== "float32") throw new UsageError(`--dtype takes float32, not ${options.dtype}`);
  if (options.quantize !== undefined && options.quantize !== "fp16" && options.quantize !== "i8") throw new UsageError(`--quantize takes fp16 or i8, not ${options.quantize}`);
  const toStdout = output === "-";
  if (toStdout && options.to !== "json" && options.to !== "npy") throw new UsageError('OUT "-" (standard output) needs --to json or --to npy (a .safetensors file or a re-encode cannot be streamed to a pipe here)');
  if (!toStdout && options.to !== undefined) throw new UsageError("--to goes with OUT \"-\" (standard output): otherwise OUT's extension picks the target");
  const ext = toStdout ? `.${options.to}` : extname(output).toLowerCase();
  if (ext === ".json" && (options.dtype !== undefined || options.tensor !== undefined)) throw new UsageError(`--${options.dtype !== undefined ? "dtype" : "tensor"} does nothing for a .json output (it describes the file, not tensor values)`);
  if (TENSOR_OUTPUTS.includes(ext) && options.quantize !== undefined) throw new UsageError(`--quantize applies to a bw2l re-encode, not to ${ext} outputs (use --dtype float32 to widen)`);
  if (!toStdout) await checkOutput(output, [input], { force: options.force ?? false });
  if ((options.opset !== undefined || options.input !== undefined) && ext !== ".onnx") throw new UsageError(`--${options.opset !== undefined ? "opset" : "input"} goes with an .onnx OUT`);
  if (ext === ".onnx" && !toStdout) {
    // issue 25: a TenniS module / SeetaFace6 .csta to ONNX (other inputs go on below)
    const usage = (m: string) => new UsageError(m);
    const message = await convertTsmToOnnx(await readWhole(input), output, parseOpset(options.opset, usage), parseInputs(options.input?.split(","), usage))
      .catch((error: unknown) => { throw error instanceof InputNameError ? new UsageError(error.message) : error; });
    if (message !== undefined) {
      print(io.stderr, message);
      return 0;
    }
  }
  const decode: DecodeOptions = options.dtype === "float32" ? { dtype: "float32" } : {};

  const opened = await openLazy(input);
  try {
    const allowed = allowedExtensions(opened.module, input);
    if (!allowed.includes(ext)) {
      throw new UsageError(`OUT ${output} ends in "${ext || "(nothing)"}": for this ${opened.format} input OUT may end in ${allowed.join(", ")}${opened.module.inputOnly ? ` (${opened.format} is read, never written as a re-encode)` : ""}`);
    }
    if (TENSOR_OUTPUTS.includes(ext)) {
      if (ext === ".json") {
        const text = `${jsonText(opened.module.inspect(opened.file))}\n`;
        if (toStdout) await writeStdout(io, text);
        else await writeAtomically(output, (temp) => writeFile(temp, text), { force: options.force ?? false });
      } else {
        if (ext === ".npy" && toStdout) {
          const infos = opened.module.tensorInfos(opened.file);
          const info = pickTensor(infos, options.tensor);
          await writeStdout(io, npyHeader(decodedDType(info, decode), info.shape));
          for await (const piece of decodeInChunks(lazyTensors(opened, infos), info, decode)) await writeStdout(io, piece);
        } else {
          await writeAtomically(output, (temp) => writeTensorOutput(io, opened, input, temp, ext as ".npy" | ".safetensors", decode, options.tensor), { force: options.force ?? false });
        }
      }
      if (!toStdout) print(io.stderr, `wrote ${output}`);
      return 0;
    }
  } finally {
    await opened.source.close?.();
  }
  // a re-encode in the input's own format
  if (options.tensor !== undefined) throw new UsageError("--tensor applies to .npy and .safetensors outputs");
  const bytes = await readWhole(input);
  const { module } = readWholeAny(bytes);
  if ((options.quantize !== undefined || options.dtype !== undefined) && module.id !== "bw2l") {
    throw new UsageError(`--${options.quantize !== undefined ? "quantize" : "dtype"} applies to bw2l re-encodes and to .safetensors/.npy outputs; ${module.id} files are written as they are stored`);
  }
  let file = module.id === "bw2l" && options.dtype === "float32"
    ? formatModule("bw2l").read(bytes, { dequantize: true })
    : module.read(bytes);
  let writeOptions: unknown;
  if (module.id === "bw2l" && options.quantize === "i8" && (file as { version: number }).version !== 1) {
    throw new UsageError(`--quantize i8 needs a version 1 bw2l input (only version 1 layers carry a scale and offset); ${input} is version ${(file as { version: number }).version}: use --quantize fp16`);
  }
  if (module.id === "bw2l" && options.quantize) writeOptions = { quantize: options.quantize };
  if (module.id === "tsm") {
    const tsmFile = file as { container?: unknown };
    if (ext === ".tsm" && tsmFile.container) file = { ...tsmFile, container: undefined };
    if (ext === ".csta" && !tsmFile.container) {
      const out = (await import("../formats/tsm.js")).writeCsta(file as Parameters<typeof import("../formats/tsm.js").writeCsta>[0]);
      await writeAtomically(output, (temp) => writeFile(temp, out), { force: options.force ?? false });
      print(io.stderr, `wrote ${output} (SeetaFace6 .csta container, ${out.length} bytes)`);
      return 0;
    }
  }
  const out = module.write(file, writeOptions);
  await writeAtomically(output, (temp) => writeFile(temp, out), { force: options.force ?? false });
  print(io.stderr, `wrote ${output} (${module.id}, ${out.length} bytes)`);
  return 0;
}

async function extractCommand(io: CliIO, args: string[], options: { dtype?: string; force?: boolean }): Promise<number> {
  if (args.length !== 2) throw new UsageError("extract takes FILE and DIR");
  const [input, dir] = args as [string, string];
  if (options.dtype !== undefined && options.dtype !== "float32") throw new UsageError(`--dtype takes float32, not ${options.dtype}`);
  await checkOutput(dir, [input], { force: options.force ?? false, folder: true });
  const decode: DecodeOptions = options.dtype === "float32" ? { dtype: "float32" } : {};
  const opened = await openLazy(input);
  /** [tensor or blob name, file written], for meta.json */
  const files: [string, string][] = [];
  try {
    const infos = opened.module.tensorInfos(opened.file);
    let blobs: EmbeddedBlob[];
    try {
      blobs = opened.module.blobs(opened.file);
    } catch (error) {
      // some containers (SeetaFace6 .csta) can list their blobs only from the whole file
      if (!isFormatError(error) || error.code !== "UNSUPPORTED") throw error;
      blobs = opened.module.blobs(opened.module.read(await readWhole(input)));
    }
    const total = infos.reduce((a, i) => a + i.byteLength, 0) +
      blobs.reduce((a, b) => a + (b.bytes instanceof Uint8Array ? b.bytes.length : b.bytes.byteLength), 0);
    await writeAtomically(dir, async (root) => {
      const progress = new Progress(io.stderr, "extract", total);
      try {
        // plainly stored tensors stream in chunks (flat memory), the others load one at a time
        const lazyFile = lazyTensors(opened, infos);
        for (const info of infos) {
          const relative = safeRelativePath(info.name, ".npy");
          files.push([info.name, relative]);
          const path = join(root, relative);
          await mkdirInside(root, relative);
          await writeNpyTo(createWriteStream(path), { file: lazyFile, info, decode });
          progress.advance(info.byteLength, info.name);
        }
        for (const blob of blobs) {
          const relative = safeRelativePath(blob.name);
          files.push([blob.name, relative]);
          const path = join(root, relative);
          await mkdirInside(root, relative);
          // a blob still in the file (an april network of hundreds of MB) is copied 16 MiB at a time
          const written = blob.bytes instanceof Uint8Array
            ? (await writeFile(path, blob.bytes), blob.bytes.length)
            : await writePiecesTo(createWriteStream(path), [rangeChunks(opened.source, blob.bytes as ByteRange, opened.format, blob.name)], { caller: "extract" });
          progress.advance(written, blob.name);
        }
      } finally {
        progress.finish();
      }
      const meta = { ...opened.module.inspect(opened.file), files: Object.fromEntries(files.map(([n, f]) => [n, f.split(sep).join("/")])) };
      await writeFile(join(root, "meta.json"), `${jsonText(meta)}\n`);
    }, { folder: true, force: options.force ?? false });
  } finally {
    await opened.source.close?.();
  }
  print(io.stdout, `extracted ${plural(files.length, "file")} and meta.json into ${dir}`);
  return 0;
}

/** Bytes of a range of a source, read 16 MiB at a time (fresh arrays: a stream may hold them until written). */
async function* rangeChunks(source: ByteSource, range: ByteRange, format: string, name: string): AsyncGenerator<Uint8Array> {
  const chunk = 16 << 20;
  for (let done = 0; done < range.byteLength; done += chunk) {
    yield await readExactly(source, range.byteOffset + done, Math.min(chunk, range.byteLength - done), format, name);
  }
}

/**
 * The folders of `relative` inside `root`, one level at a time: never `root` itself (not recursive), so that an
 * extract interrupted by a signal cannot re-create its temporary folder after the handler removed it.
 */
async function mkdirInside(root: string, relative: string): Promise<void> {
  const parts = relative.split(sep).slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    try {
      await mkdir(join(root, ...parts.slice(0, i)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

async function verifyCommand(io: CliIO, paths: string[], options: { strict?: boolean; json?: boolean }): Promise<number> {
  if (paths.length === 0) throw new UsageError("verify takes one or more FILEs");
  const many = paths.length > 1;
  let failed = 0;
  let warned = 0;
  for (const path of paths) {
    try {
      const { module, file, tensors: decoded, size, read, warnings: checked } = await readAndDecode(path);
      const info = module.inspect(file);
      const warnings = checked ?? module.verify(file);
      const total = decoded.bytes;
      if (warnings.length > 0) warned++;
      const ok = !(options.strict && warnings.length > 0);
      if (!ok) failed++;
      if (options.json) {
        print(io.stdout, jsonText({ file: path, ok, format: module.id, version: info.version, tensors: decoded.count, warnings, error: null }, 0));
        continue;
      }
      print(io.stdout, `${path}: ${module.id}${versionText(info)}, ${plural(decoded.count, "tensor")} (${formatBytes(total)}), ${read === size ? `${size} bytes read and checked` : `${read} of its ${size} bytes read and checked (the headers and tensors; the rest, such as embedded blobs, is not read)`}`);
      const { shown, more } = summarizeWarnings(warnings);
      for (const w of shown) print(io.stdout, `${many ? `${path}: ` : ""}warning: ${w}`);
      for (const m of more) print(io.stdout, `${many ? `${path}: ` : ""}warning: … and ${m.count} more like: ${m.like} (--json lists every warning)`);
      print(io.stdout, warnings.length === 0 ? "ok" : `${ok ? "ok" : "failed (--strict)"} with ${plural(warnings.length, "warning")}`);
    } catch (error) {
      if (!isInputError(error)) throw error;
      failed++;
      if (options.json) print(io.stdout, jsonText({ file: path, ok: false, warnings: [], error: errorJson(error) }, 0));
      print(io.stderr, `tensorfile: ${many ? `${path}: ` : ""}${errorLine(error)}`);
    }
  }
  if (many) {
    print(options.json ? io.stderr : io.stdout, `${paths.length - failed} of ${plural(paths.length, "file")} ok${warned > 0 ? `, ${warned} with warnings` : ""}${failed > 0 ? `, ${failed} failed` : ""}`);
  }
  return failed > 0 ? 1 : 0;
}

/**
 * `stats FILE…`: one section per file (as inspect prints them); a file that fails is reported and counted, the
 * others still done; exit 1 if any failed. With --json and several FILEs: a JSON array of { "file", … } objects.
 */
async function statsFiles(io: CliIO, paths: string[], options: StatsCommandOptions): Promise<number> {
  if (paths.length === 0) throw new UsageError("stats takes one or more FILEs");
  if (paths.length === 1) return statsCommand(io, paths, options);
  const results: unknown[] = [];
  let failed = 0;
  let sections = 0;
  for (const path of paths) {
    let json = "";
    let started = false;
    // a blank line between sections, written with a section's first line (a file that fails prints none)
    const section = (text: string) => {
      if (!started && sections++ > 0) io.stdout.write("\n");
      started = true;
      return io.stdout.write(text);
    };
    const fileIo: CliIO = { stdout: { isTTY: false, write: options.json ? (text: string) => (json += text) : section }, stderr: io.stderr };
    try {
      await statsCommand(fileIo, [path], options);
      if (options.json) results.push({ file: path, ...(JSON.parse(json) as object) });
    } catch (error) {
      if (!isInputError(error)) throw error;
      failed++;
      print(io.stderr, `tensorfile: ${path}: ${errorLine(error)}`);
      if (options.json) results.push({ file: path, error: errorJson(error) });
    }
  }
  if (options.json) print(io.stdout, jsonText(results));
  print(options.json ? io.stderr : io.stdout, `${paths.length - failed} of ${plural(paths.length, "file")} read${failed > 0 ? `, ${failed} failed` : ""}`);
  return failed > 0 ? 1 : 0;
}

type CommandName = keyof typeof OPTIONS;
/** Taken by every command that reads FILEs: the idle timeout of http(s) inputs. */
const URL_OPTIONS = { timeout: { type: "string" } } as const;

/** Runs the CLI; returns the exit status. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    print(command === undefined ? io.stderr : io.stdout, USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version") {
    print(io.stdout, "tensorfile 0.1.0");
    return 0;
  }
  if (!(command in OPTIONS)) {
    const [close] = closestNames(command, Object.keys(OPTIONS), 1);
    print(io.stderr, `tensorfile: unknown command "${command}"${close ? ` (did you mean "${close}"?)` : ""}; run "tensorfile --help" for the commands`);
    return 2;
  }
  const name = command as CommandName;
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...OPTIONS[name], ...(name === "view" ? {} : URL_OPTIONS), help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    }) as { values: Record<string, string | boolean | undefined>; positionals: string[] });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (unknown) {
      const known = Object.keys(OPTIONS[name]).map((o) => `--${o}`);
      const [close] = closestNames(unknown.replace(/^-+/, "--"), known, 1);
      const hint = close && levenshteinClose(unknown.replace(/^-+/, "--"), close) ? `: did you mean ${close}?` : "";
      print(io.stderr, `tensorfile: ${name} does not take ${unknown}${hint} (it takes ${known.join(", ") || "no options"}; see "tensorfile ${name} --help")`);
    } else {
      print(io.stderr, `tensorfile: ${optionProblem(message, rest)} (see "tensorfile ${name} --help")`);
    }
    return 2;
  }
  if (values.help) {
    print(io.stdout, HELP[name]!);
    return 0;
  }
  urlIdleTimeoutMs = undefined;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (typeof values.timeout !== "string" || !/^\s*\d*\.?\d+\s*$/.test(values.timeout) || !(seconds > 0) || seconds > 2_000_000) {
      print(io.stderr, `tensorfile: --timeout takes a number of seconds > 0 (for URL inputs), not ${JSON.stringify(values.timeout)} (see "tensorfile ${name} --help")`);
      return 2;
    }
    urlIdleTimeoutMs = seconds * 1000;
    delete values.timeout;
  }
  const inputs = name === "inspect" || name === "verify" || name === "view" || name === "stats" ? positionals : positionals.slice(0, 1);
  if (inputs.filter((p) => p === "-").length > 1) {
    print(io.stderr, `tensorfile: "-" (standard input) can be named only once`);
    return 2;
  }
  try {
    switch (name) {
      case "inspect":
        return await inspectCommand(io, positionals, values as { json?: boolean; full?: boolean });
      case "convert":
        return await convertCommand(io, positionals, values as ConvertOptions);
      case "extract":
        return await extractCommand(io, positionals, values as { dtype?: string; force?: boolean });
      case "verify":
        return await verifyCommand(io, positionals, values as { strict?: boolean; json?: boolean });
      case "stats":
        return await statsFiles(io, positionals, values as StatsCommandOptions);
      case "view":
        return await viewCommand(io, positionals, values as ViewCommandOptions);
      case "patch":
        return await patchCommand({ ...io, openSource, usageError: (m) => new UsageError(m), inputError: (m) => new InputError(m) }, positionals, values as PatchCommandOptions);
      case "diff":
        return await diffCommand({ ...io, openLazy, usageError: (m) => new UsageError(m) }, positionals, values as DiffCommandOptions);
    }
  } catch (error) {
    if (error instanceof StdoutClosed) return 141;
    if (error instanceof UsageError || error instanceof OutputRefused) {
      print(io.stderr, `tensorfile: ${error.message}${error instanceof UsageError ? ` (see "tensorfile ${name} --help")` : ""}`);
      return 2;
    }
    if (isInputError(error)) {
      print(io.stderr, `tensorfile: ${errorLine(error)}`);
      return 1;
    }
    print(io.stderr, `tensorfile: internal error: ${(error as Error)?.message ?? String(error)}`);
    return 1;
  }
}

/** A parseArgs complaint about an option's value, in our words (the raw text only for a case not foreseen). */
function optionProblem(message: string, args: readonly string[]): string {
  const option = /Option '(?:-\w, )?(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (option === undefined) return `cannot read the options: ${message.replace(/\s+/g, " ")}`;
  if (/does not take an argument/.test(message)) return `${option} takes no value (write just ${option})`;
  if (/ambiguous/.test(message)) {
    const at = args.findIndex((a) => a === option || /^-\w$/.test(a));
    const next = at >= 0 ? args[at + 1] : undefined;
    return `${option} needs a value${next !== undefined ? `, and "${next}" after it looks like an option: write ${option}=${next} for a value that starts with "-"` : ""}`;
  }
  if (/argument missing/.test(message)) return `${option} needs a value (${option} VALUE)`;
  return `${option}: ${message.replace(/^Option '[^']*'\s*/, "").replace(/\s+/g, " ")}`;
}

/** Small enough an edit to suggest (at most a third of the word, and at most 3). */
function levenshteinClose(a: string, b: string): boolean {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  const d = prev[b.length]!;
  return d <= Math.min(3, Math.max(1, Math.floor(b.length / 3)));
}
