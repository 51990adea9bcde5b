/**
 * The `tensorfile` command line (contract: ../shared/notes/contract.md):
 *   tensorfile inspect FILE [--json]
 *   tensorfile convert IN OUT [--dtype float32] [--tensor NAME]
 *   tensorfile extract FILE DIR [--dtype float32]
 *   tensorfile verify FILE
 * Exit status 0 on success, 1 when the input is bad (the error on stderr, prefixed "tensorfile: "), 2 on a
 * usage error. inspect, convert to .safetensors/.npy/.json and extract open the file lazily (headers only) and
 * stream tensor by tensor; converting to the input's own format and verify read the whole file.
 */
import { mkdir, open, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, extname, join, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { formatModule, readAny, readFromAny } from "../any.js";
import { isFormatError } from "../errors.js";
import { npyHeader } from "../export/npy.js";
import { planSafetensors } from "../export/safetensors.js";
import type { EmbeddedBlob, FormatModule, InspectResult } from "../formats/types.js";
import type { ByteRange } from "../io/byte-reader.js";
import { type ByteSource, SourceError, fromFile, readExactly } from "../io/source.js";
import { type DType, type DecodeOptions, type TensorInfo, decodedDType } from "../tensor.js";
import { Progress, type ProgressStream, formatBytes } from "./progress.js";

export interface CliIO {
  stdout: ProgressStream;
  stderr: ProgressStream;
}

class UsageError extends Error {}
/** The input is bad (exit 1) for a reason that is not a FormatError. */
class InputError extends Error {}

const USAGE = `Usage:
  tensorfile inspect FILE [--json]
  tensorfile convert IN OUT [--dtype float32] [--tensor NAME]
  tensorfile extract FILE DIR [--dtype float32]
  tensorfile verify FILE

Formats: bw2l (.b2l), april (.april), tsm (.tsm, SeetaFace6 .csta), primitiv, spraak (.spr .trk .sam .cor .seg .key).
Run "tensorfile COMMAND --help" for one command.`;

const HELP: Record<string, string> = {
  inspect: `tensorfile inspect FILE [--json]

Prints the format, version, metadata and a table of tensors (name, dtype, shape, bytes), plus what the format
holds beyond tensors. Reads only the headers, so it is instant on multi-GB files.
  --json   print one JSON object: { "format", "version", "meta", "tensors": [{ "name", "dtype", "shape", "byteLength" }], … }`,
  convert: `tensorfile convert IN OUT [--dtype float32] [--tensor NAME]

OUT's extension picks the target:
  .safetensors  every tensor, row-major, logical shape (streamed tensor by tensor)
  .npy          one tensor: --tensor NAME, or the only one
  .json         what "inspect --json" prints
  anything else the input's own format (read, then write: a re-encode)
  --dtype float32  widen float16 and dequantize int8 tensors that carry a scale and offset
  --tensor NAME    the tensor for .npy (or the only tensor to put in .safetensors)`,
  extract: `tensorfile extract FILE DIR [--dtype float32]

Writes every tensor as DIR/<name>.npy (a "/" in a name becomes a folder), every embedded blob (april networks,
bw2l data sections, …) as a file, and DIR/meta.json (what "inspect --json" prints, plus "files": which file
holds which tensor or blob; names with "..", empty parts or parts over 200 bytes are made safe).`,
  verify: `tensorfile verify FILE

Reads the whole file with every check on and decodes every tensor; prints what it found and warns about what a
reference runtime would refuse (for example an .april file whose params do not follow the joiner).`,
};

type AnyModule = FormatModule<unknown, unknown, unknown>;

function print(stream: ProgressStream, text: string): void {
  stream.write(`${text}\n`);
}

/** Reads a whole file (in chunks above 1 GiB, so files past Node's 2 GiB readFile limit work). */
async function readWhole(path: string): Promise<Uint8Array> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (cause) {
    throw new SourceError(`cannot open ${path}: ${(cause as Error).message}`, { cause });
  }
  if (size < 2 ** 30) return new Uint8Array(await readFile(path));
  const source = await fromFile(path);
  try {
    return await readExactly(source, 0, size, "tensorfile");
  } finally {
    await source.close();
  }
}

