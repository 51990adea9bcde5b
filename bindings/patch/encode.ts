/**
 * Shared by every format's replaceTensors and by patch/patchFrom/patchTo: what a replacement tensor may be
 * (checked against the stored tensor before anything is written) and how its row-major values become the
 * stored bytes (the inverse of decodeTensor: dtype conversion, column-major reordering, byte swap), produced
 * in chunks so that a patch holds one incoming tensor plus about a megabyte at a time.
 *
 * Accepted incoming dtypes: the stored dtype itself; for a float16/float32/float64 tensor also float16,
 * float32, float64, bfloat16 and float8 (e4m3, e5m2) (float32 -> float16 rounds to nearest even; float64 ->
 * float16 rounds through float32; bfloat16 and float8 widen exactly to float32 first); for a format-specific
 * dtype (TenniS char8, complex128, …) also uint8 with one more axis of the
 * element size, which is how writeSafetensors exports such tensors. Anything else is a TypeError naming the
 * tensor, and a shape other than the stored logical shape a RangeError.
 */
import { patchError } from "../bytes/errors.js";
import * as kernels from "../kernels/index.js";
import {
  type DType,
  type NamedTensor,
  type TypedArray,
  bytesOf,
  dtypeBytes,
  elementCount,
  isStandardDType,
  swapWidth,
} from "../tensor.js";

/** The stored form of one tensor: TensorInfo's layout facts (primitiv adds the batch). */
export interface StoredForm {
  name: string;
  /** The stored dtype. */
  dtype: DType;
  /** The logical shape (what tensors() gives). */
  shape: readonly number[];
  layout: "row-major" | "column-major";
  byteOrder: "le" | "be";
  /** primitiv: that many samples stored one after another, each column-major (shape[0] is the batch). */
  batch?: number | undefined;
}

const FLOAT_TARGETS = new Set<string>(["float16", "float32", "float64"]);
const FLOAT_SOURCES = new Set<string>(["float16", "float32", "float64", "bfloat16", "float8_e4m3", "float8_e5m2"]);

/** Elements per chunk for conversions (256K: 1 MiB of float32). */
const CHUNK_ELEMENTS = 1 << 18;
/** Zero-copy chunks of unchanged bytes are handed out in pieces of this size. */
const VIEW_CHUNK_BYTES = 16 << 20;

