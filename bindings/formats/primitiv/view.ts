/**
 * primitiv views: the uniform tensors (row-major float32, logical shape [batch, ...dims]), tensor infos,
 * loadTensor, inspect, verify, blobs.
 */
import { assertEager } from "../../io/lazy.js";

import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";

import { type ByteSource, readExactly } from "../../io/source.js";
import * as kernels from "../../kernels/index.js";
import { type DecodeOptions, type NamedTensor, type TensorInfo, bytesOf, decodeTensor } from "../../tensor.js";
import { uniqueNames } from "../../bytes/names.js";
import { decodeKeyBytes, hasEscapedBytes } from "./msgpack.js";
import type { EmbeddedBlob, InspectResult, InspectTensor } from "../types.js";
import { compareKeyPaths } from "./builder.js";
import {
  type PrimitivFile,
  type PrimitivParameter,
  type PrimitivShape,
  type PrimitivTensor,
  type PrimitivTensorInfo,
  DATA_TYPE_CODES,
  id,
  payloadOffsets,
  readNotes,
  VERSION,
} from "./model.js";
import { hex } from "./reader.js";
import { type PrimitivFileLike, asFile, Encoder, isLoaded, measure } from "./writer.js";

// ---------------------------------------------------------------------------------------------------------
// the uniform tensor view

/** The contract's logical shape: the stored dims with batch prepended when batch > 1 (a scalar is []). */
export function logicalShape(shape: PrimitivShape): number[] {
  return shape.batch > 1 ? [shape.batch, ...shape.dims] : shape.dims.slice();
}

/**
 * Every tensor with its contract name, in file order. Names are distinct: where two come out alike (a key holding
 * "." or "/stats/"), the later one gets `#2`, … (bytes/names.ts uniqueNames).
 */
export function namedTensors(input: PrimitivFileLike): {
  /** The tensor's name, as {@link tensors} names it. */
  name: string;
  /** The tensor as stored. */
  tensor: PrimitivTensor;
}[] {
  const file = asFile(input, "primitiv.namedTensors");
  const out = pathNames(file);
  const names = uniqueNames(out.map((t) => t.name));
  return out.map((t, i) => ({ name: names[i]!, tensor: t.tensor }));
}

/** The tensors named by their key paths alone (two may share a name). */
function pathNames(file: PrimitivFile): { name: string; tensor: PrimitivTensor }[] {
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
    throw new CorruptDataError(
      id,
      `tensor "${info.name}" has ${bytes.byteLength} bytes; shape [${info.shape.join(", ")}] needs ${4 * count}`,
      info.byteOffset,
      info.name,
    );
  }
  const out = new Float32Array(count);
  const outBytes = bytesOf(out);
  const sampleBytes = bytes.byteLength / batch;
  for (let b = 0; b < batch; b++) {
    const from = b * sampleBytes;
    kernels.reorderColumnMajorBytes(
      bytes.subarray(from, from + sampleBytes),
      outBytes.subarray(from, from + sampleBytes),
      dims,
      4,
    );
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
      throw new UnsupportedError(
        id,
        "tensor data was not loaded (a readFrom() result): use loadTensor()",
        info.byteOffset,
        info.name,
      );
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
  if (!isLoaded(tensor.data))
    throw new UnsupportedError(id, "tensor data was not loaded (a readFrom() result): use loadTensor()");
  const info: PrimitivTensorInfo = {
    name: "tensor",
    dtype: "float32",
    shape: logicalShape(tensor.shape),
    byteOffset: payloadOffsets.get(tensor.data) ?? 0,
    byteLength: tensor.data.byteLength,
    byteOrder: "le",
    layout: "column-major",
    batch: tensor.shape.batch,
  };
  return decodeStored(tensor.data, info).data as Float32Array;
}

// ---------------------------------------------------------------------------------------------------------
// inspect, verify, blobs

