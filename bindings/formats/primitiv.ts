/**
 * primitiv File Format v0.1 (primitiv C++ @db14ca44: Parameter/Model/Optimizer::save and load).
 *
 * A file is a plain sequence of MessagePack objects (no outer container), big-endian except the tensor data:
 *
 *   header   ce 00000000  ce 00000001  ce <data type>        major 0, minor 1 (15 bytes, always uint32 0xce)
 *            data type 0x0 Shape, 0x100 Tensor, 0x200 Parameter, 0x300 Model, 0x400 Optimizer
 *   Shape     = dims: array of uint32 (ce), at most 8, none 0, trailing 1s stripped by the writer; batch: uint32
 *   Tensor    = Shape, data: bin (c4/c5/c6) of 4 x volume x batch bytes: float32 little-endian, column-major
 *               within a sample (element [i0][i1]… at i0 + d0 * (i1 + …)), samples one after another (batch last)
 *   Parameter = value: Tensor (batch 1), N: uint32, N x (key: str, stat: Tensor)      stats in file order
 *   Model     = N: uint32, N x (key path: array of str, Parameter)    primitiv writes them sorted by key path
 *   Optimizer = uint configs: map str -> uint32 (ce), float configs: map str -> float32 (ca)    file order
 *
 * The file must end with its last object (primitiv does not check; we do), and map keys, stat keys and model
 * key paths must be unique (primitiv silently keeps one; we refuse). See primitiv/msgpack.ts for the subset of
 * MessagePack: the reader takes every length form primitiv takes, the writer emits primitiv's exact widths.
 *
 * Object model: tensor data stays raw (the stored column-major little-endian bytes; from read() a view into
 * the input, from readFrom() a ByteRange). `tensors()` gives row-major float32 for the logical shape
 * `[batch, ...dims]` (batch only when > 1). `makeTensor`/`makeParameter`/`makeModel`/`makeOptimizer` build
 * objects for write() from row-major data.
 */
import { assertEager } from "../io/lazy.js";
import { type ByteSink, writePiecesTo } from "../export/stream.js";
import { asBytes, asSource, bytesOrUndefined } from "../io/input.js";
import { BadMagicError, CorruptDataError, UnsupportedError, UnsupportedVersionError } from "../errors.js";
import { type ByteRange, ByteReader } from "../io/byte-reader.js";
import { ByteWriter } from "../io/byte-writer.js";
import { parseFrom } from "../io/lazy.js";
import { type ByteSource, readExactly } from "../io/source.js";
import * as kernels from "../kernels.js";
import { type DecodeOptions, type NamedTensor, type TensorInfo, bytesOf, decodeTensor } from "../tensor.js";
import {
  type LooseHandler, binHeaderSize, containerHeaderSize, decodeKeyBytes, encodeKey, hasEscapedBytes,
  readArrayLength, readBinLength, readFloat32Bits, readMapLength, readStr, readUint32, strHeaderSize,
  writeArrayHeader, writeBinHeader, writeFloat32Bits, writeMapHeader, writeStrHeader, writeUint32,
} from "./primitiv/msgpack.js";
import type { EmbeddedBlob, InspectResult, InspectTensor } from "./types.js";

export const id = "primitiv" as const;
export const extensions: readonly string[] = [".param", ".model", ".optimizer", ".tensor", ".shape"];

// ---------------------------------------------------------------------------------------------------------
// object model

export type PrimitivDataType = "shape" | "tensor" | "parameter" | "model" | "optimizer";

/** The data_type word of each kind (primitiv/core/file_format.h). */
export const DATA_TYPE_CODES: Readonly<Record<PrimitivDataType, number>> = {
  shape: 0x0,
  tensor: 0x100,
  parameter: 0x200,
  model: 0x300,
  optimizer: 0x400,
};

/** The one version primitiv reads and writes. */
export const VERSION = { major: 0, minor: 1 } as const;

/** primitiv's Shape::MAX_DEPTH. */
export const MAX_DIMS = 8;

export interface PrimitivShape {
  /** As stored (primitiv's writer strips trailing 1s; a scalar is []). */
  dims: number[];
  batch: number;
}

export interface PrimitivTensor {
  shape: PrimitivShape;
  /**
   * The stored bytes: float32 little-endian, column-major per sample, samples in order (batch last).
   * From read(): a view into the input (no copy). From readFrom(): the range in the file.
   */
  data: Uint8Array | ByteRange;
}

export interface PrimitivParameter {
  value: PrimitivTensor;
  /** Optimizer statistics in file order (primitiv writes unordered_map order). */
  stats: Map<string, PrimitivTensor>;
}

export interface PrimitivModelEntry {
  /** The key path (a parameter `w` of a sub-model `sub` is ["sub", "w"]). */
  path: string[];
  parameter: PrimitivParameter;
}

export interface PrimitivModel {
  /** In file order (primitiv writes them sorted by key path, see makeModel). */
  parameters: PrimitivModelEntry[];
}