async function openLazy(path: string) {
  const source = await fromFile(path);
  try {
    const opened = await readFromAny(source);
    return { source, ...opened, module: formatModule(opened.format) as AnyModule };
  } catch (error) {
    await source.close();
    throw error;
  }
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

function shapeText(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

function valueText(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  const oneLine = (text ?? "undefined").replace(/\s+/g, " ");
  return oneLine.length > 100 ? `${oneLine.slice(0, 97)}...` : oneLine;
}

function printInspect(io: CliIO, path: string, info: InspectResult): void {
  const out = io.stdout;
  print(out, `file     ${path}`);
  print(out, `format   ${info.format}${info.version === null || info.version === undefined ? "" : ` (version ${info.version})`}`);
  const metaKeys = Object.keys(info.meta ?? {});
  if (metaKeys.length > 0) {
    print(out, "meta");
    const width = Math.min(28, Math.max(...metaKeys.map((k) => k.length)));
    for (const key of metaKeys) print(out, `  ${key.padEnd(width)}  ${valueText(info.meta[key])}`);
  }
  const total = info.tensors.reduce((a, t) => a + t.byteLength, 0);
  print(out, `tensors  ${info.tensors.length} (${formatBytes(total)})`);
  if (info.tensors.length > 0) {
    const rows = info.tensors.map((t) => [t.name, t.dtype, shapeText(t.shape), String(t.byteLength)]);
    const header = ["name", "dtype", "shape", "bytes"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => `  ${cells.map((c, i) => (i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ")}`.trimEnd();
    print(out, line(header));
    for (const r of rows) print(out, line(r));
  }
  for (const key of Object.keys(info)) {
    if (["format", "version", "meta", "tensors"].includes(key)) continue;
    const value = info[key];
    const count = Array.isArray(value) ? ` (${value.length})` : "";
    print(out, `${key}${count}  ${valueText(value)}`);
  }
}

function jsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2);
}

async function inspectCommand(io: CliIO, args: string[], json: boolean): Promise<void> {
  const [path] = args;
  if (!path || args.length !== 1) throw new UsageError("inspect takes one FILE");
  const opened = await openLazy(path);
  try {
    const info = opened.module.inspect(opened.file);
    if (json) print(io.stdout, jsonText(info));
    else printInspect(io, path, info);
  } finally {
    await opened.source.close?.();
  }
}

async function writeTensorsSafetensors(io: CliIO, source: ByteSource, module: AnyModule, infos: TensorInfo[], outPath: string,
  options: DecodeOptions, label: string): Promise<void> {
  const entries = infos.map((i) => ({ name: i.name, dtype: decodedDType(i, options), shape: i.shape }));
  const plan = planSafetensors(entries, { format: `tensorfile ${label}` });
  const progress = new Progress(io.stderr, "convert", plan.size);
  const handle = await open(outPath, "w");
  // one tensor is written while the next is read and decoded: at most two in memory
  let writing: Promise<unknown> = handle.write(plan.header, 0, plan.header.length, 0);
  try {
    for (const slot of plan.layout) {
      const tensor = await module.loadTensor(source, infos[slot.index]!, options);
      const bytes = new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
      if (bytes.length !== slot.end - slot.begin) throw new InputError(`tensor ${tensor.name} decoded to ${bytes.length} bytes, expected ${slot.end - slot.begin}`);
      await writing;
      writing = handle.write(bytes, 0, bytes.length, plan.header.length + slot.begin);
      progress.advance(bytes.length, tensor.name);
    }
    await writing;
  } finally {
    await writing.catch(() => undefined);
    progress.finish();
    await handle.close();
  }
}

function pickTensor(infos: TensorInfo[], name: string | undefined): TensorInfo {
  if (name !== undefined) {
    const found = infos.find((i) => i.name === name);
    if (!found) throw new UsageError(`no tensor named "${name}" (there are: ${infos.map((i) => i.name).join(", ") || "none"})`);
    return found;
  }
  if (infos.length === 1) return infos[0]!;
  if (infos.length === 0) throw new InputError("the file holds no tensors");
  throw new UsageError(`the file holds ${infos.length} tensors: name one with --tensor (${infos.slice(0, 10).map((i) => i.name).join(", ")}${infos.length > 10 ? ", …" : ""})`);
}

async function writeNpyFile(path: string, dtype: DType, shape: number[], data: ArrayBufferView): Promise<void> {
  const header = npyHeader(dtype, shape);
  const handle = await open(path, "w");
  try {
    await handle.write(header, 0, header.length, 0);
    await handle.write(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 0, data.byteLength, header.length);
  } finally {
    await handle.close();
  }
}

async function convertCommand(io: CliIO, args: string[], options: { dtype?: string; tensor?: string }): Promise<void> {
  if (args.length !== 2) throw new UsageError("convert takes IN and OUT");
  const [input, output] = args as [string, string];
  if (options.dtype !== undefined && options.dtype !== "float32") throw new UsageError(`--dtype takes float32, not ${options.dtype}`);
  const decode: DecodeOptions = options.dtype === "float32" ? { dtype: "float32" } : {};
  const ext = extname(output).toLowerCase();
  if (ext === ".safetensors" || ext === ".npy" || ext === ".json") {
    const opened = await openLazy(input);
    try {
      if (ext === ".json") {
        await writeFile(output, `${jsonText(opened.module.inspect(opened.file))}\n`);
      } else {
        let infos = opened.module.tensorInfos(opened.file);
        if (ext === ".npy") {
          const info = pickTensor(infos, options.tensor);
          const tensor = await opened.module.loadTensor(opened.source, info, decode);
          await writeNpyFile(output, tensor.dtype, tensor.shape, tensor.data);
        } else {
          if (options.tensor !== undefined) infos = [pickTensor(infos, options.tensor)];
          await writeTensorsSafetensors(io, opened.source, opened.module, infos, output, decode, opened.format);
        }
      }
    } finally {
      await opened.source.close?.();
    }
    print(io.stderr, `wrote ${output}`);
    return;
  }
  if (options.tensor !== undefined) throw new UsageError("--tensor applies to .npy and .safetensors outputs");
  if (options.dtype !== undefined) throw new UsageError("--dtype applies to .safetensors and .npy outputs");
  const bytes = await readWhole(input);
  const { module, file } = readWholeAny(bytes);
  const out = module.write(file);
  await writeFile(output, out);
  print(io.stderr, `wrote ${output} (${module.id}, ${out.length} bytes)`);
}

async function extractCommand(io: CliIO, args: string[], options: { dtype?: string }): Promise<void> {
  if (args.length !== 2) throw new UsageError("extract takes FILE and DIR");
  const [input, dir] = args as [string, string];
  if (options.dtype !== undefined && options.dtype !== "float32") throw new UsageError(`--dtype takes float32, not ${options.dtype}`);
  const decode: DecodeOptions = options.dtype === "float32" ? { dtype: "float32" } : {};
  const opened = await openLazy(input);
  const root = resolve(dir);
  /** [tensor or blob name, file written], for meta.json */
  const files: [string, string][] = [];
  try {
    await mkdir(root, { recursive: true });
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
    const progress = new Progress(io.stderr, "extract", total);
    try {
      for (const info of infos) {
        const tensor = await opened.module.loadTensor(opened.source, info, decode);
        const relative = safeRelativePath(info.name, ".npy");
        files.push([info.name, relative]);
        const path = join(root, relative);
        await mkdir(dirname(path), { recursive: true });
        await writeNpyFile(path, tensor.dtype, tensor.shape, tensor.data);
        progress.advance(info.byteLength, info.name);
      }
      for (const blob of blobs) {
        const bytes = blob.bytes instanceof Uint8Array
          ? blob.bytes
          : await readExactly(opened.source, (blob.bytes as ByteRange).byteOffset, (blob.bytes as ByteRange).byteLength, opened.format, blob.name);
        const relative = safeRelativePath(blob.name);
        files.push([blob.name, relative]);
        const path = join(root, relative);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, bytes);
        progress.advance(bytes.length, blob.name);
      }
    } finally {
      progress.finish();
    }
    const meta = { ...opened.module.inspect(opened.file), files: Object.fromEntries(files.map(([n, f]) => [n, f.split(sep).join("/")])) };
    await writeFile(join(root, "meta.json"), `${jsonText(meta)}\n`);
  } finally {
    await opened.source.close?.();
  }
  print(io.stdout, `extracted ${files.length} files and meta.json into ${dir}`);
}

