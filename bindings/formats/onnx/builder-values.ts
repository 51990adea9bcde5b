/**
 * Building a new ONNX model, the values: data type codes, the tensor and value info inputs, the checks that refuse
 * a value its field cannot hold, and the TensorProto writer (raw_data, little-endian). builder.ts builds the rest.
 */
import { ProtoWriter } from "./proto-writer.js";

/** ONNX TensorProto.DataType codes by name. */
export const ONNX_DTYPES = {
  /** FLOAT. */
  float32: 1,
  /** UINT8. */
  uint8: 2,
  /** INT8. */
  int8: 3,
  /** UINT16. */
  uint16: 4,
  /** INT16. */
  int16: 5,
  /** INT32. */
  int32: 6,
  /** INT64. */
  int64: 7,
  /** STRING: for value infos; a string tensor cannot be stored (create() writes raw_data only). */
  string: 8,
  /** BOOL, one byte per element. */
  bool: 9,
  /** FLOAT16 (numbers are taken as the raw 16-bit patterns). */
  float16: 10,
  /** DOUBLE. */
  float64: 11,
  /** UINT32. */
  uint32: 12,
  /** UINT64. */
  uint64: 13,
  /** COMPLEX64: data as bytes or a typed array (no number list), (real, imaginary) float32 pairs. */
  complex64: 14,
  /** COMPLEX128: data as bytes or a typed array (no number list), (real, imaginary) float64 pairs. */
  complex128: 15,
  /** BFLOAT16 (numbers are taken as the raw 16-bit patterns). */
  bfloat16: 16,
} as const;
/** A dtype name accepted by the builder (a key of {@link ONNX_DTYPES}). */
export type OnnxDTypeName = keyof typeof ONNX_DTYPES;

const DTYPE_BYTES: Record<number, number> = {
  1: 4,
  2: 1,
  3: 1,
  4: 2,
  5: 2,
  6: 4,
  7: 8,
  9: 1,
  10: 2,
  11: 8,
  12: 4,
  13: 8,
  14: 8,
  15: 16,
  16: 2,
  17: 1,
  18: 1,
  19: 1,
  20: 1,
};
/** UINT4, INT4, FLOAT4E2M1: two elements a byte (raw bytes only). */
const HALF_BYTE_DTYPES = new Set([21, 22, 23]);
/** The highest TensorProto.DataType a tensor may have (FLOAT4E2M1); value infos take any int32 code. */
const LAST_TENSOR_DTYPE = 23;

/** A tensor to store (an initializer or a TENSOR attribute), written as raw_data. */
export interface OnnxTensorInput {
  /** Field 8 name (initializers need one: nodes refer to it). */
  name?: string | undefined;
  /** A dtype name or a TensorProto.DataType code. */
  dtype: OnnxDTypeName | number;
  /** Field 1 dims: non-negative integers, [] for a scalar; their product times the element size must match `data`. */
  dims: readonly number[];
  /**
   * The elements: raw little-endian bytes, or a typed array / number list (converted to the dtype's bytes).
   * Typed arrays are taken by their bytes (on a big-endian host they would be wrong; every supported host is LE).
   */
  data: Uint8Array | ArrayBufferView | readonly number[] | readonly bigint[];
  /** Field 12 doc_string (omitted when empty). */
  docString?: string | undefined;
}

/** A graph input, output or value_info entry: a named tensor value with its element type and shape. */
export interface OnnxValueInfoInput {
  /** Field 1 name. */
  name: string;
  /** The element type (tensor_type elem_type): a dtype name or a TensorProto.DataType code. */
  dtype: OnnxDTypeName | number;
  /** Dims: a number, a symbolic name (dim_param) or null for an unknown dim. Omit shape for an unknown rank. */
  shape?: readonly (number | string | null)[] | undefined;
  /** Field 3 doc_string (omitted when empty). */
  docString?: string | undefined;
}

/** An attribute with its type spelled out (AttributeProto field 20 type and the value field it selects). */
// ---------------------------------------------------------------------------------------------------------
// What create() accepts: every value is written as given or refused (a TypeError for the wrong kind of value, a
// RangeError for one outside what its field holds), never changed on the way.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MAX = 2 ** 31 - 1;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value;
}

/** A string field: text that UTF-8 can hold as it is (a lone surrogate would be written as U+FFFD). */
export function text(value: unknown, what: string): string {
  if (typeof value !== "string") throw new TypeError(`onnx.create: ${what} must be a string, not ${describe(value)}`);
  if (LONE_SURROGATE.test(value))
    throw new RangeError(`onnx.create: ${what} has a lone UTF-16 surrogate (UTF-8 cannot store it)`);
  return value;
}

