/**
 * How the stats family reads values: the arrays stats() and histogram() take, their options, and the chunked
 * walk that widens each chunk for the float32/float64 kernels (WASM or the TS twins in stats-js.ts).
 */
import {
  type KernelFamily,
  type KernelMemory,
  SCRATCH_OFFSET,
  familyModule,
  kernelsIn,
  memoryOf,
} from "../wasm/instance.js";
import { type StatsExports, convertFamily, statsFamily } from "../wasm/families.js";
import { awayFrom, useWasm } from "./backend.js";
import { viewBytes } from "./checks.js";
import * as convertJs from "./convert-js.js";

// ==== Statistics and histograms (issue 17) ====
// stats(), mergeStats() and histogram() over any numeric typed array. Values go through in chunks of
// STATS_CHUNK elements, on both backends alike, so a tensor of any size needs no second copy and the results
// are the same bits whichever backend runs:
// - WASM: each chunk is copied into the scratch area (or used in place when it lives in memory from
//   allocate()), widened there when it is not float32/float64 (float16 halves, int8 with a scale, integers),
//   then reduced by assembly/stats.ts. Scratch layout: raw chunk at +0 (<= 512 KiB), widened chunk at
//   +256 KiB (<= 512 KiB), results at +768 KiB, histogram counters after them.
// - TS: each chunk is widened to float64 and reduced by the twins in stats-js.ts, lane for lane.
// Chunks combine with Chan's formula, so std comes from the sum of squared deviations, never from
// sumSquares - sum^2 / n (which cancels catastrophically when the mean is large next to the spread).

/** What the values of a stats()/histogram() array are, where the array type alone does not say. */
export interface StatsOptions {
  /**
   * The element type. Needed only for the narrow floats kept as raw bits: "float16" and "bfloat16" (a
   * Uint16Array), "float8_e4m3" and "float8_e5m2" (a Uint8Array); any other value must match the array ("bool"
   * goes with a Uint8Array), so a NamedTensor's dtype can always be passed along.
   */
  dtype?: string | undefined;
  /** int8 only: the values are (q - offset) * scale, computed in float32 as kernels.dequantizeI8 does. */
  scale?: number | undefined;
  /** int8 only, with or without scale (default 0). */
  offset?: number | undefined;
}

/** The arrays {@link stats} and {@link histogram} take (narrow floats as their raw bits, with the `dtype` option). */
export type StatsData =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

/** Elements per chunk, on both backends (the results depend on it, bit for bit). */
export const STATS_CHUNK = 65536;
const STATS_RAW = SCRATCH_OFFSET;
const STATS_WIDE = SCRATCH_OFFSET + (256 << 10);
export const STATS_RESULT = SCRATCH_OFFSET + (768 << 10);
export const STATS_COUNTS = STATS_RESULT + 128;

/** How one array's values reach the float32/float64 kernels. */
interface ValuePlan {
  /** Bytes per stored element. */
  elementBytes: number;
  /** Which kernel reduces the widened values; null: TS only (64-bit integers). */
  wide: "f32" | "f64" | null;
  /**
   * WASM widening from raw to wide (none for float32/float64), by a kernel of `widenFamily` (stats, or the convert
   * family instantiated on the same memory).
   */
  widen: ((home: KernelMemory, src: number, dst: number, n: number) => void) | null;
  widenFamily?: KernelFamily<unknown> | undefined;
  /** TS: values [start, start + n) as float64 into dst. */
  toF64(start: number, n: number, dst: Float64Array): void;
}

const DTYPE_OF_ARRAY: Record<string, readonly string[]> = {
  Float32Array: ["float32"],
  Float64Array: ["float64"],
  Int8Array: ["int8"],
  Uint8Array: ["uint8", "bool", "float8_e4m3", "float8_e5m2"],
  Uint8ClampedArray: ["uint8"],
  Int16Array: ["int16"],
  Uint16Array: ["uint16", "float16", "bfloat16"],
  Int32Array: ["int32"],
  Uint32Array: ["uint32"],
  BigInt64Array: ["int64"],
  BigUint64Array: ["uint64"],
};

