/**
 * primitiv reading: the 15-byte header and each data type's MessagePack objects (lengths checked before any
 * allocation), for read() (payloads as views) and readFrom() (payloads as byte ranges).
 */

import { asBytes, asSource } from "../../bytes/input.js";
import { BadMagicError, CorruptDataError, UnsupportedError, UnsupportedVersionError } from "../../bytes/errors.js";
import { type ByteRange, ByteReader } from "../../bytes/byte-reader.js";
import { parseFrom } from "../../io/lazy.js";
import { type ByteSource } from "../../io/source.js";

import {
  type LooseHandler,
  readArrayLength,
  readBinLength,
  readFloat32Bits,
  readMapLength,
  readStr,
  readUint32,
} from "./msgpack.js";
import {
  type PrimitivDataType,
  type PrimitivFile,
  type PrimitivModel,
  type PrimitivModelEntry,
  type PrimitivParameter,
  type PrimitivReadOptions,
  type PrimitivShape,
  type PrimitivTensor,
  DATA_TYPE_CODES,
  id,
  MAX_DIMS,
  nanBits,
  payloadOffsets,
  readNotes,
  VERSION,
} from "./model.js";

// ---------------------------------------------------------------------------------------------------------
// reading

interface ParseContext {
  r: ByteReader;
  eager: boolean;
  notes: string[];
  onLoose: LooseHandler;
}

const f32View = new DataView(new ArrayBuffer(4));
function bitsToFloat(bits: number): number {
  f32View.setUint32(0, bits);
  return f32View.getFloat32(0);
}
export function floatToBits(value: number): number {
  f32View.setFloat32(0, value);
  return f32View.getUint32(0);
}

function kindOfCode(code: number): PrimitivDataType | undefined {
  for (const [kind, value] of Object.entries(DATA_TYPE_CODES)) if (value === code) return kind as PrimitivDataType;
  return undefined;
}

export function hex(code: number): string {
  return `0x${code.toString(16)}`;
}

function readHeaderWord(r: ByteReader, field: string): number {
  const at = r.pos;
  const type = r.u8(field);
  if (type !== 0xce) throw new BadMagicError(id, at, field, 0xce, type);
  return r.u32(field);
}

function readShape(ctx: ParseContext, field: string): { shape: PrimitivShape; batchAt: number } {
  const { r } = ctx;
  const at = r.pos;
  const count = readArrayLength(r, `${field}.dims`, ctx.onLoose);
  if (count > MAX_DIMS) {
    throw new CorruptDataError(
      id,
      `a shape of ${count} dims; primitiv allows at most ${MAX_DIMS}`,
      at,
      `${field}.dims`,
    );
  }
  const dims: number[] = [];
  for (let i = 0; i < count; i++) {
    const dimAt = r.pos;
    const d = readUint32(r, `${field}.dims[${i}]`);
    if (d === 0)
      throw new CorruptDataError(id, "a dimension of 0 (primitiv: invalid shape)", dimAt, `${field}.dims[${i}]`);
    dims.push(d);
  }
  const batchAt = r.pos;
  const batch = readUint32(r, `${field}.batch`);
  if (batch === 0)
    throw new CorruptDataError(id, "a batch size of 0 (primitiv: invalid shape)", batchAt, `${field}.batch`);
  return { shape: { dims, batch }, batchAt };
}

export function volume(shape: PrimitivShape): number {
  let n = shape.batch;
  for (const d of shape.dims) n *= d;
  return n;
}

export function showShape(shape: PrimitivShape): string {
  return `[${shape.dims.join(",")}]x${shape.batch}`;
}

function readTensor(ctx: ParseContext, field: string): { tensor: PrimitivTensor; batchAt: number } {
  const { r } = ctx;
  const { shape, batchAt } = readShape(ctx, `${field}.shape`);
  const at = r.pos;
  const length = readBinLength(r, `${field}.data`, ctx.onLoose);
  const needed = 4 * volume(shape);
  if (length !== needed) {
    throw new CorruptDataError(
      id,
      `data of ${length} bytes; shape ${showShape(shape)} needs ${needed} (4 x volume x batch)`,
      at,
      `${field}.data`,
    );
  }
  let data: Uint8Array | ByteRange;
  if (ctx.eager) {
    const dataAt = r.pos;
    const view = r.bytesView(length, `${field}.data`);
    payloadOffsets.set(view, dataAt);
    data = view;
  } else {
    data = r.range(length, `${field}.data`);
  }
  return { tensor: { shape, data }, batchAt };
}

/** Smallest possible encodings, for checking declared counts against the bytes left before looping. */
const MIN_TENSOR_BYTES = 1 + 5 + 2 + 4; // fixarray, batch, bin8 header, one float
const MIN_STAT_BYTES = 1 + MIN_TENSOR_BYTES;
const MIN_PARAMETER_BYTES = MIN_TENSOR_BYTES + 5;
const MIN_MODEL_ENTRY_BYTES = 1 + MIN_PARAMETER_BYTES;
const MIN_CONFIG_BYTES = 1 + 5;

function readParameter(ctx: ParseContext, field: string): PrimitivParameter {
  const { r } = ctx;
  const prefix = field ? `${field}.` : "";
  const { tensor: value, batchAt } = readTensor(ctx, `${prefix}value`);
  if (value.shape.batch !== 1) {
    throw new CorruptDataError(
      id,
      `a parameter value with batch size ${value.shape.batch}; primitiv requires 1`,
      batchAt,
      `${prefix}value.shape.batch`,
    );
  }
  const countField = `${prefix}stats.count`;
  const count = r.count(readUint32(r, countField), MIN_STAT_BYTES, countField);
  const stats = new Map<string, PrimitivTensor>();
  for (let i = 0; i < count; i++) {
    const keyAt = r.pos;
    const key = readStr(r, `${prefix}stats[${i}].key`, ctx.onLoose);
    if (stats.has(key)) {
      throw new CorruptDataError(
        id,
        `duplicate stats key ${JSON.stringify(key)} (primitiv keeps the first)`,
        keyAt,
        `${prefix}stats[${i}].key`,
      );
    }
    stats.set(key, readTensor(ctx, `${prefix}stats[${i}]`).tensor);
  }
  return { value, stats };
}

