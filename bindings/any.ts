/**
 * One entry point over the formats: detectFormat (sniffing), readAny (whole files), readFromAny (lazy).
 * The order of FORMATS is the order detection tries them in. The five model formats with magic bytes come first,
 * then ONNX (no magic: its detector checks that the first bytes are ModelProto fields with their wire types and an
 * ir_version), then the input formats safetensors, npy and npz (safetensors has no magic, so its detector is a
 * plausibility check that must never win over a model format), and last onnx-tensor (a bare TensorProto, no magic
 * either: a conservative check of its first fields; a source named `.pb` is opened as one whatever its head).
 */
import { FormatError } from "./bytes/errors.js";
import * as april from "./formats/april.js";
import * as bw2l from "./formats/bw2l.js";
import * as npy from "./formats/npy.js";
import * as npz from "./formats/npz.js";
import * as onnx from "./formats/onnx.js";
import * as onnxTensor from "./formats/onnx-tensor.js";
import * as primitiv from "./formats/primitiv.js";
import * as safetensors from "./formats/safetensors.js";
import * as spraak from "./formats/spraak.js";
import * as tsm from "./formats/tsm.js";
import type { FormatId, FormatModule } from "./formats/types.js";
import { loadTensor as lazyLoadTensor } from "./io/lazy.js";
import { asBytes, asSource } from "./bytes/input.js";
import { closestNames } from "./bytes/names.js";
export { closestNames };
import { type ByteSource, readExactly, sourceSize } from "./io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "./tensor.js";

/** Each format id's module (typed per id: `formatModule("tsm").graph` exists). */
export interface FormatModules {
  /** Binary wav2letter models. */
  bw2l: typeof bw2l;
  /** april-asr models. */
  april: typeof april;
  /** TenniS modules and SeetaFace6 containers. */
  tsm: typeof tsm;
  /** primitiv File Format v0.1. */
  primitiv: typeof primitiv;
  /** SPRAAK data files. */
  spraak: typeof spraak;
  /** ONNX models. */
  onnx: typeof onnx;
  /** Hugging Face safetensors (input format). */
  safetensors: typeof safetensors;
  /** NumPy .npy (input format). */
  npy: typeof npy;
  /** NumPy .npz (input format). */
  npz: typeof npz;
  /** ONNX TensorProto files, `.pb` (input format). */
  "onnx-tensor": typeof onnxTensor;
}

/** Each format id's file object, as read() returns it. */
export type FormatFiles = { [K in keyof FormatModules]: ReturnType<FormatModules[K]["read"]> };

/** The reading functions over a format's own file type, as the dispatchers here use them. */
type ReaderOf<K extends FormatId> = Pick<FormatModule<FormatFiles[K], unknown, unknown>, "id" | "read" | "readFrom" | "tensors" | "tensorInfos" | "loadTensor">;

/** Every format module, in the order detection tries them. */
export const FORMATS: readonly FormatModule<never, never, never>[] = [bw2l, april, tsm, primitiv, spraak, onnx, safetensors, npy, npz, onnxTensor] as unknown as FormatModule<never, never, never>[];

/** What detection and the readAny/readFromAny/loadTensor dispatchers use of a format: its reading functions. */
type FormatReader = Pick<FormatModule<never, never, never>, "id" | "detect" | "read" | "readFrom" | "tensors" | "tensorInfos" | "loadTensor">;

/**
 * FORMATS' reading functions, in the same order, taken member by member: a bundler then keeps only these (and
 * what they reach) for detectFormat/readAny/readFromAny, not the writers, builders and patch code of every format
 * (esbuild keeps a whole module namespace once it is used as a value, as FORMATS does).
 */
export const READERS = [
  { id: bw2l.id, detect: bw2l.detect, read: bw2l.read, readFrom: bw2l.readFrom, tensors: bw2l.tensors, tensorInfos: bw2l.tensorInfos, loadTensor: bw2l.loadTensor },
  { id: april.id, detect: april.detect, read: april.read, readFrom: april.readFrom, tensors: april.tensors, tensorInfos: april.tensorInfos, loadTensor: april.loadTensor },
  { id: tsm.id, detect: tsm.detect, read: tsm.read, readFrom: tsm.readFrom, tensors: tsm.tensors, tensorInfos: tsm.tensorInfos, loadTensor: tsm.loadTensor },
  { id: primitiv.id, detect: primitiv.detect, read: primitiv.read, readFrom: primitiv.readFrom, tensors: primitiv.tensors, tensorInfos: primitiv.tensorInfos, loadTensor: primitiv.loadTensor },
  { id: spraak.id, detect: spraak.detect, read: spraak.read, readFrom: spraak.readFrom, tensors: spraak.tensors, tensorInfos: spraak.tensorInfos, loadTensor: spraak.loadTensor },
  { id: onnx.id, detect: onnx.detect, read: onnx.read, readFrom: onnx.readFrom, tensors: onnx.tensors, tensorInfos: onnx.tensorInfos, loadTensor: onnx.loadTensor },
  { id: safetensors.id, detect: safetensors.detect, read: safetensors.read, readFrom: safetensors.readFrom, tensors: safetensors.tensors, tensorInfos: safetensors.tensorInfos, loadTensor: safetensors.loadTensor },
  { id: npy.id, detect: npy.detect, read: npy.read, readFrom: npy.readFrom, tensors: npy.tensors, tensorInfos: npy.tensorInfos, loadTensor: npy.loadTensor },
  { id: npz.id, detect: npz.detect, read: npz.read, readFrom: npz.readFrom, tensors: npz.tensors, tensorInfos: npz.tensorInfos, loadTensor: npz.loadTensor },
  { id: onnxTensor.id, detect: onnxTensor.detect, read: onnxTensor.read, readFrom: onnxTensor.readFrom, tensors: onnxTensor.tensors, tensorInfos: onnxTensor.tensorInfos, loadTensor: onnxTensor.loadTensor },
] as unknown as readonly FormatReader[];

