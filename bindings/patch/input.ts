/**
 * The replacement tensors patch and replaceTensors take, in one shape: by name, with dtype and shape known
 * before any value is loaded (so every check runs before a byte is written).
 *
 *   NamedTensor[]                          names from the tensors (a repeated name is a RangeError)
 *   Map<string, NamedTensor | Uint8Array>  names from the keys
 *   Record<string, NamedTensor | Uint8Array>
 *   { tensors(): NamedTensor[] }           a readAny() result or any object with a tensors() method
 *   a lazy file (readFromAny(): tensorInfos + loadTensor)  patchFrom/patchTo only: loaded one at a time
 *
 * A Uint8Array value is raw bytes: april networks (ONNX files) are replaced that way.
 */
import { patchError } from "../bytes/errors.js";
import type { LazyTensors } from "../io/sink.js";
import { TruncatedError } from "../bytes/errors.js";
import { type ByteSource, readExactly } from "../io/source.js";
import type { NamedTensor, TensorInfo } from "../tensor.js";

export type { LazyTensors } from "../io/sink.js";

/**
 * A replacement: a tensor (its `name` is ignored where a Map or record key names it), or raw bytes for what is
 * stored as bytes (an april network's ONNX).
 */
export type PatchValue = NamedTensor | Uint8Array;

/** An object that gives its tensors: a `readAny()` result, or `{ tensors: () => [...] }`. */
export interface TensorsHolder {
  /** The tensors, in memory. */
  tensors(): readonly NamedTensor[];
}

/** Replacements by name: an array of NamedTensors, a Map, a plain object, or an object with a tensors() method. */
export type TensorsInput =
  readonly NamedTensor[] | ReadonlyMap<string, PatchValue> | Readonly<Record<string, PatchValue>> | TensorsHolder;

/** Options of every format's `replaceTensors` (and of {@link patch}). */
export interface ReplaceOptions {
  /** Ignore names the file does not hold instead of throwing a RangeError (default false). */
  partial?: boolean | undefined;
}

export interface Incoming {
  name: string;
  /** "bytes" for a raw Uint8Array value. */
  dtype: string;
  shape: number[];
  load(): Promise<PatchValue>;
  /**
   * Weights whose stored bytes decode with no format-specific step (safetensors, npy) and whose file is at hand:
   * the stored form and the stored bytes in chunks, so a tensor that needs no conversion is copied without
   * being loaded whole.
   */
  raw?:
    | {
        info: TensorInfo;
        chunks(): AsyncIterable<Uint8Array>;
        /** Reads stored bytes [at, at + target.length) of the tensor into `target` (sources with readInto only). */
        readInto?: ((target: Uint8Array, at?: number) => Promise<void>) | undefined;
      }
    | undefined;
}

/** Lazy weights with their file: their safetensors/npy tensors can be streamed as stored. */
export type LazyTensorsWithSource = LazyTensors & {
  /** The source the tensors are read from: weights stored as the model stores them are then copied through. */
  source?: ByteSource | undefined;
};

/** Bytes per read when streaming stored bytes. */
const RAW_CHUNK = 8 << 20;

/**
 * The stored bytes of a weight that a format keeps outside its file's plain ranges (an ONNX weight in an external
 * file), as patch.ts gives it from the format's capabilities: undefined for any other weight.
 */
export type OutsideRawAccess = (source: ByteSource, info: TensorInfo) => Incoming["raw"];

/**
 * True when a weight's TensorInfo describes stored bytes that decodeTensor alone turns into the tensor, so that a
 * patch may copy them through (patch.ts answers from the format's `rawReadable` capability: safetensors, npy).
 */
export type RawReadable = (info: TensorInfo) => boolean;

function rawAccess(
  source: ByteSource,
  info: TensorInfo,
  outside: OutsideRawAccess | undefined,
  readable: RawReadable | undefined,
): Incoming["raw"] {
  const elsewhere = outside?.(source, info);
  if (elsewhere) return elsewhere;
  if (!readable?.(info)) return undefined;
  const readInto = source.readInto?.bind(source);
  return {
    info,
    async *chunks() {
      for (let at = 0; at < info.byteLength; at += RAW_CHUNK) {
        yield await readExactly(
          source,
          info.byteOffset + at,
          Math.min(RAW_CHUNK, info.byteLength - at),
          info.format ?? "tensorfile",
          info.name,
        );
      }
    },
    readInto:
      readInto &&
      (async (target: Uint8Array, at = 0) => {
        const want = Math.min(target.length, info.byteLength - at);
        const got = await readInto(target.subarray(0, want), info.byteOffset + at);
        if (got !== want)
          throw new TruncatedError(info.format ?? "tensorfile", info.byteOffset + at + got, info.name, want - got, 0);
      }),
  };
}

function isLazy(value: unknown): value is LazyTensors {
  return (
    typeof (value as LazyTensors)?.tensorInfos === "function" &&
    typeof (value as LazyTensors)?.loadTensor === "function"
  );
}

function isMap(value: unknown): value is ReadonlyMap<string, PatchValue> {
  return value instanceof Map || Object.prototype.toString.call(value) === "[object Map]";
}