function jsonNumber(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

function shapeJson(shape: PrimitivShape): { dims: number[]; batch: number } {
  return { dims: shape.dims.slice(), batch: shape.batch };
}

function parameterJson(p: PrimitivParameter): {
  value: { dims: number[]; batch: number };
  stats: { key: string; dims: number[]; batch: number }[];
} {
  return {
    value: shapeJson(p.value.shape),
    stats: Array.from(p.stats, ([key, t]) => ({ key, ...shapeJson(t.shape) })),
  };
}

/** What `tensorfile inspect --json` prints: data type, shapes, stats, optimizer configs (file order). */
export function inspect(input: PrimitivFileLike): InspectResult {
  const file = asFile(input, "primitiv.inspect");
  const tensorsTable: InspectTensor[] = tensorInfos(file).map((t) => ({
    name: t.name,
    dtype: t.dtype,
    shape: t.shape,
    byteLength: t.byteLength,
  }));
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
      result.parameters = file.model.parameters.map((e) => ({
        path: e.path.slice(),
        name: e.path.join("."),
        ...parameterJson(e.parameter),
      }));
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
  "Optimizer.lr_scale",
  "Optimizer.l2_strength",
  "Optimizer.clip_threshold",
  "SGD.eta",
  "MomentumSGD.eta",
  "MomentumSGD.momentum",
  "AdaGrad.eta",
  "AdaGrad.eps",
  "RMSProp.eta",
  "RMSProp.alpha",
  "RMSProp.eps",
  "AdaDelta.rho",
  "AdaDelta.eps",
  "Adam.alpha",
  "Adam.beta1",
  "Adam.beta2",
  "Adam.eps",
]);

/** Warnings: what primitiv would refuse or not write this way, though tensorfile reads and writes it. */
export function verify(input: PrimitivFileLike): string[] {
  const file = asFile(input, "primitiv.verify");
  const warnings = [...(readNotes.get(file) ?? [])];
  if (file.dataType === "shape" || file.dataType === "tensor") {
    warnings.push(
      `primitiv has no public API that loads a ${file.dataType} file (data type ${hex(DATA_TYPE_CODES[file.dataType])}); only its msgpack::Reader reads the objects`,
    );
  }
  const checkDims = (shape: PrimitivShape, where: string) => {
    if (shape.dims.length > 0 && shape.dims[shape.dims.length - 1] === 1) {
      warnings.push(`${where}: dims [${shape.dims.join(",")}] end in 1; primitiv writes shapes without trailing 1s`);
    }
  };
  const checkKey = (key: string, where: string) => {
    if (hasEscapedBytes(key))
      warnings.push(`${where}: key ${JSON.stringify(key)} is not valid UTF-8 (kept byte for byte)`);
  };
  if (file.dataType === "shape") checkDims(file.shape, "shape");
  for (const { name, tensor } of namedTensors(file)) checkDims(tensor.shape, name);
  const seenNames = new Set<string>();
  for (const { name } of pathNames(file)) {
    if (seenNames.has(name))
      warnings.push(
        `two tensors are both named ${JSON.stringify(name)} (a key holds "." or "/stats/"); the later one is given a "#2"-style suffix`,
      );
    seenNames.add(name);
  }
  if (file.dataType === "parameter") for (const key of file.parameter.stats.keys()) checkKey(key, "stats");
  if (file.dataType === "model") {
    const entries = file.model.parameters;
    entries.forEach((entry, i) => {
      entry.path.forEach((part) => checkKey(part, `parameters[${i}].path`));
      for (const key of entry.parameter.stats.keys()) checkKey(key, `parameters[${i}].stats`);
      if (i > 0 && compareKeyPaths(entries[i - 1]!.path, entry.path) >= 0) {
        warnings.push(
          `parameters[${i}] ${JSON.stringify(entry.path)} comes after ${JSON.stringify(entries[i - 1]!.path)}: primitiv writes parameters sorted by key path`,
        );
      }
    });
  }
  if (file.dataType === "optimizer") {
    for (const key of file.optimizer.uintConfigs.keys()) {
      checkKey(key, "uintConfigs");
      if (!KNOWN_UINT_CONFIGS.has(key))
        warnings.push(
          `uint config ${JSON.stringify(key)} is read by none of primitiv's C++ optimizers (ignored on load)`,
        );
    }
    for (const key of file.optimizer.floatConfigs.keys()) {
      checkKey(key, "floatConfigs");
      if (!KNOWN_FLOAT_CONFIGS.has(key))
        warnings.push(
          `float config ${JSON.stringify(key)} is read by none of primitiv's C++ optimizers (ignored on load)`,
        );
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
