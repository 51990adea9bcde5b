/**
 * Which twin runs each kernel call, and how data reaches WASM memory. Each public kernel picks the WASM SIMD
 * kernel or its TS twin (the *-js.ts files beside it): the twin for tiny inputs (a JS->WASM call costs more than it
 * saves below ~256 elements), where WebAssembly is unavailable, or when forced with setBackend("js").
 *
 * How data reaches WASM memory:
 * - arrays from `allocate()` live in a WebAssembly.Memory of their own; a kernel whose source and destination
 *   are in one such memory runs in place, and one whose destination is there streams only the source in;
 * - ordinary arrays are streamed through a fixed 1 MiB scratch area in cache-sized chunks (copy in, kernel,
 *   copy out), which never grows memory and so never detaches a view;
 * - transposes of ordinary arrays need the whole array at once: they go through a reusable work memory.
 *
 * The WASM kernels come in families, one module each (../wasm/families.ts), compiled on the first use of one of
 * their kernels: every wrapper names the family it runs, and nothing here refers to all of them, so a bundle keeps
 * only the modules of the wrappers it keeps.
 */
import {
  type KernelFamily, type KernelMemory, SCRATCH_BYTES, SCRATCH_OFFSET, familyModule, kernelsIn, memoryOf, sharedMemory,
} from "../wasm/instance.js";

/**
 * Which twin of the kernels runs: `"wasm"` (WebAssembly SIMD), `"js"` (the TypeScript twins) or `"auto"` (WASM from
 * 256 elements where available).
 */
export type Backend = "wasm" | "js" | "auto";

let backend: Backend = "auto";
/** Below this many elements "auto" uses the TS twin. */
export const WASM_MIN_ELEMENTS = 256;

/** Forces a backend ("wasm" throws where WebAssembly is unavailable); "auto" is the default. */
export function setBackend(value: Backend): void {
  if (value !== "wasm" && value !== "js" && value !== "auto") throw new TypeError(`unknown backend ${String(value)}`);
  if (value === "wasm" && !sharedMemory()) throw new Error("tensorfile: WebAssembly kernels are unavailable here");
  backend = value;
}

/** The backend {@link setBackend} chose (`"auto"` unless changed). */
export function getBackend(): Backend {
  return backend;
}

/** True where the WASM SIMD kernels can run. */
export function wasmAvailable(): boolean {
  return sharedMemory() !== null;
}

/** The shared memory when `family`'s kernels should run on WASM for `count` elements, else null (TS twin). */
export function useWasm(count: number, family: KernelFamily<unknown>): KernelMemory | null {
  if (backend === "js") return null;
  if (backend === "auto" && count < WASM_MIN_ELEMENTS) return null;
  return familyModule(family) ? sharedMemory() : null;
}

export type ElementwiseCall<E> = (k: E, src: number, dst: number, count: number) => void;

/**
 * Runs an element-wise kernel of `family` over `count` elements from `src` (srcSize bytes each) to `dst` (dstSize
 * bytes each). src and dst may be the same bytes (in-place kernels pass dst === src).
 */
export function elementwise<E>(family: KernelFamily<E>, src: Uint8Array, srcSize: number, dst: Uint8Array, dstSize: number, count: number, call: ElementwiseCall<E>): void {
  if (count === 0) return;
  const srcHome = memoryOf(src.buffer);
  const dstHome = memoryOf(dst.buffer);
  if (dstHome && srcHome === dstHome) {
    call(kernelsIn(dstHome, family), src.byteOffset, dst.byteOffset, count);
    return;
  }
  if (dstHome) {
    // stream the source through the destination memory's scratch; results land in place
    const chunk = Math.floor(SCRATCH_BYTES / srcSize / 64) * 64;
    const heap = new Uint8Array(dstHome.memory.buffer);
    const k = kernelsIn(dstHome, family);
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      heap.set(src.subarray(start * srcSize, (start + n) * srcSize), SCRATCH_OFFSET);
      call(k, SCRATCH_OFFSET, dst.byteOffset + start * dstSize, n);
    }
    return;
  }
  const home = srcHome ?? sharedMemory()!;
  const heap = new Uint8Array(home.memory.buffer);
  const k = kernelsIn(home, family);
  const inPlace = src.buffer === dst.buffer && src.byteOffset === dst.byteOffset && srcSize === dstSize;
  if (srcHome) {
    // the source is in WASM memory already: compute into the scratch, copy out
    const chunk = Math.floor(SCRATCH_BYTES / dstSize / 64) * 64;
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      call(k, src.byteOffset + start * srcSize, SCRATCH_OFFSET, n);
      dst.set(heap.subarray(SCRATCH_OFFSET, SCRATCH_OFFSET + n * dstSize), start * dstSize);
    }
    return;
  }
  const chunk = Math.floor(SCRATCH_BYTES / (inPlace ? srcSize : srcSize + dstSize) / 64) * 64;
  const out = inPlace ? SCRATCH_OFFSET : SCRATCH_OFFSET + chunk * srcSize;
  for (let start = 0; start < count; start += chunk) {
    const n = Math.min(chunk, count - start);
    heap.set(src.subarray(start * srcSize, (start + n) * srcSize), SCRATCH_OFFSET);
    call(k, SCRATCH_OFFSET, out, n);
    dst.set(heap.subarray(out, out + n * dstSize), start * dstSize);
  }
}
