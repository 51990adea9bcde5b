/**
 * The TenniS module itself (.tsm): reader and writer. Layout (all integers u32 little-endian):
 *
 *   header   fake u32 | code u32 = 0x19910929 | reserved u8[120]     (SeetaFace6 files carry AA 02 02 20 20 there)
 *   inputs   count u32 | node index u32 × count
 *   outputs  count u32 | node index u32 × count
 *   graph    node_count u32 | node × node_count
 *   node     param_count u32 | (key: len u32 + bytes, value: packed tensor) × param_count
 *            | input_count u32 | node index u32 × input_count      (absolute indices; may point forward)
 *   packed   field_count u32 | field × field_count                   (0, 1 or many fields)
 *   field    dtype u8 | ndims u32 | dim u32 × ndims | prod(dims) × bytes(dtype) raw little-endian bytes
 *
 * Nothing is reordered, normalised or dropped: node order, param order, 0-d vs [1] shapes, the reserved header
 * bytes and any bytes after the graph all round-trip.
 */
import { copyBytes } from "../../bytes/input.js";
import { BadMagicError, CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import type { ByteRange, ByteReader } from "../../bytes/byte-reader.js";
import type { ByteWriter } from "../../bytes/byte-writer.js";
import { type DType, type TypedArray, bytesOf, dtypeBytes, viewAs } from "../../tensor.js";
import { tsmDTypeCode, tsmDTypeName } from "./dtypes.js";

export const FORMAT = "tsm";
/** header.code of every TenniS module (TS_MODULE_CODE_V1). */
export const MODULE_CODE = 0x19910929;
export const HEADER_RESERVED_BYTES = 120;
export const HEADER_BYTES = 8 + HEADER_RESERVED_BYTES;
/** readFrom leaves attribute payloads larger than this unread, besides every `value` param. */
export const LAZY_ATTRIBUTE_BYTES = 64 * 1024;

const MIN_NODE_BYTES = 8; // param count + input count
const MIN_PARAM_BYTES = 8; // key length + field count
const MIN_FIELD_BYTES = 5; // dtype + ndims

/** The 128-byte module header. */
export interface TsmHeader {
  /** u32 at offset 0; written as 0 by both reference writers and ignored by their readers. */
  fake: number;
  /** u32 at offset 4: 0x19910929. */
  code: number;
  /** The 120 reserved bytes, kept as they are. */
  reserved: Uint8Array;
}

/** One field of a packed tensor: a dtype, a shape and the raw payload. */
export interface TsmField {
  /** The element type. */
  dtype: DType;
  /** The stored shape: [] for a 0-d scalar (Python writer), [1] for a C++ scalar. */
  shape: number[];
  /**
   * Numeric dtypes and bool: a typed array (float16 as a Uint16Array of raw halves; bool as Uint8Array 0/1).
   * char8 and the other format-specific dtypes: the raw bytes (Uint8Array). A ByteRange when readFrom left the
   * payload unread.
   */
  data: TypedArray | ByteRange;
  /** Absolute offset of the payload in the file (set by the readers, ignored by the writer). */
  byteOffset?: number | undefined;
}

/** One attribute of a node: a key and its packed value (0 or more fields). */
export interface TsmParam {
  /** The attribute's key (`#op`, `#name`, `value`, …). */
  key: string;
  /** The key's exact bytes, only when they are not valid UTF-8 (so that `key` cannot give them back). */
  keyBytes?: Uint8Array | undefined;
  /** The packed tensor: usually one field. */
  fields: TsmField[];
}

/** One node of a TenniS module: its attributes and inputs. */
export interface TsmNode {
  /** The bubble's params in file order (`#op`, `#name`, `#shape`, attributes, a `<const>`'s `value`). */
  params: TsmParam[];
  /** Indices of the input nodes in `nodes`. */
  inputs: number[];
}

/** A TenniS module as stored: header, inputs, outputs and nodes in file order. */
export interface TsmModule {
  /** The header. */
  header: TsmHeader;
  /** Node indices of the module inputs (in the order the runtime feeds them). */
  inputs: number[];
  /** Node indices of the module outputs. */
  outputs: number[];
  /** Every node, in file order. */
  nodes: TsmNode[];
  /** Bytes after the graph (no reference writer produces them; both readers ignore them). */
  trailing?: Uint8Array | ByteRange | undefined;
}

/** True for loaded payload bytes (a typed array), false for a ByteRange readFrom left unread. */
export function isLoaded<T extends ArrayBufferView>(data: T | ByteRange): data is T {
  return ArrayBuffer.isView(data);
}

const utf8Encoder = new TextEncoder();
const lenientUtf8 = new TextDecoder("utf-8");

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Text of a key or string; `raw` only when the bytes are not valid UTF-8 (they would not survive as text). */
export function decodeText(bytes: Uint8Array): { text: string; raw?: Uint8Array } {
  if (bytes.length <= 256) {
    // keys and names are short ASCII: skip the TextDecoder round trip
    let text = "";
    let i = 0;
    for (; i < bytes.length && bytes[i]! < 0x80; i++) text += String.fromCharCode(bytes[i]!);
    if (i === bytes.length) return { text };
  }
  const text = lenientUtf8.decode(bytes);
  return sameBytes(utf8Encoder.encode(text), bytes) ? { text } : { text, raw: copyBytes(bytes) };
}

/** Payload bytes of a field: prod(shape) × bytes(dtype), clamped so absurd shapes fail as TRUNCATED. */
export function fieldByteLength(dtype: DType, shape: readonly number[]): number {
  const size = dtypeBytes(dtype);
  if (size === 0) return 0;
  let length = size;
  for (const d of shape) {
    length *= d;
    if (length > Number.MAX_SAFE_INTEGER) length = Number.MAX_SAFE_INTEGER;
  }
  return length;
}

interface IndexList {
  values: number[];
  /** Absolute offset of values[0]. */
  at: number;
  field: string;
}

function readIndexList(r: ByteReader, field: string): IndexList {
  const count = r.count(r.u32(`${field}.count`), 4, `${field}.count`);
  const at = r.pos;
  const values = new Array<number>(count);
  for (let i = 0; i < count; i++) values[i] = r.u32(field);
  return { values, at, field };
}

function readField(r: ByteReader, label: string, lazyKind: "eager" | "value" | "attribute"): TsmField {
  const at = r.pos;
  const code = r.u8(`${label}.dtype`);
  const dtype = tsmDTypeName(code);
  if (dtype === undefined) throw new UnsupportedError(FORMAT, `unknown dtype code ${code}`, at, `${label}.dtype`);
  const ndims = r.count(r.u32(`${label}.ndims`), 4, `${label}.ndims`);
  const shape = new Array<number>(ndims);
  for (let d = 0; d < ndims; d++) shape[d] = r.u32(`${label}.dims`);
  const length = fieldByteLength(dtype, shape);
  const byteOffset = r.pos;
  const lazy = lazyKind === "value" || (lazyKind === "attribute" && length > LAZY_ATTRIBUTE_BYTES);
  const data = lazy ? r.range(length, `${label}.data`) : viewAs(dtype, r.bytesView(length, `${label}.data`));
  return { dtype, shape, data, byteOffset };
}

/** Checks a reserved string param (`#op`, `#name`): present, one char8 field. Returns the node's param. */
function requireStringParam(node: TsmNode, key: string, index: number, nodeAt: number): void {
  const param = node.params.find((p) => p.key === key);
  const field = `node[${index}].${key}`;
  if (!param) throw new CorruptDataError(FORMAT, `node ${index} has no ${key}`, nodeAt, field);
  if (param.fields.length !== 1 || param.fields[0]!.dtype !== "char8") {
    const got = param.fields.map((f) => f.dtype).join(", ") || "no fields";
    throw new CorruptDataError(FORMAT, `node ${index}: ${key} must be one char8 string, got ${got}`, nodeAt, field);
  }
}

/**
 * Reads a module starting at r.pos and ending at r.end (bytes left after the graph become `trailing`).
 * `lazy`: `value` params and attribute payloads over LAZY_ATTRIBUTE_BYTES are left as ranges.
 */
export function readModule(r: ByteReader, lazy: boolean): TsmModule {
  const fake = r.u32("header.fake");
  const codeAt = r.pos;
  const code = r.u32("header.code");
  if (code !== MODULE_CODE) throw new BadMagicError(FORMAT, codeAt, "header.code", MODULE_CODE, code);
  const reserved = copyBytes(r.bytesView(HEADER_RESERVED_BYTES, "header.reserved"));
  const lists: IndexList[] = [readIndexList(r, "inputs"), readIndexList(r, "outputs")];

  const nodeCount = r.count(r.u32("nodes.count"), MIN_NODE_BYTES, "nodes.count");
  const nodes = new Array<TsmNode>(nodeCount);
  for (let i = 0; i < nodeCount; i++) {
    const nodeAt = r.pos;
    const prefix = `node[${i}]`;
    const paramCount = r.count(r.u32(`${prefix}.params.count`), MIN_PARAM_BYTES, `${prefix}.params.count`);
    const params = new Array<TsmParam>(paramCount);
    for (let p = 0; p < paramCount; p++) {
      const keyLabel = `${prefix}.param[${p}].key`;
      const keyLength = r.count(r.u32(keyLabel), 1, keyLabel);
      const { text: key, raw } = decodeText(r.bytesView(keyLength, keyLabel));
      const label = `${prefix}.${key}`;
      const fieldCount = r.count(r.u32(`${label}.fields.count`), MIN_FIELD_BYTES, `${label}.fields.count`);
      const lazyKind = !lazy || key.startsWith("#") ? "eager" : key === "value" ? "value" : "attribute";
      const fields = new Array<TsmField>(fieldCount);
      for (let f = 0; f < fieldCount; f++)
        fields[f] = readField(r, fieldCount === 1 ? label : `${label}[${f}]`, lazyKind);
      params[p] = raw ? { key, keyBytes: raw, fields } : { key, fields };
    }
    const inputs = readIndexList(r, `${prefix}.inputs`);
    lists.push(inputs);
    const node: TsmNode = { params, inputs: inputs.values };
    requireStringParam(node, "#op", i, nodeAt);
    requireStringParam(node, "#name", i, nodeAt);
    nodes[i] = node;
  }
  // indices may point forward, so they are checked once every node is known
  for (const list of lists) {
    for (let k = 0; k < list.values.length; k++) {
      const v = list.values[k]!;
      if (v >= nodeCount) {
        throw new CorruptDataError(
          FORMAT,
          `node index ${v} is out of range (${nodeCount} nodes)`,
          list.at + 4 * k,
          `${list.field}[${k}]`,
        );
      }
    }
  }
  const module: TsmModule = {
    header: { fake, code, reserved },
    inputs: lists[0]!.values,
    outputs: lists[1]!.values,
    nodes,
  };
  if (r.remaining > 0) {
    const rest = r.payload(r.remaining, !lazy, "trailing");
    module.trailing = !isLoaded(rest) ? rest : copyBytes(rest);
  }
  return module;
}

// ---------------------------------------------------------------------------------------------------------
// writer

function keyBytesOf(param: TsmParam): Uint8Array {
  return param.keyBytes ?? utf8Encoder.encode(param.key);
}

function fieldPayload(field: TsmField, label: string): Uint8Array {
  if (!isLoaded(field.data)) {
    throw new UnsupportedError(
      FORMAT,
      "payload was not loaded (a readFrom() result); read the file with read() to write it",
      undefined,
      label,
    );
  }
  const bytes = bytesOf(field.data);
  const want = fieldByteLength(field.dtype, field.shape);
  if (bytes.byteLength !== want) {
    throw new CorruptDataError(
      FORMAT,
      `${field.dtype} shape [${field.shape.join(", ")}] needs ${want} bytes, data has ${bytes.byteLength}`,
      undefined,
      label,
    );
  }
  return bytes;
}

/** Exact number of bytes writeModule produces. */
export function moduleByteLength(module: TsmModule): number {
  let n = HEADER_BYTES + 4 + 4 * module.inputs.length + 4 + 4 * module.outputs.length + 4;
  for (const node of module.nodes) {
    n += 4;
    for (const param of node.params) {
      n += 4 + keyBytesOf(param).length + 4;
      for (const field of param.fields) {
        n += 1 + 4 + 4 * field.shape.length;
        n += field.data.byteLength;
      }
    }
    n += 4 + 4 * node.inputs.length;
  }
  if (module.trailing) n += module.trailing.byteLength;
  return n;
}

function writeIndices(w: ByteWriter, values: readonly number[]): void {
  w.u32(values.length);
  for (const v of values) w.u32(v);
}

export function writeModule(w: ByteWriter, module: TsmModule): void {
  const { header } = module;
  if (header.reserved.length !== HEADER_RESERVED_BYTES) {
    throw new CorruptDataError(
      FORMAT,
      `header.reserved must be ${HEADER_RESERVED_BYTES} bytes, got ${header.reserved.length}`,
      undefined,
      "header.reserved",
    );
  }
  w.u32(header.fake).u32(header.code).bytes(header.reserved);
  writeIndices(w, module.inputs);
  writeIndices(w, module.outputs);
  w.u32(module.nodes.length);
  module.nodes.forEach((node, i) => {
    w.u32(node.params.length);
    for (const param of node.params) {
      const key = keyBytesOf(param);
      w.u32(key.length).bytes(key);
      w.u32(param.fields.length);
      param.fields.forEach((field, f) => {
        const label = `node[${i}].${param.key}${param.fields.length === 1 ? "" : `[${f}]`}`;
        const code = tsmDTypeCode(field.dtype);
        if (code === undefined)
          throw new UnsupportedError(FORMAT, `TenniS has no dtype ${field.dtype}`, undefined, `${label}.dtype`);
        const payload = fieldPayload(field, `${label}.data`);
        w.u8(code).u32(field.shape.length);
        for (const d of field.shape) w.u32(d);
        w.bytes(payload);
      });
    }
    writeIndices(w, node.inputs);
  });
  if (module.trailing) {
    if (!isLoaded(module.trailing)) {
      throw new UnsupportedError(FORMAT, "trailing bytes were not loaded (a readFrom() result)", undefined, "trailing");
    }
    w.bytes(module.trailing);
  }
}