function shapeText(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** The typed-array constructor each standard dtype's data comes in. */
const ARRAY_TYPES: Record<string, string> = {
  float16: "Uint16Array",
  bfloat16: "Uint16Array",
  float32: "Float32Array",
  float64: "Float64Array",
  int8: "Int8Array",
  uint8: "Uint8Array",
  int16: "Int16Array",
  uint16: "Uint16Array",
  int32: "Int32Array",
  uint32: "Uint32Array",
  int64: "BigInt64Array",
  uint64: "BigUint64Array",
  bool: "Uint8Array",
};

/** True when a tensor of dtype `given` may replace one stored as `stored` (see the module comment). */
export function acceptsDType(stored: string, given: string): boolean {
  return given === stored || (FLOAT_TARGETS.has(stored) && FLOAT_SOURCES.has(given));
}

function acceptedText(stored: string): string {
  if (FLOAT_TARGETS.has(stored)) return `${stored} (or float16, float32, float64, bfloat16, float8)`;
  if (!isStandardDType(stored as DType))
    return `${stored} (or uint8 with a last axis of ${dtypeBytes(stored as DType)}, as in safetensors)`;
  return stored;
}

/**
 * Checks a replacement's dtype and shape against the stored tensor (what patch checks before writing a byte).
 * TypeError: a dtype that cannot replace the stored one; RangeError: another shape.
 */
export function checkReplacement(
  stored: { name: string; dtype: string; shape: readonly number[] },
  given: { dtype: string; shape: readonly number[] },
): void {
  const raw = rawBytesForm(stored, given);
  if (!raw && !acceptsDType(stored.dtype, given.dtype)) {
    throw patchError(
      "dtype",
      `tensorfile: tensor "${stored.name}" is stored as ${stored.dtype}; a ${given.dtype} tensor cannot replace it (give ${acceptedText(stored.dtype)})`,
      {
        tensor: stored.name,
        expectedDtype: stored.dtype,
        actualDtype: given.dtype,
        expectedShape: stored.shape.slice(),
        actualShape: given.shape.slice(),
      },
    );
  }
  if (!raw && !sameShape(stored.shape, given.shape)) {
    throw patchError(
      "shape",
      `tensorfile: tensor "${stored.name}" has shape ${shapeText(stored.shape)} in the file; the replacement has shape ${shapeText(given.shape)}`,
      {
        tensor: stored.name,
        expectedDtype: stored.dtype,
        actualDtype: given.dtype,
        expectedShape: stored.shape.slice(),
        actualShape: given.shape.slice(),
      },
    );
  }
}

/** A format-specific dtype given as raw uint8 bytes with one more axis (as writeSafetensors exports it). */
function rawBytesForm(
  stored: { dtype: string; shape: readonly number[] },
  given: { dtype: string; shape: readonly number[] },
): boolean {
  if (isStandardDType(stored.dtype as DType) || given.dtype !== "uint8") return false;
  const size = dtypeBytes(stored.dtype as DType);
  return (
    given.shape.length === stored.shape.length + 1 &&
    given.shape[given.shape.length - 1] === size &&
    sameShape(stored.shape, given.shape.slice(0, -1))
  );
}

/**
 * Checks that `tensor` is a well-formed NamedTensor (typed-array kind for its dtype, byte length for its shape)
 * and can replace `stored`; returns its data as the typed array the conversions work on (bfloat16 given as
 * raw bytes becomes a Uint16Array; a format-specific dtype is its raw bytes).
 */
export function replacementData(
  stored: { name: string; dtype: string; shape: readonly number[] },
  tensor: NamedTensor,
): TypedArray {
  if (
    tensor === null ||
    typeof tensor !== "object" ||
    typeof tensor.dtype !== "string" ||
    !Array.isArray(tensor.shape)
  ) {
    throw patchError(
      "not-a-tensor",
      `tensorfile: the replacement for "${stored.name}" is not a NamedTensor ({ name, dtype, shape, data })`,
      { tensor: stored.name },
    );
  }
  checkReplacement(stored, tensor);
  const data = tensor.data as unknown;
  if (!ArrayBuffer.isView(data))
    throw patchError("not-a-tensor", `tensorfile: the replacement for "${stored.name}" has no typed-array data`, {
      tensor: stored.name,
    });
  const given = tensor.dtype as string;
  const kind = (data as { constructor: { name: string } }).constructor.name;
  const want = ARRAY_TYPES[given];
  const rawBf16 = given === "bfloat16" && data instanceof Uint8Array;
  if (want === undefined && !(data instanceof Uint8Array)) {
    throw patchError(
      "not-a-tensor",
      `tensorfile: the replacement for "${stored.name}" is ${given}, whose data is raw bytes (a Uint8Array), not a ${kind}`,
      { tensor: stored.name, actualDtype: given },
    );
  }
  if (want !== undefined && !rawBf16 && kind !== want && !(want === "Uint8Array" && data instanceof Uint8Array)) {
    throw patchError(
      "not-a-tensor",
      `tensorfile: the replacement for "${stored.name}" is labelled ${given}, whose data is a ${want}, but its data is a ${kind}`,
      { tensor: stored.name, actualDtype: given },
    );
  }
  const count = elementCount(tensor.shape);
  const size = given === "bfloat16" ? 2 : dtypeBytes(given as DType);
  if (data.byteLength !== count * size) {
    throw patchError(
      "conflict",
      `tensorfile: the replacement for "${stored.name}" has ${data.byteLength} bytes of data; its ${given} shape ${shapeText(tensor.shape)} needs ${count * size}`,
      { tensor: stored.name, actualDtype: given, actualShape: tensor.shape.slice() },
    );
  }
  return rawBf16 ? halvesOf(data as Uint8Array) : (data as TypedArray);
}

/** Raw little-endian bytes as 16-bit words (a view when aligned, else a copy). */
function halvesOf(bytes: Uint8Array): Uint16Array {
  if (bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 1);
  const copy = new Uint16Array(bytes.byteLength >>> 1);
  bytesOf(copy).set(bytes);
  return copy;
}

// ---------------------------------------------------------------------------------------------------------
// dtype conversion (one chunk at a time; every result is a fresh array)

function toFloat32(src: TypedArray, from: string): Float32Array {
  switch (from) {
    case "float32":
      return src as Float32Array;
    case "float16":
      return kernels.f16ToF32(src as Uint16Array);
    case "bfloat16":
      return kernels.bf16ToF32(src as Uint16Array);
    case "float8_e4m3":
      return kernels.f8e4m3ToF32(src as Uint8Array);
    case "float8_e5m2":
      return kernels.f8e5m2ToF32(src as Uint8Array);
    default:
      return new Float32Array(src as Float64Array); // float64: rounds to nearest even
  }
}

/** Float values of dtype `from` (float16, bfloat16, float32, float64) as float32 (the same array for float32). */
export function asFloat32(values: TypedArray, from: string): Float32Array {
  return toFloat32(values, from);
}

/** True for the dtypes a float tensor may be replaced with. */
export function isFloatSource(dtype: string): boolean {
  return FLOAT_SOURCES.has(dtype);
}

/** `src` (elements of dtype `from`) as the stored dtype `to`; the same array when nothing changes. */
function convert(src: TypedArray, from: string, to: string): TypedArray {
  if (from === to) return src;
  switch (to) {
    case "float32":
      return toFloat32(src, from);
    case "float16":
      return kernels.f32ToF16(toFloat32(src, from));
    case "float64":
      return from === "float32" ? new Float64Array(src as Float32Array) : new Float64Array(toFloat32(src, from));
    default:
      return src; // raw bytes of a format-specific dtype
  }
}

// ---------------------------------------------------------------------------------------------------------
// encoding: row-major values of the incoming dtype -> stored bytes, in chunks

type Sliceable = TypedArray & {
  subarray(begin: number, end: number): TypedArray;
  set(src: ArrayLike<number> | ArrayLike<bigint>, offset?: number): void;
};

/** Finishes one chunk: convert, byte-swap; never hands out the caller's memory in a form it could change. */
function finish(chunk: TypedArray, from: string, form: StoredForm, swap: boolean): Uint8Array {
  const out = convert(chunk, from, form.dtype);
  if (swap) {
    const bytes = out === chunk ? Uint8Array.from(bytesOf(out)) : bytesOf(out);
    kernels.byteSwap(bytes, swapWidth(form.dtype) as 2 | 4 | 8);
    return bytes;
  }
  return bytesOf(out);
}

/** Elements of a raw-bytes dtype are handled as bytes: element k is bytes [k * size, (k + 1) * size). */
function elementUnit(form: StoredForm, values: TypedArray): number {
  return values instanceof Uint8Array && !isStandardDType(form.dtype) ? Math.max(1, dtypeBytes(form.dtype)) : 1;
}

function* rowMajorChunks(values: Sliceable, from: string, form: StoredForm, swap: boolean): Generator<Uint8Array> {
  // same dtype, or a format-specific dtype given as its raw bytes: the bytes are the stored bytes
  const identity = from === form.dtype || !FLOAT_TARGETS.has(form.dtype);
  if (identity && !swap) {
    const bytes = bytesOf(values);
    for (let at = 0; at < bytes.length; at += VIEW_CHUNK_BYTES)
      yield bytes.subarray(at, Math.min(bytes.length, at + VIEW_CHUNK_BYTES));
    return;
  }
  const unit = elementUnit(form, values);
  for (let at = 0; at < values.length; at += CHUNK_ELEMENTS * unit) {
    yield finish(values.subarray(at, Math.min(values.length, at + CHUNK_ELEMENTS * unit)), from, form, swap);
  }
}

/** One buffer handed out again and again: the chunk made in it last is finished with when the next is asked for. */
export interface ChunkReuse {
  take(bytes: number): Uint8Array;
}

/** A ChunkReuse over one growing buffer (8-byte aligned, so any typed array can view it). */
export function chunkReuse(): ChunkReuse {
  let buffer: Uint8Array | undefined;
  return {
    take(bytes) {
      if (!buffer || buffer.length < bytes) buffer = new Uint8Array(Math.max(bytes, 1 << 20));
      return buffer.subarray(0, bytes);
    },
  };
}

/** Bytes of one column band: with its transpose it fits the kernels' 1 MiB scratch (no extra memory). */
const BAND_BYTES = 512 << 10;

type Words = Uint8Array | Uint16Array | Uint32Array;

/** The same bytes as unsigned words of the element size (8-byte elements as pairs of 32-bit words). */
function wordsOf(values: TypedArray): { words: Words; perElement: number } {
  const size = values.BYTES_PER_ELEMENT;
  const { buffer, byteOffset, byteLength } = values;
  if (size === 2 && byteOffset % 2 === 0)
    return { words: new Uint16Array(buffer, byteOffset, byteLength / 2), perElement: 1 };
  if (size >= 4 && byteOffset % 4 === 0)
    return { words: new Uint32Array(buffer, byteOffset, byteLength / 4), perElement: size / 4 };
  return { words: new Uint8Array(buffer, byteOffset, byteLength), perElement: size };
}

/** band[r][0..w) = src[r][c0..c0+w) for every row, in words (a plain loop: no per-row view objects). */
function gather(src: Words, band: Words, rows: number, cols: number, c0: number, w: number): void {
  for (let r = 0; r < rows; r++) {
    let s = r * cols + c0;
    let d = r * w;
    const end = d + w;
    while (d < end) band[d++] = src[s++]!;
  }
}

/**
 * A 2-D [rows, cols] row-major matrix stored column-major: bands of whole columns transposed one at a time
 * (each band is a run of the stored bytes): read in place by the kernel when the values are in WebAssembly
 * memory, else gathered into one reused buffer first.
 */
function* columnBands(
  values: Sliceable,
  rows: number,
  cols: number,
  from: string,
  form: StoredForm,
  swap: boolean,
  reuse?: ChunkReuse,
): Generator<Uint8Array> {
  const size = values.BYTES_PER_ELEMENT;
  const width = Math.max(1, Math.min(cols, Math.floor(BAND_BYTES / size / Math.max(1, rows))));
  const ctor = values.constructor as {
    new (length: number): Sliceable;
    new (buffer: ArrayBufferLike, byteOffset: number, length: number): Sliceable;
  };
  if (kernels.isWasmResident(values)) {
    // in WebAssembly memory: the kernel reads each band in place, strided (no gather)
    for (let c0 = 0; c0 < cols; c0 += width) {
      const w = Math.min(width, cols - c0);
      let dst: Sliceable | undefined;
      if (reuse) {
        const bytes = reuse.take(rows * w * size);
        dst = new ctor(bytes.buffer, bytes.byteOffset, rows * w);
      }
      yield finish(kernels.transposeColumns(values, rows, cols, c0, w, dst) as TypedArray, from, form, swap);
    }
    return;
  }
  const { words, perElement } = wordsOf(values);
  const band = new ctor(rows * width);
  const bandWords = wordsOf(band).words;
  for (let c0 = 0; c0 < cols; c0 += width) {
    const w = Math.min(width, cols - c0);
    gather(words, bandWords, rows, cols * perElement, c0 * perElement, w * perElement);
    const part = band.subarray(0, rows * w) as Sliceable;
    // part is rows x w row-major; its transpose (w x rows) is these columns in column-major order
    yield finish(w === 1 ? (part.slice(0) as TypedArray) : kernels.transpose(part, rows, w), from, form, swap);
  }
}

function* layoutChunks(
  values: Sliceable,
  shape: readonly number[],
  from: string,
  form: StoredForm,
  swap: boolean,
  reuse?: ChunkReuse,
): Generator<Uint8Array> {
  const dims = shape.filter((d) => d !== 1);
  if (form.layout === "row-major" || dims.length <= 1 || values.length === 0) {
    yield* rowMajorChunks(values, from, form, swap);
  } else if (dims.length === 2) {
    yield* columnBands(values, dims[0]!, dims[1]!, from, form, swap, reuse);
  } else {
    yield* rowMajorChunks(
      kernels.rowToColumnMajor(values, dims) as Sliceable,
      from,
      { ...form, layout: "row-major" },
      swap,
    );
  }
}

/**
 * The stored bytes of a replacement, in order, as a sequence of chunks (fresh arrays, or views of the
 * replacement's own data when nothing needs converting: never written to). `values` comes from
 * replacementData(); `from` is the replacement's dtype. With `reuse`, transposed bands go into its one buffer
 * (the caller is done with each chunk before it asks for the next).
 */
export function* encodeChunks(
  values: TypedArray,
  from: string,
  form: StoredForm,
  reuse?: ChunkReuse,
): Generator<Uint8Array> {
  const swap = form.byteOrder === "be" && swapWidth(form.dtype) > 1;
  const batch = form.batch ?? 1;
  const v = values as Sliceable;
  if (batch > 1 && form.layout === "column-major") {
    const per = v.length / batch;
    const dims = form.shape.slice(1);
    for (let s = 0; s < batch; s++)
      yield* layoutChunks(v.subarray(s * per, (s + 1) * per) as Sliceable, dims, from, form, swap, reuse);
    return;
  }
  yield* layoutChunks(v, form.shape, from, form, swap, reuse);
}

/** encodeChunks gathered into one new array of bytes. */
export function encodeBytes(values: TypedArray, from: string, form: StoredForm): Uint8Array {
  return gathered(encodeChunks(values, from, form), form);
}

/**
 * encodeBytes for the formats whose tensors are always row-major (SPRAAK, TenniS): the same bytes without the
 * transpose kernels, so that a bundle importing only such a format leaves them out. A column-major form is an
 * internal error.
 */
export function encodeRowMajorBytes(values: TypedArray, from: string, form: StoredForm): Uint8Array {
  if (form.layout !== "row-major" && form.shape.filter((d) => d !== 1).length > 1) {
    throw new Error(`tensorfile: internal error: "${form.name}" is column-major; encode it with encodeBytes`);
  }
  return gathered(
    rowMajorChunks(values as Sliceable, from, form, form.byteOrder === "be" && swapWidth(form.dtype) > 1),
    form,
  );
}

/** Chunks of one tensor's stored bytes gathered into one new array (of exactly the stored size). */
function gathered(chunks: Iterable<Uint8Array>, form: StoredForm): Uint8Array {
  const size = elementCount(form.shape) * dtypeBytes(form.dtype);
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  if (at !== size)
    throw new Error(`tensorfile: internal error: encoded ${at} bytes of "${form.name}", expected ${size}`);
  return out;
}

/** True when two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  if (a === b) return true;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const n = a.length >>> 2;
    const wa = new Uint32Array(a.buffer, a.byteOffset, n);
    const wb = new Uint32Array(b.buffer, b.byteOffset, n);
    for (; i < n; i++) if (wa[i] !== wb[i]) return false;
    i = n * 4;
  }
  for (; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