function arrayTypeName(data: unknown): string | undefined {
  if (!ArrayBuffer.isView(data) || data instanceof DataView) return undefined;
  const name = Object.prototype.toString.call(data).slice(8, -1);
  return Object.prototype.hasOwnProperty.call(DTYPE_OF_ARRAY, name) ? name : undefined;
}

let floatBitsChunk: Uint32Array | undefined;
let f32Chunk: Float32Array | undefined;

/** float16, bfloat16 and float8 values: widened to float32 exactly (WASM kernel, or TS twin into float32 bits). */
function narrowFloat<T extends Uint16Array | Uint8Array, E>(
  data: T,
  elementBytes: number,
  widenFamily: KernelFamily<E>,
  widen: (k: E, src: number, dst: number, n: number) => void,
  twin: (src: T, bits: Uint32Array) => void,
): ValuePlan {
  return {
    elementBytes,
    wide: "f32",
    widenFamily,
    widen: (home, s, d, n) => widen(kernelsIn(home, widenFamily), s, d, n),
    toF64: (start, n, dst) => {
      floatBitsChunk ??= new Uint32Array(STATS_CHUNK);
      const bits = floatBitsChunk.subarray(0, n);
      twin(data.subarray(start, start + n) as T, bits);
      dst.set(new Float32Array(bits.buffer, 0, n));
    },
  };
}

export function planValues(data: StatsData, options: StatsOptions | undefined, what: string): ValuePlan {
  const type = arrayTypeName(data);
  if (type === undefined) {
    throw new TypeError(
      `tensorfile: ${what} takes a numeric typed array (Float32Array, Float64Array, Uint16Array of float16 halves, Int8Array, …), not ${data === null ? "null" : typeof data === "object" ? ((data as object).constructor?.name ?? "an object") : typeof data}`,
    );
  }
  const dtype = options?.dtype ?? DTYPE_OF_ARRAY[type]![0]!;
  if (!DTYPE_OF_ARRAY[type]!.includes(dtype)) {
    throw new TypeError(
      `tensorfile: ${what}: a ${type} cannot hold dtype ${String(dtype)} (it holds ${DTYPE_OF_ARRAY[type]!.join(" or ")}; float16 halves come as a Uint16Array)`,
    );
  }
  const quantized = options?.scale !== undefined || options?.offset !== undefined;
  if (quantized && dtype !== "int8")
    throw new TypeError(`tensorfile: ${what}: scale and offset apply to int8 data (an Int8Array), not to ${dtype}`);
  const scale = options?.scale ?? 1;
  const offset = options?.offset ?? 0;
  if (
    quantized &&
    (typeof scale !== "number" || typeof offset !== "number" || !Number.isFinite(scale) || !Number.isFinite(offset))
  ) {
    throw new TypeError(
      `tensorfile: ${what}: scale and offset must be finite numbers, not ${String(options?.scale)} and ${String(options?.offset)}`,
    );
  }
  const copyTo = (src: ArrayLike<number>) => (start: number, n: number, dst: Float64Array) => {
    dst.set((src as Float32Array).subarray(start, start + n));
  };
  switch (dtype) {
    case "float32":
      return { elementBytes: 4, wide: "f32", widen: null, toF64: copyTo(data as Float32Array) };
    case "float64":
      return { elementBytes: 8, wide: "f64", widen: null, toF64: copyTo(data as Float64Array) };
    case "float16":
      return narrowFloat(
        data as Uint16Array,
        2,
        convertFamily,
        (k, s, d, n) => k.f16ToF32(s, d, n),
        convertJs.f16ToF32,
      );
    case "bfloat16":
      return narrowFloat(
        data as Uint16Array,
        2,
        convertFamily,
        (k, s, d, n) => k.bf16ToF32(s, d, n),
        convertJs.bf16ToF32,
      );
    case "float8_e4m3":
      return narrowFloat(
        data as Uint8Array,
        1,
        convertFamily,
        (k, s, d, n) => k.f8e4m3ToF32(s, d, n),
        convertJs.f8e4m3ToF32,
      );
    case "float8_e5m2":
      return narrowFloat(
        data as Uint8Array,
        1,
        convertFamily,
        (k, s, d, n) => k.f8e5m2ToF32(s, d, n),
        convertJs.f8e5m2ToF32,
      );
    case "int8": {
      const q = data as Int8Array;
      if (quantized) {
        return {
          elementBytes: 1,
          wide: "f32",
          widenFamily: convertFamily,
          widen: (home, s, d, n) => kernelsIn(home, convertFamily).dequantizeI8(s, d, n, scale, offset),
          toF64: (start, n, dst) => {
            f32Chunk ??= new Float32Array(STATS_CHUNK);
            const values = f32Chunk.subarray(0, n);
            convertJs.dequantizeI8(q.subarray(start, start + n), values, scale, offset);
            dst.set(values);
          },
        };
      }
      return {
        elementBytes: 1,
        wide: "f32",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI8ToF32(s, d, n),
        toF64: copyTo(q),
      };
    }
    case "uint8":
    case "bool":
      return {
        elementBytes: 1,
        wide: "f32",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU8ToF32(s, d, n),
        toF64: copyTo(data as Uint8Array),
      };
    case "int16":
      return {
        elementBytes: 2,
        wide: "f32",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI16ToF32(s, d, n),
        toF64: copyTo(data as Int16Array),
      };
    case "uint16":
      return {
        elementBytes: 2,
        wide: "f32",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU16ToF32(s, d, n),
        toF64: copyTo(data as Uint16Array),
      };
    case "int32":
      return {
        elementBytes: 4,
        wide: "f64",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI32ToF64(s, d, n),
        toF64: copyTo(data as Int32Array),
      };
    case "uint32":
      return {
        elementBytes: 4,
        wide: "f64",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU32ToF64(s, d, n),
        toF64: copyTo(data as Uint32Array),
      };
    default: {
      // 64-bit integers: TS only, as float64 (exact up to 2^53)
      const big = data as BigInt64Array | BigUint64Array;
      return {
        elementBytes: 8,
        wide: null,
        widen: null,
        toF64: (start, n, dst) => {
          for (let i = 0; i < n; i++) dst[i] = Number(big[start + i]!);
        },
      };
    }
  }
}

