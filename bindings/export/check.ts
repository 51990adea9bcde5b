/**
 * Checks for what the writers of other formats' files (safetensors, npy) are given, before a byte is written:
 * a file numpy or safetensors cannot read must never come out. Bad input is a TypeError (wrong kind of value)
 * or a RangeError (right kind, impossible value), naming the tensor.
 */
import type { DType, NamedTensor } from "../tensor.js";
import { allocateArray, isStandardDType, storedByteLength } from "../tensor.js";

const KNOWN_DTYPES = new Set<string>([
  "float16",
  "float32",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
  "complex32",
  "complex64",
  "complex128",
  "char8",
  "char16",
  "char32",
  "void",
  "ptr",
  "unknown8",
  "unknown16",
  "unknown32",
  "unknown64",
  "unknown128",
  "sink8q0",
  "sink8q1",
  "sink8q2",
  "sink8q3",
  "sink8q4",
  "sink8q5",
  "sink8q6",
  "sink8q7",
  "bfloat16",
  "float8_e4m3",
  "float8_e5m2",
]);

/** name, dtype and shape of one entry (a tensor or a planned one). */
export function checkEntry(
  entry: { name: unknown; dtype: unknown; shape: unknown },
  what: string,
): asserts entry is { name: string; dtype: DType; shape: number[] } {
  if (entry === null || typeof entry !== "object")
    throw new TypeError(`tensorfile: ${what} is not a { name, dtype, shape, data } object`);
  if (typeof entry.name !== "string" || entry.name === "")
    throw new TypeError(`tensorfile: ${what} needs a non-empty string name`);
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(entry.name))
    throw new RangeError(`tensorfile: the name of ${what} is not valid Unicode (a lone surrogate)`);
  if (typeof entry.dtype !== "string" || !KNOWN_DTYPES.has(entry.dtype))
    throw new TypeError(`tensorfile: ${what} ("${entry.name}") has an unknown dtype ${JSON.stringify(entry.dtype)}`);
  if (!Array.isArray(entry.shape)) throw new TypeError(`tensorfile: ${what} ("${entry.name}") needs a shape array`);
  for (const d of entry.shape) {
    if (!Number.isSafeInteger(d) || d < 0)
      throw new RangeError(
        `tensorfile: ${what} ("${entry.name}") has shape [${entry.shape.join(", ")}]: dims are whole numbers >= 0`,
      );
  }
}

/** An entry plus its data: the typed array type the dtype stores in, and exactly shape × dtype bytes. */
export function checkTensor(tensor: NamedTensor, what: string): void {
  checkEntry(tensor, what);
  const data = tensor.data as unknown;
  if (!ArrayBuffer.isView(data)) throw new TypeError(`tensorfile: ${what} ("${tensor.name}") has no typed-array data`);
  const dtype = tensor.dtype as DType;
  const want = allocateArray(dtype, 0).constructor as { name: string };
  const got = (data as { constructor: { name: string } }).constructor;
  // a Node Buffer is a Uint8Array for this purpose
  const sameKind = got === want || (want.name === "Uint8Array" && data instanceof Uint8Array);
  if (!sameKind) {
    throw new TypeError(
      `tensorfile: ${what} ("${tensor.name}") is labelled ${dtype}, whose data is a ${want.name}${isStandardDType(dtype) || want.name !== "Uint8Array" ? "" : " of raw bytes"}, but its data is a ${got.name}`,
    );
  }
  const need = storedByteLength(tensor.shape, dtype);
  if ((data as ArrayBufferView).byteLength !== need) {
    throw new RangeError(
      `tensorfile: ${what} ("${tensor.name}") has ${(data as ArrayBufferView).byteLength} bytes of data; its ${dtype} shape [${tensor.shape.join(", ")}] needs ${need}`,
    );
  }
}