export function optionalText(value: unknown, what: string): string | undefined {
  return value === undefined ? undefined : text(value, what);
}

/** An int64 field: a safe integer number or a bigint in int64 range (at least `min`). */
export function int64(value: unknown, what: string, min: bigint = INT64_MIN): number | bigint {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value))
      throw new RangeError(`onnx.create: ${what} must be an integer (a safe one, or a bigint), not ${value}`);
    if (BigInt(value) < min) throw new RangeError(`onnx.create: ${what} must be at least ${min}, not ${value}`);
    return value;
  }
  if (typeof value === "bigint") {
    if (value < min || value > INT64_MAX)
      throw new RangeError(`onnx.create: ${what} ${value}n is outside int64${min > INT64_MIN ? ` (from ${min})` : ""}`);
    return value;
  }
  throw new TypeError(`onnx.create: ${what} must be an integer, not ${describe(value)}`);
}

/** A float32 field: a number whose float32 is not an overflow to infinity (the rounding to float32 is the field's). */
export function float32(value: unknown, what: string): number {
  if (typeof value !== "number") throw new TypeError(`onnx.create: ${what} must be a number, not ${describe(value)}`);
  if (Number.isFinite(value) && !Number.isFinite(Math.fround(value)))
    throw new RangeError(`onnx.create: ${what} ${value} is beyond float32's range`);
  return value;
}

export function plainObject<T extends object = Record<string, unknown>>(value: unknown, what: string): Unchecked<T> {
  if (value === null || typeof value !== "object" || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new TypeError(`onnx.create: ${what} must be an object, not ${describe(value)}`);
  }
  return value;
}

/** An input object as create() receives it: the fields of `T`, each still to be checked (so `unknown`). */
export type Unchecked<T extends object> = { readonly [K in keyof T]?: unknown };

/** A dtype: a name of ONNX_DTYPES or a TensorProto.DataType code (for tensors, one this writer can store). */
export function dtypeCode(dtype: unknown, what: string, forTensor: boolean): number {
  let code: number;
  if (typeof dtype === "string") {
    if (!Object.prototype.hasOwnProperty.call(ONNX_DTYPES, dtype))
      throw new TypeError(`onnx.create: ${what} has an unknown dtype ${describe(dtype)}`);
    code = ONNX_DTYPES[dtype as OnnxDTypeName];
  } else if (typeof dtype === "number") {
    if (!Number.isInteger(dtype) || dtype <= 0 || dtype > INT32_MAX)
      throw new RangeError(`onnx.create: ${what} has dtype code ${dtype} (a TensorProto.DataType is a positive int32)`);
    code = dtype;
  } else {
    throw new TypeError(
      `onnx.create: ${what}'s dtype must be a name or a TensorProto.DataType code, not ${describe(dtype)}`,
    );
  }
  if (forTensor && code === ONNX_DTYPES.string)
    throw new TypeError(
      `onnx.create: ${what} is a string tensor (create() writes raw_data, which cannot hold strings)`,
    );
  if (forTensor && code > LAST_TENSOR_DTYPE)
    throw new RangeError(`onnx.create: ${what} has dtype code ${code}, which this writer does not know the size of`);
  return code;
}

/** The integer range of an integer dtype's elements, and whether a list may give them as bigints. */
const INTEGER_RANGES: Record<number, [bigint, bigint]> = {
  2: [0n, 255n],
  3: [-128n, 127n],
  4: [0n, 65535n],
  5: [-32768n, 32767n],
  6: [-(2n ** 31n), 2n ** 31n - 1n],
  12: [0n, 2n ** 32n - 1n],
  7: [INT64_MIN, INT64_MAX],
  13: [0n, 2n ** 64n - 1n],
  9: [0n, 1n],
  10: [0n, 65535n],
  16: [0n, 65535n],
};

/** A number-list element as its dtype stores it exactly (else a RangeError or TypeError). */
function element(code: number, value: unknown, what: string): number | bigint {
  if (code === 1) return float32(value, what);
  if (code === 11) {
    if (typeof value !== "number") throw new TypeError(`onnx.create: ${what} must be a number, not ${describe(value)}`);
    return value;
  }
  const range = INTEGER_RANGES[code];
  if (!range) throw new TypeError(`onnx.create: ${what}: dtype ${code} needs raw bytes or a typed array`);
  let big: bigint;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value))
      throw new RangeError(
        `onnx.create: ${what} ${value} is not an integer this dtype holds (give a bigint beyond 2^53)`,
      );
    big = BigInt(value);
  } else if (typeof value === "bigint") {
    big = value;
  } else {
    throw new TypeError(`onnx.create: ${what} must be a number or bigint, not ${describe(value)}`);
  }
  if (big < range[0] || big > range[1])
    throw new RangeError(`onnx.create: ${what} ${value} is outside [${range[0]}, ${range[1]}]`);
  return value as number | bigint;
}