/**
 * Calls `reduce` for every chunk of `data`'s values: on WASM with the address of the chunk's float32/float64
 * values, else with the values as a Float64Array.
 */
export function forEachChunk(
  data: StatsData,
  plan: ValuePlan,
  onWasm: (k: StatsExports, home: KernelMemory, values: number, n: number) => void,
  onJs: (values: Float64Array, n: number) => void,
): void {
  const count = data.length;
  let wasm = plan.wide === null ? null : useWasm(count, statsFamily);
  if (wasm && plan.widenFamily && !familyModule(plan.widenFamily)) wasm = null;
  if (!wasm) {
    const values = new Float64Array(Math.min(STATS_CHUNK, count));
    for (let start = 0; start < count; start += STATS_CHUNK) {
      const n = Math.min(STATS_CHUNK, count - start);
      plan.toF64(start, n, values);
      onJs(values, n);
    }
    return;
  }
  const resident = memoryOf(data.buffer);
  const home = resident ?? wasm;
  const k = kernelsIn(home, statsFamily);
  const bytes = viewBytes(data);
  const size = plan.elementBytes;
  // the raw chunk 2 KiB from the array's offset modulo 4 KiB (backend.ts awayFrom: no 4 KiB-aliased memcpy), where
  // that leaves it clear of the widened chunk at +256 KiB (a chunk of 4-byte integers fills those 256 KiB)
  const raw =
    plan.widen && size * STATS_CHUNK + 4096 > STATS_WIDE - STATS_RAW ? STATS_RAW : awayFrom(STATS_RAW, data.byteOffset);
  const heap = home.bytes;
  for (let start = 0; start < count; start += STATS_CHUNK) {
    const n = Math.min(STATS_CHUNK, count - start);
    let at: number;
    if (resident) {
      at = data.byteOffset + start * size;
    } else {
      heap.subarray(raw, raw + n * size).set(bytes.subarray(start * size, (start + n) * size));
      at = raw;
    }
    if (plan.widen) {
      plan.widen(home, at, STATS_WIDE, n);
      at = STATS_WIDE;
    }
    onWasm(k, home, at, n);
  }
}

/**
 * Statistics of one chunk or more, before the finishing step (min/max still ±Inf when nothing is finite). The
 * mean is kept as shift + offset (the shift: a value of the data), so that merging loses no precision to a
 * large mean and constant data keeps m2 exactly 0.
 */
