/**
 * One entry point over the five formats: detectFormat (sniffing), readAny (whole files), readFromAny (lazy).
 * The order of FORMATS is the order detection tries them in; every detector looks at magic bytes only.
 */
import { FormatError } from "./errors.js";
import * as april from "./formats/april.js";
import * as bw2l from "./formats/bw2l.js";
import * as primitiv from "./formats/primitiv.js";
import * as spraak from "./formats/spraak.js";
import * as tsm from "./formats/tsm.js";
import type { FormatId, FormatModule } from "./formats/types.js";
import { loadTensor as lazyLoadTensor } from "./io/lazy.js";
import { type ByteSource, readExactly, sourceSize } from "./io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "./tensor.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
export const FORMATS: readonly FormatModule<any, any, any>[] = [bw2l, april, tsm, primitiv, spraak];

/** How many leading bytes detectFormat needs at most. */
export const DETECT_BYTES = 64;

export function formatModule(id: FormatId): FormatModule<any, any, any> {
  const found = FORMATS.find((f) => f.id === id);
  if (!found) throw new TypeError(`unknown format ${String(id)}`);
  return found;
}

/** The format whose magic `head` starts with, or undefined. Never throws. */
export function detectFormat(head: Uint8Array): FormatId | undefined {
  for (const format of FORMATS) {
    try {
      if (format.detect(head)) return format.id;
    } catch {
      // a detector must not throw; treat one that does as "not this format"
    }
  }
  return undefined;
}

/** The error for bytes no format recognises: BAD_MAGIC, naming the formats tried and the first bytes. */
export function unknownFormatError(head: Uint8Array): FormatError {
  const tried = FORMATS.map((f) => f.id).join(", ");
  const shown = Array.from(head.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join(" ");
  return new FormatError("BAD_MAGIC", "tensorfile", `unknown format: the first bytes [${shown}] match none of ${tried}`, 0);
}

export interface AnyFile {
  format: FormatId;
  file: unknown;
  tensors(options?: DecodeOptions): NamedTensor[];
}

/** Detects the format and reads the whole file. BAD_MAGIC, listing the formats tried, when none matches. */
export function readAny(bytes: Uint8Array): AnyFile {
  const id = detectFormat(bytes.subarray(0, Math.max(DETECT_BYTES, 0)));
  if (!id) throw unknownFormatError(bytes);
  const module = formatModule(id);
  const file = module.read(bytes);
  return { format: id, file, tensors: (options?: DecodeOptions) => module.tensors(file, options) };
}

export interface AnyLazyFile {
  format: FormatId;
  file: unknown;
  tensorInfos(): TensorInfo[];
  loadTensor(info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor>;
}

/**
 * Reads one tensor of a readFrom() result and decodes it: through its format's loadTensor when the info names
 * one (a .csta's obfuscated bytes, primitiv's batch-last samples, SPRAAK ASCII/gzip/G.711 data need it), else
 * generically (byte swap, widening, dequantization, column-major transpose).
 */
export function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  const format = FORMATS.find((f) => f.id === info.format);
  return format ? format.loadTensor(source, info, options) : lazyLoadTensor(source, info, options);
}

/** Detects the format from the first bytes of `source` and opens it lazily (headers only). */
export async function readFromAny(source: ByteSource): Promise<AnyLazyFile> {
  const { size } = await sourceSize(source);
  const head = await readExactly(source, 0, Math.min(size, DETECT_BYTES), "tensorfile", "head");
  const id = detectFormat(head);
  if (!id) throw unknownFormatError(head);
  const module = formatModule(id);
  const file = await module.readFrom(source);
  return {
    format: id,
    file,
    tensorInfos: () => module.tensorInfos(file),
    loadTensor: (info, options) => module.loadTensor(source, info, options),
  };
}
