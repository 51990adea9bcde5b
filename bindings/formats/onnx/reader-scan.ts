/**
 * ONNX reading, the node scan: a fast check over a NodeProto's bytes that vouches parsing it later will not fail,
 * so read() can leave a graph's nodes for their first access.
 */
import { DATA_TYPES, rawByteLength } from "./model.js";
import { MAX_MESSAGE_DEPTH, WIRE_FIXED32, WIRE_LEN, WIRE_VARINT, readVarintAt, varintValue } from "./wire.js";

/** The low and high 32 bits of the varint scanVarint read last. */
export let scanLo = 0;
export let scanHi = 0;

/** The varint at bytes[i] below `stop` (its bits into scanLo/scanHi): the offset after it, or -1 when malformed. */
export function scanVarint(bytes: Uint8Array, i: number, stop: number): number {
  if (i < stop) {
    const b = bytes[i]!;
    if (b < 0x80) {
      scanLo = b;
      scanHi = 0;
      return i + 1;
    }
  }
  const n = readVarintAt(bytes, i, stop);
  if (n <= 0 || (n === 10 && bytes[i + 9]! > 1)) return -1;
  scanLo = varintValue.lo;
  scanHi = varintValue.hi;
  return i + n;
}

/** The last varint read as an int64 (two's complement), or NaN beyond ±2^53 (which the parser refuses). */
function scannedInt64(): number {
  const value = (scanHi | 0) * 4294967296 + (scanLo >>> 0);
  return Math.abs(value) <= Number.MAX_SAFE_INTEGER ? value : Number.NaN;
}

/** The end of the length-delimited payload whose length varint is at `i` (inside [i, stop)), or -1. */
function scanLen(bytes: Uint8Array, i: number, stop: number): number {
  const body = scanVarint(bytes, i, stop);
  if (body < 0 || scanHi !== 0) return -1;
  const length = scanLo >>> 0;
  return length <= stop - body ? body + length : -1;
}

/**
 * True when parseNode will read the NodeProto body [start, end) without an error, having met only what it holds
 * (inputs, outputs, name, op_type, attributes, doc_string, domain): then read() leaves it for later. False for
 * anything else (a malformed field, a field it keeps as bytes, a subgraph, a tensor beyond raw_data): the node is
 * parsed at once, which reports what is wrong with its offset. `depth`: the node's cursor depth.
 */
export function scanNode(bytes: Uint8Array, start: number, end: number, depth: number): boolean {
  // attribute (depth + 1), tensor (+ 2), its packed dims (+ 3): all within the cursor's limit
  if (depth + 3 > MAX_MESSAGE_DEPTH) return false;
  let i = start;
  while (i < end) {
    i = scanVarint(bytes, i, end);
    if (i < 0 || scanHi !== 0) return false;
    const field = scanLo >>> 3;
    if ((scanLo & 7) !== WIRE_LEN || field < 1 || field > 7) return false;
    const bodyEnd = scanLen(bytes, i, end);
    if (bodyEnd < 0) return false;
    if (field === 5 && !scanAttribute(bytes, bodyEnd - (scanLo >>> 0), bodyEnd)) return false;
    i = bodyEnd;
  }
  return true;
}

/** scanNode for an AttributeProto: scalars, lists, strings and a TENSOR of raw_data (scanTensor); no subgraphs. */
function scanAttribute(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    i = scanVarint(bytes, i, end);
    if (i < 0 || scanHi !== 0) return false;
    const field = scanLo >>> 3;
    const wire = scanLo & 7;
    if (wire === WIRE_LEN) {
      const bodyEnd = scanLen(bytes, i, end);
      if (bodyEnd < 0) return false;
      const body = bodyEnd - (scanLo >>> 0);
      switch (field) {
        case 1:
        case 4:
        case 9:
        case 13:
        case 21:
          break; // name, s, strings, doc_string, ref_attr_name
        case 5:
          if (!scanTensor(bytes, body, bodyEnd)) return false;
          break;
        case 7:
          if ((bodyEnd - body) % 4 !== 0) return false;
          break; // packed floats
        case 8: // packed ints: each within ±2^53
          for (let k = body; k < bodyEnd;) {
            k = scanVarint(bytes, k, bodyEnd);
            if (k < 0 || Number.isNaN(scannedInt64())) return false;
          }
          break;
        default:
          return false;
      }
      i = bodyEnd;
    } else if (wire === WIRE_VARINT && (field === 3 || field === 8 || field === 20)) {
      i = scanVarint(bytes, i, end);
      if (i < 0 || (field !== 20 && Number.isNaN(scannedInt64()))) return false;
    } else if (wire === WIRE_FIXED32 && (field === 2 || field === 7)) {
      if (end - i < 4) return false;
      i += 4;
    } else return false;
  }
  return true;
}

