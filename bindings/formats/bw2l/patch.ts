/**
 * Replacing BW2L tensors (layer params `layers.<i>.<j>` and array sections) with new values, by name.
 *
 * Values come in row-major for the logical shape and are stored the way the file stores them: version 2
 * column-major (the transpose kernel), version 1 as they are, in the stored dtype (float32 -> fp16 rounds to
 * nearest even). A version-1 layer whose params are int8 carries one scale and offset (value = (q - offset) *
 * scale, bw2l/quantize.ts); int8 values given as int8 are stored as they are, float values are quantized:
 *
 *   1. with the layer's own scale and offset when that gives every given value back exactly (so tensors
 *      exported with --dtype float32 and patched back leave the file byte-identical);
 *   2. otherwise with a fresh scale and offset for the layer (chooseI8Params over all its int8 params: the
 *      given values and the others dequantized), and every int8 param of the layer is re-encoded with them.
 *
 * In the file, a layer's scale (f32) and offset (i64) sit just before its param_count and first array:
 *   ... arch | f32 scale | i64 offset | u64 param_count | short dtype | u64 len | data ...
 * so they are found from the first param's data offset.
 */
import { CorruptDataError, patchError } from "../../bytes/errors.js";
import * as kernels from "../../kernels/index.js";
import type { ByteSource } from "../../io/source.js";
import { readExactly } from "../../io/source.js";
import { type NamedTensor, type TensorInfo, bytesOf, viewAs } from "../../tensor.js";
import {
  asFloat32,
  checkReplacement,
  encodeBytes,
  isFloatSource,
  replacementData,
  sameBytes,
} from "../../patch/encode.js";
import {
  type Incoming,
  type ReplaceOptions,
  type TensorsInput,
  checkUnknown,
  replacementsInMemory,
} from "../../patch/input.js";
import { type PatchEdit, type PatchPlan, asTensor, rangePlan } from "../../patch/plan.js";
import {
  type Bw2lArray,
  type Bw2lFile,
  type Bw2lLayer,
  type Bw2lSection,
  DTYPES,
  arrayLength,
  isArraySection,
  isByteRange,
  isLayersSection,
} from "./model.js";
import { chooseI8Params } from "./quantize.js";
import { effectiveSections } from "./view.js";

const FORMAT = "bw2l";

interface Entry {
  name: string;
  array: Bw2lArray;
  sectionIndex: number;
  /** Layer params only. */
  layerIndex?: number | undefined;
  paramIndex?: number | undefined;
  layer?: Bw2lLayer | undefined;
  /** The stored form of the tensor (offset fields unused here). */
  info: TensorInfo;
  /** v1 int8 layer param: values are (q - offset) * scale. */
  quantized: boolean;
}

