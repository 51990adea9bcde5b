/**
 * Lazy, synchronous instantiation of the embedded kernels, and the memory layout JS owns.
 *
 * The module imports its memory, so one compiled module serves many instances:
 * - the shared instance: a small fixed memory (static data, then a 1 MiB scratch area) through which
 *   ordinary typed arrays are streamed in cache-sized chunks; it never grows, so its views stay valid;
 * - dedicated memories from `kernels.allocate()`: scratch first, then the array itself. Kernels whose
 *   source and destination live in one of these run on them in place, with no copy in or out.
 *
 * Memory layout of every instance (byte offsets):
 *   0 .. STATIC_LIMIT        the module's static data (constants)
 *   SCRATCH_OFFSET .. +1 MiB chunk scratch
 *   DATA_OFFSET ..           a dedicated array (dedicated memories only)
 */
import { KERNELS_WASM_BASE64 } from "./kernels.wasm.js";

export interface KernelExports {
  f16ToF32(src: number, dst: number, count: number): void;
  f32ToF16(src: number, dst: number, count: number): void;
  dequantizeI8(src: number, dst: number, count: number, scale: number, offset: number): void;
  quantizeI8(src: number, dst: number, count: number, scale: number, offset: number): void;
  byteSwap16(ptr: number, count: number): void;
  byteSwap32(ptr: number, count: number): void;
  byteSwap64(ptr: number, count: number): void;
  transpose8(src: number, dst: number, rows: number, cols: number, srcStride: number, dstStride: number): void;
  transpose16(src: number, dst: number, rows: number, cols: number, srcStride: number, dstStride: number): void;
  transpose32(src: number, dst: number, rows: number, cols: number, srcStride: number, dstStride: number): void;
  transpose64(src: number, dst: number, rows: number, cols: number, srcStride: number, dstStride: number): void;
  transposeF16ToF32(src: number, dst: number, rows: number, cols: number, srcStride: number, dstStride: number): void;
  staticEnd(): number;
  copy(src: number, dst: number, bytes: number): void;
}

export interface KernelInstance {
  readonly exports: KernelExports;
  readonly memory: WebAssembly.Memory;
  /** Bytes of memory (fixed: these memories never grow). */
  readonly byteLength: number;
}

const PAGE_BYTES = 65536;
export const SCRATCH_OFFSET = 65536;
export const SCRATCH_BYTES = 1 << 20;
export const DATA_OFFSET = SCRATCH_OFFSET + SCRATCH_BYTES;
/** wasm32 memories stop at 4 GiB. */
export const MAX_MEMORY_BYTES = 65536 * PAGE_BYTES;

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  // native decoders where the runtime has one (a JS loop over 19 KB runs interpreted on the first call: ~2-8 ms)
  const native = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (native) return native(text);
  const nodeBuffer = (globalThis as { Buffer?: { from(s: string, encoding: string): Uint8Array } }).Buffer;
  if (nodeBuffer) {
    const decoded = nodeBuffer.from(text, "base64");
    return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength).slice();
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly (or its SIMD) is unavailable. Compiled once, on first use. */
export function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = typeof WebAssembly === "object" ? new WebAssembly.Module(decodeBase64(KERNELS_WASM_BASE64)) : null;
    } catch {
      compiled = null; // no SIMD, or a CSP without wasm-unsafe-eval: the TS twins take over
    }
  }
  return compiled;
}

function instantiate(memory: WebAssembly.Memory): KernelInstance {
  const module = kernelModule();
  if (!module) throw new Error("tensorfile: WebAssembly kernels are unavailable");
  // the kernels import only their memory (built with --use abort=: no abort import) and take and return numbers,
  // so the raw instance is all the glue there is
  const kernels = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as KernelExports;
  if (kernels.staticEnd() > SCRATCH_OFFSET) throw new Error("tensorfile: kernel static data overlaps the scratch area");
  return { exports: kernels, memory, byteLength: memory.buffer.byteLength };
}

let shared: KernelInstance | null | undefined;

/** The instance with the small fixed scratch memory, or null without WebAssembly. */
export function sharedInstance(): KernelInstance | null {
  if (shared === undefined) {
    try {
      const pages = DATA_OFFSET / PAGE_BYTES;
      shared = kernelModule() ? instantiate(new WebAssembly.Memory({ initial: pages, maximum: pages })) : null;
    } catch {
      shared = null;
    }
  }
  return shared;
}

const dedicated = new WeakMap<ArrayBufferLike, KernelInstance>();

/** The instance whose memory is `buffer`, when `buffer` is one of our dedicated memories. */
export function instanceOf(buffer: ArrayBufferLike): KernelInstance | undefined {
  return dedicated.get(buffer);
}

/**
 * A fresh memory of its own holding `bytes` bytes at DATA_OFFSET (after the scratch area), or null without
 * WebAssembly. Throws a RangeError above 4 GiB, the wasm32 limit.
 */
export function allocateDedicated(bytes: number): KernelInstance | null {
  if (!kernelModule()) return null;
  const total = DATA_OFFSET + bytes;
  if (total > MAX_MEMORY_BYTES) throw new RangeError(`tensorfile: ${bytes} bytes do not fit in a 4 GiB WebAssembly memory`);
  const pages = Math.max(1, Math.ceil(total / PAGE_BYTES));
  const instance = instantiate(new WebAssembly.Memory({ initial: pages, maximum: pages }));
  dedicated.set(instance.memory.buffer, instance);
  return instance;
}

let work: KernelInstance | null = null;

/**
 * A reusable dedicated memory of at least DATA_OFFSET + `bytes` bytes for kernels that need a whole array in
 * memory at once (transposes of plain arrays). Kept for the next call; `releaseWorkMemory` drops it.
 */
export function workInstance(bytes: number): KernelInstance | null {
  if (!work || work.byteLength < DATA_OFFSET + bytes) {
    work = null;
    work = allocateDedicated(Math.max(bytes, 4 << 20));
  }
  return work;
}

export function releaseWorkMemory(): void {
  work = null;
}