/**
 * scanNode for a TensorProto (a Constant's value): dims, data_type, name, doc_string and at most one raw_data whose
 * length the dims and type give (the checks of parseTensor); anything else is left to parseTensor.
 */
function scanTensor(bytes: Uint8Array, start: number, end: number): boolean {
  let count = 1;
  let dataType = 0;
  let raw = -1;
  let i = start;
  while (i < end) {
    i = scanVarint(bytes, i, end);
    if (i < 0 || scanHi !== 0) return false;
    const field = scanLo >>> 3;
    const wire = scanLo & 7;
    if (field === 1 && wire === WIRE_VARINT) {
      i = scanVarint(bytes, i, end);
      const d = scannedInt64();
      if (i < 0 || !(d >= 0)) return false;
      count *= d;
    } else if (field === 1 && wire === WIRE_LEN) {
      const bodyEnd = scanLen(bytes, i, end);
      if (bodyEnd < 0) return false;
      for (let k = bodyEnd - (scanLo >>> 0); k < bodyEnd;) {
        k = scanVarint(bytes, k, bodyEnd);
        const d = scannedInt64();
        if (k < 0 || !(d >= 0)) return false;
        count *= d;
      }
      i = bodyEnd;
    } else if (field === 2 && wire === WIRE_VARINT) {
      i = scanVarint(bytes, i, end);
      if (i < 0) return false;
      dataType = scanLo | 0;
    } else if (wire === WIRE_LEN && (field === 8 || field === 12 || (field === 9 && raw < 0))) {
      const bodyEnd = scanLen(bytes, i, end);
      if (bodyEnd < 0) return false;
      if (field === 9) raw = scanLo >>> 0;
      i = bodyEnd;
    } else return false;
  }
  if (!Number.isSafeInteger(count)) return false;
  const info = DATA_TYPES[dataType];
  if (raw >= 0) return info !== undefined && info.name !== "STRING" && raw === rawByteLength(info, count);
  return info === undefined || info.name === "STRING" || count === 0;
}

/** A Constant node scanNode vouched for, as far as its weight goes (what parseNode + parseTensor would give). */
export interface ScannedConstant {
  /** The node's first output and its name ("" when absent). */
  output: string;
  name: string;
  /** Its `value` tensor: name, data_type, dims. */
  tensorName: string;
  dataType: number;
  dims: number[];
  /** The tensor's body start, and its raw_data payload [rawStart, rawEnd) (rawStart -1: no raw_data). */
  bodyStart: number;
  rawStart: number;
  rawEnd: number;
}

const CONSTANT = [0x43, 0x6f, 0x6e, 0x73, 0x74, 0x61, 0x6e, 0x74]; // "Constant"
const VALUE = [0x76, 0x61, 0x6c, 0x75, 0x65]; // "value"
const AI_ONNX = [0x61, 0x69, 0x2e, 0x6f, 0x6e, 0x6e, 0x78]; // "ai.onnx"

function isText(bytes: Uint8Array, start: number, end: number, text: readonly number[]): boolean {
  if (end - start !== text.length) return false;
  for (let k = 0; k < text.length; k++) if (bytes[start + k] !== text[k]) return false;
  return true;
}

/**
 * For a NodeProto body [start, end) that scanNode vouched for: when it is a Constant of the default domain with a
 * `value` tensor attribute, that tensor and the node's names as parseNode and parseTensor would read them (the last
 * op_type, domain, name and tensor of repeated fields, the first output, the first attribute named `value` that
 * holds a tensor); else undefined. Builds no node object: `tensors()` of a read() result takes the Constants' weights
 * this way from graphs whose nodes were never accessed. `text` decodes a string field as the parser does.
 */
