/** The safetensors parser: one synchronous pass over a ByteReader, shared by read() (eager) and readFrom() (lazy). */
import { CorruptDataError, LimitError, TruncatedError, UnsupportedError } from "../../bytes/errors.js";
import type { ByteReader } from "../../bytes/byte-reader.js";
import { copyBytes } from "../../bytes/input.js";
import { dtypeBytes } from "../../tensor.js";
import { type JsonObject, type JsonValue, kindName, parseJson } from "./json.js";
import {
  DTYPES,
  type SafetensorsFile,
  type SafetensorsTensor,
  UNSUPPORTED_DTYPES,
  isSafetensorsDType,
} from "./model.js";

/** The Hugging Face reader's limit on header_size (MAX_HEADER_SIZE). */
export const MAX_HEADER_BYTES = 100_000_000;

export interface ParseOptions {
  eager: boolean;
  copy: boolean;
}

const fieldOf = (name: string, key?: string): string => `header[${JSON.stringify(name)}]${key ? `.${key}` : ""}`;

/** A JSON number that is a whole number >= 0 written as plain digits; CORRUPT otherwise, LIMIT past 2^53 - 1. */
function wholeNumber(value: JsonValue, format: string, field: () => string): number {
  if (value.kind !== "number" || !/^(0|[1-9][0-9]*)$/.test(value.text)) {
    const shown = value.kind === "number" ? value.text : kindName(value);
    throw new CorruptDataError(format, `expected a whole number >= 0, found ${shown}`, value.offset, field());
  }
  if (!Number.isSafeInteger(value.value)) {
    throw new LimitError(
      format,
      `${value.text} is larger than 2^53 - 1`,
      value.offset,
      field(),
      BigInt(value.text),
      Number.MAX_SAFE_INTEGER,
    );
  }
  return value.value;
}

function parseTensor(
  entry: JsonObject["entries"][number],
  format: string,
): { tensor: Omit<SafetensorsTensor, "data">; offsetsAt: number } {
  const name = entry.key;
  const node = entry.value;
  if (node.kind !== "object")
    throw new CorruptDataError(
      format,
      `a tensor entry must be an object, not ${kindName(node)}`,
      node.offset,
      fieldOf(name),
    );
  const get = (key: string): JsonValue => {
    const found = node.entries.find((e) => e.key === key);
    if (!found)
      throw new CorruptDataError(
        format,
        `tensor ${JSON.stringify(name)} has no "${key}"`,
        node.offset,
        fieldOf(name, key),
      );
    return found.value;
  };
  const dtypeNode = get("dtype");
  if (dtypeNode.kind !== "string")
    throw new CorruptDataError(
      format,
      `dtype must be a string, not ${kindName(dtypeNode)}`,
      dtypeNode.offset,
      fieldOf(name, "dtype"),
    );
  const dtype = dtypeNode.value;
  if (!isSafetensorsDType(dtype)) {
    if (UNSUPPORTED_DTYPES.includes(dtype)) {
      throw new UnsupportedError(
        format,
        `dtype ${dtype} is not decoded by tensorfile (it reads ${Object.keys(DTYPES).join(", ")})`,
        dtypeNode.offset,
        fieldOf(name, "dtype"),
      );
    }
    throw new CorruptDataError(
      format,
      `unknown dtype ${JSON.stringify(dtype)} (safetensors dtypes: ${Object.keys(DTYPES).join(", ")}, ${UNSUPPORTED_DTYPES.join(", ")})`,
      dtypeNode.offset,
      fieldOf(name, "dtype"),
    );
  }
  const shapeNode = get("shape");
  if (shapeNode.kind !== "array")
    throw new CorruptDataError(
      format,
      `shape must be an array, not ${kindName(shapeNode)}`,
      shapeNode.offset,
      fieldOf(name, "shape"),
    );
  const shape = shapeNode.items.map((d, i) => wholeNumber(d, format, () => `${fieldOf(name, "shape")}[${i}]`));
  const offsetsNode = get("data_offsets");
  if (offsetsNode.kind !== "array" || offsetsNode.items.length !== 2) {
    const found = offsetsNode.kind === "array" ? `${offsetsNode.items.length} numbers` : kindName(offsetsNode);
    throw new CorruptDataError(
      format,
      `data_offsets must be [begin, end], not ${found}`,
      offsetsNode.offset,
      fieldOf(name, "data_offsets"),
    );
  }
  const begin = wholeNumber(offsetsNode.items[0]!, format, () => `${fieldOf(name, "data_offsets")}[0]`);
  const end = wholeNumber(offsetsNode.items[1]!, format, () => `${fieldOf(name, "data_offsets")}[1]`);
  if (end < begin)
    throw new CorruptDataError(
      format,
      `data_offsets [${begin}, ${end}] end before they begin`,
      offsetsNode.offset,
      fieldOf(name, "data_offsets"),
    );
  // elements x element size must be the byte length; multiply step by step so that huge dims cannot overflow
  const size = dtypeBytes(DTYPES[dtype]);
  const length = end - begin;
  let bytes = size;
  if (shape.includes(0)) bytes = 0;
  else {
    for (const d of shape) {
      bytes *= d;
      if (bytes > length) break;
    }
  }
  if (bytes !== length) {
    const needs = bytes > length ? `more than ${length}` : String(bytes);
    throw new CorruptDataError(
      format,
      `tensor ${JSON.stringify(name)}: ${dtype} [${shape.join(", ")}] needs ${needs} bytes, data_offsets [${begin}, ${end}] hold ${length}`,
      offsetsNode.offset,
      fieldOf(name, "data_offsets"),
    );
  }
  const tensor: Omit<SafetensorsTensor, "data"> = { name, dtype, shape, dataOffsets: [begin, end] };
  const otherKeys = node.entries
    .map((e) => e.key)
    .filter((k) => k !== "dtype" && k !== "shape" && k !== "data_offsets");
  if (otherKeys.length > 0) tensor.otherKeys = otherKeys;
  return { tensor, offsetsAt: offsetsNode.offset };
}