function readModel(ctx: ParseContext): PrimitivModel {
  const { r } = ctx;
  const count = r.count(readUint32(r, "parameters.count"), MIN_MODEL_ENTRY_BYTES, "parameters.count");
  const parameters: PrimitivModelEntry[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const field = `parameters[${i}]`;
    const at = r.pos;
    const length = r.count(readArrayLength(r, `${field}.path`, ctx.onLoose), 1, `${field}.path`);
    const path: string[] = [];
    for (let j = 0; j < length; j++) path.push(readStr(r, `${field}.path[${j}]`, ctx.onLoose));
    const unique = JSON.stringify(path);
    if (seen.has(unique)) {
      throw new CorruptDataError(
        id,
        `duplicate parameter key path ${unique} (primitiv loads it twice, the last wins)`,
        at,
        `${field}.path`,
      );
    }
    seen.add(unique);
    parameters.push({ path, parameter: readParameter(ctx, field) });
  }
  return { parameters };
}

function readConfigMap(
  ctx: ParseContext,
  field: string,
  float: boolean,
): { values: Map<string, number>; nan?: Map<string, number> } {
  const { r } = ctx;
  const count = r.count(readMapLength(r, field, ctx.onLoose), MIN_CONFIG_BYTES, field);
  const values = new Map<string, number>();
  let nan: Map<string, number> | undefined;
  for (let i = 0; i < count; i++) {
    const keyAt = r.pos;
    const key = readStr(r, `${field}[${i}].key`, ctx.onLoose);
    if (values.has(key)) {
      throw new CorruptDataError(
        id,
        `duplicate key ${JSON.stringify(key)} (primitiv keeps the first)`,
        keyAt,
        `${field}[${i}].key`,
      );
    }
    if (float) {
      const bits = readFloat32Bits(r, `${field}[${i}].value`);
      const value = bitsToFloat(bits);
      if (Number.isNaN(value) && bits !== floatToBits(value)) (nan ??= new Map()).set(key, bits);
      values.set(key, value);
    } else {
      values.set(key, readUint32(r, `${field}[${i}].value`));
    }
  }
  return nan ? { values, nan } : { values };
}

function parse(r: ByteReader, eager: boolean, options: PrimitivReadOptions = {}): PrimitivFile {
  const notes: string[] = [];
  const ctx: ParseContext = {
    r,
    eager,
    notes,
    onLoose: (offset, field, what) =>
      notes.push(`${field} at offset ${offset}: ${what}; write() uses the smallest form, as primitiv does`),
  };
  const major = readHeaderWord(r, "header.major");
  const minor = readHeaderWord(r, "header.minor");
  if (major !== VERSION.major || minor !== VERSION.minor) {
    throw new UnsupportedVersionError(id, 0, "header.version", `${major}.${minor}`, [
      `${VERSION.major}.${VERSION.minor}`,
    ]);
  }
  const codeAt = r.pos;
  const code = readHeaderWord(r, "header.dataType");
  const kind = kindOfCode(code);
  if (kind === undefined) {
    throw new UnsupportedError(
      id,
      `unknown data type ${hex(code)} (primitiv knows 0x0, 0x100, 0x200, 0x300, 0x400)`,
      codeAt,
      "header.dataType",
    );
  }
  if (options.expect !== undefined && options.expect !== kind) {
    throw new BadMagicError(id, codeAt, "header.dataType", DATA_TYPE_CODES[options.expect], code);
  }
  let file: PrimitivFile;
  switch (kind) {
    case "shape":
      file = { dataType: kind, shape: readShape(ctx, "shape").shape };
      break;
    case "tensor":
      file = { dataType: kind, tensor: readTensor(ctx, "tensor").tensor };
      break;
    case "parameter":
      file = { dataType: kind, parameter: readParameter(ctx, "") };
      break;
    case "model":
      file = { dataType: kind, model: readModel(ctx) };
      break;
    case "optimizer": {
      const uints = readConfigMap(ctx, "uintConfigs", false);
      const floats = readConfigMap(ctx, "floatConfigs", true);
      if (floats.nan) nanBits.set(floats.values, floats.nan);
      file = { dataType: kind, optimizer: { uintConfigs: uints.values, floatConfigs: floats.values } };
      break;
    }
  }
  if (r.pos < r.end) {
    throw new CorruptDataError(id, `${r.end - r.pos} bytes after the end of the ${kind}`, r.pos, "end");
  }
  if (notes.length > 0) readNotes.set(file, notes);
  return file;
}

/** The whole file. Tensor data are views into `bytes` (no copy). Only FormatErrors escape. */
export function read(bytes: Uint8Array, options?: PrimitivReadOptions): PrimitivFile {
  return parse(new ByteReader(asBytes(bytes, "primitiv.read"), id, { littleEndian: false }), true, options);
}

/**
 * The same object as read() with every tensor's data left as a ByteRange: the MessagePack stream is scanned
 * in order and each `bin` payload is skipped, so the data is never fetched.
 */
export async function readFrom(source: ByteSource, options?: PrimitivReadOptions): Promise<PrimitivFile> {
  return parseFrom(asSource(source, "primitiv.readFrom"), id, (backing) =>
    parse(new ByteReader(backing, id, { littleEndian: false }), false, options),
  );
}
