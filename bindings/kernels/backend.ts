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
  type KernelFamily,
  type KernelMemory,
  SCRATCH_BYTES,
  SCRATCH_OFFSET,
  familyModule,
  kernelsIn,
  memoryOf,
  sharedMemory,
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
 * Bytes of source plus destination per streamed chunk: small enough that the copy in, the kernel and the copy out
 * stay in L2 (a chunk is written by one copy and read by the next step while still cached), large enough that the
 * calls cost nothing next to the work. Measured on a 1 MiB-L2 machine: 128-512 KiB alike, 1 MiB slower.
 */
export const STREAM_BYTES = 256 << 10;

/**
 * Where in the scratch area [from, from + 4096 + ...) a copy to or from the bytes at `byteOffset` should start:
 * 2 KiB away from them modulo 4 KiB. glibc's memcpy copies mid-sized blocks with `rep movsb`, which runs ~12x
 * slower on AMD Zen when source and destination are (nearly) 4 KiB-aliased, and large typed arrays start on a page:
 * with the scratch at a page boundary, every aligned array would alias it. The offset keeps 16-byte alignment.
 */
export function awayFrom(from: number, byteOffset: number): number {
  return from + ((byteOffset + 2048) & 0xff0);
}

/** Whole elements per chunk: a multiple of 4096, so every chunk keeps the first one's offset modulo 4 KiB. */
function chunkElements(bytesPerElement: number, budget = STREAM_BYTES): number {
  return Math.max(4096, Math.floor(budget / bytesPerElement / 4096) * 4096);
}

/**
 * Runs an element-wise kernel of `family` over `count` elements from `src` (srcSize bytes each) to `dst` (dstSize
 * bytes each). src and dst may be the same bytes (in-place kernels pass dst === src).
 */
export function elementwise<E>(
  family: KernelFamily<E>,
  src: Uint8Array,
  srcSize: number,
  dst: Uint8Array,
  dstSize: number,
  count: number,
  call: ElementwiseCall<E>,
): void {
  if (count === 0) return;
  const srcHome = memoryOf(src.buffer);
  const dstHome = memoryOf(dst.buffer);
  if (dstHome && srcHome === dstHome) {
    call(kernelsIn(dstHome, family), src.byteOffset, dst.byteOffset, count);
    return;
  }
  if (dstHome) {
    // stream the source through the destination memory's scratch; results land in place
    const chunk = chunkElements(srcSize, SCRATCH_BYTES - 4096);
    const heap = dstHome.bytes;
    const k = kernelsIn(dstHome, family);
    const at = awayFrom(SCRATCH_OFFSET, src.byteOffset);
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      heap.subarray(at, at + n * srcSize).set(src.subarray(start * srcSize, (start + n) * srcSize));
      call(k, at, dst.byteOffset + start * dstSize, n);
    }
    return;
  }
  const home = srcHome ?? sharedMemory()!;
  const heap = home.bytes;
  const k = kernelsIn(home, family);
  const inPlace = src.buffer === dst.buffer && src.byteOffset === dst.byteOffset && srcSize === dstSize;
  if (srcHome) {
    // the source is in WASM memory already: compute into the scratch, copy out
    const chunk = chunkElements(dstSize);
    const out = awayFrom(SCRATCH_OFFSET, dst.byteOffset);
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      call(k, src.byteOffset + start * srcSize, out, n);
      dst.set(heap.subarray(out, out + n * dstSize), start * dstSize);
    }
    return;
  }
  const chunk = chunkElements(inPlace ? srcSize : srcSize + dstSize);
  const at = awayFrom(SCRATCH_OFFSET, src.byteOffset);
  const out = inPlace ? at : awayFrom(SCRATCH_OFFSET + 4096 + chunk * srcSize, dst.byteOffset);
  for (let start = 0; start < count; start += chunk) {
    const n = Math.min(chunk, count - start);
    heap.subarray(at, at + n * srcSize).set(src.subarray(start * srcSize, (start + n) * srcSize));
    call(k, at, out, n);
    dst.set(heap.subarray(out, out + n * dstSize), start * dstSize);
  }
}
