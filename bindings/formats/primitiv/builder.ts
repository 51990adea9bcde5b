/**
 * primitiv builders: makeShape, makeTensor, makeParameter, makeModel, makeOptimizer (from row-major data).
 */

import * as kernels from "../../kernels/index.js";
import { bytesOf } from "../../tensor.js";
import { encodeKey, hasEscapedBytes } from "./msgpack.js";
import {
  type PrimitivModel,
  type PrimitivOptimizer,
  type PrimitivParameter,
  type PrimitivShape,
  type PrimitivTensor,
} from "./model.js";
import { showShape, volume } from "./reader.js";
import { checkShape, isParameterPart, isRecord, isTensorPart } from "./writer.js";

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
    throw new RangeError((error as Error).message, { cause: error });
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
    kernels.reorderColumnMajorBytes(
      sourceBytes.subarray(from, from + sampleBytes),
      data.subarray(from, from + sampleBytes),
      reversed,
      4,
    );
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
  if (value.shape.batch !== 1)
    throw new RangeError(`primitiv: a parameter value must have batch size 1, not ${value.shape.batch}`);
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
    const c =
      hasEscapedBytes(a[i]!) || hasEscapedBytes(b[i]!)
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
  throw new TypeError(
    `primitiv.makeModel: ${where}: a key path is a string ("sub.w") or an array of strings (["sub", "w"]), not ${Array.isArray(path) ? "an array with non-strings" : typeof path}`,
  );
}

/**
 * A Model with its parameters sorted by key path, as primitiv's Model::save writes them; `write()` takes it as it
 * is. Entries: `[path, parameter]` pairs (an array, a Map, any iterable) or a record `{ "sub.w": parameter }`;
 * a path is `["sub", "w"]` or `"sub.w"`; each parameter is a makeParameter() result.
 */
export function makeModel(
  entries: Iterable<readonly [KeyPath, PrimitivParameter]> | Readonly<Record<string, PrimitivParameter>>,
): PrimitivModel {
  if (!isRecord(entries))
    throw new TypeError(
      `primitiv.makeModel() takes [path, parameter] pairs or a record { "sub.w": parameter }, not ${String(entries as unknown)}`,
    );
  const pairs: unknown[] =
    Symbol.iterator in entries ? Array.from(entries as Iterable<unknown>) : Object.entries(entries);
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
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
      throw new RangeError(`primitiv: ${key} = ${value} is not a uint32`);
    uints.set(key, value);
  }
  const floats = new Map<string, number>();
  for (const [key, value] of entriesOf(floatConfigs)) floats.set(key, Math.fround(value));
  return { uintConfigs: uints, floatConfigs: floats };
}
