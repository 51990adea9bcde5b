/**
 * The CLI's inputs (imports no command): FILE opened as a ByteSource ("-" standard input, a pipe or device read
 * whole, an http(s) URL with Range requests, a regular file through a file handle), lazily (headers only) or
 * whole, with the format module that reads it; and the tensor a command works on picked by name.
 */
import { stat } from "node:fs/promises";
import { DETECT_BYTES, closestNames, detectFormat, formatModule, readAny, readFromAny } from "../any.js";
import type { LazyTensors } from "../export/stream.js";
import { capabilitiesOf } from "../formats/registry.js";
import type { FormatId, FormatModule } from "../formats/types.js";
import { type ByteSource, SourceError, fromBytes, fromUrl, readExactly, sourceSize } from "../io/source.js";
import { openFileAccess } from "../io/file-access.js";
import { withExternalData } from "../io/external-data.js";
import type { TensorInfo } from "../tensor.js";
import { isFormatError } from "../bytes/errors.js";
import { InputError, UsageError } from "./common.js";
import { fsReason } from "./output.js";
import { DEFAULT_MAX_STREAM_BYTES, readDeviceBounded, readStreamBounded } from "./stream-input.js";

export type AnyModule = FormatModule<unknown, unknown, unknown>;

export function isUrl(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

let stdinBytes: Promise<Uint8Array> | undefined;
/** --timeout SECONDS as milliseconds, for URL inputs (undefined: fromUrl's default). */
let urlIdleTimeoutMs: number | undefined;
/** The most bytes read whole from standard input, a pipe or a device (--max-stdin-bytes). */
let maxStreamBytes = DEFAULT_MAX_STREAM_BYTES;

/** Sets the idle timeout of URL inputs for the command about to run (--timeout; undefined: fromUrl's default). */
export function setUrlIdleTimeout(ms: number | undefined): void {
  urlIdleTimeoutMs = ms;
}

/** --external-dir DIR: where the external data of models read by the command about to run is (undefined: beside a regular file only). */
let externalDir: string | undefined;

/** Sets the folder of ONNX external data for the command about to run (--external-dir; undefined: none named). */
export function setExternalDir(dir: string | undefined): void {
  externalDir = dir;
}

/** The folder --external-dir named for the command running (undefined: none). */
export function externalDirSetting(): string | undefined {
  return externalDir;
}

/**
 * `source` with the external data of the model it reads looked for in --external-dir when given; else `source`
 * (which has a folder only when it is a regular file's: io/regular-file.ts).
 */
export function withCliExternalData(source: ByteSource): ByteSource {
  return withExternalData(source, externalDir);
}

/** FIFOs and devices read whole by this command, by path: a command that opens FILE twice reads a FIFO once. */
const deviceBytes = new Map<string, Promise<Uint8Array>>();

/**
 * Sets the cap on streams read whole for the command about to run (--max-stdin-bytes; undefined: the default), and
 * forgets the FIFOs and devices the previous command read.
 */
export function setMaxStreamBytes(bytes: number | undefined): void {
  maxStreamBytes = bytes ?? DEFAULT_MAX_STREAM_BYTES;
  deviceBytes.clear();
}

/** The FIFO or device at `path`, read whole once per command (see readDeviceBounded). */
function readDevice(path: string, anyBytes: boolean): Promise<Uint8Array> {
  let bytes = deviceBytes.get(path);
  if (!bytes) deviceBytes.set(path, (bytes = readDeviceBounded(path, maxStreamBytes, anyBytes)));
  return bytes;
}

/** Standard input, read whole (once: "-" can be named once per command), bounded as stream-input.ts says. */
function readStdin(name: string, anyBytes: boolean): Promise<Uint8Array> {
  stdinBytes ??= readStreamBounded(process.stdin as AsyncIterable<Uint8Array>, name, maxStreamBytes, anyBytes);
  return stdinBytes;
}

/**
 * A ByteSource for FILE: "-" is standard input and a pipe, FIFO or device (/dev/stdin, /dev/zero) is read whole
 * (their size is not known ahead: never taken from stat), its format checked from the first bytes and its length
 * capped (stream-input.ts; `anyBytes`: any bytes, not only a known format, for `view`); an http(s) URL is read with
 * Range requests; a regular file through a file handle. Only the last has a folder for ONNX external data, unless
 * --external-dir names one (then every FILE has it).
 */
export async function openSource(path: string, options: { anyBytes?: boolean } = {}): Promise<ByteSource> {
  return withCliExternalData(await openSourceOf(path, options));
}

async function openSourceOf(path: string, options: { anyBytes?: boolean }): Promise<ByteSource> {
  const anyBytes = options.anyBytes ?? false;
  if (path === "-") return fromBytes(await readStdin("standard input", anyBytes), "stdin");
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
    return fromBytes(await readDevice(path, anyBytes), path);
  } catch (cause) {
    if (isFormatError(cause)) throw cause;
    // /dev/stdin cannot be opened when standard input is a socket (as Node gives its children): read it directly
    if ((cause as NodeJS.ErrnoException).code === "ENXIO" && /^\/(dev\/stdin|dev\/fd\/0|proc\/self\/fd\/0)$/.test(path))
      return fromBytes(await readStdin(path, anyBytes), path);
    throw new SourceError(`cannot read ${path}: ${fsReason(cause, "input")}`, { cause });
  }
}