function numbersToBytes(code: number, values: readonly (number | bigint)[], what: string): Uint8Array {
  const size = DTYPE_BYTES[code];
  if (size === undefined || code === 14 || code === 15 || (code >= 17 && code <= 20))
    throw new TypeError(`onnx.create: ${what}: dtype ${code} needs raw bytes or a typed array`);
  values.forEach((v, i) => element(code, v, `${what}[${i}]`));
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => {
    const at = i * size;
    switch (code) {
      case 1:
        view.setFloat32(at, Number(v), true);
        break;
      case 11:
        view.setFloat64(at, Number(v), true);
        break;
      case 2:
      case 9:
        view.setUint8(at, Number(v));
        break;
      case 3:
        view.setInt8(at, Number(v));
        break;
      case 4:
      case 10:
      case 16:
        view.setUint16(at, Number(v), true);
        break; // float16/bfloat16: the raw bits
      case 5:
        view.setInt16(at, Number(v), true);
        break;
      case 6:
        view.setInt32(at, Number(v), true);
        break;
      case 12:
        view.setUint32(at, Number(v), true);
        break;
      case 7:
        view.setBigInt64(at, BigInt(v), true);
        break;
      case 13:
        view.setBigUint64(at, BigInt(v), true);
        break;
      default:
        throw new TypeError(`onnx.create: dtype ${code} needs raw bytes`);
    }
  });
  return out;
}

function tensorBytes(code: number, data: unknown, what: string): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (!Array.isArray(data))
    throw new TypeError(
      `onnx.create: ${what}.data must be bytes, a typed array or a list of numbers, not ${describe(data)}`,
    );
  return numbersToBytes(code, data as readonly (number | bigint)[], `${what}.data`);
}

/**
 * A tensor input checked (its fields, dims and size; `where` names it in errors) with its data type code and its
 * elements in raw_data layout (a typed array's own bytes, not copied). create() writes it; onnx.makeTensor builds
 * an edit's new tensor from it.
 */
export function tensorInputBytes(
  input: unknown,
  where = "tensor",
): {
  dataType: number;
  bytes: Uint8Array;
  dims: number[];
  name: string | undefined;
  docString: string | undefined;
} {
  const t = plainObject<OnnxTensorInput>(input, where);
  const name = optionalText(t.name, `${where}.name`);
  const what = name === undefined ? where : `${where} "${name}"`;
  const code = dtypeCode(t.dtype, what, true);
  const dims = [...listOf<number>(t.dims, `${what}.dims`)];
  let count = 1;
  for (const d of dims) {
    if (typeof d !== "number" || !Number.isSafeInteger(d) || d < 0)
      throw new RangeError(`onnx.create: ${what} has a bad dim ${describe(d)} (dims are non-negative integers)`);
    count *= d;
    if (!Number.isSafeInteger(count))
      throw new RangeError(`onnx.create: ${what} has dims [${dims.join(", ")}], more elements than 2^53`);
  }
  const bytes = tensorBytes(code, t.data, what);
  const size = DTYPE_BYTES[code];
  const need = size !== undefined ? count * size : HALF_BYTE_DTYPES.has(code) ? Math.ceil(count / 2) : undefined;
  if (need !== undefined && bytes.length !== need) {
    throw new RangeError(`onnx.create: ${what} has ${bytes.length} bytes, its dims [${dims.join(", ")}] need ${need}`);
  }
  const docString = optionalText(t.docString, `${what}.docString`);
  return { dataType: code, bytes, dims, name, docString };
}

export function writeTensor(w: ProtoWriter, input: unknown, where: string): void {
  const { dataType: code, bytes, dims, name, docString } = tensorInputBytes(input, where);
  if (dims.length > 0) w.packedVarintField(1, dims);
  w.uintField(2, code);
  if (name !== undefined) w.stringField(8, name);
  w.bytesField(9, bytes);
  if (docString) w.stringField(12, docString);
}

export function listOf<T = unknown>(value: unknown, what: string, optional = false): readonly T[] {
  if (value === undefined && optional) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(
      `tensorfile: onnx.create(): ${what} must be an array${optional ? " (or left out)" : ""}, not ${value === null ? "null" : typeof value}`,
    );
  }
  // (the items are the caller's to check)
  return value as readonly T[];
}