export interface PrimitivOptimizer {
  /** In file order. */
  uintConfigs: Map<string, number>;
  /** In file order; values are float32 values (a double holding the float exactly). */
  floatConfigs: Map<string, number>;
}

export type PrimitivFile =
  | { dataType: "shape"; shape: PrimitivShape }
  | { dataType: "tensor"; tensor: PrimitivTensor }
  | { dataType: "parameter"; parameter: PrimitivParameter }
  | { dataType: "model"; model: PrimitivModel }
  | { dataType: "optimizer"; optimizer: PrimitivOptimizer };

export interface PrimitivReadOptions {
  /** The data type the caller expects (as primitiv's loaders do); BAD_MAGIC when the file holds another. */
  expect?: PrimitivDataType | undefined;
}

/** A TensorInfo that also says how many samples the data holds (they are stored one after another). */
export interface PrimitivTensorInfo extends TensorInfo {
  batch: number;
}

/** Absolute file offsets of the tensor payloads read by read() (the objects stay plain). */
const payloadOffsets = new WeakMap<Uint8Array, number>();
/** What read() noticed but accepted (non-minimal length forms), for verify(). */
const readNotes = new WeakMap<object, string[]>();
/** The exact bits of NaN float configs whose payload is not the canonical quiet NaN, so write(read(x)) == x. */
const nanBits = new WeakMap<Map<string, number>, Map<string, number>>();

// ---------------------------------------------------------------------------------------------------------
// detect

/** The 15-byte header `ce 00000000 ce 00000001 ce <data type>`. Never throws. */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head || head.length < 15) return false;
  const prefix = [0xce, 0, 0, 0, 0, 0xce, 0, 0, 0, 1, 0xce];
  for (let i = 0; i < prefix.length; i++) if (head[i] !== prefix[i]) return false;
  return true;
}

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
function floatToBits(value: number): number {
  f32View.setFloat32(0, value);
  return f32View.getUint32(0);
}

function kindOfCode(code: number): PrimitivDataType | undefined {
  for (const [kind, value] of Object.entries(DATA_TYPE_CODES)) if (value === code) return kind as PrimitivDataType;
  return undefined;
}

function hex(code: number): string {
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
    throw new CorruptDataError(id, `a shape of ${count} dims; primitiv allows at most ${MAX_DIMS}`, at, `${field}.dims`);
  }
  const dims: number[] = [];
  for (let i = 0; i < count; i++) {
    const dimAt = r.pos;
    const d = readUint32(r, `${field}.dims[${i}]`);
    if (d === 0) throw new CorruptDataError(id, "a dimension of 0 (primitiv: invalid shape)", dimAt, `${field}.dims[${i}]`);
    dims.push(d);
  }
  const batchAt = r.pos;
  const batch = readUint32(r, `${field}.batch`);
  if (batch === 0) throw new CorruptDataError(id, "a batch size of 0 (primitiv: invalid shape)", batchAt, `${field}.batch`);
  return { shape: { dims, batch }, batchAt };
}

function volume(shape: PrimitivShape): number {
  let n = shape.batch;
  for (const d of shape.dims) n *= d;
  return n;
}

function showShape(shape: PrimitivShape): string {
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
      id, `data of ${length} bytes; shape ${showShape(shape)} needs ${needed} (4 x volume x batch)`, at, `${field}.data`,
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
      id, `a parameter value with batch size ${value.shape.batch}; primitiv requires 1`, batchAt, `${prefix}value.shape.batch`,
    );
  }
  const countField = `${prefix}stats.count`;
  const count = r.count(readUint32(r, countField), MIN_STAT_BYTES, countField);
  const stats = new Map<string, PrimitivTensor>();
  for (let i = 0; i < count; i++) {
    const keyAt = r.pos;
    const key = readStr(r, `${prefix}stats[${i}].key`, ctx.onLoose);
    if (stats.has(key)) {
      throw new CorruptDataError(id, `duplicate stats key ${JSON.stringify(key)} (primitiv keeps the first)`, keyAt, `${prefix}stats[${i}].key`);
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
      throw new CorruptDataError(id, `duplicate parameter key path ${unique} (primitiv loads it twice, the last wins)`, at, `${field}.path`);
    }
    seen.add(unique);
    parameters.push({ path, parameter: readParameter(ctx, field) });
  }
  return { parameters };
}