/** How many leading bytes detectFormat needs at most. */
export const DETECT_BYTES = 64;

/** The format module of `id` (a `TypeError` for an unknown id). */
export function formatModule<K extends FormatId>(id: K): FormatModules[K] {
  const found = FORMATS.find((f) => f.id === id);
  if (!found) throw new TypeError(`tensorfile: unknown format ${String(id)} (the formats are ${FORMATS.map((f) => f.id).join(", ")})`);
  return found as unknown as FormatModules[K];
}

/** The reading functions of format `id` (one of READERS: detection found it). */
function readerOf<K extends FormatId>(id: K): ReaderOf<K> {
  return READERS.find((f) => f.id === id) as unknown as ReaderOf<K>;
}

/**
 * The format whose magic `head` starts with, or undefined. Never throws for bytes (a Uint8Array, a Node Buffer at
 * any offset, or an ArrayBuffer); any other argument is a TypeError saying what to pass.
 */
export function detectFormat(value: Uint8Array | ArrayBuffer): FormatId | undefined {
  const head = asBytes(value, "detectFormat", "head");
  for (const format of READERS) {
    try {
      if (format.detect(head)) return format.id;
    } catch {
      // a detector must not throw; treat one that does as "not this format"
    }
  }
  return undefined;
}

/**
 * The formats a file's name picks when its content is not recognised (no magic, or a head detection is unsure
 * of), with their extensions (taken member by member, as READERS does, so readFromAny's bundle keeps no whole
 * format namespace).
 */
const CHOSEN_BY_NAME: readonly { id: FormatId; extensions: readonly string[] }[] = [
  { id: onnx.id, extensions: onnx.extensions },
  { id: onnxTensor.id, extensions: onnxTensor.extensions },
];

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
  return CHOSEN_BY_NAME.find((f) => f.extensions.some((e) => path.endsWith(e)))?.id;
}

/** The error for bytes no format recognises: BAD_MAGIC, naming the formats tried and the first bytes. */
export function unknownFormatError(head: Uint8Array): FormatError {
  const tried = READERS.map((f) => f.id).join(", ");
  if (head.length === 0) return new FormatError("BAD_MAGIC", "tensorfile", `unknown format: empty file (0 bytes; the formats tried: ${tried})`);
  // every byte as two hex digits (0x89 of "\x89PNG" included), at most 16
  const shown = Array.from(head.subarray(0, 16), (b) => (b & 0xff).toString(16).padStart(2, "0")).join(" ");
  return new FormatError("BAD_MAGIC", "tensorfile", `unknown format: the first bytes [${shown}] match none of ${tried}`, 0);
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
  const close = closestNames(wanted, infos.map((i) => i.name));
  throw new RangeError(`tensorfile: no tensor named "${wanted}"${close.length > 0 ? `; the closest: ${close.join(", ")}` : infos.length === 0 ? " (the file holds no tensors)" : ""}`);
}

/**
 * Reads one tensor of a readFrom() result and decodes it: through its format's loadTensor when the info names
 * one (a .csta's obfuscated bytes, primitiv's batch-last samples, SPRAAK ASCII/gzip/G.711 data need it), else
 * generically (byte swap, widening, dequantization, column-major transpose).
 */
export function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  if (info === null || typeof info !== "object" || typeof info.byteOffset !== "number") {
    return Promise.reject(new TypeError(`tensorfile: loadTensor(source, info) takes a TensorInfo from tensorInfos(); to load by name use the loadTensor of a readFromAny() result`));
  }
  const format = READERS.find((f) => f.id === info.format);
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
      module.loadTensor(source, typeof wanted === "string" ? pickInfo(module.tensorInfos(file), wanted) : pickInfo([], wanted), options),
  } as AnyLazyFile;
}
