/**
 * Building a new ONNX model (ModelProto, onnx/onnx.proto3) from plain objects. Field numbers written:
 *
 *   ModelProto        1 ir_version | 2 producer_name | 3 producer_version | 4 domain | 5 model_version
 *                     | 6 doc_string | 7 graph | 8 opset_import (1 domain, 2 version) | 14 metadata_props (1 key, 2 value)
 *   GraphProto        1 node | 2 name | 5 initializer | 10 doc_string | 11 input | 12 output | 13 value_info
 *   NodeProto         1 input | 2 output | 3 name | 4 op_type | 5 attribute | 6 doc_string | 7 domain
 *   AttributeProto    1 name | 2 f | 3 i | 4 s | 5 t | 6 g | 7 floats | 8 ints | 9 strings | 10 tensors
 *                     | 11 graphs | 13 doc_string | 20 type
 *   TensorProto       1 dims (packed int64) | 2 data_type | 8 name | 9 raw_data (little-endian) | 12 doc_string
 *   ValueInfoProto    1 name | 2 type (TypeProto: 1 tensor_type (1 elem_type, 2 shape (1 dim: 1 dim_value | 2 dim_param)))
 *
 * Every tensor is stored as raw_data (little-endian, as ONNX requires), whatever typed array it came in.
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
export type OnnxAttributeInput =
  | {
      /** FLOAT. */
      type: "float";
      /** Field 2 f, stored as float32. */
      value: number;
    }
  | {
      /** INT. */
      type: "int";
      /** Field 3 i (int64). */
      value: number | bigint;
    }
  | {
      /** STRING. */
      type: "string";
      /** Field 4 s: text (stored as UTF-8) or bytes. */
      value: string | Uint8Array;
    }
  | {
      /** TENSOR. */
      type: "tensor";
      /** Field 5 t. */
      value: OnnxTensorInput;
    }
  | {
      /** GRAPH. */
      type: "graph";
      /** Field 6 g: a subgraph (e.g. an If branch). */
      value: OnnxGraphInput;
    }
  | {
      /** FLOATS. */
      type: "floats";
      /** Field 7 floats (packed float32). */
      value: readonly number[];
    }
  | {
      /** INTS. */
      type: "ints";
      /** Field 8 ints (packed int64). */
      value: readonly (number | bigint)[];
    }
  | {
      /** STRINGS. */
      type: "strings";
      /** Field 9 strings: text (stored as UTF-8) or bytes each. */
      value: readonly (string | Uint8Array)[];
    }
  | {
      /** TENSORS. */
      type: "tensors";
      /** Field 10 tensors. */
      value: readonly OnnxTensorInput[];
    }
  | {
      /** GRAPHS. */
      type: "graphs";
      /** Field 11 graphs. */
      value: readonly OnnxGraphInput[];
    };

/**
 * An attribute value: the explicit form, or a shorthand: a safe integer or a bigint (int64) is INT, another number
 * FLOAT (float32), a string STRING, an array INTS when every item is a safe integer or every item a bigint (FLOATS
 * when every item is a number). Anything else (nested or mixed arrays, booleans…) is a TypeError.
 */
export type OnnxAttributeValue = OnnxAttributeInput | number | bigint | string | readonly number[];

/** A node (NodeProto): one operator call. */
export interface OnnxNodeInput {
  /** Field 3 name (omitted when undefined). */
  name?: string | undefined;
  /** Field 4 op_type, e.g. `Conv`. */
  opType: string;
  /** Field 7 domain (omitted when empty: the default ai.onnx). */
  domain?: string | undefined;
  /** Input value names ("" for an omitted optional input). */
  inputs: readonly string[];
  /** Output value names. */
  outputs: readonly string[];
  /** Field 5 attribute: values by attribute name (written in the object's key order). */
  attributes?: Record<string, OnnxAttributeValue> | undefined;
  /** Field 6 doc_string (omitted when empty). */
  docString?: string | undefined;
}

/** A graph (GraphProto): the main graph or a subgraph attribute's value. */
export interface OnnxGraphInput {
  /** Field 2 name. */
  name: string;
  /** Field 1 node, in this order (ONNX expects a topological order). */
  nodes: readonly OnnxNodeInput[];
  /** Field 5 initializer: the weights (each needs a name). */
  initializers?: readonly OnnxTensorInput[] | undefined;
  /** Field 11 input. */
  inputs: readonly OnnxValueInfoInput[];
  /** Field 12 output. */
  outputs: readonly OnnxValueInfoInput[];
  /** Field 13 value_info: optional types of intermediate values. */
  valueInfo?: readonly OnnxValueInfoInput[] | undefined;
  /** Field 10 doc_string (omitted when empty). */
  docString?: string | undefined;
}

