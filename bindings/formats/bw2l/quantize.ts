/**
 * Quantization, which the reference names (config `quantization`) but never built; the rules are ours:
 *
 * - `fp16`: every float32 layer param is stored as IEEE binary16 (round to nearest even); config.quantization = "fp16".
 * - `i8` (version 1 only: only v1 layers carry scale and offset): every float32 param of a layer is stored as int8
 *   with the layer's `scale` (f32) and `offset` (i64), value = (q - offset) * scale. Per layer, over all its
 *   float32 params: lo = min(0, min x), hi = max(0, max x); scale = (hi - lo) / 255 rounded up to a float32;
 *   offset = round(-128 - lo / scale), so [lo, hi] maps onto [-128, 127] and 0 is exact (q = offset). Every value
 *   comes back within scale / 2. config.quantization = "i8".
 *
 * Only layer params are touched; array sections (transitions) and integer or fp64 params stay as they are.
 * Dequantizing (read({ dequantize: true })) widens every fp16 array and turns every int8 param of a v1 layer
 * into float32 with that layer's scale and offset (a reference file's 1 and 0 give the integers back as floats).
 */
import * as kernels from "../../kernels/index.js";
import {
  type Bw2lArray,
  type Bw2lFile,
  type Bw2lKeyvalSection,
  type Bw2lLayer,
  type Bw2lSection,
  isArraySection,
  isByteRange,
  isKeyvalSection,
  isLayersSection,
} from "./model.js";

/**
 * How {@link write} may re-encode float32 layer params: as float16 halves, or as int8 with a per-layer scale and
 * offset (version 1 only).
 */
export type QuantizeMode = "fp16" | "i8";

const utf8 = new TextEncoder();