function product(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

/** The contract's logical shape (as bw2l/view.ts gives it). */
function logicalShape(array: Bw2lArray, version: number): number[] {
  const length = arrayLength(array);
  if (version === 2 && array.dims && array.dims.length > 0 && product(array.dims) === length) return array.dims.slice();
  return [length];
}

function entries(file: Bw2lFile): Entry[] {
  const out: Entry[] = [];
  const effective = new Set(effectiveSections(file));
  const make = (
    name: string,
    array: Bw2lArray,
    sectionIndex: number,
    layer?: Bw2lLayer,
    layerIndex?: number,
    paramIndex?: number,
  ): Entry => ({
    name,
    array,
    sectionIndex,
    layer,
    layerIndex,
    paramIndex,
    quantized: file.version === 1 && layer !== undefined && array.dtype === "i8",
    info: {
      name,
      dtype: DTYPES[array.dtype].standard,
      shape: logicalShape(array, file.version),
      byteOffset: isByteRange(array.data) ? array.data.byteOffset : (array.byteOffset ?? 0),
      byteLength: array.data.byteLength,
      byteOrder: "le",
      layout: file.version === 2 ? "column-major" : "row-major",
      format: FORMAT,
    },
  });
  file.sections.forEach((s, sectionIndex) => {
    if (!effective.has(s)) return;
    if (isArraySection(s)) out.push(make(s.name, s.array, sectionIndex));
    else if (isLayersSection(s)) {
      s.layers.forEach((layer, i) =>
        layer.params.forEach((p, j) => out.push(make(`${s.name}.${i}.${j}`, p, sectionIndex, layer, i, j))),
      );
    }
  });
  return out;
}

/** Checks a replacement for an entry: float values may replace a quantized int8 param. */
function checkFor(entry: Entry, given: { dtype: string; shape: readonly number[] }): void {
  if (entry.quantized && isFloatSource(given.dtype)) checkReplacement({ ...entry.info, dtype: "float32" }, given);
  else checkReplacement(entry.info, given);
}

function storedTyped(array: Bw2lArray, bytes: Uint8Array): Bw2lArray["data"] {
  return viewAs(DTYPES[array.dtype].standard, bytes, true) as Bw2lArray["data"];
}

// ---------------------------------------------------------------------------------------------------------
// int8 layers

/** One int8 param of a quantized layer in a re-quantization. */
interface QuantParam {
  name: string;
  /** Float values given for it (as float32). */
  givenFloat?: Float32Array | undefined;
  /** int8 codes given for it (stored as they are, read with the layer's scale and offset). */
  givenCodes?: Int8Array | undefined;
  /** The stored codes; needed only when the layer gets a fresh scale and offset. */
  stored?: Int8Array | undefined;
}

interface QuantResult {
  scale: number;
  offset: number;
  /** New codes by name: the given params, plus every other one when the scale and offset are fresh. */
  codes: Map<string, Int8Array>;
  /** True when the layer got a fresh scale and offset. */
  fresh: boolean;
}

/** Step 1: the codes with the layer's own scale and offset, or undefined when some given value would change. */
function keepScale(params: readonly QuantParam[], scale: number, offset: number): QuantResult | undefined {
  const codes = new Map<string, Int8Array>();
  for (const p of params) {
    if (p.givenCodes) codes.set(p.name, p.givenCodes);
    if (!p.givenFloat) continue;
    const q = kernels.quantizeI8(p.givenFloat, scale, offset);
    if (!sameBytes(bytesOf(kernels.dequantizeI8(q, scale, offset)), bytesOf(p.givenFloat))) return undefined;
    codes.set(p.name, q);
  }
  return { scale, offset, codes, fresh: false };
}

/** Step 2: a fresh scale and offset over all the layer's int8 params (each needs given values or `stored`). */
function freshScale(params: readonly QuantParam[], scale: number, offset: number, field: string): QuantResult {
  const values = params.map((p) => {
    if (p.givenFloat) return p.givenFloat;
    const codes = p.givenCodes ?? p.stored;
    if (!codes) throw new Error(`tensorfile: internal error: no codes for ${p.name}`);
    return kernels.dequantizeI8(codes, scale, offset);
  });
  let min = Infinity;
  let max = -Infinity;
  values.forEach((v, k) => {
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      if (!Number.isFinite(x))
        throw patchError(
          "value",
          `tensorfile: tensor "${params[k]!.name}" holds ${x} at element ${i}; ${field} is int8 and needs finite values`,
          { tensor: params[k]!.name },
        );
      if (x < min) min = x;
      if (x > max) max = x;
    }
  });
  const chosen = chooseI8Params(min, max);
  const codes = new Map<string, Int8Array>();
  params.forEach((p, k) => codes.set(p.name, kernels.quantizeI8(values[k]!, chosen.scale, chosen.offset)));
  return { scale: chosen.scale, offset: chosen.offset, codes, fresh: true };
}

/** The QuantParam of a quantized entry, given its replacement (if any). */
function quantParam(e: Entry, tensor: NamedTensor | undefined): QuantParam {
  if (!tensor) return { name: e.name };
  if (isFloatSource(tensor.dtype))
    return {
      name: e.name,
      givenFloat: asFloat32(replacementData({ ...e.info, dtype: "float32" }, tensor), tensor.dtype),
    };
  return { name: e.name, givenCodes: replacementData(e.info, tensor) as Int8Array };
}

