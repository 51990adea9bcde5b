/**
 * A typed-field ONNX weight decoded piece by piece from its TensorProto, for the streamed paths (convert, extract,
 * verify, stats, diff, writeSafetensorsTo): the body is read from the source in windows, its entries (varints of
 * int32_data / int64_data / uint64_data, or fixed-width float_data / double_data split over several fields or
 * written one tag per element) are written into pieces of raw_data's layout, and each piece is decoded like a
 * raw_data one. Memory stays at a window plus a piece whatever the weight's size (a 1 GiB float16 weight in
 * int32_data, as onnx.helper.make_tensor stores it, was decoded whole: ~1.3 GiB). Small weights are loaded whole.
 *
 *   TensorProto body = field*;  field = tag (varint: number << 3 | wire) payload
 *   the weight's field, packed:  tag(wire 2) varint(length) entry*   (entry = varint, or 4/8 bytes little-endian)
 *   the weight's field, one tag per entry:  tag(wire 0 / 5 / 1) entry
 *
 * The rules are decodeTypedBody's (view.ts): every entry fits its width's bits as stored (two's complement kept),
 * a varint over 10 bytes or cut off by its field is CORRUPT, and the entries must fill the dims exactly.
 */
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import { type ByteSource, readExactly } from "../../io/source.js";
import { type DecodeOptions, type TensorInfo, decodeRowMajorTensor, dtypeBytes, elementCount } from "../../tensor.js";
import {
  DATA_TYPES,
  type OnnxDataTypeInfo,
  type OnnxStorage,
  TYPED_FIELD_NUMBERS,
  dataTypeName,
  id,
  rawByteLength,
} from "./model.js";
import {
  MAX_MESSAGE_DEPTH,
  WIRE_END_GROUP,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_START_GROUP,
  WIRE_VARINT,
  putEntry,
  readVarintAt as readVarint,
  varintValue,
} from "./wire.js";

/** Sizes (not public; tests make them small): weights whose TensorProto is over `minBytes` stream. */
export const TYPED_CHUNK_TUNING = {
  windowBytes: 4 * 1024 * 1024,
  pieceBytes: 16 * 1024 * 1024,
  minBytes: 16 * 1024 * 1024,
};

/** view.ts's OnnxTensorInfo (its `onnx` part), as this module reads it. */
type TypedInfo = TensorInfo & { onnx?: { storage: OnnxStorage; dataType: number } | undefined };

/** True when `info` is a typed-field weight large enough to stream (its TensorProto body over minBytes). */
export function streamsTypedField(info: TensorInfo): boolean {
  const onnx = (info as TypedInfo).onnx;
  return (
    onnx !== undefined &&
    TYPED_FIELD_NUMBERS[onnx.storage] !== undefined &&
    info.byteLength > TYPED_CHUNK_TUNING.minBytes
  );
}

/** Bytes the parser wants ahead of its position in a window (a tag and a length: 20; an entry: 10). */
const AHEAD = 32;

/** Reads [start, end) of the source in windows; byte access by absolute offset. */
class Windows {
  bytes: Uint8Array = new Uint8Array(0);
  start = 0;
  constructor(
    private readonly source: ByteSource,
    private readonly end: number,
    private readonly name: string,
  ) {}

  /** Makes [at, at + AHEAD) (clipped to the end) available, reading a new window from `at` when it is not. */
  async from(at: number): Promise<void> {
    const n = Math.min(AHEAD, this.end - at);
    if (at >= this.start && at + n <= this.start + this.bytes.length) return;
    const length = Math.min(this.end - at, Math.max(AHEAD, TYPED_CHUNK_TUNING.windowBytes));
    this.bytes = await readExactly(this.source, at, length, id, this.name);
    this.start = at;
  }
}

/** Told of each field of the body as it is passed: [start, end) (absolute) and whether it holds the weight's entries. */
export type FieldVisitor = (start: number, end: number, entries: boolean) => void;

