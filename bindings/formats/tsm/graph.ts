/**
 * The graph view of a TenniS module: nodes by `#name` with their op, attributes decoded to plain values,
 * inputs (and consumers) resolved to nodes, `<param>` shapes and `<const>` values.
 */
import type { ByteRange } from "../../bytes/byte-reader.js";
import * as kernels from "../../kernels/index.js";
import { type DType, type TypedArray, bytesOf, isStandardDType } from "../../tensor.js";
import { tsmDTypeName } from "./dtypes.js";
import { type TsmField, type TsmModule, type TsmNode, isLoaded } from "./module.js";

/**
 * A field we do not turn into numbers (complex, ptr, void, unknown*, sink*; and numbers whose nesting would
 * be deeper than 32 levels or need far more arrays than values, e.g. shape [4294967295, 0]): its dtype, shape
 * and raw bytes.
 */
export interface TsmOpaqueValue {
  /** The element type. */
  dtype: DType;
  /** The shape. */
  shape: number[];
  /** The stored bytes. */
  bytes: Uint8Array;
}

/** A field readFrom left unread. */
export interface TsmUnloadedValue {
  /** The element type. */
  dtype: DType;
  /** The shape. */
  shape: number[];
  /** Absolute offset of its bytes in the file. */
  byteOffset: number;
  /** Their length. */
  byteLength: number;
}

/**
 * An attribute as a plain value: a string (char8/16/32), a number, bigint (64-bit integers beyond 2^53) or
 * boolean for a scalar (stored 0-d or [1]), nested arrays for n-d data, an array of those for a packed value
 * of several fields ([] for 0 fields), or an opaque/unloaded descriptor.
 */
export type TsmAttrValue = string | number | bigint | boolean | TsmAttrValue[] | TsmOpaqueValue | TsmUnloadedValue;

/** A node of a resolved TenniS graph. */
export interface TsmGraphNode {
  /** Its index in the module's node list. */
  index: number;
  /** Its `#name`. */
  name: string;
  /** Its `#op` (`<param>`, `<const>`, or an operator such as `inner_prod`). */
  op: string;
  /** Every param except `#op`, `#name` and a `<const>`'s `value`, decoded, in file order. */
  attrs: Record<string, TsmAttrValue>;
  /** The nodes it reads, in order. */
  inputs: TsmGraphNode[];
  /** Nodes that use this one as an input. */
  consumers: TsmGraphNode[];
  /** `#shape` (a `<param>`'s declared input shape), when present. */
  shape?: number[] | undefined;
  /** `#dtype` as a DType name, when present and known. */
  dtype?: DType | undefined;
  /** A `<const>`'s `value` fields (usually one; see `tensors()` for the decoded uniform view). */
  value?: TsmField[] | undefined;
}

/** A TenniS module resolved into a graph by {@link graph}. */
export interface TsmGraph {
  /** Every node, in module order. */
  nodes: TsmGraphNode[];
  /** Nodes by `#name` (the first node of a name when names repeat). */
  byName: Map<string, TsmGraphNode>;
  /** The module's input nodes, in the order the runtime feeds them. */
  inputs: TsmGraphNode[];
  /** The module's output nodes. */
  outputs: TsmGraphNode[];
  /** How many nodes use each op. */
  ops: Record<string, number>;
}

const lenientUtf8 = new TextDecoder("utf-8");
const utf16 = new TextDecoder("utf-16le");

/** The UTF-8 text of a char8 field (invalid sequences become U+FFFD; the field keeps the exact bytes). */
export function fieldString(field: TsmField): string {
  if (!isLoaded(field.data)) throw new TypeError("the field was not loaded (a readFrom() result)");
  return lenientUtf8.decode(bytesOf(field.data));
}

function char32String(bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = "";
  for (let i = 0; i + 4 <= bytes.length; i += 4) {
    const cp = view.getUint32(i, true);
    out += cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : "\ufffd";
  }
  return out;
}