/** Absolute offset of a v1 layer's scale (its offset follows at +4), from its first param's data offset. */
function scaleOffset(layer: Bw2lLayer): number | undefined {
  const first = layer.params[0];
  if (!first) return undefined;
  const dataAt = isByteRange(first.data) ? first.data.byteOffset : first.byteOffset;
  if (dataAt === undefined) return undefined;
  return dataAt - 8 - (1 + first.dtype.length) - 8 - 8 - 4;
}

// ---------------------------------------------------------------------------------------------------------
// replaceTensors

function mapSections(
  file: Bw2lFile,
  arrays: Map<Bw2lArray, Bw2lArray>,
  layers: Map<Bw2lLayer, { scale: number; offset: bigint }>,
): Bw2lSection[] {
  return file.sections.map((s): Bw2lSection => {
    if (isArraySection(s)) return arrays.has(s.array) ? { ...s, array: arrays.get(s.array)! } : s;
    if (!isLayersSection(s)) return s;
    if (!s.layers.some((l) => layers.has(l) || l.params.some((p) => arrays.has(p)))) return s;
    return {
      ...s,
      layers: s.layers.map((l) => {
        const q = layers.get(l);
        const params = l.params.map((p) => arrays.get(p) ?? p);
        return q ? { ...l, scale: q.scale, offset: q.offset, params } : { ...l, params };
      }),
    };
  });
}

/**
 * A copy of `file` with the named tensors replaced (see the module comment for dtypes, layout and int8
 * layers). The input is not changed; untouched arrays are shared with it. Unknown names are a RangeError
 * unless `partial`; a dtype that cannot replace the stored one a TypeError; another shape a RangeError.
 */
export function replaceTensors(file: Bw2lFile, tensors: TensorsInput, options: ReplaceOptions = {}): Bw2lFile {
  const given = replacementsInMemory(tensors, "bw2l.replaceTensors");
  const all = entries(file);
  const names = all.map((e) => e.name);
  const inFile = new Set(names);
  checkUnknown(
    [...given.keys()].filter((n) => !inFile.has(n)),
    [...new Set(names)],
    FORMAT,
    options,
  );
  const arrays = new Map<Bw2lArray, Bw2lArray>();
  const layers = new Map<Bw2lLayer, { scale: number; offset: bigint }>();
  const quantLayers = new Set<Bw2lLayer>();
  for (const e of all) {
    const value = given.get(e.name);
    if (value === undefined) continue;
    const tensor = asTensor(e.name, value);
    checkFor(e, tensor);
    if (e.quantized && isFloatSource(tensor.dtype)) {
      quantLayers.add(e.layer!);
      continue;
    }
    const bytes = encodeBytes(replacementData(e.info, tensor), tensor.dtype, e.info);
    if (isByteRange(e.array.data)) {
      throw new CorruptDataError(
        FORMAT,
        "this file was opened with readFrom(); replaceTensors needs a read() result (or use patchFrom)",
        e.array.data.byteOffset,
        e.name,
      );
    }
    if (sameBytes(bytes, bytesOf(e.array.data))) continue;
    arrays.set(e.array, { ...e.array, data: storedTyped(e.array, bytes) });
  }
  for (const layer of quantLayers) {
    const members = all.filter((e) => e.layer === layer && e.quantized);
    const params = members.map((e) => {
      const value = given.get(e.name);
      const p = quantParam(e, value === undefined ? undefined : asTensor(e.name, value));
      if (isByteRange(e.array.data))
        throw new CorruptDataError(
          FORMAT,
          "this file was opened with readFrom(); replaceTensors needs a read() result (or use patchFrom)",
          e.array.data.byteOffset,
          e.name,
        );
      p.stored = e.array.data as Int8Array;
      return p;
    });
    const scale = layer.scale ?? 1;
    const offset = Number(layer.offset ?? 0n);
    const result =
      keepScale(params, scale, offset) ?? freshScale(params, scale, offset, `layer ${members[0]!.layerIndex}`);
    for (const e of members) {
      const codes = result.codes.get(e.name);
      if (!codes || sameBytes(bytesOf(codes), bytesOf(e.array.data as Int8Array))) continue;
      arrays.set(e.array, { ...e.array, data: codes });
    }
    if (result.fresh) layers.set(layer, { scale: result.scale, offset: BigInt(result.offset) });
  }
  return { ...file, sections: mapSections(file, arrays, layers) };
}