function readConfigMap(ctx: ParseContext, field: string, float: boolean): { values: Map<string, number>; nan?: Map<string, number> } {
  const { r } = ctx;
  const count = r.count(readMapLength(r, field, ctx.onLoose), MIN_CONFIG_BYTES, field);
  const values = new Map<string, number>();
  let nan: Map<string, number> | undefined;
  for (let i = 0; i < count; i++) {
    const keyAt = r.pos;
    const key = readStr(r, `${field}[${i}].key`, ctx.onLoose);
    if (values.has(key)) {
      throw new CorruptDataError(id, `duplicate key ${JSON.stringify(key)} (primitiv keeps the first)`, keyAt, `${field}[${i}].key`);
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
    onLoose: (offset, field, what) => notes.push(`${field} at offset ${offset}: ${what}; write() uses the smallest form, as primitiv does`),
  };
  const major = readHeaderWord(r, "header.major");
  const minor = readHeaderWord(r, "header.minor");
  if (major !== VERSION.major || minor !== VERSION.minor) {
    throw new UnsupportedVersionError(id, 0, "header.version", `${major}.${minor}`, [`${VERSION.major}.${VERSION.minor}`]);
  }
  const codeAt = r.pos;
  const code = readHeaderWord(r, "header.dataType");
  const kind = kindOfCode(code);
  if (kind === undefined) {
    throw new UnsupportedError(id, `unknown data type ${hex(code)} (primitiv knows 0x0, 0x100, 0x200, 0x300, 0x400)`, codeAt, "header.dataType");
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
  return parseFrom(asSource(source, "primitiv.readFrom"), id, (backing) => parse(new ByteReader(backing, id, { littleEndian: false }), false, options));
}

// ---------------------------------------------------------------------------------------------------------
// writing

function isLoaded(data: Uint8Array | ByteRange): data is Uint8Array {
  return data instanceof Uint8Array;
}

class Encoder {
  private readonly keys = new Map<string, Uint8Array>();

  key(text: string, field: string): Uint8Array {
    let bytes = this.keys.get(text);
    if (!bytes) {
      bytes = encodeKey(text, field);
      this.keys.set(text, bytes);
    }
    return bytes;
  }

  strSize(text: string, field: string): number {
    const n = this.key(text, field).length;
    return strHeaderSize(n) + n;
  }
}

function checkShape(shape: PrimitivShape, field: string): void {
  const { dims, batch } = shape;
  if (!Array.isArray(dims) || dims.length > MAX_DIMS) {
    throw new CorruptDataError(id, `dims must be an array of at most ${MAX_DIMS} sizes`, undefined, `${field}.dims`);
  }
  dims.forEach((d, i) => {
    if (!Number.isInteger(d) || d < 1 || d > 0xffffffff) {
      throw new CorruptDataError(id, `dimension ${String(d)} is not a uint32 >= 1`, undefined, `${field}.dims[${i}]`);
    }
  });
  if (!Number.isInteger(batch) || batch < 1 || batch > 0xffffffff) {
    throw new CorruptDataError(id, `batch ${String(batch)} is not a uint32 >= 1`, undefined, `${field}.batch`);
  }
}

function tensorData(tensor: PrimitivTensor, field: string): Uint8Array {
  const { data } = tensor;
  if (!isLoaded(data)) {
    throw new UnsupportedError(id, "tensor data was not loaded (a readFrom() result): read the file with read() to write it", undefined, `${field}.data`);
  }
  const needed = 4 * volume(tensor.shape);
  if (data.byteLength !== needed) {
    throw new CorruptDataError(id, `data of ${data.byteLength} bytes; shape ${showShape(tensor.shape)} needs ${needed}`, undefined, `${field}.data`);
  }
  return data;
}

/** Visits every tensor payload in file order with where write() puts it; returns the total size. */
function measure(file: PrimitivFile, enc: Encoder, onPayload?: (tensor: PrimitivTensor, offset: number) => void): number {
  let pos = 15;
  const shape = (s: PrimitivShape, field: string) => {
    checkShape(s, field);
    pos += containerHeaderSize(s.dims.length) + 5 * s.dims.length + 5;
  };
  const tensor = (t: PrimitivTensor, field: string) => {
    shape(t.shape, `${field}.shape`);
    const length = t.data.byteLength;
    pos += binHeaderSize(length);
    onPayload?.(t, pos);
    pos += length;
  };
  const parameter = (p: PrimitivParameter, prefix: string) => {
    tensor(p.value, `${prefix}value`);
    pos += 5;
    let i = 0;
    for (const [key, stat] of p.stats) {
      pos += enc.strSize(key, `${prefix}stats[${i}].key`);
      tensor(stat, `${prefix}stats[${i}]`);
      i++;
    }
  };
  switch (file.dataType) {
    case "shape":
      shape(file.shape, "shape");
      break;
    case "tensor":
      tensor(file.tensor, "tensor");
      break;
    case "parameter":
      parameter(file.parameter, "");
      break;
    case "model":
      pos += 5;
      file.model.parameters.forEach((entry, i) => {
        pos += containerHeaderSize(entry.path.length);
        entry.path.forEach((part, j) => (pos += enc.strSize(part, `parameters[${i}].path[${j}]`)));
        parameter(entry.parameter, `parameters[${i}].`);
      });
      break;
    case "optimizer": {
      const { uintConfigs, floatConfigs } = file.optimizer;
      for (const [field, map] of [["uintConfigs", uintConfigs], ["floatConfigs", floatConfigs]] as const) {
        pos += containerHeaderSize(map.size);
        let i = 0;
        for (const key of map.keys()) pos += enc.strSize(key, `${field}[${i++}].key`) + 5;
      }
      break;
    }
    default:
      throw new UnsupportedError(id, `unknown data type ${JSON.stringify((file as { dataType?: unknown }).dataType)}`, undefined, "dataType");
  }
  return pos;
}

function writeStr(w: ByteWriter, enc: Encoder, text: string, field: string): void {
  const bytes = enc.key(text, field);
  writeStrHeader(w, bytes.length, field);
  w.bytes(bytes);
}

function writeShape(w: ByteWriter, shape: PrimitivShape, field: string): void {
  writeArrayHeader(w, shape.dims.length, `${field}.dims`);
  shape.dims.forEach((d, i) => writeUint32(w, d, `${field}.dims[${i}]`));
  writeUint32(w, shape.batch, `${field}.batch`);
}

function writeTensor(w: ByteWriter, tensor: PrimitivTensor, field: string): void {
  const data = tensorData(tensor, field);
  writeShape(w, tensor.shape, `${field}.shape`);
  writeBinHeader(w, data.byteLength, `${field}.data`);
  w.bytes(data);
}

function writeParameter(w: ByteWriter, enc: Encoder, parameter: PrimitivParameter, prefix: string): void {
  if (parameter.value.shape.batch !== 1) {
    throw new CorruptDataError(id, `a parameter value with batch size ${parameter.value.shape.batch}; primitiv requires 1`, undefined, `${prefix}value.shape.batch`);
  }
  writeTensor(w, parameter.value, `${prefix}value`);
  writeUint32(w, parameter.stats.size, `${prefix}stats.count`);
  let i = 0;
  for (const [key, stat] of parameter.stats) {
    writeStr(w, enc, key, `${prefix}stats[${i}].key`);
    writeTensor(w, stat, `${prefix}stats[${i}]`);
    i++;
  }
}

/** What write(), tensors(), inspect() and verify() take: a read() result, or what a make* builder returned. */
export type PrimitivFileLike = PrimitivFile | PrimitivModel | PrimitivParameter | PrimitivTensor | PrimitivShape | PrimitivOptimizer;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isTensorPart(value: unknown): value is PrimitivTensor {
  return isRecord(value) && isRecord(value.shape) && Array.isArray(value.shape.dims) && typeof value.shape.batch === "number" && isRecord(value.data);
}

function isParameterPart(value: unknown): value is PrimitivParameter {
  return isRecord(value) && isTensorPart(value.value) && value.stats instanceof Map;
}

/**
 * A builder's result as the file that holds it (makeModel → a Model file, makeParameter → a Parameter file, …);
 * a read() result is returned as it is. Anything else is a TypeError saying what to pass.
 */
export function asFile(input: PrimitivFileLike, caller = "primitiv.write"): PrimitivFile {
  const value: unknown = input;
  if (isRecord(value) && "dataType" in value) return value as unknown as PrimitivFile; // an unknown dataType is the writer's UNSUPPORTED
  if (isRecord(value) && Array.isArray(value.parameters)) return { dataType: "model", model: value as unknown as PrimitivModel };
  if (isParameterPart(value)) return { dataType: "parameter", parameter: value };
  if (isTensorPart(value)) return { dataType: "tensor", tensor: value };
  if (isRecord(value) && value.uintConfigs instanceof Map && value.floatConfigs instanceof Map) return { dataType: "optimizer", optimizer: value as unknown as PrimitivOptimizer };
  if (isRecord(value) && Array.isArray(value.dims) && typeof value.batch === "number") return { dataType: "shape", shape: value as unknown as PrimitivShape };
  const shown = isRecord(value) ? `an object with keys ${Object.keys(value).slice(0, 6).join(", ") || "(none)"}` : String(value);
  throw new TypeError(`${caller}() takes a primitiv file (from read(), or { dataType, … }) or a builder's result (makeModel, makeParameter, makeTensor, makeShape, makeOptimizer); got ${shown}`);
}

/**
 * The file bytes, exactly as primitiv writes them: uint32 always `ce`, floats `ca`, smallest str/bin/array/map
 * forms; parameters, stats and configs in the object's order (build models with makeModel for primitiv's
 * sorted order). Tensors must hold their bytes (a read() result or built), not ByteRanges.
 */
export function write(input: PrimitivFileLike, _options?: Record<string, never>): Uint8Array {
  return encode(asFile(input, "primitiv.write"), false).finish();
}

/**
 * write() into a sink (a function, a WritableStream or a Node Writable) piece by piece: tensor payloads go out as
 * they are, with no second copy of the file in memory. Resolves to the byte count.
 */
export async function writeTo(input: PrimitivFileLike, sink: ByteSink, options: { end?: boolean | undefined } = {}): Promise<number> {
  return writePiecesTo(sink, encode(asFile(input, "primitiv.writeTo"), true).segments(), { end: options.end, caller: "primitiv.writeTo" });
}

function encode(file: PrimitivFile, passThrough: boolean): ByteWriter {
  const enc = new Encoder();
  const size = measure(file, enc);
  const w = new ByteWriter(size, false, { passThrough });
  writeUint32(w, VERSION.major, "header.major");
  writeUint32(w, VERSION.minor, "header.minor");
  writeUint32(w, DATA_TYPE_CODES[file.dataType], "header.dataType");
  switch (file.dataType) {
    case "shape":
      writeShape(w, file.shape, "shape");
      break;
    case "tensor":
      writeTensor(w, file.tensor, "tensor");
      break;
    case "parameter":
      writeParameter(w, enc, file.parameter, "");
      break;
    case "model":
      writeUint32(w, file.model.parameters.length, "parameters.count");
      file.model.parameters.forEach((entry, i) => {
        writeArrayHeader(w, entry.path.length, `parameters[${i}].path`);
        entry.path.forEach((part, j) => writeStr(w, enc, part, `parameters[${i}].path[${j}]`));
        writeParameter(w, enc, entry.parameter, `parameters[${i}].`);
      });
      break;
    case "optimizer": {
      const { uintConfigs, floatConfigs } = file.optimizer;
      writeMapHeader(w, uintConfigs.size, "uintConfigs");
      let i = 0;
      for (const [key, value] of uintConfigs) {
        writeStr(w, enc, key, `uintConfigs[${i}].key`);
        writeUint32(w, value, `uintConfigs[${i++}].value`);
      }
      writeMapHeader(w, floatConfigs.size, "floatConfigs");
      const exact = nanBits.get(floatConfigs);
      i = 0;
      for (const [key, value] of floatConfigs) {
        writeStr(w, enc, key, `floatConfigs[${i++}].key`);
        const bits = Number.isNaN(value) ? exact?.get(key) : undefined;
        writeFloat32Bits(w, bits ?? floatToBits(value));
      }
      break;
    }
  }
  if (w.length !== size) throw new Error(`primitiv: internal error: measured ${size} bytes, wrote ${w.length}`);
  return w;
}

// ---------------------------------------------------------------------------------------------------------
// the uniform tensor view

/** The contract's logical shape: the stored dims with batch prepended when batch > 1 (a scalar is []). */
export function logicalShape(shape: PrimitivShape): number[] {
  return shape.batch > 1 ? [shape.batch, ...shape.dims] : shape.dims.slice();
}

/** Every tensor with its contract name, in file order. */
export function namedTensors(input: PrimitivFileLike): { name: string; tensor: PrimitivTensor }[] {
  const file = asFile(input, "primitiv.namedTensors");
  const out: { name: string; tensor: PrimitivTensor }[] = [];
  const parameter = (p: PrimitivParameter, base: string, statsPrefix: string) => {
    out.push({ name: base, tensor: p.value });
    for (const [key, stat] of p.stats) out.push({ name: `${statsPrefix}stats/${key}`, tensor: stat });
  };
  switch (file.dataType) {
    case "tensor":
      out.push({ name: "tensor", tensor: file.tensor });
      break;
    case "parameter":
      parameter(file.parameter, "value", "");
      break;
    case "model":
      for (const entry of file.model.parameters) {
        const name = entry.path.join(".");
        parameter(entry.parameter, name, `${name}/`);
      }
      break;
    default:
      break;
  }
  return out;
}

/**
 * Where each tensor's data is: the offsets recorded by read() / readFrom(); for objects built in memory,
 * where write() would put them.
 */
export function tensorInfos(input: PrimitivFileLike): PrimitivTensorInfo[] {
  const file = asFile(input, "primitiv.tensorInfos");
  const named = namedTensors(file);
  let computed: Map<PrimitivTensor, number> | undefined;
  return named.map(({ name, tensor }) => {
    const { data, shape } = tensor;
    let byteOffset = !isLoaded(data) ? data.byteOffset : payloadOffsets.get(data);
    if (byteOffset === undefined) {
      if (!computed) {
        const offsets = new Map<PrimitivTensor, number>();
        measure(file, new Encoder(), (t, offset) => offsets.set(t, offset));
        computed = offsets;
      }
      byteOffset = computed.get(tensor)!;
    }
    return {
      name,
      dtype: "float32",
      shape: logicalShape(shape),
      byteOffset,
      byteLength: data.byteLength,
      byteOrder: "le",
      layout: "column-major",
      batch: shape.batch,
      format: id,
    };
  });
}

/** Stored bytes to row-major float32 for the logical shape: each sample is one column-major block. */
function decodeStored(bytes: Uint8Array, info: TensorInfo, options: DecodeOptions = {}): NamedTensor {
  const batch = (info as Partial<PrimitivTensorInfo>).batch ?? 1;
  if (batch <= 1) return decodeTensor(bytes, info, options, id);
  const dims = info.shape.slice(1);
  if (dims.filter((d) => d > 1).length <= 1) return decodeTensor(bytes, { ...info, layout: "row-major" }, options, id);
  const count = info.shape.reduce((a, b) => a * b, 1);
  if (bytes.byteLength !== 4 * count) {
    throw new CorruptDataError(id, `tensor "${info.name}" has ${bytes.byteLength} bytes; shape [${info.shape.join(", ")}] needs ${4 * count}`, info.byteOffset, info.name);
  }
  const out = new Float32Array(count);
  const outBytes = bytesOf(out);
  const sampleBytes = bytes.byteLength / batch;
  for (let b = 0; b < batch; b++) {
    const from = b * sampleBytes;
    kernels.reorderColumnMajorBytes(bytes.subarray(from, from + sampleBytes), outBytes.subarray(from, from + sampleBytes), dims, 4);
  }
  return { name: info.name, dtype: "float32", shape: info.shape.slice(), data: out };
}

/**
 * Every tensor as row-major float32 for its logical shape (names: `tensor`; `value`, `stats/<key>`;
 * `<k1>.<k2>…`, `<k1>.<k2>…/stats/<key>`). Needs a read() result. 1-D data is a view into the input when aligned.
 */
export function tensors(input: PrimitivFileLike, options?: DecodeOptions): NamedTensor[] {
  const file = asFile(input, "primitiv.tensors");
  assertEager(file, id);
  const named = namedTensors(file);
  const infos = tensorInfos(file);
  return named.map(({ tensor }, i) => {
    const info = infos[i]!;
    if (!isLoaded(tensor.data)) {
      throw new UnsupportedError(id, "tensor data was not loaded (a readFrom() result): use loadTensor()", info.byteOffset, info.name);
    }
    return decodeStored(tensor.data, info, options);
  });
}

/** Reads one tensor of a readFrom() result from its source and decodes it like tensors(). */
export async function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  const bytes = await readExactly(source, info.byteOffset, info.byteLength, id, info.name);
  return decodeStored(bytes, info, { ...options, copy: false });
}

/** Row-major float32 data of one tensor for its logical shape (the inverse of makeTensor). */
export function tensorValues(tensor: PrimitivTensor): Float32Array {
  if (!isLoaded(tensor.data)) throw new UnsupportedError(id, "tensor data was not loaded (a readFrom() result): use loadTensor()");
  const info: PrimitivTensorInfo = {
    name: "tensor", dtype: "float32", shape: logicalShape(tensor.shape), byteOffset: payloadOffsets.get(tensor.data) ?? 0,
    byteLength: tensor.data.byteLength, byteOrder: "le", layout: "column-major", batch: tensor.shape.batch,
  };
  return decodeStored(tensor.data, info).data as Float32Array;
}

// ---------------------------------------------------------------------------------------------------------
// building objects for write()

/** A Shape as primitiv holds it: trailing 1s are dropped (Shape::dims()), inner 1s kept. */
export function makeShape(dims: readonly number[], batch = 1): PrimitivShape {
  const kept = dims.slice();
  while (kept.length > 0 && kept[kept.length - 1] === 1) kept.pop();
  const shape = { dims: kept, batch };
  try {
    checkShape(shape, "shape");
  } catch (error) {
    throw new RangeError((error as Error).message);
  }
  return shape;
}

/**
 * A Tensor from row-major data of the logical shape `[batch, ...dims]` (batch only when > 1): converted to
 * primitiv's column-major storage with the transpose kernel.
 */
export function makeTensor(dims: readonly number[], values: ArrayLike<number>, batch = 1): PrimitivTensor {
  const shape = makeShape(dims, batch);
  const count = volume(shape);
  if (values.length !== count) {
    throw new RangeError(`primitiv: ${values.length} values for shape ${showShape(shape)} (${count} needed)`);
  }
  const source = values instanceof Float32Array ? values : Float32Array.from(values);
  const data = new Uint8Array(4 * count);
  const sourceBytes = bytesOf(source);
  const sampleBytes = data.byteLength / shape.batch;
  const reversed = shape.dims.slice().reverse();
  for (let b = 0; b < shape.batch; b++) {
    const from = b * sampleBytes;
    kernels.reorderColumnMajorBytes(sourceBytes.subarray(from, from + sampleBytes), data.subarray(from, from + sampleBytes), reversed, 4);
  }
  return { shape, data };
}

type Entries<V> = Iterable<readonly [string, V]> | Readonly<Record<string, V>>;

function entriesOf<V>(input: Entries<V>): [string, V][] {
  if (Symbol.iterator in Object(input)) return Array.from(input as Iterable<readonly [string, V]>, ([k, v]) => [k, v]);
  return Object.entries(input as Record<string, V>);
}

/** A Parameter (value batch must be 1) with stats in the given order. */
export function makeParameter(value: PrimitivTensor, stats: Entries<PrimitivTensor> = []): PrimitivParameter {
  if (value.shape.batch !== 1) throw new RangeError(`primitiv: a parameter value must have batch size 1, not ${value.shape.batch}`);
  const map = new Map<string, PrimitivTensor>();
  for (const [key, tensor] of entriesOf(stats)) {
    if (map.has(key)) throw new RangeError(`primitiv: duplicate stats key ${JSON.stringify(key)}`);
    map.set(key, tensor);
  }
  return { value, stats: map };
}

const keyEncoder = new TextEncoder();

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** std::map<std::vector<std::string>> order: element by element, each compared byte-wise (unsigned). */
export function compareKeyPaths(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = hasEscapedBytes(a[i]!) || hasEscapedBytes(b[i]!)
      ? compareBytes(encodeKey(a[i]!, "path"), encodeKey(b[i]!, "path"))
      : compareBytes(keyEncoder.encode(a[i]!), keyEncoder.encode(b[i]!));
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** A key path as given: ["sub", "w"], or "sub.w" (split at dots, as tensor names join them). */
export type KeyPath = readonly string[] | string;

function keyPathOf(path: unknown, where: string): string[] {
  if (typeof path === "string") return path.split(".");
  if (Array.isArray(path) && path.every((part) => typeof part === "string")) return path.slice() as string[];
  throw new TypeError(`primitiv.makeModel: ${where}: a key path is a string ("sub.w") or an array of strings (["sub", "w"]), not ${Array.isArray(path) ? "an array with non-strings" : typeof path}`);
}

/**
 * A Model with its parameters sorted by key path, as primitiv's Model::save writes them; `write()` takes it as it
 * is. Entries: `[path, parameter]` pairs (an array, a Map, any iterable) or a record `{ "sub.w": parameter }`;
 * a path is `["sub", "w"]` or `"sub.w"`; each parameter is a makeParameter() result.
 */
export function makeModel(entries: Iterable<readonly [KeyPath, PrimitivParameter]> | Readonly<Record<string, PrimitivParameter>>): PrimitivModel {
  if (!isRecord(entries)) throw new TypeError(`primitiv.makeModel() takes [path, parameter] pairs or a record { "sub.w": parameter }, not ${String(entries)}`);
  const pairs: unknown[] = Symbol.iterator in entries ? Array.from(entries as Iterable<unknown>) : Object.entries(entries);
  const parameters = pairs.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new TypeError(`primitiv.makeModel: entry ${i} is not a [path, parameter] pair`);
    }
    const path = keyPathOf(pair[0], `entry ${i}`);
    if (path.length === 0) throw new RangeError(`primitiv.makeModel: entry ${i} has an empty key path`);
    if (!isParameterPart(pair[1])) {
      const hint = isTensorPart(pair[1]) ? " (a tensor: wrap it with makeParameter(tensor))" : "";
      throw new TypeError(`primitiv.makeModel: entry ${i} (${path.join(".")}) is not a parameter${hint}`);
    }
    return { path, parameter: pair[1] };
  });
  parameters.sort((x, y) => compareKeyPaths(x.path, y.path));
  for (let i = 1; i < parameters.length; i++) {
    if (compareKeyPaths(parameters[i - 1]!.path, parameters[i]!.path) === 0) {
      throw new RangeError(`primitiv: duplicate parameter key path ${JSON.stringify(parameters[i]!.path)}`);
    }
  }
  return { parameters };
}