function elementValues(field: TsmField, data: ArrayBufferView & { length: number }): (number | bigint | boolean)[] {
  const out = new Array<number | bigint | boolean>(data.length);
  if (field.dtype === "float16") {
    const wide = kernels.f16ToF32(data as Uint16Array);
    for (let i = 0; i < wide.length; i++) out[i] = wide[i]!;
  } else if (field.dtype === "bool") {
    for (let i = 0; i < data.length; i++) out[i] = (data as Uint8Array)[i] !== 0;
  } else if (field.dtype === "int64" || field.dtype === "uint64") {
    const big = data as BigInt64Array | BigUint64Array;
    for (let i = 0; i < big.length; i++) {
      const v = big[i]!;
      out[i] = v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
  } else {
    const nums = data as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
    for (let i = 0; i < data.length; i++) out[i] = nums[i]!;
  }
  return out;
}

function nest(values: readonly TsmAttrValue[], shape: readonly number[], depth: number, start: number): TsmAttrValue[] {
  const n = shape[depth]!;
  if (depth === shape.length - 1) return values.slice(start, start + n);
  let stride = 1;
  for (let d = depth + 1; d < shape.length; d++) stride *= shape[d]!;
  const out: TsmAttrValue[] = [];
  for (let i = 0; i < n; i++) out.push(nest(values, shape, depth + 1, start + i * stride));
  return out;
}

/** Nested arrays deeper than this stay a TsmOpaqueValue (JSON and recursion would not cope). */
const MAX_NESTING = 32;
/** Empty arrays a field of no (or few) values may still nest into. */
const NEST_SLACK = 1024;

/**
 * Whether nest() stays bounded by the values present: it makes one array per index of every leading dim, so a
 * field of shape [4294967295, 0] (0 elements, 0 payload bytes) would ask for 4294967295 empty arrays.
 * Allows at most as many arrays as values, plus NEST_SLACK (so a [2, 0] still reads as [[], []]).
 */
function nestable(shape: readonly number[], valueCount: number): boolean {
  if (shape.length > MAX_NESTING) return false;
  let arrays = 0;
  let level = 1;
  for (const dim of shape) {
    arrays += level;
    if (arrays > valueCount + NEST_SLACK) return false;
    level *= dim;
    if (level === 0) return true;
  }
  return true;
}

/** One field as a plain value (see TsmAttrValue). */
export function fieldValue(field: TsmField): TsmAttrValue {
  const { dtype, shape } = field;
  if (!isLoaded(field.data)) return { dtype, shape: shape.slice(), ...(field.data as ByteRange) };
  const bytes = bytesOf(field.data);
  if (dtype === "char8") return lenientUtf8.decode(bytes);
  if (dtype === "char16") return utf16.decode(bytes);
  if (dtype === "char32") return char32String(bytes);
  if (!isStandardDType(dtype)) return { dtype, shape: shape.slice(), bytes };
  const values = elementValues(field, field.data as ArrayBufferView & { length: number });
  const scalar = shape.length === 0 || (shape.length === 1 && shape[0] === 1);
  if (scalar) return values[0] as TsmAttrValue;
  if (!nestable(shape, values.length)) return { dtype, shape: shape.slice(), bytes };
  return nest(values as TsmAttrValue[], shape, 0, 0);
}

/** A param's packed value as a plain value: the field's value, or an array of them (0 or several fields). */
export function paramValue(fields: readonly TsmField[]): TsmAttrValue {
  return fields.length === 1 ? fieldValue(fields[0]!) : fields.map(fieldValue);
}

function stringParam(node: TsmNode, key: string): string {
  const param = node.params.find((p) => p.key === key);
  return param && param.fields.length === 1 ? fieldString(param.fields[0]!) : "";
}

/** The node's `#name` (the reader guarantees one char8 field). */
export function nodeName(node: TsmNode): string {
  return stringParam(node, "#name");
}

/** The node's `#op`. */
export function nodeOp(node: TsmNode): string {
  return stringParam(node, "#op");
}

export function buildGraph(module: TsmModule): TsmGraph {
  const nodes: TsmGraphNode[] = module.nodes.map((node, index) => {
    const op = nodeOp(node);
    const view: TsmGraphNode = { index, name: nodeName(node), op, attrs: {}, inputs: [], consumers: [] };
    const attrs: [string, TsmAttrValue][] = [];
    for (const param of node.params) {
      if (param.key === "#op" || param.key === "#name") continue;
      if (op === "<const>" && param.key === "value") {
        view.value = param.fields;
        continue;
      }
      const value = paramValue(param.fields);
      attrs.push([param.key, value]);
      if (param.key === "#shape" && param.fields.length === 1 && isLoaded(param.fields[0]!.data)) {
        const data = param.fields[0]!.data;
        if (data instanceof Int32Array || data instanceof Uint32Array) view.shape = Array.from(data);
      }
      if (param.key === "#dtype" && typeof value === "number") {
        const dtype = tsmDTypeName(value);
        if (dtype) view.dtype = dtype;
      }
    }
    view.attrs = Object.fromEntries(attrs);
    return view;
  });
  const at = (i: number): TsmGraphNode => nodes[i]!;
  module.nodes.forEach((node, i) => {
    const view = nodes[i]!;
    view.inputs = node.inputs.map(at);
    for (const input of view.inputs) input.consumers.push(view);
  });
  const byName = new Map<string, TsmGraphNode>();
  const ops = new Map<string, number>();
  for (const node of nodes) {
    if (!byName.has(node.name)) byName.set(node.name, node);
    ops.set(node.op, (ops.get(node.op) ?? 0) + 1);
  }
  return {
    nodes,
    byName,
    inputs: module.inputs.map(at),
    outputs: module.outputs.map(at),
    ops: Object.fromEntries(ops),
  };
}