export function scannedConstant(
  bytes: Uint8Array,
  start: number,
  end: number,
  text: (bytes: Uint8Array, start: number, end: number) => string,
): ScannedConstant | undefined {
  let opStart = -1;
  let opEnd = -1;
  let domainStart = 0;
  let domainEnd = 0;
  let outputStart = -1;
  let outputEnd = -1;
  let nameStart = 0;
  let nameEnd = 0;
  let tensorStart = -1;
  let tensorEnd = -1;
  // every field of a vouched node is length-delimited (scanNode) and well formed
  for (let i = start; i < end;) {
    i = scanVarint(bytes, i, end);
    const field = scanLo >>> 3;
    const body = scanVarint(bytes, i, end);
    const bodyEnd = body + (scanLo >>> 0);
    if (field === 4) {
      opStart = body;
      opEnd = bodyEnd;
    } else if (field === 7) {
      domainStart = body;
      domainEnd = bodyEnd;
    } else if (field === 3) {
      nameStart = body;
      nameEnd = bodyEnd;
    } else if (field === 2 && outputStart < 0) {
      outputStart = body;
      outputEnd = bodyEnd;
    } else if (field === 5 && tensorStart < 0) {
      // an attribute: its last name and last tensor
      let attrName = -1;
      let attrNameEnd = -1;
      let t = -1;
      let tEnd = -1;
      for (let k = body; k < bodyEnd;) {
        k = scanVarint(bytes, k, bodyEnd);
        const f = scanLo >>> 3;
        const wire = scanLo & 7;
        if (wire === WIRE_LEN) {
          const payload = scanVarint(bytes, k, bodyEnd);
          const payloadEnd = payload + (scanLo >>> 0);
          if (f === 1) {
            attrName = payload;
            attrNameEnd = payloadEnd;
          } else if (f === 5) {
            t = payload;
            tEnd = payloadEnd;
          }
          k = payloadEnd;
        } else if (wire === WIRE_VARINT) k = scanVarint(bytes, k, bodyEnd);
        else k += 4; // fixed32 (scanAttribute allows no other wire type)
      }
      if (t >= 0 && attrName >= 0 && isText(bytes, attrName, attrNameEnd, VALUE)) {
        tensorStart = t;
        tensorEnd = tEnd;
      }
    }
    i = bodyEnd;
  }
  if (opStart < 0 || !isText(bytes, opStart, opEnd, CONSTANT) || tensorStart < 0) return undefined;
  if (domainEnd > domainStart && !isText(bytes, domainStart, domainEnd, AI_ONNX)) return undefined;
  const found: ScannedConstant = {
    output: outputStart < 0 ? "" : text(bytes, outputStart, outputEnd),
    name: text(bytes, nameStart, nameEnd),
    tensorName: "",
    dataType: 0,
    dims: [],
    bodyStart: tensorStart,
    rawStart: -1,
    rawEnd: -1,
  };
  // the tensor (scanTensor's fields: dims, data_type, name, doc_string, one raw_data)
  for (let i = tensorStart; i < tensorEnd;) {
    i = scanVarint(bytes, i, tensorEnd);
    const field = scanLo >>> 3;
    if ((scanLo & 7) === WIRE_VARINT) {
      i = scanVarint(bytes, i, tensorEnd);
      if (field === 1) found.dims.push(scannedInt64());
      else found.dataType = scanLo | 0; // data_type (as int32)
      continue;
    }
    const body = scanVarint(bytes, i, tensorEnd);
    const bodyEnd = body + (scanLo >>> 0);
    if (field === 1) {
      for (let k = body; k < bodyEnd;) {
        k = scanVarint(bytes, k, bodyEnd);
        found.dims.push(scannedInt64());
      }
    } else if (field === 8) found.tensorName = text(bytes, body, bodyEnd);
    else if (field === 9) {
      found.rawStart = body;
      found.rawEnd = bodyEnd;
    }
    i = bodyEnd;
  }
  return found;
}
