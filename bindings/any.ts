/**
 * One entry point over the formats: detectFormat (sniffing), readAny (whole files), readFromAny (lazy).
 * The order of FORMATS is the order detection tries them in. The five model formats with magic bytes come first,
 * then ONNX (no magic: its detector checks that the first bytes are ModelProto fields with their wire types and an
 * ir_version), then the input formats safetensors, npy and npz (safetensors has no magic, so its detector is a
 * plausibility check that must never win over a model format), and last onnx-tensor (a bare TensorProto, no magic
 * either: a conservative check of its first fields; a source named `.pb` is opened as one whatever its head).
 */
import { FormatError } from "./bytes/errors.js";
import { type BuiltInModules, CAPABILITIES, READINGS, capabilitiesOf, readingOf } from "./formats/registry.js";
import type { FormatId, FormatModule, FormatReading } from "./formats/types.js";
import { loadTensor as lazyLoadTensor } from "./io/lazy.js";
import { asBytes, asSource } from "./bytes/input.js";
import { closestNames } from "./bytes/names.js";
export { closestNames };
import { type ByteSource, readExactly, sourceSize } from "./io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "./tensor.js";

/** Each format id's module (typed per id: `formatModule("tsm").graph` exists); derived from formats/registry.ts. */
export type FormatModules = BuiltInModules;

/** Each format id's file object, as read() returns it. */
export type FormatFiles = { [K in keyof FormatModules]: ReturnType<FormatModules[K]["read"]> };

/** Every format module, in the order detection tries them (the registry's, formats/registry.ts). */
export const FORMATS: readonly FormatModule<unknown, never, never>[] = /* @__PURE__ */ CAPABILITIES.map(
  (format) => format.module,
);

/** Every format's reading functions, in FORMATS' order (the registry's READINGS: what detection uses). */
export const READERS: readonly FormatReading[] = READINGS;

/** How many leading bytes detectFormat needs at most. */
export const DETECT_BYTES = 64;

/** The format module of `id` (a `TypeError` for an unknown id). */
export function formatModule<K extends FormatId>(id: K): FormatModules[K];
export function formatModule(id: FormatId): FormatModule<unknown, never, never> {
  const found = capabilitiesOf(id);
  if (!found)
    throw new TypeError(
      `tensorfile: unknown format ${String(id)} (the formats are ${CAPABILITIES.map((f) => f.id).join(", ")})`,
    );
  return found.module;
}

/** The reading functions of format `id` (detection or a name found it, so it is registered). */
function readerOf(id: FormatId): FormatReading {
  const found = readingOf(id);
  if (!found) throw new TypeError(`tensorfile: unknown format ${String(id)}`);
  return found;
}

/**
 * The format whose magic `head` starts with, or undefined. Never throws for bytes (a Uint8Array, a Node Buffer at
 * any offset, or an ArrayBuffer); any other argument is a TypeError saying what to pass.
 */
export function detectFormat(value: Uint8Array | ArrayBuffer): FormatId | undefined {
  const head = asBytes(value, "detectFormat", "head");
  for (const format of READINGS) {
    try {
      if (format.detect(head)) return format.id;
    } catch {
      // a detector must not throw; treat one that does as "not this format"
    }
  }
  return undefined;
}

/**
 * The format a file name picks when detection by content found none: `x.onnx` is parsed as ONNX (which has no
 * magic: detection refuses heads it is unsure of, such as a model whose ir_version comes late) and `x.pb` as a
 * TensorProto (onnx-tensor). Only the parser is chosen, so the error for a file that is not one is the parser's,
 * with its offset and field, not "unknown format". A URL's query and fragment are not part of its name. Undefined
 * for other names.
 */
