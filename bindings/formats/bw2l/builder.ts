/**
 * create(): a model in the exporter's section order (flags, config, arch, tokens, layers, transitions, other
 * arrays, spm) from plain values. Param data is given row-major for its `dims` (the uniform view's order) and
 * stored column-major, as ArrayFire and the wav2letter loader expect: the transpose is made when the file is
 * written (band by band, into the output or the sink) or when the array's `data` is first read, so the caller's
 * array is kept (not copied) until then.
 */
import { bandedChunksOfBytes, planBands } from "../../io/banded.js";
import * as kernels from "../../kernels/index.js";
import { bytesOf } from "../../tensor.js";
import {
  type Bw2lArray,
  type Bw2lArrayData,
  type Bw2lDType,
  type Bw2lFile,
  type Bw2lSection,
  type Bw2lVersion,
  DTYPES,
  deferredColumnMajor,
  isBw2lDType,
} from "./model.js";
import { compareBytewise } from "./quantize.js";
import { checkWriterInput } from "../../bytes/arguments.js";

/** Key/value entries for {@link create}: a record, a Map or [key, value] pairs. */
export type KeyvalInput = Record<string, string> | Map<string, string> | readonly (readonly [string, string])[];

/** One parameter array for {@link create}. */
export interface ParamInput {
  /** Default: from the typed array (Float32Array: fp32, Uint16Array: fp16 halves, BigInt64Array: i64, …). */
  dtype?: Bw2lDType | undefined;
  /**
   * The logical shape in ArrayFire order (e.g. conv weight [kx, ky, cin, cout], linear weight [out, in, 1, 1]).
   * `data` is row-major for these dims and is stored column-major. v2 stores the dims; v1 cannot (the data is
   * still stored column-major). Default: [length].
   */
  dims?: readonly number[] | undefined;
  /** The values, row-major for `dims` (a typed array of the dtype, or plain numbers or bigints). */
  data: Bw2lArrayData | readonly number[] | readonly bigint[];
}

/** One layer for {@link create}. */
export interface LayerInput {
  /** The arch line, e.g. "L 4 6". */
  arch: string;
  /** The layer's params (none for a layer without weights, such as "R"). */
  params?: readonly ParamInput[] | undefined;
  /** v1 only (default 1 and 0). */
  scale?: number | undefined;
  /** v1 only: the int8 value that means 0 (default 0). */
  offset?: bigint | number | undefined;
}

/** What {@link create} builds a model from. */
export interface ModelInput {
  /** Default 2. */
  version?: Bw2lVersion | undefined;
  /** The file's short-string name (default ""). */
  name?: string | undefined;
  /** keyval sections, written in bytewise key order like the exporter's std::map. */
  flags?: KeyvalInput | undefined;
  /** The `config` keyval section, written like `flags`. */
  config?: KeyvalInput | undefined;
  /** The arch text, or its lines (each gets a "\n"). Default: the layers' arch lines. */
  arch?: string | readonly string[] | undefined;
  /** The tokens text, or one token per line (each gets a "\n"). */
  tokens?: string | readonly string[] | undefined;
  /** The layers of the `layers` section, in order. */
  layers?: readonly LayerInput[] | undefined;
  /** The ASG transitions matrix (an `array` section named "transitions"). */
  transitions?: ParamInput | undefined;
  /** More `array` sections, by name, after transitions. */
  arrays?: Record<string, ParamInput> | undefined;
  /** The sentencepiece model (a `data` section named "spm", last). */
  spm?: Uint8Array | undefined;
}

function dtypeOf(data: ParamInput["data"]): Bw2lDType | undefined {
  for (const [name, facts] of Object.entries(DTYPES)) if (data instanceof facts.ctor) return name as Bw2lDType;
  return undefined;
}

function toTypedArray(dtype: Bw2lDType, data: ParamInput["data"], field: string): Bw2lArrayData {
  const { ctor } = DTYPES[dtype];
  if (data instanceof ctor) return data;
  if (ArrayBuffer.isView(data)) {
    throw new TypeError(
      `bw2l: ${field}.data is a ${data.constructor.name}; dtype ${dtype} needs a ${ctor.name} or a plain array`,
    );
  }
  if (!Array.isArray(data)) throw new TypeError(`bw2l: ${field}.data must be a typed array or an array`);
  if (dtype === "i64") return BigInt64Array.from(data as readonly (bigint | number)[], (v) => BigInt(v));
  if (dtype === "fp16") return kernels.f32ToF16(Float32Array.from(data as readonly number[]));
  const out = new ctor(data.length) as Float32Array;
  for (let i = 0; i < data.length; i++) out[i] = Number(data[i]);
  return out as Bw2lArrayData;
}

