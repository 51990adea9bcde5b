/**
 * Lazy, synchronous instantiation of the embedded kernel modules, and the memory layout JS owns.
 *
 * The kernels come as one small WebAssembly module per family (bindings/wasm/families.ts; built by
 * scripts/build-wasm.mjs from assembly/families/), each embedded in its own generated module, so that a bundler
 * keeps only the families the bundled code can reach. A family's module is compiled on the first use of one of its
 * kernels and kept; it imports its memory, so one compiled module serves every memory:
 * - the shared memory: small and fixed (static data, then a 1 MiB scratch area) through which ordinary typed
 *   arrays are streamed in cache-sized chunks; it never grows, so its views stay valid;
 * - dedicated memories from `kernels.allocate()` (and loadFile's arenas): scratch first, then the array itself.
 *   Kernels whose source and destination live in one of these run on them in place, with no copy in or out.
 * Every family used on a memory is instantiated on that memory (once, on first use there), so kernels of
 * different families work on the same arrays (stats widens float16 with the convert family's kernel, in place).
 *
 * Memory layout of every memory (byte offsets):
 *   0 .. SCRATCH_OFFSET       the families' static data (constants, tiles): each module in a slot of its own
 *                              (its memoryBase, scripts/wasm-families.mjs), so instances sharing a memory never
 *                              overlap
 *   SCRATCH_OFFSET .. +1 MiB  chunk scratch
 *   DATA_OFFSET ..            a dedicated array (dedicated memories only)
 */

/** One kernel family: an embedded module and the type of its exports (E). Compiled on first use. */
export interface KernelFamily<E> {
  readonly name: string;
  /** The module's bytes, in lowercase hex (bindings/wasm/<name>.wasm.ts). */
  readonly hex: string;
  /** The compiled module: undefined before the first use, null where it cannot be compiled. */
  module?: WebAssembly.Module | null | undefined;
  /** Index of its instances in KernelMemory.exports, given when it is compiled. */
  id?: number | undefined;
  /** Phantom: the exports' type. */
  readonly exportsType?: E | undefined;
}

/** What every family module exports besides its kernels. */
export interface FamilyCommonExports {
  /** First byte after the module's static data. */
  staticEnd(): number;
}

/** A WebAssembly memory the kernels run on, with the family instances created on it so far. */
export interface KernelMemory {
  readonly memory: WebAssembly.Memory;
  /** Bytes of memory (fixed: these memories never grow). */
  readonly byteLength: number;
  /** All of its bytes (kept: the memory never grows, so this view never detaches; `memory.buffer` costs a call). */
  readonly bytes: Uint8Array;
  /** The exports of each family's instance on this memory, by family id (an array: this is on every call's path). */
  readonly exports: unknown[];
}

const PAGE_BYTES = 65536;
export const SCRATCH_OFFSET = 65536;
export const SCRATCH_BYTES = 1 << 20;
export const DATA_OFFSET = SCRATCH_OFFSET + SCRATCH_BYTES;
/** wasm32 memories stop at 4 GiB. */
export const MAX_MEMORY_BYTES = 65536 * PAGE_BYTES;

export function decodeHex(text: string): Uint8Array<ArrayBuffer> {
  // native decoders where the runtime has one (Node's Buffer, Uint8Array.fromHex in Deno and current browsers)
  const native = Reflect.get(Uint8Array, "fromHex") as ((s: string) => Uint8Array<ArrayBuffer>) | undefined;
  if (native) return native(text);
  const nodeBuffer = (globalThis as { Buffer?: { from(s: string, encoding: string): Uint8Array } }).Buffer;
  if (nodeBuffer) {
    const decoded = nodeBuffer.from(text, "hex");
    return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength).slice();
  }
  const bytes = new Uint8Array(text.length >> 1);
  const digit = (c: number) => (c < 58 ? c - 48 : c - 87); // 0-9, a-f
  for (let i = 0; i < bytes.length; i++) bytes[i] = (digit(text.charCodeAt(2 * i)) << 4) | digit(text.charCodeAt(2 * i + 1));
  return bytes;
}

/**
 * A module of 38 bytes using one SIMD instruction (a function returning v128.const 0): compiling it tells whether
 * WebAssembly SIMD runs here (and a CSP allows compiling), without compiling any family.
 */
const SIMD_PROBE = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // types: () -> v128
  0x03, 0x02, 0x01, 0x00, // functions: one of type 0
  0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0b, // v128.const 0
];

let available: boolean | undefined;

/**
 * True where WebAssembly SIMD modules compile: known once a family's module compiled (they all use SIMD), else
 * checked once with a tiny probe module.
 */