/**
 * The stored entries of a typed-field weight as raw_data's bytes, in pieces (before any dtype conversion). The
 * body is parsed synchronously within each window; a read is awaited only when a window runs out. `visit` is told
 * of every field (patch keeps the others as stored).
 */
export async function* typedEntryPieces(
  source: ByteSource,
  info: TensorInfo,
  visit?: FieldVisitor,
): AsyncGenerator<Uint8Array> {
  const onnx = (info as TypedInfo).onnx!;
  const type: OnnxDataTypeInfo | undefined = DATA_TYPES[onnx.dataType];
  const fieldNumber = TYPED_FIELD_NUMBERS[onnx.storage];
  if (!type || fieldNumber === undefined)
    throw new UnsupportedError(
      id,
      `${dataTypeName(onnx.dataType)} in ${onnx.storage} has no decoder`,
      info.byteOffset,
      info.name,
    );
  const field = `${info.name}.${onnx.storage}`;
  const fixed = onnx.storage === "float_data" ? 4 : onnx.storage === "double_data" ? 8 : 0;
  const width = fixed > 0 ? fixed : type.bits === 4 ? 1 : type.bits / 8;
  const entryWire = fixed === 4 ? WIRE_FIXED32 : fixed === 8 ? WIRE_FIXED64 : WIRE_VARINT;
  const total = type.bits === 4 ? info.shape[0]! : rawByteLength(type, elementCount(info.shape));
  const element = Math.max(width, dtypeBytes(info.dtype));
  const pieceBytes = Math.max(element, Math.floor(TYPED_CHUNK_TUNING.pieceBytes / element) * element);
  const end = info.byteOffset + info.byteLength;
  const w = new Windows(source, end, info.name);
  const corrupt = (detail: string, at: number): never => {
    throw new CorruptDataError(id, detail, at, field);
  };

  let piece = new Uint8Array(Math.min(pieceBytes, total));
  let view = new DataView(piece.buffer);
  let filled = 0;
  let done = 0;
  const put = (lo: number, hi: number) => {
    putEntry(view, filled, width, lo, hi);
    filled += width;
  };

  let pos = info.byteOffset;
  /** The end of the packed field of the weight's entries being read (0: between fields). */
  let fieldEnd = 0;
  /** The field numbers of the unknown groups open (wire 3 … wire 4): fields inside them are not the weight's. */
  const groups: number[] = [];
  while (pos < end) {
    await w.from(pos);
    const bytes = w.bytes;
    const base = w.start;
    const stop = base + bytes.length; // absolute end of the window
    let full = false;
    // parse synchronously until the window runs out (reload) or the piece is full (hand it out)
    parse: while (pos < end) {
      if (pos < fieldEnd) {
        if (fixed > 0) {
          if (done + filled + fixed > total) corrupt("more entries than the dims hold", pos);
          if (filled === piece.length) {
            full = true;
            break;
          }
          const space = Math.min(fieldEnd - pos, stop - pos, piece.length - filled, total - done - filled);
          const n = space - (space % fixed);
          if (n === 0) break; // the window ends inside an entry
          piece.set(bytes.subarray(pos - base, pos - base + n), filled);
          filled += n;
          pos += n;
        } else {
          const limit = Math.min(fieldEnd, stop);
          while (pos < fieldEnd) {
            if (filled === piece.length) {
              if (done + filled + width > total) corrupt("more entries than the dims hold", pos);
              full = true;
              break parse;
            }
            const n = readVarint(bytes, pos - base, limit - base);
            if (n === 0) {
              if (limit === fieldEnd) corrupt("packed varint runs past the end of its field", pos);
              break parse; // the window ends inside this varint
            }
            if (n < 0) corrupt("varint longer than 10 bytes", pos);
            put(varintValue.lo, varintValue.hi);
            pos += n;
          }
        }
        continue;
      }
      // a field: its tag, then its length or value, whole inside the window (AHEAD bytes) or up to the end
      if (stop - pos < AHEAD && stop < end) break;
      const at = pos;
      const tagLength = readVarint(bytes, pos - base, Math.min(stop, end) - base);
      if (tagLength <= 0)
        corrupt(tagLength === 0 ? "tag runs past the end of the tensor" : "varint longer than 10 bytes", at);
      const number = (varintValue.lo >>> 3) + varintValue.hi * 2 ** 29;
      const wire = varintValue.lo & 7;
      pos += tagLength;
      if (number === 0) corrupt("field number 0", at);
      const inGroup = groups.length > 0;
      if (wire === WIRE_START_GROUP) {
        if (groups.length >= MAX_MESSAGE_DEPTH) corrupt(`groups nested deeper than ${MAX_MESSAGE_DEPTH}`, at);
        groups.push(number);
        visit?.(at, pos, false);
      } else if (wire === WIRE_END_GROUP) {
        const started = groups.pop();
        if (started !== number)
          corrupt(
            started === undefined
              ? `end group (field ${number}) without a start group`
              : `end group (field ${number}) closes a group of field ${started}`,
            at,
          );
        visit?.(at, pos, false);
      } else if (wire === WIRE_LEN) {
        const n = readVarint(bytes, pos - base, Math.min(stop, end) - base);
        if (n <= 0) corrupt(n === 0 ? "length runs past the end of the tensor" : "varint longer than 10 bytes", pos);
        const length = varintValue.lo >>> 0;
        if (varintValue.hi !== 0 || varintValue.lo < 0 || length > end - pos - n)
          corrupt(`length reaches past the end of the tensor`, pos);
        pos += n;
        if (number === fieldNumber && !inGroup) {
          if (fixed > 0 && length % fixed !== 0)
            corrupt(`packed ${onnx.storage} of ${length} bytes (not a multiple of ${fixed})`, pos - n);
          fieldEnd = pos + length;
          visit?.(at, fieldEnd, true);
        } else {
          pos += length;
          visit?.(at, pos, false);
        }
      } else if (wire === WIRE_VARINT) {
        const n = readVarint(bytes, pos - base, Math.min(stop, end) - base);
        if (n <= 0) corrupt(n === 0 ? "varint runs past the end of the tensor" : "varint longer than 10 bytes", pos);
        const entry = number === fieldNumber && entryWire === WIRE_VARINT && !inGroup;
        if (entry) {
          if (done + filled + width > total) corrupt("more entries than the dims hold", at);
          if (filled === piece.length) {
            pos = at; // read this entry again into the next piece
            full = true;
            break;
          }
          put(varintValue.lo, varintValue.hi);
        }
        pos += n;
        visit?.(at, pos, entry);
      } else if (wire === WIRE_FIXED32 || wire === WIRE_FIXED64) {
        const n = wire === WIRE_FIXED32 ? 4 : 8;
        if (n > end - pos) corrupt(`${n}-byte value runs past the end of the tensor`, pos);
        const entry = number === fieldNumber && entryWire === wire && !inGroup;
        if (entry) {
          if (done + filled + n > total) corrupt("more entries than the dims hold", at);
          if (filled === piece.length) {
            pos = at;
            full = true;
            break;
          }
          piece.set(bytes.subarray(pos - base, pos - base + n), filled);
          filled += n;
        }
        pos += n;
        visit?.(at, pos, entry);
      } else corrupt(`wire type ${wire} (field ${number}) does not exist in protobuf`, at);
    }
    if (full) {
      yield piece;
      done += filled;
      piece = new Uint8Array(Math.min(pieceBytes, total - done)); // a fresh one: the sink may keep the last
      view = new DataView(piece.buffer);
      filled = 0;
    }
  }
  if (groups.length > 0)
    corrupt(`group (field ${groups[groups.length - 1]}) has no end group before the end of the tensor`, end);
  if (done + filled !== total) {
    corrupt(
      `shape [${info.shape.join(", ")}] of ${type.name} takes ${total} bytes, ${onnx.storage} holds ${done + filled}`,
      info.byteOffset,
    );
  }
  if (filled > 0 || total === 0) yield piece.subarray(0, filled);
}