export function buildArray(input: ParamInput, version: Bw2lVersion, field: string): Bw2lArray {
  const dtype = input.dtype ?? dtypeOf(input.data);
  if (dtype === undefined || !isBw2lDType(dtype)) {
    throw new TypeError(`bw2l: ${field}.dtype is needed (one of ${Object.keys(DTYPES).join(", ")})`);
  }
  let data = toTypedArray(dtype, input.data, field);
  const dims = input.dims ? Array.from(input.dims) : undefined;
  if (dims) {
    const count = dims.reduce((a, b) => a * b, 1);
    if (dims.some((d) => !Number.isSafeInteger(d) || d < 0) || count !== data.length) {
      throw new RangeError(
        `bw2l: ${field}.dims [${dims.join(", ")}] do not hold the ${data.length} elements of its data`,
      );
    }
    if (dims.filter((d) => d > 1).length > 1) {
      const later = columnMajorLater(dtype, data, dims, version === 2 ? dims : undefined);
      if (later) return later;
      data = kernels.rowToColumnMajor(data, dims);
    }
  }
  const array: Bw2lArray = { dtype, data };
  if (version === 2) array.dims = dims ?? [data.length];
  return array;
}

/**
 * An array whose column-major payload is made from the row-major `data` only when needed: write() and writeTo()
 * take it band by band (io/banded.ts: bands of at most 16 MiB, through the transpose kernels), straight into the
 * output or the sink; reading `data` makes it whole, once, the same way. So building and writing a large model
 * needs no transposed copy of a param next to its data (nor the kernels' work memory for a whole one).
 * Undefined when the transpose cannot be banded (over 8 axes longer than 1: rowToColumnMajor says why).
 */
function columnMajorLater(
  dtype: Bw2lDType,
  data: Bw2lArrayData,
  dims: number[],
  arrayDims: number[] | undefined,
): Bw2lArray | undefined {
  const byteLength = data.byteLength;
  // the stored order is row-major for the reversed dims: the row-major data is that tensor in column-major order
  const plan = planBands({
    name: "param",
    dtype: DTYPES[dtype].standard,
    shape: dims.slice().reverse(),
    byteOffset: 0,
    byteLength,
    byteOrder: "le",
    layout: "column-major",
  });
  if (!plan) return undefined;
  const bands = () => bandedChunksOfBytes(bytesOf(data), plan);
  const materialize = (): Bw2lArrayData => {
    const out = new DTYPES[dtype].ctor(byteLength / DTYPES[dtype].bytes);
    const target = bytesOf(out);
    let at = 0;
    for (const band of bands()) {
      target.set(band, at);
      at += band.length;
    }
    return out;
  };
  return deferredColumnMajor(dtype, arrayDims, { rowMajor: data, dims, bands }, materialize);
}

function entriesOf(input: KeyvalInput): { key: string; value: string }[] {
  const pairs: (readonly [string, string])[] =
    input instanceof Map
      ? [...input]
      : Array.isArray(input)
        ? [...(input as readonly (readonly [string, string])[])]
        : Object.entries(input);
  return pairs.map(([key, value]) => ({ key, value: String(value) })).sort((a, b) => compareBytewise(a.key, b.key));
}

function linesText(input: string | readonly string[]): string {
  return typeof input === "string" ? input : input.map((line) => `${line}\n`).join("");
}

/** A BW2L file object (write it with `write`). */
export function create(input: ModelInput): Bw2lFile {
  checkWriterInput(input, "bw2l.create", "a model description ({ version, layers, … })");
  const version = input.version ?? 2;
  if (version !== 1 && version !== 2) throw new RangeError(`bw2l: version must be 1 or 2, not ${String(version)}`);
  const sections: Bw2lSection[] = [];
  const base = (name: string) => ({ name, desc: "" });
  if (input.flags) sections.push({ ...base("flags"), type: "keyval", entries: entriesOf(input.flags) });
  if (input.config) sections.push({ ...base("config"), type: "keyval", entries: entriesOf(input.config) });
  const arch = input.arch ?? input.layers?.map((l) => l.arch);
  if (arch !== undefined) sections.push({ ...base("arch"), type: "utf8", text: linesText(arch) });
  if (input.tokens !== undefined) sections.push({ ...base("tokens"), type: "utf8", text: linesText(input.tokens) });
  if (input.layers) {
    const layers = input.layers.map((layer, i) => {
      const field = `layers[${i}]`;
      const params = (layer.params ?? []).map((p, j) => buildArray(p, version, `${field}.params[${j}]`));
      if (version === 2) {
        if (
          (layer.scale !== undefined && layer.scale !== 1) ||
          (layer.offset !== undefined && BigInt(layer.offset) !== 0n)
        ) {
          throw new TypeError(`bw2l: ${field}: version 2 layers have no scale or offset`);
        }
        return { arch: layer.arch, params };
      }
      return { arch: layer.arch, scale: layer.scale ?? 1, offset: BigInt(layer.offset ?? 0), params };
    });
    sections.push({ ...base("layers"), type: "layers", layers });
  }
  if (input.transitions)
    sections.push({
      ...base("transitions"),
      type: "array",
      array: buildArray(input.transitions, version, "transitions"),
    });
  for (const [name, array] of Object.entries(input.arrays ?? {})) {
    sections.push({ ...base(name), type: "array", array: buildArray(array, version, `arrays.${name}`) });
  }
  if (input.spm) sections.push({ ...base("spm"), type: "data", data: input.spm });
  return { version, name: input.name ?? "", sections };
}
