/**
 * Content detection of a bare TensorProto. A TensorProto has no magic, so the check is conservative: the head
 * must read as a TensorProto serialized the way ONNX (C++ protobuf, numpy_helper) and protobufjs write it, in
 * field-number order, every field with its own wire type, text fields UTF-8, and a data_type ONNX defines among
 * the first fields (only dims may come before it). A ModelProto never passes (its field 2 is text, not a varint),
 * nor a SequenceProto or OptionalProto (their field 3 would be TensorProto's segment, which detection refuses; a
 * `.pb` name still opens them and gets a clear refusal). Files named `.pb` are opened by name whatever their head.
 */
import { DATA_TYPES } from "../onnx/model.js";
import { headVarint } from "../onnx/wire.js";

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;

/** TensorProto's fields (3 segment excluded, see above): wire type, repeated scalars (packed allowed), text. */
const FIELDS: Record<number, { wire: number; repeated?: boolean; text?: boolean }> = {
  1: { wire: VARINT, repeated: true },
  2: { wire: VARINT },
  4: { wire: FIXED32, repeated: true },
  5: { wire: VARINT, repeated: true },
  6: { wire: LEN, repeated: true },
  7: { wire: VARINT, repeated: true },
  8: { wire: LEN, text: true },
  9: { wire: LEN },
  10: { wire: FIXED64, repeated: true },
  11: { wire: VARINT, repeated: true },
  12: { wire: LEN, text: true },
  13: { wire: LEN, repeated: true },
  14: { wire: VARINT },
  16: { wire: LEN, repeated: true },
};

/** How many leading bytes decide (detectFormat's DETECT_BYTES), so a head and the whole file agree. */
export const TENSOR_DETECT_BYTES = 64;

/** True when the first 64 bytes of `bytes` read as the start of a TensorProto (see above); never throws. */
export function looksLikeTensorProto(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, TENSOR_DETECT_BYTES);
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  let i = 0;
  /** A varint at i: its value (up to 2^53), undefined past the head, -1 when malformed or beyond 2^53. */
  const varint = (): number | undefined => {
    const read = headVarint(head, i, -1);
    i = read?.next ?? head.length;
    return read?.value;
  };
  let lastField = 0;
  let sawDataType = false;
  while (i < head.length) {
    const tag = varint();
    if (tag === undefined) break;
    if (tag < 0 || tag > 0xffffffff) return false;
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    const known = FIELDS[field];
    if (!known) return false;
    if (wire !== known.wire && !(known.repeated && wire === LEN && known.wire !== LEN)) return false;
    // canonical order: field numbers never go down; only repeated fields come more than once
    if (field < lastField || (field === lastField && !known.repeated)) return false;
    // only dims may precede data_type
    if (!sawDataType && field !== 1 && field !== 2) return false;
    lastField = field;
    if (wire === FIXED32 || wire === FIXED64) {
      i += wire === FIXED32 ? 4 : 8;
      continue;
    }
    if (wire === VARINT) {
      const value = varint();
      if (value === undefined) break;
      if (value < 0) return false;
      if (field === 2) {
        if (DATA_TYPES[value] === undefined) return false;
        sawDataType = true;
      }
      if (field === 14 && value > 1) return false;
      continue;
    }
    const length = varint();
    if (length === undefined) break;
    if (length < 0) return false;
    const end = i + length;
    if (known.text) {
      try {
        utf8.decode(head.subarray(i, Math.min(end, head.length)), { stream: end > head.length });
      } catch {
        return false;
      }
    } else if (field === 1 && end <= head.length) {
      // packed dims: whole varints
      const stop = end;
      while (i < stop) {
        const d = varint();
        if (d === undefined || d < 0 || i > stop) return false;
      }
    }
    i = end;
  }
  return sawDataType;
}
