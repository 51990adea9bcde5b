/**
 * SPRAAK views of a read file: tensor infos, tensors, loadTensor, inspect, verify, blobs and the channels of
 * sample data.
 */
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import type { ByteRange } from "../../bytes/byte-reader.js";
import * as lazy from "../../io/lazy.js";
import { assertEager } from "../../io/lazy.js";
import { type ByteSource, readExactly, sourceSize } from "../../io/source.js";
import {
  type DecodeOptions,
  type NamedTensor,
  type TensorInfo,
  type TypedArray,
  asFloat32Tensor,
  decodeRowMajorTensor,
} from "../../tensor.js";
import type { EmbeddedBlob, InspectResult } from "../types.js";
import { decodeG711 } from "./codecs.js";
import {
  type SpraakFile,
  type SpraakReadOptions,
  type SpraakTensorInfo,
  type SpraakType,
  TYPE_INFO,
  describe,
  id,
} from "./model.js";
import { KEY_HEADER_RULES } from "./provisional.js";
import { copyRecord, effectiveKeys, read, textOrigins } from "./reader.js";
import { encodeText } from "./text.js";

// ------------------------------------------------------------------------------------------------ tensors

export function matrixInfo(
  type: SpraakType,
  rows: number,
  cols: number,
  byteOffset: number,
  byteOrder: "le" | "be",
): SpraakTensorInfo {
  const info: SpraakTensorInfo = {
    name: "data",
    dtype: TYPE_INFO[type].dtype,
    shape: [rows, cols],
    byteOffset,
    byteLength: rows * cols * TYPE_INFO[type].bytes,
    byteOrder,
    layout: "row-major",
    format: id,
  };
  if (type === "ALAW" || type === "ULAW") {
    info.g711 = type;
    info.decodesToFloat32 = true;
  }
  return info;
}

export function rereadOptions(file: SpraakFile): SpraakReadOptions {
  const options: SpraakReadOptions = {};
  if (file.external) options.header = copyRecord(file.external);
  if (file.kind === "none") options.headerFormat = "none";
  if (file.kind === "key" && file.magicLine === null) options.headerFormat = "key";
  if (file.encoding !== "latin1") options.encoding = file.encoding;
  return options;
}

/** Where the MATRIX data is: absolute offsets for plain binary files; `wholeFile` for gzip/COMPRESS/ASCII. */
export function tensorInfos(file: SpraakFile): SpraakTensorInfo[] {
  const data = file.data;
  if (data.layout !== "MATRIX") return [];
  if (data.encoding === "binary" && !file.gzip && file.meta.compress === null) {
    const offset = data.bytes instanceof Uint8Array ? file.dataOffset : data.bytes.byteOffset;
    return [matrixInfo(data.type, data.rows, data.cols, offset, data.byteOrder)];
  }
  const info = matrixInfo(data.type, data.rows, data.cols, file.dataOffset, "le");
  info.wholeFile = rereadOptions(file);
  return [info];
}

/** The MATRIX data as `data` [DIM1, DIM2] (LIST and CUSTOM files have no tensors). */
export function tensors(file: SpraakFile, options: DecodeOptions = {}): NamedTensor[] {
  assertEager(file, id);
  const data = file.data;
  if (data.layout !== "MATRIX") return [];
  const info = matrixInfo(
    data.type,
    data.rows,
    data.cols,
    file.dataOffset,
    data.encoding === "binary" ? data.byteOrder : "le",
  );
  let tensor: NamedTensor;
  if (data.encoding === "binary")
    tensor = decodeRowMajorTensor(loaded(data.bytes, "the data"), info, storedOptions(info.g711, options), id);
  else
    tensor = {
      name: "data",
      dtype: info.dtype,
      shape: [data.rows, data.cols],
      data: options.copy ? data.values.slice() : data.values,
    } as NamedTensor;
  return [widenG711(tensor, info.g711, options)];
}

/** G.711 codes are decoded as stored (no generic float32 cast), then widenG711 turns the codes into samples. */
function storedOptions(law: "ALAW" | "ULAW" | undefined, options: DecodeOptions): DecodeOptions {
  return law && options.dtype === "float32" ? { copy: options.copy } : options;
}