// ---------------------------------------------------------------------------------------------------------
// patch plans (patch, patchFrom, patchTo): byte ranges of the original file

/**
 * The plan for a bw2l file opened with readFrom() (or read()): each replaced tensor's range, and for int8
 * layers given float values, the layer's codes worked out now (the layer's tensors are loaded for that) with,
 * when they change, its scale and offset. Everything else is copied byte for byte.
 */
export async function planPatch(
  file: Bw2lFile,
  _infos: readonly TensorInfo[],
  source: ByteSource,
  size: number,
  incoming: ReadonlyMap<string, Incoming>,
  options: ReplaceOptions,
): Promise<PatchPlan> {
  const all = entries(file);
  const names = [...new Set(all.map((e) => e.name))];
  const inFile = new Set(names);
  checkUnknown(
    [...incoming.keys()].filter((n) => !inFile.has(n)),
    names,
    FORMAT,
    options,
  );
  for (const e of all) {
    const given = incoming.get(e.name);
    if (given && given.dtype !== "bytes") checkFor(e, given);
  }
  const quantLayers = new Set(
    all.filter((e) => e.quantized && isFloatSource(incoming.get(e.name)?.dtype ?? "")).map((e) => e.layer!),
  );
  const edits: PatchEdit[] = [];
  const handled = new Set<TensorInfo>();
  const requantized: string[] = [];
  const fixed = (offset: number, bytes: Uint8Array): PatchEdit => ({
    offset,
    length: bytes.length,
    sameSize: true,
    produce: () => [bytes],
  });
  for (const layer of quantLayers) {
    const members = all.filter((e) => e.layer === layer && e.quantized);
    const params: QuantParam[] = [];
    for (const e of members) {
      const given = incoming.get(e.name);
      params.push(quantParam(e, given ? asTensor(e.name, await given.load()) : undefined));
      if (given) handled.add(e.info);
    }
    const scale = layer.scale ?? 1;
    const offset = Number(layer.offset ?? 0n);
    let result = keepScale(params, scale, offset);
    if (!result) {
      for (const [k, e] of members.entries()) {
        if (params[k]!.givenFloat || params[k]!.givenCodes) continue;
        const bytes = await readExactly(source, e.info.byteOffset, e.info.byteLength, FORMAT, e.name);
        params[k]!.stored = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }
      result = freshScale(params, scale, offset, `layer ${members[0]!.layerIndex}`);
      const at = scaleOffset(layer);
      if (at === undefined) throw new Error("tensorfile: internal error: no offset for a bw2l layer's scale");
      const header = new Uint8Array(12);
      const view = new DataView(header.buffer);
      view.setFloat32(0, result.scale, true);
      view.setBigInt64(4, BigInt(result.offset), true);
      edits.push(fixed(at, header));
      for (const e of members) if (!incoming.has(e.name)) requantized.push(e.name); // (no spread: any count)
    }
    for (const e of members) {
      const codes = result.codes.get(e.name);
      if (codes) edits.push(fixed(e.info.byteOffset, Uint8Array.from(bytesOf(codes))));
    }
  }
  const plan = rangePlan(
    FORMAT,
    size,
    all.map((e) => e.info),
    incoming,
    { partial: true },
    undefined,
    () => ({ edits, handled, requantized }),
  );
  return plan;
}
