/**
 * primitiv writing: primitiv's exact MessagePack widths; payloads passed through (write) or streamed (writeTo).
 */

import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import { type ByteRange } from "../../bytes/byte-reader.js";
import { ByteWriter } from "../../bytes/byte-writer.js";

import {
  binHeaderSize,
  containerHeaderSize,
  encodeKey,
  strHeaderSize,
  writeArrayHeader,
  writeBinHeader,
  writeFloat32Bits,
  writeMapHeader,
  writeStrHeader,
  writeUint32,
} from "./msgpack.js";
import {
  type PrimitivFile,
  type PrimitivModel,
  type PrimitivOptimizer,
  type PrimitivParameter,
  type PrimitivShape,
  type PrimitivTensor,
  DATA_TYPE_CODES,
  id,
  MAX_DIMS,
  nanBits,
  VERSION,
} from "./model.js";
import { floatToBits, showShape, volume } from "./reader.js";

// ---------------------------------------------------------------------------------------------------------
// writing

export function isLoaded(data: Uint8Array | ByteRange): data is Uint8Array {
  return data instanceof Uint8Array;
}

export class Encoder {
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

export function checkShape(shape: PrimitivShape, field: string): void {
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
    throw new UnsupportedError(
      id,
      "tensor data was not loaded (a readFrom() result): read the file with read() to write it",
      undefined,
      `${field}.data`,
    );
  }
  const needed = 4 * volume(tensor.shape);
  if (data.byteLength !== needed) {
    throw new CorruptDataError(
      id,
      `data of ${data.byteLength} bytes; shape ${showShape(tensor.shape)} needs ${needed}`,
      undefined,
      `${field}.data`,
    );
  }
  return data;
}

/** Visits every tensor payload in file order with where write() puts it; returns the total size. */
export function measure(
  file: PrimitivFile,
  enc: Encoder,
  onPayload?: (tensor: PrimitivTensor, offset: number) => void,
): number {
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
      for (const [field, map] of [
        ["uintConfigs", uintConfigs],
        ["floatConfigs", floatConfigs],
      ] as const) {
        pos += containerHeaderSize(map.size);
        let i = 0;
        for (const key of map.keys()) pos += enc.strSize(key, `${field}[${i++}].key`) + 5;
      }
      break;
    }
    default:
      throw new UnsupportedError(
        id,
        `unknown data type ${JSON.stringify((file as { dataType?: unknown }).dataType)}`,
        undefined,
        "dataType",
      );
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
    throw new CorruptDataError(
      id,
      `a parameter value with batch size ${parameter.value.shape.batch}; primitiv requires 1`,
      undefined,
      `${prefix}value.shape.batch`,
    );
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
export type PrimitivFileLike =
  PrimitivFile | PrimitivModel | PrimitivParameter | PrimitivTensor | PrimitivShape | PrimitivOptimizer;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function isTensorPart(value: unknown): value is PrimitivTensor {
  return (
    isRecord(value) &&
    isRecord(value.shape) &&
    Array.isArray(value.shape.dims) &&
    typeof value.shape.batch === "number" &&
    isRecord(value.data)
  );
}

export function isParameterPart(value: unknown): value is PrimitivParameter {
  return isRecord(value) && isTensorPart(value.value) && value.stats instanceof Map;
}

/**
 * A builder's result as the file that holds it (makeModel → a Model file, makeParameter → a Parameter file, …);
 * a read() result is returned as it is. Anything else is a TypeError saying what to pass.
 */
export function asFile(input: PrimitivFileLike, caller = "primitiv.write"): PrimitivFile {
  const value: unknown = input;
  // (`in` narrows the union; JavaScript callers may pass anything, hence isRecord first)
  if (isRecord(value)) {
    if ("dataType" in input) return input; // an unknown dataType is the writer's UNSUPPORTED
    if ("parameters" in input && Array.isArray(input.parameters)) return { dataType: "model", model: input };
    if (isParameterPart(input)) return { dataType: "parameter", parameter: input };
    if (isTensorPart(input)) return { dataType: "tensor", tensor: input };
    if ("uintConfigs" in input && input.uintConfigs instanceof Map && input.floatConfigs instanceof Map)
      return { dataType: "optimizer", optimizer: input };
    if ("dims" in input && Array.isArray(input.dims) && typeof input.batch === "number")
      return { dataType: "shape", shape: input };
  }
  const shown = isRecord(value)
    ? `an object with keys ${Object.keys(value).slice(0, 6).join(", ") || "(none)"}`
    : String(value);
  throw new TypeError(
    `${caller}() takes a primitiv file (from read(), or { dataType, … }) or a builder's result (makeModel, makeParameter, makeTensor, makeShape, makeOptimizer); got ${shown}`,
  );
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
export async function writeTo(
  input: PrimitivFileLike,
  sink: ByteSink,
  options: { end?: boolean | undefined } = {},
): Promise<number> {
  return writePiecesTo(sink, encode(asFile(input, "primitiv.writeTo"), true).segments(), {
    end: options.end,
    caller: "primitiv.writeTo",
  });
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