function parseMetadata(node: JsonValue, format: string): Record<string, string> | undefined {
  if (node.kind === "null") return undefined;
  if (node.kind !== "object")
    throw new CorruptDataError(
      format,
      `__metadata__ must be an object of strings, not ${kindName(node)}`,
      node.offset,
      "header.__metadata__",
    );
  const metadata: Record<string, string> = {};
  for (const e of node.entries) {
    if (e.value.kind !== "string") {
      throw new CorruptDataError(
        format,
        `__metadata__ values must be strings; ${JSON.stringify(e.key)} is ${kindName(e.value)}`,
        e.value.offset,
        `header.__metadata__[${JSON.stringify(e.key)}]`,
      );
    }
    Object.defineProperty(metadata, e.key, {
      value: e.value.value,
      enumerable: true,
      writable: true,
      configurable: true,
    }); // "__proto__" stays a key
  }
  return metadata;
}

/**
 *   header_size u64 LE (<= 100,000,000) | header: UTF-8 JSON object, first byte "{", white space after it |
 *   data: every tensor's bytes at data_offsets, which cover the data section exactly (no holes, no overlaps).
 */
export function parseFile(r: ByteReader, options: ParseOptions): SafetensorsFile {
  const format = r.format;
  const sizeAt = r.pos;
  const headerSize = r.u64("header_size");
  if (headerSize > BigInt(MAX_HEADER_BYTES)) {
    throw new LimitError(
      format,
      `header_size ${headerSize} is over the ${MAX_HEADER_BYTES}-byte limit of safetensors readers`,
      sizeAt,
      "header_size",
      headerSize,
      MAX_HEADER_BYTES,
    );
  }
  const headerAt = r.pos;
  const headerBytes = r.bytesView(Number(headerSize), "header");
  if (headerBytes[0] !== 0x7b) {
    throw new CorruptDataError(
      format,
      `the header must start with "{"${headerBytes.length === 0 ? " (header_size is 0)" : ""}`,
      headerAt,
      "header",
    );
  }
  let metadata: Record<string, string> | undefined;
  const parsed: { tensor: Omit<SafetensorsTensor, "data">; offsetsAt: number }[] = [];
  // each entry becomes its tensor as it is parsed (the JSON tree of the whole header is never held)
  // (the first such error waits for the end of the JSON: a JSON syntax error anywhere is reported first, as it was)
  let firstError: unknown;
  parseJson(headerBytes, headerAt, format, "header", (key, keyOffset, value) => {
    if (firstError !== undefined) return;
    try {
      if (key === "__metadata__") metadata = parseMetadata(value, format);
      else parsed.push(parseTensor({ key, keyOffset, value }, format));
    } catch (error) {
      firstError = error;
    }
  });
  if (firstError !== undefined) throw firstError as Error;
  const header = new TextDecoder().decode(headerBytes); // valid UTF-8: parseJson checked every string, the rest is ASCII
  const dataStart = r.pos;
  const dataSize = r.remaining;

  // the data section: in (begin, end) order every tensor starts where the previous one ended
  const order = parsed
    .map((_, i) => i)
    .sort((a, b) => {
      const x = parsed[a]!.tensor.dataOffsets;
      const y = parsed[b]!.tensor.dataOffsets;
      return x[0] - y[0] || x[1] - y[1];
    });
  let at = 0;
  for (const i of order) {
    const { tensor, offsetsAt } = parsed[i]!;
    const [begin, end] = tensor.dataOffsets;
    if (begin !== at) {
      const what =
        begin > at
          ? `a hole: bytes ${at}..${begin} of the data belong to no tensor`
          : `an overlap: bytes ${begin}..${at} belong to another tensor too`;
      throw new CorruptDataError(
        format,
        `tensor ${JSON.stringify(tensor.name)} begins at ${begin}, ${what}`,
        offsetsAt,
        fieldOf(tensor.name, "data_offsets"),
      );
    }
    if (end > dataSize) {
      throw new TruncatedError(
        format,
        dataStart + Math.min(begin, dataSize),
        `${fieldOf(tensor.name)} data`,
        end - Math.min(begin, dataSize),
        Math.max(0, dataSize - begin),
      );
    }
    at = end;
  }
  if (at !== dataSize) {
    throw new CorruptDataError(
      format,
      `${dataSize - at} bytes after the last tensor's data (the tensors cover ${at} of ${dataSize} data bytes)`,
      dataStart + at,
      "data",
    );
  }

  const tensors: SafetensorsTensor[] = parsed.map(({ tensor }) => {
    const [begin, end] = tensor.dataOffsets;
    // (the checks above put every range inside the data section: the field names are for messages that cannot come)
    r.seek(dataStart + begin, "tensor data");
    let data: SafetensorsTensor["data"];
    if (options.eager) {
      const view = r.bytesView(end - begin, "tensor data");
      data = options.copy ? copyBytes(view) : view;
    } else {
      data = r.range(end - begin, "tensor data");
    }
    const full = tensor as SafetensorsTensor; // (completed in place: no second object per tensor)
    full.data = data;
    return full;
  });
  r.seek(dataStart + dataSize);
  const file: SafetensorsFile = { header, tensors };
  if (metadata) file.metadata = metadata;
  return file;
}