function widenG711(tensor: NamedTensor, law: "ALAW" | "ULAW" | undefined, options: DecodeOptions): NamedTensor {
  if (!law || options.dtype !== "float32") return asFloat32Tensor(tensor, options);
  const samples = decodeG711(tensor.data as Uint8Array, law);
  const out = options.out;
  if (out !== undefined) {
    if (!(out instanceof Float32Array) || out.length !== samples.length) {
      throw new RangeError(
        `tensorfile: options.out must be a Float32Array of ${samples.length} elements for tensor "${tensor.name}"`,
      );
    }
    out.set(samples);
  }
  return { name: tensor.name, shape: tensor.shape, dtype: "float32", data: out ?? samples };
}

/** Reads and decodes the data tensor of a lazily read file (ASCII, LIST and gzip data are read whole). */
export async function loadTensor(
  source: ByteSource,
  info: TensorInfo,
  options: DecodeOptions = {},
): Promise<NamedTensor> {
  const spraakInfo = info as SpraakTensorInfo;
  if (spraakInfo.wholeFile) {
    const { size } = await sourceSize(source);
    const bytes = await readExactly(source, 0, size, id, info.name);
    const tensor = tensors(read(bytes, spraakInfo.wholeFile), options)[0];
    if (!tensor) throw new CorruptDataError(id, "the file has no MATRIX data", 0, info.name);
    return tensor;
  }
  const tensor = await lazy.loadRowMajorTensor(source, info, {
    ...storedOptions(spraakInfo.g711, options),
    format: id,
  });
  return widenG711(tensor, spraakInfo.g711, options);
}

// ------------------------------------------------------------------------------------------------ inspect / verify / blobs

/** What `tensorfile inspect` shows: the header keys, the typed meta and the data's shape. */
export function inspect(file: SpraakFile): InspectResult {
  const tensorRows = tensorInfos(file).map((t) => ({
    name: t.name,
    dtype: t.dtype,
    shape: t.shape.slice(),
    byteLength: t.byteLength,
  }));
  const result: InspectResult = {
    format: id,
    version: file.kind === "none" ? null : file.kind === "spr" ? ".spr" : ".key",
    meta: { ...file.meta, defaults: file.meta.defaults.slice(), dataOffset: file.dataOffset, encoding: file.encoding },
    tensors: tensorRows,
    header: {
      kind: file.kind,
      keys: file.lines.filter((l) => l.key !== "").map((l) => ({ key: l.key, value: l.value })),
      paddingLines: file.lines.filter((l) => l.key === "").length,
      spraakKeys: { ...file.keys },
      external: file.external ? { ...file.external } : null,
    },
    compression: { file: file.gzip ? "gzip" : null, data: file.meta.compress },
  };
  if (file.data.layout === "LIST") result.entries = file.data.entries.slice();
  if (file.data.layout === "CUSTOM") result.custom = { byteLength: byteLengthOf(file.data.bytes) };
  return result;
}

function byteLengthOf(bytes: Uint8Array | ByteRange): number {
  return bytes instanceof Uint8Array ? bytes.length : bytes.byteLength;
}