/** The decoded bytes of a typed-field weight in pieces (each a whole number of elements, decoded like raw_data). */
export async function* typedFieldChunks(
  source: ByteSource,
  info: TensorInfo,
  decode: DecodeOptions | undefined,
): AsyncGenerator<Uint8Array> {
  const plain: TensorInfo = { ...info };
  delete (plain as TypedInfo).onnx;
  const size = dtypeBytes(info.dtype);
  for await (const stored of typedEntryPieces(source, info)) {
    if (stored.length === 0) continue;
    const part: TensorInfo = {
      ...plain,
      shape: [stored.length / size],
      byteLength: stored.length,
      layout: "row-major",
    };
    const t = decodeRowMajorTensor(stored, part, { dtype: decode?.dtype }, id);
    const d = t.data as ArrayBufferView;
    yield new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  }
}

// ------------------------------------------------------------------------------------------ encoding

/**
 * How raw_data-layout entries of a typed storage are written back: varints (sign-extended to 64 bits for the
 * signed types, as protobuf writes int32/int64) or, for float_data/double_data, the bytes as they are.
 */
export interface EntryEncoding {
  /** Bytes per entry in raw_data's layout. */
  width: number;
  /** Encoded size of whole entries. */
  size(values: Uint8Array): number;
  /** The encoded entries. */
  encode(values: Uint8Array): Uint8Array;
}