export function formatOfName(name: string | undefined): FormatId | undefined {
  if (typeof name !== "string" || name === "") return undefined;
  const path = (/^[a-z][a-z0-9+.-]*:\/\//i.test(name) ? name.replace(/[?#].*$/s, "") : name).toLowerCase();
  return READINGS.find((f) => f.chosenByName === true && f.extensions.some((e) => path.endsWith(e)))?.id;
}

/** The error for bytes no format recognises: BAD_MAGIC, naming the formats tried and the first bytes. */
export function unknownFormatError(head: Uint8Array): FormatError {
  const tried = READINGS.map((f) => f.id).join(", ");
  if (head.length === 0)
    return new FormatError(
      "BAD_MAGIC",
      "tensorfile",
      `unknown format: empty file (0 bytes; the formats tried: ${tried})`,
    );
  // every byte as two hex digits (0x89 of "\x89PNG" included), at most 16
  const shown = Array.from(head.subarray(0, 16), (b) => (b & 0xff).toString(16).padStart(2, "0")).join(" ");
  return new FormatError(
    "BAD_MAGIC",
    "tensorfile",
    `unknown format: the first bytes [${shown}] match none of ${tried}`,
    0,
  );
}

/** What readAny returns: a union discriminated by `format` (`if (a.format === "tsm") a.file.nodes`). */
export type AnyFile = {
  [K in FormatId]: {
    /** The format's id: narrows `file`. */
    format: K;
    /** The format's file object, as its `read()` returns it. */
    file: FormatFiles[K];
    /** The file's tensors, row-major (`{ dtype: "float32" }`: every real-valued tensor as float32). */
    tensors(options?: DecodeOptions): NamedTensor[];
  };
}[FormatId];

/**
 * Detects the format and reads the whole file. BAD_MAGIC, listing the formats tried, when none matches. `name`
 * (the file's name, optional) chooses the parser when the first bytes do not decide: see {@link formatOfName}.
 */
export function readAny(input: Uint8Array | ArrayBuffer, name?: string): AnyFile {
  const bytes = asBytes(input, "readAny");
  const id = detectFormat(bytes.subarray(0, Math.max(DETECT_BYTES, 0))) ?? formatOfName(name);
  if (!id) throw unknownFormatError(bytes);
  const module = readerOf(id);
  const file = module.read(bytes);
  return { format: id, file, tensors: (options?: DecodeOptions) => module.tensors(file, options) } as AnyFile;
}

/** What readFromAny returns: a union discriminated by `format`, like AnyFile, with lazy tensors. */
export type AnyLazyFile = {
  [K in FormatId]: LazyFileMembers & {
    /** The format's id: narrows `file`. */
    format: K;
    /** The format's file object, as its `readFrom()` returns it (tensor payloads as byte ranges). */
    file: FormatFiles[K];
  };
}[FormatId];

interface LazyFileMembers {
  tensorInfos(): TensorInfo[];
  /** Reads and decodes one tensor, given its info (from tensorInfos()) or its name. */
  loadTensor(info: TensorInfo | string, options?: DecodeOptions): Promise<NamedTensor>;
}

/** The info `wanted` names (a name or an info); an unknown name is a RangeError listing the closest names. */
export function pickInfo(infos: readonly TensorInfo[], wanted: TensorInfo | string): TensorInfo {
  if (typeof wanted !== "string") {
    if (wanted === null || typeof wanted !== "object" || typeof wanted.byteOffset !== "number") {
      throw new TypeError("tensorfile: loadTensor() takes a tensor name or a TensorInfo from tensorInfos()");
    }
    return wanted;
  }
  const found = infos.find((i) => i.name === wanted);
  if (found) return found;
  const close = closestNames(
    wanted,
    infos.map((i) => i.name),
  );
  throw new RangeError(
    `tensorfile: no tensor named "${wanted}"${close.length > 0 ? `; the closest: ${close.join(", ")}` : infos.length === 0 ? " (the file holds no tensors)" : ""}`,
  );
}

/**
 * Reads one tensor of a readFrom() result and decodes it: through its format's loadTensor when the info names
 * one (a .csta's obfuscated bytes, primitiv's batch-last samples, SPRAAK ASCII/gzip/G.711 data need it), else
 * generically (byte swap, widening, dequantization, column-major transpose).
 */
export function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  if (info === null || typeof info !== "object" || typeof info.byteOffset !== "number") {
    return Promise.reject(
      new TypeError(
        `tensorfile: loadTensor(source, info) takes a TensorInfo from tensorInfos(); to load by name use the loadTensor of a readFromAny() result`,
      ),
    );
  }
  const format = info.format === undefined ? undefined : readingOf(info.format);
  return format ? format.loadTensor(source, info, options) : lazyLoadTensor(source, info, options);
}

/**
 * Detects the format from the first bytes of `source` and opens it lazily (headers only). When they do not decide,
 * the source's name (a path, a File's name, a URL) may choose the parser: see {@link formatOfName}.
 */
export async function readFromAny(input: ByteSource): Promise<AnyLazyFile> {
  const source = asSource(input, "readFromAny");
  const { size } = await sourceSize(source);
  const head = await readExactly(source, 0, Math.min(size, DETECT_BYTES), "tensorfile", "head");
  const id = detectFormat(head) ?? formatOfName(source.name);
  if (!id) throw unknownFormatError(head);
  const module = readerOf(id);
  const file = await module.readFrom(source);
  return {
    format: id,
    file,
    tensorInfos: () => module.tensorInfos(file),
    // (the infos are listed only to find a name: loading by info must not rebuild them per tensor)
    loadTensor: async (wanted: TensorInfo | string, options?: DecodeOptions) =>
      module.loadTensor(
        source,
        typeof wanted === "string" ? pickInfo(module.tensorInfos(file), wanted) : pickInfo([], wanted),
        options,
      ),
  } as AnyLazyFile;
}
