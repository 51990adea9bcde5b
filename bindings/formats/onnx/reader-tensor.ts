/**
 * ONNX reading, tensors: TensorProto (typed fields, raw_data, external data and its location check) and
 * SparseTensorProto, payloads bounds-checked and recorded as ranges.
 */
import { CorruptDataError, LimitError, UnsupportedError } from "../../bytes/errors.js";
import { elementCount } from "../../tensor.js";
import {
  DATA_TYPES,
  type OnnxExternalData,
  type OnnxSparseTensor,
  type OnnxStorage,
  type OnnxTensor,
  dataTypeName,
  rawByteLength,
} from "./model.js";
import { SPARSE_TENSOR, STRING_STRING_ENTRY, TENSOR } from "./schema.js";
import {
  type FieldHead,
  type LenSpan,
  ProtoCursor,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_VARINT,
  packedVarintCount,
} from "./wire.js";
import { type Building, type Context, nested, otherField, repeatedInt64, str } from "./reader-context.js";

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

export function parseTensor(ctx: Context, c: ProtoCursor): OnnxTensor {
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

export function parseSparse(ctx: Context, c: ProtoCursor): OnnxSparseTensor {
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