/** An Optimizer's config maps in the given order; float values are rounded to float32 as primitiv stores them. */
export function makeOptimizer(uintConfigs: Entries<number>, floatConfigs: Entries<number>): PrimitivOptimizer {
  const uints = new Map<string, number>();
  for (const [key, value] of entriesOf(uintConfigs)) {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`primitiv: ${key} = ${value} is not a uint32`);
    uints.set(key, value);
  }
  const floats = new Map<string, number>();
  for (const [key, value] of entriesOf(floatConfigs)) floats.set(key, Math.fround(value));
  return { uintConfigs: uints, floatConfigs: floats };
}

// ---------------------------------------------------------------------------------------------------------
// inspect, verify, blobs

function jsonNumber(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

function shapeJson(shape: PrimitivShape): { dims: number[]; batch: number } {
  return { dims: shape.dims.slice(), batch: shape.batch };
}

function parameterJson(p: PrimitivParameter): { value: { dims: number[]; batch: number }; stats: { key: string; dims: number[]; batch: number }[] } {
  return {
    value: shapeJson(p.value.shape),
    stats: Array.from(p.stats, ([key, t]) => ({ key, ...shapeJson(t.shape) })),
  };
}

/** What `tensorfile inspect --json` prints: data type, shapes, stats, optimizer configs (file order). */
export function inspect(input: PrimitivFileLike): InspectResult {
  const file = asFile(input, "primitiv.inspect");
  const tensorsTable: InspectTensor[] = tensorInfos(file).map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape, byteLength: t.byteLength }));
  const result: InspectResult = {
    format: id,
    version: `${VERSION.major}.${VERSION.minor}`,
    meta: { dataType: file.dataType, dataTypeCode: hex(DATA_TYPE_CODES[file.dataType]) },
    tensors: tensorsTable,
  };
  switch (file.dataType) {
    case "shape":
      result.shape = shapeJson(file.shape);
      break;
    case "tensor":
      result.tensor = shapeJson(file.tensor.shape);
      break;
    case "parameter":
      result.parameter = parameterJson(file.parameter);
      break;
    case "model":
      result.parameters = file.model.parameters.map((e) => ({ path: e.path.slice(), name: e.path.join("."), ...parameterJson(e.parameter) }));
      break;
    case "optimizer":
      result.optimizer = {
        uintConfigs: Array.from(file.optimizer.uintConfigs, ([key, value]) => ({ key, value })),
        floatConfigs: Array.from(file.optimizer.floatConfigs, ([key, value]) => ({ key, value: jsonNumber(value) })),
      };
      break;
  }
  return result;
}