async function verifyCommand(io: CliIO, args: string[]): Promise<void> {
  const [path] = args;
  if (!path || args.length !== 1) throw new UsageError("verify takes one FILE");
  const bytes = await readWhole(path);
  const { module, file } = readWholeAny(bytes);
  const tensors = module.tensors(file);
  const info = module.inspect(file);
  const warnings = module.verify(file);
  const total = tensors.reduce((a, t) => a + t.data.byteLength, 0);
  print(io.stdout, `${path}: ${module.id}${info.version === null ? "" : ` version ${info.version}`}, ${tensors.length} tensor${tensors.length === 1 ? "" : "s"} (${formatBytes(total)}), ${bytes.length} bytes read and checked`);
  for (const w of warnings) print(io.stdout, `warning: ${w}`);
  print(io.stdout, warnings.length === 0 ? "ok" : `ok with ${warnings.length} warning${warnings.length === 1 ? "" : "s"}`);
}

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
  if (!(command in HELP)) {
    print(io.stderr, `tensorfile: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  let parsed: ReturnType<typeof parseArgs<{ options: { json: { type: "boolean" }; dtype: { type: "string" }; tensor: { type: "string" }; help: { type: "boolean"; short: "h" } }; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { json: { type: "boolean" }, dtype: { type: "string" }, tensor: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    print(io.stderr, `tensorfile: ${(error as Error).message}\n\n${HELP[command]}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    print(io.stdout, HELP[command]!);
    return 0;
  }
  const allowed: Record<string, string[]> = { inspect: ["json"], convert: ["dtype", "tensor"], extract: ["dtype"], verify: [] };
  for (const key of Object.keys(values)) {
    if (key !== "help" && !allowed[command]!.includes(key)) {
      print(io.stderr, `tensorfile: ${command} does not take --${key}\n\n${HELP[command]}`);
      return 2;
    }
  }
  try {
    switch (command) {
      case "inspect":
        await inspectCommand(io, positionals, values.json ?? false);
        break;
      case "convert":
        await convertCommand(io, positionals, values);
        break;
      case "extract":
        await extractCommand(io, positionals, values);
        break;
      case "verify":
        await verifyCommand(io, positionals);
        break;
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      print(io.stderr, `tensorfile: ${error.message}\n\n${HELP[command]}`);
      return 2;
    }
    if (isFormatError(error) || error instanceof InputError || error instanceof SourceError) {
      const message = (error as Error).message;
      print(io.stderr, message.startsWith("tensorfile: ") ? message : `tensorfile: ${message}`);
      return 1;
    }
    const code = (error as NodeJS.ErrnoException)?.code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) {
      print(io.stderr, `tensorfile: ${(error as Error).message}`);
      return 1;
    }
    print(io.stderr, `tensorfile: internal error: ${(error as Error)?.message ?? String(error)}`);
    return 1;
  }
}