export function entryEncoding(storage: OnnxStorage, dataType: number): EntryEncoding {
  const type = DATA_TYPES[dataType];
  if (!type || TYPED_FIELD_NUMBERS[storage] === undefined)
    throw new UnsupportedError(id, `${dataTypeName(dataType)} in ${storage} cannot be encoded`, undefined, storage);
  if (storage === "float_data" || storage === "double_data") {
    return { width: storage === "float_data" ? 4 : 8, size: (values) => values.length, encode: (values) => values };
  }
  const width = type.bits === 4 ? 1 : type.bits / 8;
  const signed = type.dtype === "int8" || type.dtype === "int16" || type.dtype === "int32" || type.dtype === "int64";
  /** Entry i's low and high 32 bits (into lo/hi). */
  let lo = 0;
  let hi = 0;
  const entry = (view: DataView, at: number) => {
    if (width === 8) {
      lo = view.getUint32(at, true);
      hi = view.getUint32(at + 4, true);
      return;
    }
    const v =
      width === 1
        ? signed
          ? view.getInt8(at)
          : view.getUint8(at)
        : width === 2
          ? signed
            ? view.getInt16(at, true)
            : view.getUint16(at, true)
          : signed
            ? view.getInt32(at, true)
            : view.getUint32(at, true);
    lo = v >>> 0;
    hi = v < 0 ? 0xffffffff : 0;
  };
  const entrySize = () => {
    if (hi === 0) return lo < 0x80 ? 1 : lo < 0x4000 ? 2 : lo < 0x200000 ? 3 : lo < 0x10000000 ? 4 : 5;
    return Math.ceil((64 - Math.clz32(hi)) / 7);
  };
  const viewOf = (values: Uint8Array) => new DataView(values.buffer, values.byteOffset, values.byteLength);
  return {
    width,
    size(values) {
      const view = viewOf(values);
      let n = 0;
      for (let at = 0; at + width <= values.length; at += width) {
        entry(view, at);
        n += entrySize();
      }
      return n;
    },
    encode(values) {
      const out = new Uint8Array(this.size(values));
      const view = viewOf(values);
      let o = 0;
      for (let at = 0; at + width <= values.length; at += width) {
        entry(view, at);
        while (hi !== 0 || lo > 0x7f) {
          out[o++] = (lo & 0x7f) | 0x80;
          lo = ((lo >>> 7) | ((hi & 0x7f) << 25)) >>> 0;
          hi >>>= 7;
        }
        out[o++] = lo;
      }
      return out;
    },
  };
}