function describeValue(name: string, value: unknown): { dtype: string; shape: number[] } {
  if (value instanceof Uint8Array && !("dtype" in value)) return { dtype: "bytes", shape: [value.length] };
  const t = value as NamedTensor;
  if (
    t === null ||
    typeof t !== "object" ||
    typeof t.dtype !== "string" ||
    !Array.isArray(t.shape) ||
    !ArrayBuffer.isView(t.data)
  ) {
    throw patchError(
      "not-a-tensor",
      `tensorfile: the replacement for "${name}" is not a NamedTensor ({ name, dtype, shape, data }) or a Uint8Array`,
      { tensor: name },
    );
  }
  return { dtype: t.dtype, shape: t.shape };
}

const WHAT =
  "a NamedTensor[], a Map or a record of name -> NamedTensor (or Uint8Array for april networks), or an object with a tensors() method such as readAny()'s result";

function isTensorsHolder(value: unknown): value is TensorsHolder {
  return typeof (value as TensorsHolder | null)?.tensors === "function";
}

/** The replacements in memory, by name (replaceTensors: no lazy files). */
export function replacementsInMemory(input: TensorsInput, fn: string): Map<string, PatchValue> {
  const out = new Map<string, PatchValue>();
  if (Array.isArray(input)) {
    input.forEach((t: NamedTensor, i) => {
      if (t === null || typeof t !== "object" || typeof t.name !== "string")
        throw patchError(
          "not-a-tensor",
          `tensorfile: ${fn}: tensors[${i}] is not a NamedTensor ({ name, dtype, shape, data })`,
        );
      if (out.has(t.name))
        throw patchError("conflict", `tensorfile: ${fn}: two replacements are named "${t.name}"`, { tensor: t.name });
      describeValue(t.name, t);
      out.set(t.name, t);
    });
    return out;
  }
  if (isLazy(input))
    throw new TypeError(
      `tensorfile: ${fn}() takes tensors in memory (${WHAT}); for a lazily opened file of weights use patchFrom or patchTo`,
    );
  if (isTensorsHolder(input)) {
    const tensors: unknown = input.tensors();
    if (!Array.isArray(tensors))
      throw new TypeError(
        `tensorfile: ${fn}: the weights' tensors() returned ${tensors === null ? "null" : typeof tensors}, not an array of NamedTensors`,
      );
    return replacementsInMemory(tensors as readonly NamedTensor[], fn);
  }
  if (isMap(input)) {
    for (const [name, value] of input) {
      if (typeof name !== "string") throw new TypeError(`tensorfile: ${fn}: Map keys are tensor names (strings)`);
      describeValue(name, value);
      out.set(name, value);
    }
    return out;
  }
  if (input === null || typeof input !== "object" || ArrayBuffer.isView(input))
    throw new TypeError(`tensorfile: ${fn}() takes ${WHAT}`);
  for (const [name, value] of Object.entries(input)) {
    describeValue(name, value);
    out.set(name, value);
  }
  return out;
}

/** The replacements by name with their dtype and shape; values load on demand (lazy files: one at a time). */
export function replacementsLazy(
  input: TensorsInput | LazyTensorsWithSource,
  fn: string,
  outside?: OutsideRawAccess,
  readable?: RawReadable,
): Map<string, Incoming> {
  const out = new Map<string, Incoming>();
  if (isLazy(input)) {
    const source = (input as LazyTensorsWithSource).source;
    for (const info of input.tensorInfos()) {
      if (out.has(info.name))
        throw patchError("conflict", `tensorfile: ${fn}: the weights hold two tensors named "${info.name}"`, {
          tensor: info.name,
        });
      const raw = source && typeof source.read === "function" ? rawAccess(source, info, outside, readable) : undefined;
      out.set(info.name, {
        name: info.name,
        dtype: info.dtype,
        shape: info.shape.slice(),
        load: () => input.loadTensor(info),
        ...(raw ? { raw } : {}),
      });
    }
    return out;
  }
  for (const [name, value] of replacementsInMemory(input, fn)) {
    const { dtype, shape } = describeValue(name, value);
    out.set(name, { name, dtype, shape: shape.slice(), load: async () => value });
  }
  return out;
}

/** Up to 3 names of `names` closest to `name` (edit distance), for messages. */
function closest(name: string, names: readonly string[]): string[] {
  const distance = (a: string, b: string): number => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      for (let j = 1; j <= b.length; j++)
        row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row;
    }
    return prev[b.length]!;
  };
  return names
    .map((n) => ({ n, d: distance(name.slice(0, 200), n.slice(0, 200)) }))
    .sort((x, y) => x.d - y.d)
    .slice(0, 3)
    .map((x) => x.n);
}

/** The RangeError for replacement names the file does not hold (unless options.partial). */
export function checkUnknown(
  unknown: readonly string[],
  fileNames: readonly string[],
  format: string,
  options: ReplaceOptions,
): void {
  if (unknown.length === 0 || options.partial) return;
  const first = unknown[0]!;
  const close = closest(first, fileNames);
  const more =
    unknown.length > 1
      ? ` (and ${unknown.length - 1} more: ${unknown.slice(1, 6).join(", ")}${unknown.length > 6 ? ", …" : ""})`
      : "";
  const hint =
    fileNames.length === 0 ? ` (this ${format} file holds no tensors)` : `; the closest: ${close.join(", ")}`;
  throw patchError(
    "unknown-name",
    `tensorfile: this ${format} file has no tensor named "${first}"${more}${hint}; pass { partial: true } to skip unknown names`,
    { tensor: first, names: unknown.slice() },
  );
}
