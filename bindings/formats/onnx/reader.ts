/**
 * ONNX reading: walks ModelProto → GraphProto → NodeProto/AttributeProto/TensorProto with the strict cursor of
 * wire.ts, building the object model of model.ts. Tensor payloads (raw_data, the typed fields) are only
 * bounds-checked and recorded as ranges, so readFrom() fetches headers only. Every TensorProto is checked: data
 * type known when it carries data, dims non-negative, dims × element size = stored bytes (raw_data, and the typed
 * fields' element counts: packed float/double by their length; varints by counting them in read(), and when the
 * weight is decoded after a lazy open, which fetches no payload), one storage, external locations inside the
 * model's folder.
 */
import { CorruptDataError, LimitError, UnsupportedError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import { elementCount } from "../../tensor.js";
import {
  ATTRIBUTE_TYPES,
  DATA_TYPES,
  MAX_GRAPH_DEPTH,
  type OnnxAttribute,
  type OnnxAttributeType,
  type OnnxExternalData,
  type OnnxFrame,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxSparseTensor,
  type OnnxStorage,
  type OnnxTensor,
  type OnnxValueInfo,
  type OnnxValueType,
  dataTypeName,
  rawByteLength,
} from "./model.js";
import {
  ATTRIBUTE,
  DIMENSION,
  GRAPH,
  type MessageSchema,
  MODEL,
  NODE,
  OPERATOR_SET_ID,
  SPARSE_TENSOR,
  STRING_STRING_ENTRY,
  TENSOR,
  TENSOR_SHAPE,
  TYPE,
  TYPE_MAP,
  TYPE_OPTIONAL,
  TYPE_SEQUENCE,
  TYPE_SPARSE_TENSOR,
  TYPE_TENSOR,
  VALUE_INFO,
  wireMatches,
} from "./schema.js";
import {
  headVarint,
  type FieldHead,
  type LenSpan,
  MAX_MESSAGE_DEPTH,
  ProtoCursor,
  WIRE_END_GROUP,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_START_GROUP,
  WIRE_VARINT,
  packedVarintCount,
  readVarintAt,
  varintValue,
} from "./wire.js";

/**
 * Counts the packed varints of [offset, offset + length) without going through the reader's backing (a lazy open
 * of a local file streams a large payload instead of keeping it), or undefined to let the reader read them.
 */
export type VarintCounter = (offset: number, length: number, field: string) => number | undefined;

interface Context {
  r: ByteReader;
  eager: boolean;
  /** Count the entries of varint-typed fields (reads their payloads): read(), and an .april's lazy open. */
  countVarints: boolean;
  varintCounter: VarintCounter | undefined;
  maxGraphDepth: number;
  unknown: number;
  /** Frames enclosing the message being read (outermost first). */
  frames: OnnxFrame[];
  /** Told every message object read and its frame (edit.ts: the write-time snapshot). */
  onMessage: ((message: object, frame: OnnxFrame) => void) | undefined;
  /** What the frames are offsets of (messageOrigins). */
  origin: object;
  /**
   * The bytes of the whole input when graphs index their nodes and parse them on first access (read(): see
   * scanNode and lazyNodes below); undefined: every node is parsed as it is met.
   */
  lazyBytes: Uint8Array | undefined;
}

/**
 * The frame of every message object read() built (nodes, graphs, attributes, tensors, value infos, types, shapes,
 * opset and metadata entries): write() compares an object with the message at its frame and copies the stored
 * bytes of every message that did not change (edit.ts).
 */
export const messageFrames: Pick<WeakMap<object, OnnxFrame>, "get" | "has"> = {
  get: (message) => messageRecords.get(message)?.frame,
  has: (message) => messageRecords.has(message),
};
/** What each message object was read from (parseModel's `origin`: the bytes read() was given), so a frame is only used with its own bytes. */
export const messageOrigins: Pick<WeakMap<object, object>, "get"> = {
  get: (message) => messageRecords.get(message)?.origin,
};
/** Both, in one map (an entry in a WeakMap costs more than the small object holding the two). */
const messageRecords = new WeakMap<object, { frame: OnnxFrame; origin: object }>();

/** Records the frame and origin of a message object read() built. */
function recordMessage(message: object, frame: OnnxFrame, origin: object): void {
  messageRecords.set(message, { frame, origin });
}

/** The object read() builds, before it is handed out with its read-only fields. */
type Building<T> = { -readonly [K in keyof T]: T[K] };

function frameOf(head: FieldHead, span: LenSpan): OnnxFrame {
  return {
    tagAt: head.tagAt,
    lengthAt: span.lengthAt,
    lengthBytes: span.lengthBytes,
    bodyStart: span.start,
    bodyEnd: span.end,
  };
}

/** Reads the nested message of field `head` with `parse`, keeping the frame stack. */
function nested<T>(ctx: Context, c: ProtoCursor, head: FieldHead, field: string, parse: (inner: ProtoCursor) => T): T {
  if (head.wire !== WIRE_LEN) c.expect(head, WIRE_LEN, field);
  const span = c.len(field);
  const resume = c.pos;
  const frame = frameOf(head, span);
  ctx.frames.push(frame);
  try {
    const message = parse(new ProtoCursor(c.r, span.start, span.end, c.depth + 1, field, c.top));
    if (typeof message === "object" && message !== null) {
      recordMessage(message, frame, ctx.origin);
      ctx.onMessage?.(message, frame);
    }
    return message;
  } finally {
    ctx.frames.pop();
    c.r.pos = resume;
  }
}

function str(c: ProtoCursor, head: FieldHead, field: string): string {
  c.expect(head, WIRE_LEN, field);
  return c.string(field);
}

function unknownField(ctx: Context, c: ProtoCursor, head: FieldHead): void {
  ctx.unknown++;
  c.skip(head, `${c.path}.field${head.field}`);
}

/**
 * A field of `message` that the object model does not hold. One onnx.proto declares (schema.ts) must have its
 * declared wire type (CORRUPT otherwise, as for the fields read) and, when it is a message, is walked for the
 * fields inside it that are really unknown; one it does not declare is unknown: counted and skipped (a group
 * through its end group).
 */
function otherField(ctx: Context, c: ProtoCursor, head: FieldHead, message: MessageSchema): void {
  const spec = message.fields[head.field];
  if (!spec) {
    unknownField(ctx, c, head);
    return;
  }
  const field = `${c.path}.${spec.name}`;
  if (!wireMatches(spec, head.wire)) {
    if (spec.packed) c.expectRepeated(head, spec.wire, spec.name);
    else c.expect(head, spec.wire, spec.name);
  }
  const inner = spec.message;
  if (inner && head.wire === WIRE_LEN) {
    nested(ctx, c, head, field, (body) => {
      for (let h = body.next(); h; h = body.next()) otherField(ctx, body, h, inner);
    });
  } else c.skip(head, field);
}

/** A repeated int64 (packed or not), appended to `out`. */
function repeatedInt64(c: ProtoCursor, head: FieldHead, field: string, out: number[]): void {
  c.expectRepeated(head, WIRE_VARINT, field);
  if (head.wire === WIRE_VARINT) {
    out.push(c.int64(field));
    return;
  }
  const span = c.len(field);
  const resume = c.pos;
  const inner = new ProtoCursor(c.r, span.start, span.end, c.depth + 1, field, c.top);
  while (!inner.done) out.push(inner.int64(field));
  c.r.pos = resume;
}

function repeatedFloat(c: ProtoCursor, head: FieldHead, field: string, out: number[]): void {
  c.expectRepeated(head, WIRE_FIXED32, field);
  if (head.wire === WIRE_FIXED32) {
    out.push(c.float(field));
    return;
  }
  const span = c.len(field);
  if ((span.end - span.start) % 4 !== 0)
    throw new CorruptDataError(
      c.r.format,
      `packed floats of ${span.end - span.start} bytes (not a multiple of 4)`,
      span.lengthAt,
      field,
    );
  const resume = c.pos;
  c.r.pos = span.start;
  while (c.r.pos < span.end) out.push(c.r.f32(field));
  c.r.pos = resume;
}

// ----------------------------------------------------------------------------------------------- tensors

const TYPED_FIELDS: Record<number, { storage: OnnxStorage; wire: number; width: number }> = {
  4: { storage: "float_data", wire: WIRE_FIXED32, width: 4 },
  5: { storage: "int32_data", wire: WIRE_VARINT, width: 0 },
  7: { storage: "int64_data", wire: WIRE_VARINT, width: 0 },
  10: { storage: "double_data", wire: WIRE_FIXED64, width: 8 },
  11: { storage: "uint64_data", wire: WIRE_VARINT, width: 0 },
};

/** A location that stays inside the model's folder: relative, no `..` segment, no drive or NUL. */
export function externalLocationProblem(location: string): string | undefined {
  if (location.length === 0) return "an empty location";
  if (location.includes("\0")) return "a NUL character";
  if (location.startsWith("/") || location.startsWith("\\") || /^[A-Za-z]:/.test(location)) return "an absolute path";
  if (location.split(/[\\/]/).some((part) => part === "..")) return "a '..' segment";
  return undefined;
}

function readExternal(
  ctx: Context,
  c: ProtoCursor,
  head: FieldHead,
  field: string,
  entries: { key: string; value: string; at: number }[],
): void {
  nested(ctx, c, head, field, (inner) => {
    let key = "";
    let value = "";
    const at = head.tagAt;
    for (let h = inner.next(); h; h = inner.next()) {
      if (h.field === 1) key = str(inner, h, `${field}.key`);
      else if (h.field === 2) value = str(inner, h, `${field}.value`);
      else otherField(ctx, inner, h, STRING_STRING_ENTRY);
    }
    entries.push({ key, value, at });
  });
}

function externalData(
  ctx: Context,
  entries: { key: string; value: string; at: number }[],
  path: string,
): OnnxExternalData {
  const format = ctx.r.format;
  const get = (key: string) => entries.find((e) => e.key === key);
  const location = get("location");
  if (!location)
    throw new CorruptDataError(
      format,
      "data_location is EXTERNAL but external_data has no location",
      entries[0]?.at ?? ctx.frames[ctx.frames.length - 1]?.tagAt,
      `${path}.external_data`,
    );
  const problem = externalLocationProblem(location.value);
  if (problem) {
    throw new CorruptDataError(
      format,
      `external data location ${JSON.stringify(location.value)} leaves the model's folder (${problem})`,
      location.at,
      `${path}.external_data.location`,
    );
  }
  const int = (key: string): number | undefined => {
    const e = get(key);
    if (!e) return undefined;
    if (!/^\d{1,15}$/.test(e.value))
      throw new CorruptDataError(
        format,
        `external data ${key} ${JSON.stringify(e.value)} is not a non-negative integer`,
        e.at,
        `${path}.external_data.${key}`,
      );
    return Number(e.value);
  };
  return {
    location: location.value,
    offset: int("offset") ?? 0,
    length: int("length"),
    checksum: get("checksum")?.value,
  };
}

function parseTensor(ctx: Context, c: ProtoCursor): OnnxTensor {
  const path = c.path;
  const format = ctx.r.format;
  const dims: number[] = [];
  let dataType = 0;
  let name = "";
  let docString = "";
  let dataLocation = 0;
  let dataLocationAt = 0;
  let storage = "none" as OnnxStorage;
  let first = -1;
  let last = -1;
  let storedCount: number | undefined = 0;
  let stringCount = 0;
  let rawAt = 0;
  let typedFields = 0;
  let packedSpan: LenSpan | undefined;
  const external: { key: string; value: string; at: number }[] = [];
  const dimsAt = c.pos;
  const setStorage = (next: OnnxStorage, at: number, field: string) => {
    if (storage !== "none" && storage !== next) {
      throw new CorruptDataError(format, `tensor data in both ${storage} and ${next}`, at, `${path}.${field}`);
    }
    if (next === "raw_data" && storage === "raw_data")
      throw new CorruptDataError(format, "raw_data given twice", at, `${path}.raw_data`);
    storage = next;
  };
  for (let head = c.next(); head; head = c.next()) {
    const typed = TYPED_FIELDS[head.field];
    if (typed) {
      const field = `${path}.${typed.storage}`;
      c.expectRepeated(head, typed.wire, field);
      setStorage(typed.storage, head.tagAt, typed.storage);
      if (first < 0) first = head.tagAt;
      typedFields++;
      if (head.wire === WIRE_LEN) {
        const span = c.len(field);
        packedSpan = span;
        const n = span.end - span.start;
        if (typed.width > 0) {
          if (n % typed.width !== 0)
            throw new CorruptDataError(
              format,
              `packed ${typed.storage} of ${n} bytes (not a multiple of ${typed.width})`,
              span.lengthAt,
              field,
            );
          if (storedCount !== undefined) storedCount += n / typed.width;
        } else if (!ctx.countVarints) {
          // varints: counting them needs their bytes, which a lazy open does not fetch (headers only); the count
          // is checked when the weight is decoded (decodeTypedBody: loadTensor, verify, convert)
          storedCount = undefined;
        } else if (storedCount !== undefined) {
          storedCount +=
            ctx.varintCounter?.(span.start, n, field) ??
            packedVarintCount(ctx.r.viewOf({ byteOffset: span.start, byteLength: n }), span.start, format, field);
        }
      } else {
        c.skip(head, field);
        if (storedCount !== undefined) storedCount += 1;
      }
      last = c.pos;
      continue;
    }
    switch (head.field) {
      case 1:
        repeatedInt64(c, head, `${path}.dims`, dims);
        break;
      case 2:
        c.expect(head, WIRE_VARINT, "data_type");
        dataType = c.int32(`${path}.data_type`);
        break;
      case 6:
        c.expect(head, WIRE_LEN, "string_data");
        setStorage("string_data", head.tagAt, "string_data");
        c.len(`${path}.string_data`);
        stringCount++;
        break;
      case 8:
        name = c.text(head, "name");
        break;
      case 9: {
        c.expect(head, WIRE_LEN, "raw_data");
        setStorage("raw_data", head.tagAt, "raw_data");
        const span = c.len(`${path}.raw_data`);
        rawAt = span.lengthAt;
        first = span.start;
        last = span.end;
        break;
      }
      case 12:
        docString = c.text(head, "doc_string");
        break;
      case 13:
        readExternal(ctx, c, head, `${path}.external_data`, external);
        break;
      case 14:
        c.expect(head, WIRE_VARINT, "data_location");
        dataLocationAt = head.tagAt;
        dataLocation = c.int32(`${path}.data_location`);
        break;
      default:
        // 3 segment, 16 metadata_props (known, not held) and anything newer: kept as bytes
        otherField(ctx, c, head, TENSOR);
    }
  }
  for (const d of dims) {
    if (d < 0) throw new CorruptDataError(format, `negative dimension ${d}`, dimsAt, `${path}.dims`);
  }
  const count = elementCount(dims);
  if (!Number.isSafeInteger(count))
    throw new LimitError(format, `${dims.join(" × ")} elements is beyond 2^53`, dimsAt, `${path}.dims`);
  const info = DATA_TYPES[dataType];
  const hasData = storage !== "none" || dataLocation === 1;
  if (!info && hasData) {
    throw new UnsupportedError(
      format,
      `${dataTypeName(dataType)} is not an ONNX data type this reader knows, and the tensor carries data`,
      dimsAt,
      `${path}.data_type`,
    );
  }
  if (dataLocation !== 0 && dataLocation !== 1) {
    throw new CorruptDataError(
      format,
      `data_location ${dataLocation} (0 DEFAULT or 1 EXTERNAL)`,
      dataLocationAt,
      `${path}.data_location`,
    );
  }
  const tensor: Building<OnnxTensor> = {
    name,
    dataType,
    dims,
    docString,
    storage,
    data: { byteOffset: first < 0 ? 0 : first, byteLength: first < 0 ? 0 : last - first },
    frames: ctx.frames.slice(),
  };
  if (dataLocation === 1) {
    if (storage !== "none")
      throw new CorruptDataError(
        format,
        `data_location is EXTERNAL but the tensor also holds ${storage}`,
        dataLocationAt,
        `${path}.data_location`,
      );
    tensor.storage = "external";
    tensor.data = { byteOffset: 0, byteLength: 0 };
    tensor.external = externalData(ctx, external, path);
    const expected = info!.dtype ? rawByteLength(info!, count) : undefined;
    if (expected !== undefined && tensor.external.length !== undefined && tensor.external.length !== expected) {
      throw new CorruptDataError(
        format,
        `dims [${dims.join(", ")}] of ${info!.name} take ${expected} bytes, external data length is ${tensor.external.length}`,
        dimsAt,
        `${path}.external_data.length`,
      );
    }
    return tensor;
  }
  if (!info) return tensor;
  if (info.name === "STRING") {
    if (storage !== "none" && storage !== "string_data")
      throw new CorruptDataError(format, `a STRING tensor with ${storage}`, first, `${path}.${storage}`);
    if (storage === "string_data" && stringCount !== count) {
      throw new CorruptDataError(
        format,
        `dims [${dims.join(", ")}] hold ${count} strings, string_data has ${stringCount}`,
        dimsAt,
        `${path}.string_data`,
      );
    }
    tensor.stringCount = stringCount;
    return tensor;
  }
  if (storage === "string_data")
    throw new CorruptDataError(format, `a ${info.name} tensor with string_data`, first, `${path}.string_data`);
  const expectedBytes = rawByteLength(info, count);
  if (storage === "raw_data") {
    if (tensor.data.byteLength !== expectedBytes) {
      throw new CorruptDataError(
        format,
        `dims [${dims.join(", ")}] of ${info.name} take ${expectedBytes} bytes, raw_data has ${tensor.data.byteLength}`,
        rawAt,
        `${path}.raw_data`,
      );
    }
  } else if (storage === "none") {
    if (count !== 0)
      throw new CorruptDataError(
        format,
        `dims [${dims.join(", ")}] hold ${count} elements but the tensor has no data`,
        dimsAt,
        `${path}.dims`,
      );
  } else {
    if (storage !== info.field)
      throw new CorruptDataError(
        format,
        `a ${info.name} tensor stores its data in ${info.field}, not ${storage}`,
        first,
        `${path}.${storage}`,
      );
    const expectedCount = info.bits === 4 ? expectedBytes : info.name.startsWith("COMPLEX") ? 2 * count : count;
    if (storedCount !== undefined && storedCount !== expectedCount) {
      throw new CorruptDataError(
        format,
        `dims [${dims.join(", ")}] of ${info.name} need ${expectedCount} ${storage} entries, the tensor has ${storedCount}`,
        first,
        `${path}.${storage}`,
      );
    }
    if (
      (storage === "float_data" || storage === "double_data") &&
      typedFields === 1 &&
      packedSpan &&
      packedSpan.end - packedSpan.start === expectedBytes
    ) {
      tensor.packed = { byteOffset: packedSpan.start, byteLength: expectedBytes };
    }
  }
  return tensor;
}

function parseSparse(ctx: Context, c: ProtoCursor): OnnxSparseTensor {
  let values: OnnxTensor | undefined;
  let indices: OnnxTensor | undefined;
  const dims: number[] = [];
  for (let head = c.next(); head; head = c.next()) {
    if (head.field === 1) values = nested(ctx, c, head, `${c.path}.values`, (inner) => parseTensor(ctx, inner));
    else if (head.field === 2) indices = nested(ctx, c, head, `${c.path}.indices`, (inner) => parseTensor(ctx, inner));
    else if (head.field === 3) repeatedInt64(c, head, `${c.path}.dims`, dims);
    else otherField(ctx, c, head, SPARSE_TENSOR);
  }
  const empty = (): OnnxTensor => ({
    name: "",
    dataType: 0,
    dims: [],
    docString: "",
    storage: "none",
    data: { byteOffset: 0, byteLength: 0 },
    frames: [],
  });
  return { values: values ?? empty(), indices: indices ?? empty(), dims };
}

// ------------------------------------------------------------------------------------------- value info

function parseShape(ctx: Context, c: ProtoCursor): (number | string | null)[] {
  const shape: (number | string | null)[] = [];
  for (let head = c.next(); head; head = c.next()) {
    if (head.field !== 1) {
      otherField(ctx, c, head, TENSOR_SHAPE);
      continue;
    }
    shape.push(
      nested(ctx, c, head, `${c.path}.dim[${shape.length}]`, (dim) => {
        let value: number | string | null = null;
        for (let h = dim.next(); h; h = dim.next()) {
          if (h.field === 1) {
            dim.expect(h, WIRE_VARINT, "dim_value");
            value = dim.int64(`${dim.path}.dim_value`);
          } else if (h.field === 2) value = dim.text(h, "dim_param");
          else otherField(ctx, dim, h, DIMENSION);
        }
        return value;
      }),
    );
  }
  return shape;
}

function parseTensorType(ctx: Context, c: ProtoCursor, kind: "tensor" | "sparse_tensor"): OnnxValueType {
  const type: OnnxValueType = { kind };
  for (let head = c.next(); head; head = c.next()) {
    if (head.field === 1) {
      c.expect(head, WIRE_VARINT, "elem_type");
      type.elemType = c.int32(`${c.path}.elem_type`);
    } else if (head.field === 2)
      type.shape = nested(ctx, c, head, `${c.path}.shape`, (inner) => parseShape(ctx, inner));
    else otherField(ctx, c, head, kind === "tensor" ? TYPE_TENSOR : TYPE_SPARSE_TENSOR);
  }
  return type;
}

/** TypeProto.Sequence / Optional (field 1 elem_type) and Map (1 key_type, 2 value_type): the kind and what it holds. */
function parseContainerType(ctx: Context, c: ProtoCursor, kind: "sequence" | "map" | "optional"): OnnxValueType {
  const type: OnnxValueType = { kind };
  const message = kind === "sequence" ? TYPE_SEQUENCE : kind === "map" ? TYPE_MAP : TYPE_OPTIONAL;
  for (let head = c.next(); head; head = c.next()) {
    if (kind === "map" && head.field === 1) {
      c.expect(head, WIRE_VARINT, "key_type");
      type.keyType = c.int32(`${c.path}.key_type`);
    } else if ((kind === "map" && head.field === 2) || (kind !== "map" && head.field === 1)) {
      const name = kind === "map" ? "value_type" : "elem_type";
      type.elem = nested(ctx, c, head, `${c.path}.${name}`, (inner) => parseType(ctx, inner));
    } else otherField(ctx, c, head, message);
  }
  return type;
}

const CONTAINER_KINDS: Record<number, "sequence" | "map" | "optional"> = { 4: "sequence", 5: "map", 9: "optional" };

function parseType(ctx: Context, c: ProtoCursor): OnnxValueType {
  let type: OnnxValueType = { kind: "unknown" };
  for (let head = c.next(); head; head = c.next()) {
    const container = CONTAINER_KINDS[head.field];
    if (head.field === 1)
      type = nested(ctx, c, head, `${c.path}.tensor_type`, (inner) => parseTensorType(ctx, inner, "tensor"));
    else if (head.field === 8)
      type = nested(ctx, c, head, `${c.path}.sparse_tensor_type`, (inner) =>
        parseTensorType(ctx, inner, "sparse_tensor"),
      );
    else if (container)
      type = nested(ctx, c, head, `${c.path}.${container}_type`, (inner) => parseContainerType(ctx, inner, container));
    else otherField(ctx, c, head, TYPE); // 6 denotation, 7 opaque_type (onnx-ml)
  }
  return type;
}

function parseValueInfo(ctx: Context, c: ProtoCursor): OnnxValueInfo {
  const info: OnnxValueInfo = { name: "", type: { kind: "unknown" }, docString: "" };
  for (let head = c.next(); head; head = c.next()) {
    if (head.field === 1) info.name = c.text(head, "name");
    else if (head.field === 2) info.type = nested(ctx, c, head, `${c.path}.type`, (inner) => parseType(ctx, inner));
    else if (head.field === 3) info.docString = c.text(head, "doc_string");
    else otherField(ctx, c, head, VALUE_INFO); // 4 metadata_props
  }
  return info;
}

// ------------------------------------------------------------------------------------- nodes and graphs

const TYPE_BY_FIELD: Record<number, OnnxAttributeType> = {
  2: "FLOAT",
  3: "INT",
  4: "STRING",
  5: "TENSOR",
  6: "GRAPH",
  7: "FLOATS",
  8: "INTS",
  9: "STRINGS",
  10: "TENSORS",
  11: "GRAPHS",
  22: "SPARSE_TENSOR",
  23: "SPARSE_TENSORS",
  14: "TYPE_PROTO",
  15: "TYPE_PROTOS",
};

function parseAttribute(ctx: Context, c: ProtoCursor, graphDepth: number): OnnxAttribute {
  const a: OnnxAttribute = { name: "", type: "UNDEFINED" };
  let declared = -1;
  let inferred: OnnxAttributeType = "UNDEFINED";
  const p = c.path;
  for (let head = c.next(); head; head = c.next()) {
    if (TYPE_BY_FIELD[head.field] && inferred === "UNDEFINED") inferred = TYPE_BY_FIELD[head.field]!;
    switch (head.field) {
      case 1:
        a.name = c.text(head, "name");
        break;
      case 20:
        c.expect(head, WIRE_VARINT, "type");
        declared = c.int32(`${p}.type`);
        break;
      case 2:
        c.expect(head, WIRE_FIXED32, "f");
        a.f = c.float(`${p}.f`);
        break;
      case 3:
        c.expect(head, WIRE_VARINT, "i");
        a.i = c.int64(`${p}.i`);
        break;
      case 4:
        a.s = c.text(head, "s");
        break;
      case 5:
        a.t = nested(ctx, c, head, `${p}.t`, (inner) => parseTensor(ctx, inner));
        break;
      case 6:
        a.g = nested(ctx, c, head, `${p}.g`, (inner) => parseGraph(ctx, inner, graphDepth + 1));
        break;
      case 7:
        repeatedFloat(c, head, `${p}.floats`, (a.floats ??= []));
        break;
      case 8:
        repeatedInt64(c, head, `${p}.ints`, (a.ints ??= []));
        break;
      case 9:
        (a.strings ??= []).push(c.text(head, "strings"));
        break;
      case 10: {
        const list = (a.tensors ??= []);
        list.push(nested(ctx, c, head, `${p}.tensors[${list.length}]`, (inner) => parseTensor(ctx, inner)));
        break;
      }
      case 11: {
        const list = (a.graphs ??= []);
        list.push(
          nested(ctx, c, head, `${p}.graphs[${list.length}]`, (inner) => parseGraph(ctx, inner, graphDepth + 1)),
        );
        break;
      }
      case 13:
        a.docString = c.text(head, "doc_string");
        break;
      case 21:
        a.refAttrName = c.text(head, "ref_attr_name");
        break;
      case 22:
        a.sparseTensor = nested(ctx, c, head, `${p}.sparse_tensor`, (inner) => parseSparse(ctx, inner));
        break;
      default:
        otherField(ctx, c, head, ATTRIBUTE); // 14 tp, 15 type_protos, 23 sparse_tensors: known, kept as bytes
    }
  }
  a.type = declared >= 0 && declared < ATTRIBUTE_TYPES.length ? ATTRIBUTE_TYPES[declared]! : inferred;
  return a;
}

function parseNode(ctx: Context, c: ProtoCursor, graphDepth: number): OnnxNode {
  const node: OnnxNode = { name: "", opType: "", domain: "", inputs: [], outputs: [], attributes: [], docString: "" };
  const p = c.path;
  for (let head = c.next(); head; head = c.next()) {
    switch (head.field) {
      case 1:
        node.inputs.push(c.text(head, "input"));
        break;
      case 2:
        node.outputs.push(c.text(head, "output"));
        break;
      case 3:
        node.name = c.text(head, "name");
        break;
      case 4:
        node.opType = c.text(head, "op_type");
        break;
      case 5:
        node.attributes.push(
          nested(ctx, c, head, `${p}.attribute[${node.attributes.length}]`, (inner) =>
            parseAttribute(ctx, inner, graphDepth),
          ),
        );
        break;
      case 6:
        node.docString = c.text(head, "doc_string");
        break;
      case 7:
        node.domain = c.text(head, "domain");
        break;
      default:
        otherField(ctx, c, head, NODE); // 8 overload, 9 metadata_props, 10 device_configurations
    }
  }
  return node;
}

function parseGraph(ctx: Context, c: ProtoCursor, depth: number): OnnxGraph {
  if (depth > ctx.maxGraphDepth) {
    throw new LimitError(
      ctx.r.format,
      `subgraphs nested deeper than ${ctx.maxGraphDepth}`,
      ctx.frames[ctx.frames.length - 1]?.tagAt,
      c.path,
      depth,
      ctx.maxGraphDepth,
    );
  }
  const g: OnnxGraph = {
    name: "",
    docString: "",
    nodes: [],
    initializers: [],
    sparseInitializers: [],
    inputs: [],
    outputs: [],
    valueInfo: [],
  };
  const p = c.path;
  const bytes = ctx.lazyBytes;
  /** The nodes: parsed, or the offset in `frames` of one whose parse waits for the first access to `nodes`. */
  const nodes: (OnnxNode | number)[] = [];
  const frames: number[] = [];
  for (let head = c.next(); head; head = c.next()) {
    switch (head.field) {
      case 1: {
        if (bytes && head.wire === WIRE_LEN) {
          // the node's frame, and a scan that vouches that parsing it will not fail (else it is parsed now)
          const lengthAt = c.pos;
          const bodyStart = scanVarint(bytes, lengthAt, c.end);
          const length = scanHi === 0 ? scanLo >>> 0 : -1;
          if (
            bodyStart > 0 &&
            length >= 0 &&
            length <= c.end - bodyStart &&
            scanNode(bytes, bodyStart, bodyStart + length, c.depth + 1)
          ) {
            nodes.push(frames.length);
            frames.push(head.tagAt, lengthAt, bodyStart, bodyStart + length);
            c.r.pos = bodyStart + length;
            break;
          }
        }
        nodes.push(nested(ctx, c, head, `${p}.node[${nodes.length}]`, (inner) => parseNode(ctx, inner, depth)));
        break;
      }
      case 2:
        g.name = c.text(head, "name");
        break;
      case 5:
        g.initializers.push(
          nested(ctx, c, head, `${p}.initializer[${g.initializers.length}]`, (inner) => parseTensor(ctx, inner)),
        );
        break;
      case 10:
        g.docString = c.text(head, "doc_string");
        break;
      case 11:
        g.inputs.push(nested(ctx, c, head, `${p}.input[${g.inputs.length}]`, (inner) => parseValueInfo(ctx, inner)));
        break;
      case 12:
        g.outputs.push(nested(ctx, c, head, `${p}.output[${g.outputs.length}]`, (inner) => parseValueInfo(ctx, inner)));
        break;
      case 13:
        g.valueInfo.push(
          nested(ctx, c, head, `${p}.value_info[${g.valueInfo.length}]`, (inner) => parseValueInfo(ctx, inner)),
        );
        break;
      case 15:
        g.sparseInitializers.push(
          nested(ctx, c, head, `${p}.sparse_initializer[${g.sparseInitializers.length}]`, (inner) =>
            parseSparse(ctx, inner),
          ),
        );
        break;
      default:
        otherField(ctx, c, head, GRAPH); // 14 quantization_annotation, 16 metadata_props
    }
  }
  if (frames.length === 0) g.nodes = nodes as OnnxNode[];
  else {
    const later: LazyNodes = {
      ctx,
      frames: ctx.frames.slice(),
      nodes,
      offsets: frames,
      depth,
      cursorDepth: c.depth + 1,
      top: c.top,
      path: p,
    };
    lazyNodes(g, later);
  }
  return g;
}

// --------------------------------------------------------------------------------- nodes parsed on access

/**
 * A graph's nodes as read() found them: the ones already parsed and the frames (tag, length, body start and end
 * offsets, four numbers each) of the ones scanNode vouched for, parsed on the first access to `graph.nodes`.
 */
interface LazyNodes {
  ctx: Context;
  /** The frames enclosing the graph's nodes (the graph's own last). */
  frames: OnnxFrame[];
  nodes: (OnnxNode | number)[];
  offsets: number[];
  /** The graph's subgraph depth (parseNode's). */
  depth: number;
  /** The nodes' cursor depth and the outermost message's end (ProtoCursor's). */
  cursorDepth: number;
  top: number;
  /** The graph's field path. */
  path: string;
}

/** Node's util.inspect hook (a symbol in the global registry): set on a graph whose nodes are not parsed yet. */
const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** The graphs whose nodes wait for their first access, with what parses them. */
const waitingNodes = new WeakMap<object, LazyNodes>();

/** The graph (`object` or one it inherits from) whose nodes wait, or undefined. */
function waitingGraph(object: object): OnnxGraph | undefined {
  for (let o: object | null = object; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    if (waitingNodes.has(o)) return o as OnnxGraph;
  }
  return undefined;
}

/** `nodes` becomes a plain data property of `g` (holding `nodes`), as parseGraph would have made it. */
function settleNodes(g: OnnxGraph, nodes: OnnxNode[]): void {
  waitingNodes.delete(g);
  Reflect.deleteProperty(g, INSPECT);
  Object.defineProperty(g, "nodes", { value: nodes, writable: true, enumerable: true, configurable: true });
}

// the accessor and the inspect hook: one set of functions for every graph (the state is in waitingNodes)
function getNodes(this: OnnxGraph): OnnxNode[] {
  const g = waitingGraph(this);
  if (!g) return [];
  const nodes = parseLaterNodes(waitingNodes.get(g)!);
  settleNodes(g, nodes);
  return nodes;
}
function setNodes(this: OnnxGraph, nodes: OnnxNode[]): void {
  if (waitingNodes.has(this)) settleNodes(this, nodes);
  else Object.defineProperty(this, "nodes", { value: nodes, writable: true, enumerable: true, configurable: true });
}
/** util.inspect's hook: parse, then let util.inspect show the graph as it shows any object (returning `this` does that). */
function inspectNodes(this: OnnxGraph): OnnxGraph {
  void this.nodes;
  return this;
}

/**
 * Makes `graph.nodes` parse its nodes on first access (reading, spreading, JSON.stringify, util.inspect: the
 * object looks the same as one parsed at once), then become a plain data property; assigning it first drops the
 * parse.
 */
function lazyNodes(g: OnnxGraph, later: LazyNodes): void {
  waitingNodes.set(g, later);
  Object.defineProperty(g, "nodes", { enumerable: true, configurable: true, get: getNodes, set: setNodes });
  Object.defineProperty(g, INSPECT, { enumerable: false, configurable: true, writable: true, value: inspectNodes });
}

function parseLaterNodes(later: LazyNodes): OnnxNode[] {
  const { ctx: readCtx, offsets } = later;
  const r = new ByteReader(readCtx.lazyBytes!, readCtx.r.format);
  const ctx: Context = { ...readCtx, r, unknown: 0, frames: later.frames.slice() };
  return later.nodes.map((entry, i) => {
    if (typeof entry !== "number") return entry;
    const frame: OnnxFrame = {
      tagAt: offsets[entry]!,
      lengthAt: offsets[entry + 1]!,
      lengthBytes: offsets[entry + 2]! - offsets[entry + 1]!,
      bodyStart: offsets[entry + 2]!,
      bodyEnd: offsets[entry + 3]!,
    };
    ctx.frames.push(frame);
    const node = parseNode(
      ctx,
      new ProtoCursor(r, frame.bodyStart, frame.bodyEnd, later.cursorDepth, `${later.path}.node[${i}]`, later.top),
      later.depth,
    );
    ctx.frames.pop();
    recordMessage(node, frame, ctx.origin);
    return node;
  });
}

/** The low and high 32 bits of the varint scanVarint read last. */
let scanLo = 0;
let scanHi = 0;

/** The varint at bytes[i] below `stop` (its bits into scanLo/scanHi): the offset after it, or -1 when malformed. */
function scanVarint(bytes: Uint8Array, i: number, stop: number): number {
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
function scanNode(bytes: Uint8Array, start: number, end: number, depth: number): boolean {
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

/** Parses a ModelProto in [start, end) of the reader's bytes (an .april network passes its range). */
export function parseModel(
  r: ByteReader,
  options: {
    eager: boolean;
    countVarints?: boolean;
    varintCounter?: VarintCounter | undefined;
    start?: number;
    end?: number;
    maxGraphDepth?: number | undefined;
    root?: string;
    onMessage?: ((message: object, frame: OnnxFrame) => void) | undefined;
    /** The bytes being read when they are in memory (read()): write() copies an object's stored message only from them. */
    origin?: Uint8Array | undefined;
    /**
     * The whole input (read()): graphs check their nodes with a scan and parse them on the first access to
     * `graph.nodes` (see lazyNodes). Not with onMessage, which is told every message as it is read.
     */
    lazyNodes?: Uint8Array | undefined;
  },
): OnnxModel {
  const start = options.start ?? 0;
  const end = options.end ?? r.fileSize;
  const ctx: Context = {
    r,
    eager: options.eager,
    countVarints: options.countVarints ?? options.eager,
    varintCounter: options.varintCounter,
    maxGraphDepth: options.maxGraphDepth ?? MAX_GRAPH_DEPTH,
    unknown: 0,
    frames: [],
    onMessage: options.onMessage,
    origin: options.origin ?? r,
    lazyBytes: options.onMessage ? undefined : options.lazyNodes,
  };
  const root = options.root ?? "model";
  const c = new ProtoCursor(r, start, end, 0, root);
  const model: Building<OnnxModel> = {
    irVersion: 0,
    producerName: "",
    producerVersion: "",
    domain: "",
    modelVersion: 0,
    docString: "",
    opsetImports: [],
    metadataProps: [],
    graph: undefined,
    functionCount: 0,
    unknownFieldCount: 0,
    span: { byteOffset: start, byteLength: end - start },
  };
  let sawGraph = false;
  for (let head = c.next(); head; head = c.next()) {
    switch (head.field) {
      case 1:
        c.expect(head, WIRE_VARINT, "ir_version");
        model.irVersion = c.int64(`${root}.ir_version`);
        break;
      case 2:
        model.producerName = str(c, head, `${root}.producer_name`);
        break;
      case 3:
        model.producerVersion = str(c, head, `${root}.producer_version`);
        break;
      case 4:
        model.domain = str(c, head, `${root}.domain`);
        break;
      case 5:
        c.expect(head, WIRE_VARINT, "model_version");
        model.modelVersion = c.int64(`${root}.model_version`);
        break;
      case 6:
        model.docString = str(c, head, `${root}.doc_string`);
        break;
      case 7:
        if (sawGraph) throw new CorruptDataError(r.format, "a second graph", head.tagAt, `${root}.graph`);
        sawGraph = true;
        model.graph = nested(ctx, c, head, `${root}.graph`, (inner) => parseGraph(ctx, inner, 0));
        break;
      case 8:
        model.opsetImports.push(
          nested(ctx, c, head, `${root}.opset_import[${model.opsetImports.length}]`, (inner) => {
            const opset = { domain: "", version: 0 };
            for (let h = inner.next(); h; h = inner.next()) {
              if (h.field === 1) opset.domain = inner.text(h, "domain");
              else if (h.field === 2) {
                inner.expect(h, WIRE_VARINT, "version");
                opset.version = inner.int64(`${inner.path}.version`);
              } else otherField(ctx, inner, h, OPERATOR_SET_ID);
            }
            return opset;
          }),
        );
        break;
      case 14:
        model.metadataProps.push(
          nested(ctx, c, head, `${root}.metadata_props[${model.metadataProps.length}]`, (inner) => {
            const entry = { key: "", value: "" };
            for (let h = inner.next(); h; h = inner.next()) {
              if (h.field === 1) entry.key = inner.text(h, "key");
              else if (h.field === 2) entry.value = inner.text(h, "value");
              else otherField(ctx, inner, h, STRING_STRING_ENTRY);
            }
            return entry;
          }),
        );
        break;
      case 25:
        model.functionCount++;
        otherField(ctx, c, head, MODEL);
        break;
      default:
        otherField(ctx, c, head, MODEL); // 20 training_info, 26 configuration
    }
  }
  model.unknownFieldCount = ctx.unknown;
  return model;
}

/**
 * Parses a bare TensorProto in [start, end) of the reader's bytes (an ONNX test data file, `input_0.pb`) with the
 * checks every weight of a model gets; `root` names it in error paths. Returns the tensor and its unknown fields.
 */
export function parseTensorProto(
  r: ByteReader,
  options: { eager: boolean; countVarints?: boolean; start?: number; end?: number; root?: string },
): { tensor: OnnxTensor; unknownFieldCount: number } {
  const start = options.start ?? 0;
  const end = options.end ?? r.fileSize;
  const ctx: Context = {
    r,
    eager: options.eager,
    countVarints: options.countVarints ?? options.eager,
    varintCounter: undefined,
    maxGraphDepth: MAX_GRAPH_DEPTH,
    unknown: 0,
    frames: [],
    onMessage: undefined,
    origin: r,
    lazyBytes: undefined,
  };
  const c = new ProtoCursor(r, start, end, 0, options.root ?? "tensor");
  // the tensor's own frame: its body is the whole range (typed fields are decoded from it)
  ctx.frames.push({ tagAt: start, lengthAt: start, lengthBytes: 0, bodyStart: start, bodyEnd: end });
  const tensor = parseTensor(ctx, c);
  return { tensor, unknownFieldCount: ctx.unknown };
}

/** Highest IR version detection accepts (ONNX 1.22 writes 13). */
const MAX_IR_VERSION = 32;

/**
 * True when `head` (the first bytes) reads as the start of a ModelProto, in any field order: every field seen (in
 * the head) has a protobuf wire type, the one onnx.proto declares when it is a known field (schema.ts), text fields
 * are UTF-8, the known messages seen (graph, node, tensor, …) hold fields by the same rules, groups close with their
 * own field number, lengths stay inside their messages, and an ir_version (1..32) is among the model's fields in
 * the head next to a known length-delimited field (graph, opset_import, a producer string). Unknown fields (a
 * newer ONNX's) are accepted in the model, graph, node, attribute and tensor, up to number 127. Random bytes and
 * other protobuf messages fail it; a model this is unsure of (its ir_version after the head, an unknown field in a
 * small message) can still be read by name: readFromAny, loadFile and the CLI parse a `.onnx` file as ONNX.
 */
/** Highest number of an unknown field detection accepts (ONNX's messages use 1-26 so far). */
const MAX_UNKNOWN_FIELD = 127;
/**
 * The messages in which detection accepts unknown fields (a newer ONNX's): the large ones. In the small ones
 * (opset_import, key/value entries, types) an unknown field in the head makes detection unsure, as random bytes
 * inside a known message would otherwise pass too easily.
 */
const OPEN_MESSAGES = new Set<MessageSchema>([MODEL, GRAPH, NODE, TENSOR, ATTRIBUTE]);
export function looksLikeModel(head: Uint8Array): boolean {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  let i = 0;
  /** A varint at i: its value (numbers up to 2^53; beyond: MAX_SAFE_INTEGER), undefined past the head, -1 when malformed. */
  const varint = (): number | undefined => {
    const read = headVarint(head, i, Number.MAX_SAFE_INTEGER);
    i = read?.next ?? head.length;
    return read?.value;
  };
  let irVersion = false;
  /** The model's known length-delimited fields (graph, opset_import, producer_name, …) that are not empty. */
  let knownMessages = 0;
  /**
   * Checks fields in [i, end) (end may be past the head) of `message`; false on anything a ModelProto cannot hold.
   * `top`: the ModelProto itself.
   */
  const check = (end: number, message: MessageSchema, top: boolean, depth: number): boolean => {
    const stop = Math.min(end, head.length);
    const groups: number[] = [];
    while (i < stop) {
      const tag = varint();
      if (tag === undefined) return true;
      if (tag < 0 || tag > 0xffffffff) return false;
      const field = Math.floor(tag / 8);
      const wire = tag % 8;
      if (field === 0 || wire > 5) return false;
      // inside a group, fields belong to the unknown group's message: any field number, any wire type
      const spec = groups.length === 0 ? message.fields[field] : undefined;
      if (spec && !wireMatches(spec, wire)) return false;
      if (!spec && groups.length === 0 && (field > MAX_UNKNOWN_FIELD || !OPEN_MESSAGES.has(message))) return false;
      if (wire === WIRE_END_GROUP) {
        if (groups.pop() !== field) return false;
        continue;
      }
      if (wire === WIRE_START_GROUP) {
        groups.push(field);
        if (depth + groups.length > MAX_MESSAGE_DEPTH) return false;
        continue;
      }
      if (wire === WIRE_FIXED32 || wire === WIRE_FIXED64) {
        i += wire === WIRE_FIXED32 ? 4 : 8;
        if (i > end) return false; // past the enclosing message
        continue;
      }
      if (wire === WIRE_VARINT) {
        const value = varint();
        if (value === undefined) return true;
        if (value < 0) return false;
        if (top && spec && field === 1) {
          if (value < 1 || value > MAX_IR_VERSION) return false;
          irVersion = true;
        }
        continue;
      }
      const length = varint();
      if (length === undefined) return true;
      if (length < 0) return false;
      const bodyEnd = i + length;
      if (bodyEnd > end) return false; // longer than the enclosing message
      if (top && spec && groups.length === 0 && length > 0) knownMessages++;
      if (spec?.text) {
        try {
          utf8.decode(head.subarray(i, Math.min(bodyEnd, head.length)), { stream: bodyEnd > head.length });
        } catch {
          return false;
        }
      } else if (spec?.message && wire === WIRE_LEN && !spec.packed) {
        if (depth >= MAX_MESSAGE_DEPTH || !check(bodyEnd, spec.message, false, depth + 1)) return false;
      }
      i = bodyEnd;
    }
    // a message that ends inside the head closes its groups
    return groups.length === 0 || end > head.length;
  };
  return check(Number.POSITIVE_INFINITY, MODEL, true, 0) && irVersion && knownMessages >= 1;
}