/** A whole model for {@link create}: a graph plus ModelProto header fields (defaults as noted). */
export interface OnnxModelInput {
  /** Default 8 (the IR version of opset 17). */
  irVersion?: number | undefined;
  /** Default [{ domain: "", version: 17 }]. */
  opsetImports?:
    | readonly {
        /** Field 1 domain (default "": ai.onnx). */
        domain?: string | undefined;
        /** Field 2 version: the opset version. */
        version: number;
      }[]
    | undefined;
  /** Field 2 producer_name (default `tensorfile`). */
  producerName?: string | undefined;
  /** Field 3 producer_version (omitted when undefined). */
  producerVersion?: string | undefined;
  /** Field 4 domain (omitted when undefined). */
  domain?: string | undefined;
  /** Field 5 model_version (omitted when undefined). */
  modelVersion?: number | undefined;
  /** Field 6 doc_string (omitted when empty). */
  docString?: string | undefined;
  /** Field 14 metadata_props: key/value pairs. */
  metadata?: Record<string, string> | undefined;
  /** Field 7 graph: the main graph. */
  graph: OnnxGraphInput;
}

const ATTR = {
  float: 1,
  int: 2,
  string: 3,
  tensor: 4,
  graph: 5,
  floats: 6,
  ints: 7,
  strings: 8,
  tensors: 9,
  graphs: 10,
} as const;

// ---------------------------------------------------------------------------------------------------------
// What create() accepts: every value is written as given or refused (a TypeError for the wrong kind of value, a
// RangeError for one outside what its field holds), never changed on the way.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MAX = 2 ** 31 - 1;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value;
}

/** A string field: text that UTF-8 can hold as it is (a lone surrogate would be written as U+FFFD). */
function text(value: unknown, what: string): string {
  if (typeof value !== "string") throw new TypeError(`onnx.create: ${what} must be a string, not ${describe(value)}`);
  if (LONE_SURROGATE.test(value))
    throw new RangeError(`onnx.create: ${what} has a lone UTF-16 surrogate (UTF-8 cannot store it)`);
  return value;
}

function optionalText(value: unknown, what: string): string | undefined {
  return value === undefined ? undefined : text(value, what);
}