/** The whole of FILE in memory (regular files in chunks above 1 GiB, past Node's 2 GiB readFile limit). */
export async function readWhole(path: string): Promise<Uint8Array> {
  const source = await openSource(path);
  try {
    const { size } = await sourceSize(source);
    return await readExactly(source, 0, size, "tensorfile");
  } finally {
    await source.close?.();
  }
}

/** The format FILE's first bytes show (undefined: none), reading only them (a stream is read whole, as always). */
export async function detectInputFormat(path: string): Promise<string | undefined> {
  const source = await openSource(path);
  try {
    const { size, head } = await sourceSize(source, DETECT_BYTES);
    return detectFormat(head ?? (await readExactly(source, 0, Math.min(size, DETECT_BYTES), "tensorfile", "head")));
  } finally {
    await source.close?.();
  }
}

/**
 * The first of `paths` that is a regular file of a format with no external data, when none of them can have any
 * (undefined otherwise): --external-dir then does nothing. Standard input, URLs, folders, files tensorfile does not
 * recognise and formats with the externalData capability (ONNX) all count as able to (a pipe is not read here; a bad file is the command's to report).
 */
export async function withoutExternalData(
  paths: readonly string[],
): Promise<{ path: string; format: string } | undefined> {
  let first: { path: string; format: string } | undefined;
  for (const path of paths) {
    if (path === "-" || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return undefined;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const format = await detectInputFormat(path).catch(() => undefined);
    if (format === undefined || capabilitiesOf(format as FormatId)?.externalFileOf) return undefined;
    first ??= { path, format };
  }
  return first;
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

/** A FILE opened by openLazy: its source, format, file object and module. */
export type OpenedInput = Awaited<ReturnType<typeof openLazy>>;

/** Reads a whole file of any format (`name`: its path, which may choose the parser); the module that read it comes along. */
export function readWholeAny(bytes: Uint8Array, name?: string): { module: AnyModule; file: unknown } {
  const { format, file } = readAny(bytes, name);
  return { module: formatModule(format) as AnyModule, file };
}

export function pickTensor(infos: TensorInfo[], name: string | undefined): TensorInfo {
  if (name !== undefined) {
    const found = infos.find((i) => i.name === name);
    if (!found) {
      const close = closestNames(
        name,
        infos.map((i) => i.name),
      );
      throw new InputError(
        `no tensor named "${name}"${close.length > 0 ? `; the closest: ${close.join(", ")}` : " (the file holds no tensors)"}`,
      );
    }
    return found;
  }
  if (infos.length === 1) return infos[0]!;
  if (infos.length === 0)
    throw new InputError(
      'the file holds no tensors: use "tensorfile extract" for what it holds (networks, data sections)',
    );
  throw new UsageError(
    `the file holds ${infos.length} tensors: name one with --tensor (${infos
      .slice(0, 10)
      .map((i) => i.name)
      .join(", ")}${infos.length > 10 ? ", …" : ""})`,
  );
}

/**
 * An opened file as the streaming writers take it: its tensors loaded by its format, and its source, so that large
 * tensors stream in chunks (plainly stored) or bands of rows (column-major) instead of whole.
 */
export function lazyTensors(opened: OpenedInput, infos: TensorInfo[]): LazyTensors {
  return {
    tensorInfos: () => infos,
    loadTensor: (i, d) => opened.module.loadTensor(opened.source, i, d),
    source: opened.source,
  };
}
