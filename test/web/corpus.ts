/**
 * The files the page's view models are tested on: every generated example (bindings/examples.ts) and every
 * reference fixture under ../shared/fixtures (the invalid ones apart), plus an independent statistics oracle.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type NamedTensor, readAny } from "../../bindings/index.js";
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

/** Readable files: the examples and the reference fixtures that readAny opens. */
export function readableFiles(): CorpusFile[] {
  const files: CorpusFile[] = exampleFiles().map((e) => ({ label: `example ${e.name}`, bytes: e.bytes }));
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
  return [...fixtureFiles(true), "spraak/sx313.crlf-damaged.trk"].filter((p) => HAVE_FIXTURES).map((path) => ({ label: path, bytes: readFixture(...path.split("/")) }));
}

const NUMERIC = new Set(["float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"]);

/** A decoded tensor's values as plain numbers (float16 widened, quantized int8 dequantized by the library). */
export function oracleValues(tensor: NamedTensor): number[] | undefined {
  if (!NUMERIC.has(tensor.dtype)) return undefined;
  return Array.from(tensor.data as ArrayLike<number | bigint>, (v) => Number(v));
}

/** Statistics the plain way: one loop, two-pass variance, nothing shared with the page's code. */
export function oracleStats(values: number[]) {
  const finite = values.filter((v) => Number.isFinite(v));
  const nan = values.filter((v) => Number.isNaN(v)).length;
  const posInf = values.filter((v) => v === Infinity).length;
  const negInf = values.filter((v) => v === -Infinity).length;
  const zeros = finite.filter((v) => v === 0).length;
  const mean = finite.length > 0 ? finite.reduce((a, b) => a + b, 0) / finite.length : NaN;
  const variance = finite.length > 0 ? finite.reduce((a, b) => a + (b - mean) ** 2, 0) / finite.length : NaN;
  let min = Infinity;
  let max = -Infinity;
  for (const v of finite) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return {
    count: values.length, finite: finite.length, nan, posInf, negInf, zeros, mean, std: Math.sqrt(variance),
    min: finite.length > 0 ? min : NaN, max: finite.length > 0 ? max : NaN,
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
