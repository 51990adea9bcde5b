/**
 * The files the page's view models are tested on: every generated example (bindings/examples.ts) and every
 * reference fixture under ../shared/fixtures (the invalid ones apart), plus an independent statistics oracle.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import { type NamedTensor, kernels, readAny, writeNpy, writeSafetensors } from "../../bindings/index.js";
import { exampleFiles } from "../../bindings/examples.js";
import { FIXTURES, HAVE_FIXTURES, readFixture } from "../helpers/fixtures.js";

export interface CorpusFile {
  label: string;
  bytes: Uint8Array;
}

function fixtureFiles(invalid: boolean): string[] {
  if (!HAVE_FIXTURES) return [];
  const out: string[] = [];
  for (const format of readdirSync(FIXTURES).sort()) {
    const dir = join(FIXTURES, format);
    if (!statSync(dir).isDirectory()) continue;
    const sub = invalid ? join(dir, "invalid") : dir;
    let names: string[];
    try {
      names = readdirSync(sub).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (!statSync(join(sub, name)).isFile() || /\.(md|json)$/.test(name)) continue;
      out.push(invalid ? `${format}/invalid/${name}` : `${format}/${name}`);
    }
  }
  return out;
}

/**
 * Files of the ecosystem formats the page opens too (safetensors, npy, npz), written here with the library's
 * writers and fflate: every dtype safetensors has, non-finite values, a stored and a deflated npz member.
 */
export function ecosystemFiles(): CorpusFile[] {
  const mixed = writeSafetensors([
    {
      name: "weights",
      dtype: "float32",
      shape: [3, 4],
      data: Float32Array.from([0.5, -1, NaN, Infinity, 0, 2, -Infinity, 3, 4, 0, -0.25, 1e-3]),
    },
    { name: "half", dtype: "float16", shape: [2, 2], data: kernels.f32ToF16(Float32Array.from([1, -2, 0.5, 65504])) },
    { name: "brain", dtype: "bfloat16", shape: [5], data: Uint16Array.from([0x3f80, 0xbf80, 0x7fc0, 0x0000, 0x4049]) },
    { name: "e4m3", dtype: "float8_e4m3", shape: [4], data: Uint8Array.from([0x38, 0xb8, 0x7f, 0x00]) },
    { name: "e5m2", dtype: "float8_e5m2", shape: [4], data: Uint8Array.from([0x3c, 0xbc, 0x7c, 0x00]) },
    { name: "ids", dtype: "int64", shape: [3], data: BigInt64Array.from([1n, -5n, 9007199254740993n]) },
    { name: "mask", dtype: "bool", shape: [4], data: Uint8Array.from([1, 0, 0, 1]) },
  ] as NamedTensor[]);
  const matrix = {
    name: "m",
    dtype: "float64",
    shape: [2, 3],
    data: Float64Array.from([1, 2, 3, 4, 5, -6]),
  } as NamedTensor;
  const npz = zipSync({
    "stored.npy": [writeNpy(matrix), { level: 0 }],
    "deflated.npy": [
      writeNpy({
        name: "d",
        dtype: "int16",
        shape: [50],
        data: Int16Array.from({ length: 50 }, (_, i) => i * 3 - 70),
      } as NamedTensor),
      { level: 6 },
    ],
  });
  return [
    { label: "generated mixed.safetensors", bytes: mixed },
    { label: "generated matrix.npy", bytes: writeNpy(matrix) },
    { label: "generated pair.npz", bytes: npz },
  ];
}

/** Readable files: the examples, the ecosystem files and the reference fixtures that readAny opens. */
export function readableFiles(): CorpusFile[] {
  const files: CorpusFile[] = exampleFiles().map((e) => ({ label: `example ${e.name}`, bytes: e.bytes }));
  files.push(...ecosystemFiles());
  for (const path of fixtureFiles(false)) {
    const bytes = readFixture(...path.split("/"));
    try {
      readAny(bytes);
    } catch {
      continue; // e.g. the .onnx blobs and the spm input beside the fixtures: not one of our formats
    }
    files.push({ label: path, bytes });
  }
  return files;
}

/** Damaged and other invalid fixtures (every one makes readAny throw a FormatError or opens with warnings). */
export function invalidFiles(): CorpusFile[] {
  return [...fixtureFiles(true), "spraak/sx313.crlf-damaged.trk"]
    .filter(() => HAVE_FIXTURES)
    .map((path) => ({ label: path, bytes: readFixture(...path.split("/")) }));
}

const NUMERIC = new Set([
  "float16",
  "float32",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
]);

const WIDENED = new Set(["float16", "bfloat16", "float8_e4m3", "float8_e5m2"]);

/**
 * Every tensor's values as plain numbers, undefined for types that are not real numbers: as stored, except
 * float16/bfloat16/float8 (widened) and int8 with a scale and offset (dequantized), which the library's
 * `dtype: "float32"` decode gives.
 */
export function oracleTensorValues(bytes: Uint8Array, quantized: (name: string) => boolean): (number[] | undefined)[] {
  const opened = readAny(bytes);
  const stored = opened.tensors();
  const wide = opened.tensors({ dtype: "float32" });
  return stored.map((t, k) => {
    if (!NUMERIC.has(t.dtype) && !WIDENED.has(t.dtype)) return undefined;
    const source = WIDENED.has(t.dtype) || (t.dtype === "int8" && quantized(t.name)) ? wide[k]! : t;
    return Array.from(source.data as ArrayLike<number | bigint>, (v) => Number(v));
  });
}

/** Statistics the plain way: two passes (mean, then squared deviations), nothing shared with the page's code. */
export function oracleStats(values: number[]) {
  const finite = values.filter((v) => Number.isFinite(v));
  const nan = values.filter((v) => Number.isNaN(v)).length;
  const posInf = values.filter((v) => v === Infinity).length;
  const negInf = values.filter((v) => v === -Infinity).length;
  const zeros = finite.filter((v) => v === 0).length;
  // scaled by the largest magnitude so that values near 1e308 neither overflow the sum nor the squares
  const scale = finite.reduce((a, b) => Math.max(a, Math.abs(b)), 0) || 1;
  const mean = finite.length > 0 ? (finite.reduce((a, b) => a + b / scale, 0) / finite.length) * scale : NaN;
  const scaledVariance =
    finite.length > 0 ? finite.reduce((a, b) => a + ((b - mean) / scale) ** 2, 0) / finite.length : NaN;
  let min = Infinity;
  let max = -Infinity;
  for (const v of finite) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return {
    count: values.length,
    finite: finite.length,
    nan,
    posInf,
    negInf,
    zeros,
    mean,
    std: Math.sqrt(scaledVariance) * scale,
    min: finite.length > 0 ? min : NaN,
    max: finite.length > 0 ? max : NaN,
  };
}

/**
 * |a - b| small relative to the data's scale (sums in another order differ in the last bits). Where f64 sums
 * overflow (values near 1e308) both sides only need to be non-finite.
 */
export function close(a: number, b: number, scale: number, relative = 1e-9): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return !Number.isFinite(a) && !Number.isFinite(b);
  return Math.abs(a - b) <= relative * Math.max(1, Math.abs(scale));
}