/** Bytewise comparison of UTF-8 encodings (std::map<std::string> order). */
export function compareBytewise(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** The scale and offset `i8` quantization picks for values in [min, max] (see the module comment). */
export function chooseI8Params(
  min: number,
  max: number,
): {
  /** The float32 step of one int8 unit. */
  scale: number;
  /** The int8 value that means 0. */
  offset: number;
} {
  const lo = Math.min(0, min);
  const hi = Math.max(0, max);
  if (!(hi > lo)) return { scale: 1, offset: 0 };
  let scale = Math.fround((hi - lo) / 255);
  // round up: 255 steps must cover the whole range
  while (scale * 255 < hi - lo) scale = Math.fround(scale + scale * 2 ** -23);
  const offset = Math.min(127, Math.max(-128, Math.round(-128 - lo / scale)));
  return { scale, offset };
}

function float32Data(param: Bw2lArray): Float32Array | undefined {
  return param.dtype === "fp32" && param.data instanceof Float32Array ? param.data : undefined;
}

function quantizeLayer(layer: Bw2lLayer, mode: QuantizeMode, field: string): Bw2lLayer {
  const floats = layer.params.map(float32Data);
  if (!floats.some((f) => f)) return layer;
  if (mode === "fp16") {
    return {
      ...layer,
      params: layer.params.map((p, j) =>
        floats[j] ? { ...strip(p), dtype: "fp16", data: kernels.f32ToF16(floats[j]!) } : p,
      ),
    };
  }
  if (layer.params.some((p) => p.dtype === "i8")) {
    throw new TypeError(
      `bw2l: ${field} mixes int8 and float32 params; i8 quantization gives a layer one scale and offset`,
    );
  }
  let min = Infinity;
  let max = -Infinity;
  for (const f of floats) {
    if (!f) continue;
    for (let i = 0; i < f.length; i++) {
      const v = f[i]!;
      if (!Number.isFinite(v)) throw new RangeError(`bw2l: ${field} holds ${v}; i8 quantization needs finite values`);
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  const { scale, offset } = chooseI8Params(min, max);
  return {
    ...layer,
    scale,
    offset: BigInt(offset),
    params: layer.params.map((p, j) =>
      floats[j] ? { ...strip(p), dtype: "i8", data: kernels.quantizeI8(floats[j]!, scale, offset) } : p,
    ),
  };
}

/** A copy of an array without its read position (it no longer describes the bytes). */
function strip(array: Bw2lArray): Bw2lArray {
  const copy: Bw2lArray = { dtype: array.dtype, data: array.data };
  if (array.dims) copy.dims = array.dims.slice();
  return copy;
}

/** Sets config.quantization (in key order when the entry is new), adding a `config` section after `flags` if needed. */
function withQuantizationKey(sections: Bw2lSection[], value: string): Bw2lSection[] {
  const out = sections.slice();
  let configIndex = -1;
  out.forEach((s, i) => {
    if (s.name === "config" && isKeyvalSection(s)) configIndex = i;
  });
  if (configIndex < 0) {
    let flagsIndex = -1;
    out.forEach((s, i) => {
      if (s.name === "flags") flagsIndex = i;
    });
    out.splice(flagsIndex + 1, 0, {
      name: "config",
      type: "keyval",
      desc: "",
      entries: [{ key: "quantization", value }],
    });
    return out;
  }
  const config = out[configIndex] as Bw2lKeyvalSection;
  const entries = config.entries.map((e) => ({ ...e }));
  const existing = entries.map((e) => e.key).lastIndexOf("quantization");
  if (existing >= 0) entries[existing]!.value = value;
  else {
    const at = entries.findIndex((e) => compareBytewise(e.key, "quantization") > 0);
    entries.splice(at < 0 ? entries.length : at, 0, { key: "quantization", value });
  }
  out[configIndex] = { name: config.name, type: "keyval", desc: config.desc, entries };
  return out;
}

/** A quantized copy of `file` (the input is not changed). */
export function quantizeFile(file: Bw2lFile, mode: QuantizeMode): Bw2lFile {
  if (mode !== "fp16" && mode !== "i8")
    throw new RangeError(`bw2l: quantize must be "fp16" or "i8", not ${JSON.stringify(mode)}`);
  if (mode === "i8" && file.version !== 1) {
    throw new RangeError('bw2l: quantize "i8" needs version 1 (only v1 layers carry scale and offset); set version: 1');
  }
  const sections = file.sections.map((s, i): Bw2lSection => {
    if (!isLayersSection(s)) return s;
    return { ...s, layers: s.layers.map((layer, k) => quantizeLayer(layer, mode, `sections[${i}].layers[${k}]`)) };
  });
  return { ...file, sections: withQuantizationKey(sections, mode) };
}

function widen(array: Bw2lArray): Bw2lArray {
  if (array.dtype !== "fp16" || !(array.data instanceof Uint16Array)) return array;
  return { ...strip(array), dtype: "fp32", data: kernels.f16ToF32(array.data) };
}

/** The file with every fp16 array widened and every int8 param of a v1 layer dequantized (for read({ dequantize })). */
export function dequantizeFile(file: Bw2lFile): Bw2lFile {
  const sections = file.sections.map((s): Bw2lSection => {
    if (isArraySection(s)) return { ...s, array: widen(s.array) };
    if (!isLayersSection(s)) return s;
    const layers = s.layers.map((layer): Bw2lLayer => {
      const hasInt8 = file.version === 1 && layer.params.some((p) => p.dtype === "i8" && !isByteRange(p.data));
      const scale = layer.scale ?? 1;
      const offset = Number(layer.offset ?? 0n);
      const params = layer.params.map((p) => {
        if (hasInt8 && p.dtype === "i8" && p.data instanceof Int8Array) {
          return { ...strip(p), dtype: "fp32" as const, data: kernels.dequantizeI8(p.data, scale, offset) };
        }
        return widen(p);
      });
      return hasInt8 ? { ...layer, scale: 1, offset: 0n, params } : { ...layer, params };
    });
    return { ...s, layers };
  });
  return { ...file, sections };
}