/** Config keys primitiv's C++ optimizers read (optimizer.cc, optimizer_impl.cc); others are ignored on load. */
const KNOWN_UINT_CONFIGS = new Set(["Optimizer.epoch"]);
const KNOWN_FLOAT_CONFIGS = new Set([
  "Optimizer.lr_scale", "Optimizer.l2_strength", "Optimizer.clip_threshold",
  "SGD.eta", "MomentumSGD.eta", "MomentumSGD.momentum", "AdaGrad.eta", "AdaGrad.eps",
  "RMSProp.eta", "RMSProp.alpha", "RMSProp.eps", "AdaDelta.rho", "AdaDelta.eps",
  "Adam.alpha", "Adam.beta1", "Adam.beta2", "Adam.eps",
]);

/** Warnings: what primitiv would refuse or not write this way, though tensorfile reads and writes it. */
export function verify(input: PrimitivFileLike): string[] {
  const file = asFile(input, "primitiv.verify");
  const warnings = [...(readNotes.get(file) ?? [])];
  if (file.dataType === "shape" || file.dataType === "tensor") {
    warnings.push(`primitiv has no public API that loads a ${file.dataType} file (data type ${hex(DATA_TYPE_CODES[file.dataType])}); only its msgpack::Reader reads the objects`);
  }
  const checkDims = (shape: PrimitivShape, where: string) => {
    if (shape.dims.length > 0 && shape.dims[shape.dims.length - 1] === 1) {
      warnings.push(`${where}: dims [${shape.dims.join(",")}] end in 1; primitiv writes shapes without trailing 1s`);
    }
  };
  const checkKey = (key: string, where: string) => {
    if (hasEscapedBytes(key)) warnings.push(`${where}: key ${JSON.stringify(key)} is not valid UTF-8 (kept byte for byte)`);
  };
  if (file.dataType === "shape") checkDims(file.shape, "shape");
  for (const { name, tensor } of namedTensors(file)) checkDims(tensor.shape, name);
  const seenNames = new Set<string>();
  for (const { name } of namedTensors(file)) {
    if (seenNames.has(name)) warnings.push(`two tensors are both named ${JSON.stringify(name)} (a key holds "." or "/stats/")`);
    seenNames.add(name);
  }
  if (file.dataType === "parameter") for (const key of file.parameter.stats.keys()) checkKey(key, "stats");
  if (file.dataType === "model") {
    const entries = file.model.parameters;
    entries.forEach((entry, i) => {
      entry.path.forEach((part) => checkKey(part, `parameters[${i}].path`));
      for (const key of entry.parameter.stats.keys()) checkKey(key, `parameters[${i}].stats`);
      if (i > 0 && compareKeyPaths(entries[i - 1]!.path, entry.path) >= 0) {
        warnings.push(`parameters[${i}] ${JSON.stringify(entry.path)} comes after ${JSON.stringify(entries[i - 1]!.path)}: primitiv writes parameters sorted by key path`);
      }
    });
  }
  if (file.dataType === "optimizer") {
    for (const key of file.optimizer.uintConfigs.keys()) {
      checkKey(key, "uintConfigs");
      if (!KNOWN_UINT_CONFIGS.has(key)) warnings.push(`uint config ${JSON.stringify(key)} is read by none of primitiv's C++ optimizers (ignored on load)`);
    }
    for (const key of file.optimizer.floatConfigs.keys()) {
      checkKey(key, "floatConfigs");
      if (!KNOWN_FLOAT_CONFIGS.has(key)) warnings.push(`float config ${JSON.stringify(key)} is read by none of primitiv's C++ optimizers (ignored on load)`);
    }
  }
  return warnings;
}

/** primitiv files embed no other files. */
export function blobs(_file: PrimitivFile): EmbeddedBlob[] {
  return [];
}

/** The text of a raw key as tensorfile holds it (UTF-8; bytes that are not UTF-8 become U+DC80..U+DCFF). */
export function decodeKey(bytes: Uint8Array): string {
  return decodeKeyBytes(bytes);
}
// issue 15: replace tensors by name (patch)
export { replaceTensors } from "./primitiv/patch.js";