/** Warnings: what parses but looks wrong, or what a SPRAAK tool may read differently. */
export function verify(file: SpraakFile): string[] {
  const warnings: string[] = [];
  const { keys } = effectiveKeys(file.kind, file.header, file.external);
  const { meta, warnings: keyWarnings } = describe(keys, file.kind, (key) => ({ offset: undefined, field: key }), id);
  for (const w of keyWarnings) warnings.push(w); // (no spread: any count)
  const seen = new Set<string>();
  for (const line of file.lines) {
    if (line.key === "") continue;
    if (seen.has(line.key)) warnings.push(`key ${line.key} appears more than once (the last value is used)`);
    seen.add(line.key);
    if (line.raw !== undefined && line.raw.endsWith("\r"))
      warnings.push(`header line ${line.key} ends with CR (CRLF?)`);
  }
  if (file.magicLine?.endsWith("\r")) warnings.push("the magic line ends with CR (CRLF?)");
  if (file.kind === "key") {
    for (const key of Object.keys(file.header)) {
      const rule = KEY_HEADER_RULES.find((r) => r.key === key);
      if (rule && rule.confidence !== "high")
        warnings.push(`key header ${key} -> ${rule.to} is a ${rule.confidence}-confidence mapping`);
    }
  }
  for (const key of ["FORMAT", "TYPE", "LAYOUT"]) {
    if (file.kind !== "none" && meta.defaults.includes(key))
      warnings.push(
        `no ${key} key: assumed ${key === "FORMAT" ? meta.format : key === "TYPE" ? meta.type : meta.layout} (provisional default)`,
      );
  }
  const data = file.data;
  if (data.layout === "LIST") {
    if (meta.dim1 !== -1 && meta.dim1 !== data.entries.length)
      warnings.push(`DIM1 ${meta.dim1} but the list has ${data.entries.length} entries`);
    if (data.entries.length > 0 && !data.finalNewline) warnings.push("the last list entry has no line break");
  }
  if (data.layout === "MATRIX") {
    if (data.encoding === "binary" && data.trailing)
      warnings.push(`${byteLengthOf(data.trailing)} bytes after the last whole row (DIM1 -1)`);
    if (meta.nchan > 1 && data.cols !== meta.nchan && data.cols !== 1)
      warnings.push(`NCHAN ${meta.nchan} but DIM2 ${data.cols}`);
    if (meta.nchan > 1 && data.cols === 1 && data.rows % meta.nchan !== 0)
      warnings.push(`NCHAN ${meta.nchan} does not divide ${data.rows} samples`);
    if (data.encoding === "ascii") {
      const origin = textOrigins.get(data);
      if (origin && origin.text.length > 0 && origin.text[origin.text.length - 1] !== 0x0a)
        warnings.push("the ASCII data does not end with a line break");
    }
  }
  return warnings;
}

/** LIST data as `list.txt`, CUSTOM data as `data.bin` (MATRIX data is a tensor). */
export function blobs(file: SpraakFile): EmbeddedBlob[] {
  const data = file.data;
  if (data.layout === "CUSTOM") return [{ name: "data.bin", bytes: data.bytes }];
  if (data.layout === "LIST") {
    const text = data.entries.join("\n") + (data.finalNewline && data.entries.length > 0 ? "\n" : "");
    return [{ name: "list.txt", bytes: encodeText(text, file.encoding, id, "data") }];
  }
  return [];
}

// ------------------------------------------------------------------------------------------------ samples

/** NCHAN interleaved sample data split into one array per channel (G.711 decoded with { dtype: "float32" }). */
export function channels(
  file: SpraakFile,
  options: DecodeOptions = {},
): {
  /** SAMPLEFREQ in Hz, when the header gives it. */
  sampleFreq: number | null;
  /** One array per channel, in channel order. */
  channels: TypedArray[];
} {
  const tensor = tensors(file, options)[0];
  if (!tensor) throw new UnsupportedError(id, "channels() needs MATRIX data", file.dataOffset, "data");
  const nchan = file.meta.nchan;
  const [rows, cols] = tensor.shape as [number, number];
  let stride: number;
  let frames: number;
  if (cols === nchan) {
    stride = nchan;
    frames = rows;
  } else if (cols === 1 && rows % nchan === 0) {
    stride = nchan;
    frames = rows / nchan;
  } else {
    throw new CorruptDataError(id, `NCHAN ${nchan} does not fit DIM1 ${rows} x DIM2 ${cols}`, file.dataOffset, "NCHAN");
  }
  const ctor = tensor.data.constructor as { new (n: number): TypedArray };
  const out: TypedArray[] = [];
  for (let c = 0; c < nchan; c++) {
    const channel = new ctor(frames);
    for (let t = 0; t < frames; t++) (channel as Float64Array)[t] = (tensor.data as Float64Array)[t * stride + c]!;
    out.push(channel);
  }
  return { sampleFreq: file.meta.sampleFreq, channels: out };
}

export function loaded(bytes: Uint8Array | ByteRange, what: string): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  throw new UnsupportedError(
    id,
    `${what} was not loaded (a readFrom() result): use loadTensor(), or read() the file`,
    bytes.byteOffset,
    "data",
  );
}
