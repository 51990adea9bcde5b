/** The BW2L parser: one synchronous pass over a ByteReader, shared by read() (eager) and readFrom() (lazy). */
import { copyBytes } from "../../bytes/input.js";
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import type { ByteRange, ByteReader } from "../../bytes/byte-reader.js";
import { viewAs } from "../../tensor.js";
import {
  type Bw2lArray,
  type Bw2lArrayData,
  type Bw2lEntry,
  type Bw2lFile,
  type Bw2lLayer,
  type Bw2lSection,
  type Bw2lVersion,
  DTYPES,
  deferredArray,
  isBw2lDType,
} from "./model.js";
import { decodeText } from "./text.js";

export const MAGIC = "BW2L";
export const SUPPORTED_VERSIONS = [1, 2] as const;

/** The smallest possible section: name, type (1 byte each), desc and data_length (8 bytes each). */
const MIN_SECTION_BYTES = 1 + 1 + 8 + 8;
/** The smallest possible layer: arch length, [v1: scale, offset], param_count. */
const minLayerBytes = (version: Bw2lVersion): number => 8 + (version === 1 ? 4 + 8 : 0) + 8;
/** The smallest possible array: dtype length, len, [v2: ndim]. */
const minArrayBytes = (version: Bw2lVersion): number => 1 + 8 + (version === 2 ? 1 : 0);

export interface ParseOptions {
  /** Read payloads (true: read(); false: readFrom() keeps byte ranges). */
  eager: boolean;
  /** Copy payloads even where an aligned view of the input would do. */
  copy: boolean;
}

export function shortString(r: ByteReader, field: string): string {
  const length = r.u8(`${field}.length`);
  return decodeText(r.bytesView(length, field));
}

export function longString(r: ByteReader, field: string): string {
  const length = r.count(r.u64(`${field}.length`), 1, field);
  return decodeText(r.bytesView(length, field));
}

/** Raw bytes: a view (or a copy) in eager mode, else only their range. */
function rawPayload(r: ByteReader, n: number, field: string, options: ParseOptions): Uint8Array | ByteRange {
  if (!options.eager) return r.range(n, field);
  const view = r.bytesView(n, field);
  return options.copy ? copyBytes(view) : view;
}

function readArray(r: ByteReader, version: Bw2lVersion, field: string, options: ParseOptions): Bw2lArray {
  const dtypeAt = r.pos;
  const dtype = shortString(r, `${field}.dtype`);
  if (!isBw2lDType(dtype)) {
    throw new UnsupportedError(
      r.format,
      `unknown array dtype ${JSON.stringify(dtype)} (known: ${Object.keys(DTYPES).join(", ")})`,
      dtypeAt,
      `${field}.dtype`,
    );
  }
  const facts = DTYPES[dtype];
  const declaredLength = r.u64(`${field}.len`);
  let dims: number[] | undefined;
  if (version === 2) {
    const ndim = r.count(r.u8(`${field}.ndim`), 8, `${field}.dims`);
    dims = new Array<number>(ndim);
    for (let d = 0; d < ndim; d++) dims[d] = r.u64n(`${field}.dims[${d}]`);
  }
  const length = r.count(declaredLength, facts.bytes, `${field}.data`);
  const byteOffset = r.pos;
  const byteLength = length * facts.bytes;
  let array: Bw2lArray;
  if (!options.eager) {
    array = { dtype, data: r.range(byteLength, `${field}.data`) };
  } else {
    const stored = r.bytesView(byteLength, `${field}.data`);
    // an aligned payload is a view of the input; an unaligned one stays as stored until `data` is used
    array =
      options.copy || stored.byteOffset % facts.bytes === 0
        ? { dtype, data: viewAs(facts.standard, stored, options.copy) as Bw2lArrayData }
        : deferredArray(dtype, stored);
  }
  array.byteOffset = byteOffset;
  if (dims) array.dims = dims;
  return array;
}

function readLayers(r: ByteReader, version: Bw2lVersion, field: string, options: ParseOptions): Bw2lLayer[] {
  const count = r.count(r.u64(`${field}.layer_count`), minLayerBytes(version), `${field}.layers`);
  const layers: Bw2lLayer[] = [];
  for (let i = 0; i < count; i++) {
    const at = `${field}.layers[${i}]`;
    const arch = longString(r, `${at}.arch`);
    const layer: Bw2lLayer = { arch, params: [] };
    if (version === 1) {
      layer.scale = r.f32(`${at}.scale`);
      layer.offset = r.i64(`${at}.offset`);
    }
    const paramCount = r.count(r.u64(`${at}.param_count`), minArrayBytes(version), `${at}.params`);
    for (let j = 0; j < paramCount; j++) layer.params.push(readArray(r, version, `${at}.params[${j}]`, options));
    layers.push(layer);
  }
  return layers;
}

function readKeyval(r: ByteReader, field: string): Bw2lEntry[] {
  const entries: Bw2lEntry[] = [];
  while (r.hasMore) {
    const at = `${field}.entries[${entries.length}]`;
    const key = shortString(r, `${at}.key`);
    const value = longString(r, `${at}.value`);
    entries.push({ key, value });
  }
  return entries;
}

/** Throws CORRUPT when a section's content ends before its data_length does. */
function expectEnd(body: ByteReader, what: string, field: string): void {
  if (body.hasMore) {
    throw new CorruptDataError(
      body.format,
      `${body.remaining} bytes after the ${what} inside the section's data_length`,
      body.pos,
      field,
    );
  }
}

function readSection(r: ByteReader, version: Bw2lVersion, index: number, options: ParseOptions): Bw2lSection {
  const field = `sections[${index}]`;
  const byteOffset = r.pos;
  const name = shortString(r, `${field}.name`);
  const type = shortString(r, `${field}.type`);
  const desc = longString(r, `${field}.desc`);
  const dataLength = r.count(r.u64(`${field}.data_length`), 1, `${field}.data`);
  const dataOffset = r.pos;
  const base = { name, desc, byteOffset, dataOffset };
  switch (type) {
    case "utf8":
      return { ...base, type, text: decodeText(r.bytesView(dataLength, `${field}.data`)) };
    case "keyval":
      return { ...base, type, entries: readKeyval(r.sub(dataLength, `${field}.data`), field) };
    case "array": {
      const body = r.sub(dataLength, `${field}.data`);
      const array = readArray(body, version, `${field}.array`, options);
      expectEnd(body, "array", `${field}.data`);
      return { ...base, type, array };
    }
    case "layers": {
      const body = r.sub(dataLength, `${field}.data`);
      const layers = readLayers(body, version, field, options);
      expectEnd(body, "layers", `${field}.data`);
      return { ...base, type, layers };
    }
    default:
      // `data` and unknown types: raw bytes
      return { ...base, type, data: rawPayload(r, dataLength, `${field}.data`, options) };
  }
}

export function parseFile(r: ByteReader, options: ParseOptions): Bw2lFile {
  r.magic(MAGIC); // TRUNCATED when the file ends inside a correct magic
  const versionAt = r.pos;
  const version = r.version(r.u8("version"), SUPPORTED_VERSIONS, versionAt);
  const name = shortString(r, "name");
  const sectionCount = r.count(r.u64("section_count"), MIN_SECTION_BYTES, "sections");
  const sections: Bw2lSection[] = [];
  for (let i = 0; i < sectionCount; i++) sections.push(readSection(r, version, i, options));
  const file: Bw2lFile = { version, name, sections };
  if (r.hasMore) file.trailing = rawPayload(r, r.remaining, "trailing", options);
  return file;
}