export function simdAvailable(): boolean {
  if (available === undefined) {
    try {
      available = typeof WebAssembly === "object" && new WebAssembly.Module(new Uint8Array(SIMD_PROBE)) instanceof WebAssembly.Module;
    } catch {
      available = false; // no SIMD, or a CSP without wasm-unsafe-eval: the TS twins take over
    }
  }
  return available;
}

/** Names of the families compiled so far, in order of their ids (for tests: using one family compiles no other). */
export const compiledFamilies: string[] = [];

/** Names of the families instantiated on `home` (for tests). */
export function familiesOn(home: KernelMemory): string[] {
  return compiledFamilies.filter((_, id) => home.exports[id] !== undefined);
}

/** The family's compiled module, or null where it cannot be compiled. Compiled once, on first use. */
export function familyModule(family: KernelFamily<unknown>): WebAssembly.Module | null {
  if (family.module === undefined) {
    family.module = null;
    // no probe first: a module that compiles proves SIMD runs here (the probe costs as much as a small family)
    if (available !== false && typeof WebAssembly === "object") {
      try {
        family.module = new WebAssembly.Module(decodeHex(family.hex));
        available = true;
        family.id = compiledFamilies.push(family.name) - 1;
      } catch {
        // no SIMD, or a CSP without wasm-unsafe-eval: the TS twins take over
      }
    }
  }
  return family.module;
}

/**
 * The exports of `family`'s instance on `home`, instantiated there on first use. Throws where the family cannot be
 * compiled: callers check familyModule() (useWasm in kernels.ts does) before relying on it.
 */
export function kernelsIn<E>(home: KernelMemory, family: KernelFamily<E>): E {
  let exports = (family.id === undefined ? undefined : home.exports[family.id]) as E | undefined;
  if (exports === undefined) {
    const module = familyModule(family);
    if (!module) throw new Error(`tensorfile: the WebAssembly ${family.name} kernels are unavailable`);
    // the kernels import only their memory (built with --use abort=: no abort import) and take and return
    // numbers, so the raw instance is all the glue there is; E is the interface scripts/build-wasm.mjs generated
    // from the same assembly/ sources as the family's bytes, the one place a type meets the untyped module
    exports = new WebAssembly.Instance(module, { env: { memory: home.memory } }).exports as E;
    if ((exports as FamilyCommonExports).staticEnd() > SCRATCH_OFFSET) {
      throw new Error(`tensorfile: the ${family.name} kernels' static data overlaps the scratch area`);
    }
    home.exports[family.id!] = exports;
  }
  return exports;
}

function kernelMemory(pages: number): KernelMemory {
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  return { memory, byteLength: memory.buffer.byteLength, bytes: new Uint8Array(memory.buffer), exports: [] };
}

let shared: KernelMemory | null | undefined;

/** The small fixed memory with the scratch area, or null without WebAssembly SIMD. */
export function sharedMemory(): KernelMemory | null {
  if (shared === undefined) {
    try {
      shared = simdAvailable() ? kernelMemory(DATA_OFFSET / PAGE_BYTES) : null;
    } catch {
      shared = null;
    }
  }
  return shared;
}

const dedicated = new WeakMap<ArrayBufferLike, KernelMemory>();

/** The memory whose buffer is `buffer`, when `buffer` is one of our dedicated memories. */
export function memoryOf(buffer: ArrayBufferLike): KernelMemory | undefined {
  return dedicated.get(buffer);
}

/**
 * A fresh memory of its own holding `bytes` bytes at DATA_OFFSET (after the scratch area), or null without
 * WebAssembly SIMD. Throws a RangeError above 4 GiB, the wasm32 limit. No family is instantiated on it until a
 * kernel of that family runs there.
 */
export function allocateDedicated(bytes: number): KernelMemory | null {
  if (!simdAvailable()) return null;
  const total = DATA_OFFSET + bytes;
  if (total > MAX_MEMORY_BYTES) throw new RangeError(`tensorfile: ${bytes} bytes do not fit in a 4 GiB WebAssembly memory`);
  const home = kernelMemory(Math.max(1, Math.ceil(total / PAGE_BYTES)));
  dedicated.set(home.memory.buffer, home);
  return home;
}

let work: KernelMemory | null = null;

/**
 * A reusable dedicated memory of at least DATA_OFFSET + `bytes` bytes for kernels that need a whole array in
 * memory at once (transposes of plain arrays). Kept for the next call; `releaseWorkMemory` drops it.
 */
export function workMemory(bytes: number): KernelMemory | null {
  if (!work || work.byteLength < DATA_OFFSET + bytes) {
    work = null;
    work = allocateDedicated(Math.max(bytes, 4 << 20));
  }
  return work;
}

export function releaseWorkMemory(): void {
  work = null;
}