/** An int64 field: a safe integer number or a bigint in int64 range (at least `min`). */
function int64(value: unknown, what: string, min: bigint = INT64_MIN): number | bigint {
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
function float32(value: unknown, what: string): number {
  if (typeof value !== "number") throw new TypeError(`onnx.create: ${what} must be a number, not ${describe(value)}`);
  if (Number.isFinite(value) && !Number.isFinite(Math.fround(value)))
    throw new RangeError(`onnx.create: ${what} ${value} is beyond float32's range`);
  return value;
}

function plainObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new TypeError(`onnx.create: ${what} must be an object, not ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** A dtype: a name of ONNX_DTYPES or a TensorProto.DataType code (for tensors, one this writer can store). */
function dtypeCode(dtype: unknown, what: string, forTensor: boolean): number {
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
  input: OnnxTensorInput,
  where = "tensor",
): {
  dataType: number;
  bytes: Uint8Array;
  dims: number[];
  name: string | undefined;
  docString: string | undefined;
} {
  const t = plainObject(input, where) as unknown as OnnxTensorInput;
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

function writeTensor(w: ProtoWriter, input: OnnxTensorInput, where: string): void {
  const { dataType: code, bytes, dims, name, docString } = tensorInputBytes(input, where);
  if (dims.length > 0) w.packedVarintField(1, dims);
  w.uintField(2, code);
  if (name !== undefined) w.stringField(8, name);
  w.bytesField(9, bytes);
  if (docString) w.stringField(12, docString);
}

function writeValueInfo(w: ProtoWriter, input: OnnxValueInfoInput, where: string): void {
  const v = plainObject(input, where) as unknown as OnnxValueInfoInput;
  const name = text(v.name, `${where}.name`);
  const what = `${where} "${name}"`;
  const code = dtypeCode(v.dtype, what, false);
  const shape = v.shape === undefined ? undefined : listOf<number | string | null>(v.shape, `${what}.shape`);
  shape?.forEach((d, i) => {
    if (d === null) return;
    if (typeof d === "string") text(d, `${what}.shape[${i}]`);
    else if (typeof d !== "number")
      throw new TypeError(`onnx.create: ${what}.shape[${i}] must be a number, a name or null, not ${describe(d)}`);
    else if (!Number.isSafeInteger(d) || d < 0)
      throw new RangeError(`onnx.create: ${what}.shape[${i}] is ${d} (a dim is a non-negative integer)`);
  });
  const docString = optionalText(v.docString, `${what}.docString`);
  w.stringField(1, name);
  w.messageField(2, (type) =>
    type.messageField(1, (tensor) => {
      tensor.uintField(1, code);
      if (shape) {
        tensor.messageField(2, (dims) => {
          for (const d of shape) {
            dims.messageField(1, (dim) => {
              if (typeof d === "number") dim.uintField(1, d);
              else if (typeof d === "string") dim.stringField(2, d);
            });
          }
        });
      }
    }),
  );
  if (docString) w.stringField(3, docString);
}

/**
 * The explicit form of an attribute value, every item checked. Shorthands: a safe integer or a bigint is INT, any
 * other number FLOAT; a list of safe integers or of bigints INTS, of numbers FLOATS; a string STRING.
 */
function normaliseAttribute(value: unknown, what: string): OnnxAttributeInput {
  if (typeof value === "bigint") return { type: "int", value: int64(value, what) };
  if (typeof value === "number")
    return Number.isSafeInteger(value) ? { type: "int", value } : { type: "float", value: float32(value, what) };
  if (typeof value === "string") return { type: "string", value: text(value, what) };
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === "bigint" || Number.isSafeInteger(v))) {
      if (value.some((v) => typeof v === "bigint") && value.some((v) => typeof v === "number")) {
        throw new TypeError(
          `onnx.create: ${what} mixes numbers and bigints (give one kind, or the explicit { type: "ints", value })`,
        );
      }
      return { type: "ints", value: value.map((v, i) => int64(v, `${what}[${i}]`)) };
    }
    return { type: "floats", value: value.map((v, i) => float32(v, `${what}[${i}]`)) };
  }
  const a = plainObject(value, what) as unknown as OnnxAttributeInput;
  const items = <T>(list: unknown, check: (item: unknown, at: string) => T): T[] =>
    listOf(list as readonly unknown[], `${what}.value`).map((v, i) => check(v, `${what}.value[${i}]`));
  switch (a.type) {
    case "float":
      return { type: "float", value: float32(a.value, `${what}.value`) };
    case "int":
      return { type: "int", value: int64(a.value, `${what}.value`) };
    case "string":
      return { type: "string", value: a.value instanceof Uint8Array ? a.value : text(a.value, `${what}.value`) };
    case "tensor":
    case "graph":
      return a;
    case "floats":
      return { type: "floats", value: items(a.value, float32) };
    case "ints":
      return { type: "ints", value: items(a.value, (v, at) => int64(v, at)) };
    case "strings":
      return { type: "strings", value: items(a.value, (v, at) => (v instanceof Uint8Array ? v : text(v, at))) };
    case "tensors":
      return { type: "tensors", value: listOf(a.value, `${what}.value`) };
    case "graphs":
      return { type: "graphs", value: listOf(a.value, `${what}.value`) };
    default:
      throw new TypeError(`onnx.create: ${what} has an unknown type ${describe((a as { type?: unknown }).type)}`);
  }
}

const encoder = new TextEncoder();
const asBytes = (s: string | Uint8Array): Uint8Array => (typeof s === "string" ? encoder.encode(s) : s);

function writeAttribute(w: ProtoWriter, name: string, input: unknown, where: string): void {
  const what = `${where} attribute ${JSON.stringify(name)}`;
  const a = normaliseAttribute(input, what);
  w.stringField(1, text(name, `${where} attribute name`));
  switch (a.type) {
    case "float":
      w.floatField(2, a.value);
      break;
    case "int":
      w.uintField(3, a.value);
      break;
    case "string":
      w.bytesField(4, asBytes(a.value));
      break;
    case "tensor":
      w.messageField(5, (t) => writeTensor(t, a.value, `${what}.value`));
      break;
    case "graph":
      w.messageField(6, (g) => writeGraph(g, a.value, `${what}.value`));
      break;
    case "floats":
      w.packedFloatField(7, a.value);
      break;
    case "ints":
      w.packedVarintField(8, a.value);
      break;
    case "strings":
      for (const s of a.value) w.bytesField(9, asBytes(s));
      break;
    case "tensors":
      a.value.forEach((t, k) => w.messageField(10, (m) => writeTensor(m, t, `${what}.value[${k}]`)));
      break;
    case "graphs":
      a.value.forEach((g, k) => w.messageField(11, (m) => writeGraph(m, g, `${what}.value[${k}]`)));
      break;
  }
  w.uintField(20, ATTR[a.type]);
}

function writeNode(w: ProtoWriter, input: OnnxNodeInput, where: string): void {
  const n = plainObject(input, where) as unknown as OnnxNodeInput;
  const name = optionalText(n.name, `${where}.name`);
  const what = name === undefined ? where : `${where} "${name}"`;
  const inputs = listOf(n.inputs, `${what}.inputs`).map((v, i) => text(v, `${what}.inputs[${i}]`));
  const outputs = listOf(n.outputs, `${what}.outputs`).map((v, i) => text(v, `${what}.outputs[${i}]`));
  const opType = text(n.opType, `${what}.opType`);
  const attributes = n.attributes === undefined ? {} : plainObject(n.attributes, `${what}.attributes`);
  const docString = optionalText(n.docString, `${what}.docString`);
  const domain = optionalText(n.domain, `${what}.domain`);
  for (const i of inputs) w.stringField(1, i);
  for (const o of outputs) w.stringField(2, o);
  if (name !== undefined) w.stringField(3, name);
  w.stringField(4, opType);
  for (const [key, value] of Object.entries(attributes)) w.messageField(5, (a) => writeAttribute(a, key, value, what));
  if (docString) w.stringField(6, docString);
  if (domain) w.stringField(7, domain);
}

/** `value` as a list (a clear TypeError for anything else; undefined is [] where the field is optional). */
function listOf<T>(value: readonly T[] | undefined, what: string, optional = false): readonly T[] {
  if (value === undefined && optional) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(
      `tensorfile: onnx.create(): ${what} must be an array${optional ? " (or left out)" : ""}, not ${value === null ? "null" : typeof value}`,
    );
  }
  return value as readonly T[];
}

function writeGraph(w: ProtoWriter, g: OnnxGraphInput, where: string): void {
  if (g === null || typeof g !== "object" || Array.isArray(g))
    throw new TypeError(`tensorfile: onnx.create(): ${where} must be an object with name, nodes, inputs and outputs`);
  const name = g.name === undefined ? "" : text(g.name, `${where}.name`);
  const docString = optionalText(g.docString, `${where}.docString`);
  listOf(g.nodes, `${where}.nodes`).forEach((n, k) =>
    w.messageField(1, (m) => writeNode(m, n, `${where}.nodes[${k}]`)),
  );
  w.stringField(2, name);
  listOf(g.initializers, `${where}.initializers`, true).forEach((t, k) =>
    w.messageField(5, (m) => writeTensor(m, t, `${where}.initializers[${k}]`)),
  );
  if (docString) w.stringField(10, docString);
  listOf(g.inputs, `${where}.inputs`).forEach((v, k) =>
    w.messageField(11, (m) => writeValueInfo(m, v, `${where}.inputs[${k}]`)),
  );
  listOf(g.outputs, `${where}.outputs`).forEach((v, k) =>
    w.messageField(12, (m) => writeValueInfo(m, v, `${where}.outputs[${k}]`)),
  );
  listOf(g.valueInfo, `${where}.valueInfo`, true).forEach((v, k) =>
    w.messageField(13, (m) => writeValueInfo(m, v, `${where}.valueInfo[${k}]`)),
  );
}

function modelWriter(model: OnnxModelInput): ProtoWriter {
  if (model === null || typeof model !== "object" || Array.isArray(model))
    throw new TypeError(
      "tensorfile: onnx.create() takes an object like { graph: { name, nodes, inputs, outputs, initializers } }",
    );
  const w = new ProtoWriter();
  w.uintField(1, model.irVersion === undefined ? 8 : int64(model.irVersion, "irVersion", 0n));
  w.stringField(2, model.producerName === undefined ? "tensorfile" : text(model.producerName, "producerName"));
  const producerVersion = optionalText(model.producerVersion, "producerVersion");
  if (producerVersion !== undefined) w.stringField(3, producerVersion);
  const domain = optionalText(model.domain, "domain");
  if (domain !== undefined) w.stringField(4, domain);
  if (model.modelVersion !== undefined) w.uintField(5, int64(model.modelVersion, "modelVersion"));
  const docString = optionalText(model.docString, "docString");
  if (docString) w.stringField(6, docString);
  w.messageField(7, (g) => writeGraph(g, model.graph, "graph"));
  listOf(model.opsetImports ?? [{ domain: "", version: 17 }], "opsetImports").forEach((input, k) => {
    const op = plainObject(input, `opsetImports[${k}]`) as { domain?: unknown; version?: unknown };
    const opDomain = op.domain === undefined ? "" : text(op.domain, `opsetImports[${k}].domain`);
    const version = int64(op.version, `opsetImports[${k}].version`, 0n);
    w.messageField(8, (m) => m.stringField(1, opDomain).uintField(2, version));
  });
  const metadata = model.metadata === undefined ? {} : plainObject(model.metadata, "metadata");
  for (const [key, value] of Object.entries(metadata)) {
    const k = text(key, "a metadata key");
    const v = text(value, `metadata[${JSON.stringify(key)}]`);
    w.messageField(14, (m) => m.stringField(1, k).stringField(2, v));
  }
  return w;
}

/** The ModelProto bytes of `model`. */
export function create(model: OnnxModelInput): Uint8Array {
  return modelWriter(model).finish();
}

/** The same bytes as pieces (large initializers are the caller's arrays, not copied), e.g. for a stream. */
export function createPieces(model: OnnxModelInput): Uint8Array[] {
  return modelWriter(model).pieces();
}
