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
