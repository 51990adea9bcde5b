/**
 * Typed arrays that live in WebAssembly memory (kernels run on them in place), and the reusable work memory.
 */
import { DATA_OFFSET, allocateDedicated, memoryOf, releaseWorkMemory } from "../wasm/instance.js";
import { getBackend } from "./backend.js";
import { checkArgs } from "./checks.js";

type TypedArrayConstructor<T> = {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  new (length: number): T;
  BYTES_PER_ELEMENT: number;
};

/**
 * A typed array in a WebAssembly memory of its own (it never grows, so the array stays valid). Kernels whose
 * source and destination were allocated here run on them in place, with no copying: use it for large
 * buffers you convert repeatedly. Falls back to an ordinary array where WebAssembly is unavailable.
 */
export function allocate<T>(ctor: TypedArrayConstructor<T>, length: number): T {
  if (typeof ctor !== "function" || typeof (ctor as { BYTES_PER_ELEMENT?: unknown }).BYTES_PER_ELEMENT !== "number")
    throw new TypeError("tensorfile: allocate() takes a typed array constructor (Float32Array, …)");
  checkArgs("allocate", "length:count", length);
  const bytes = length * ctor.BYTES_PER_ELEMENT;
  const home = getBackend() === "js" ? null : allocateDedicated(bytes);
  if (!home) return new ctor(length);
  return new ctor(home.memory.buffer, DATA_OFFSET, length);
}

/** True when `data` lives in memory from `allocate()`. */
export function isWasmResident(data: ArrayBufferView): boolean {
  checkArgs("isWasmResident", "data:view", data);
  return memoryOf(data.buffer) !== undefined;
}

/** Drops the reusable work memory kept for large transposes. */
export function releaseMemory(): void {
  releaseWorkMemory();
}
