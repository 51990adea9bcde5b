// The WebAssembly kernel families: one module each, built from assembly/families/<name>.ts by
// scripts/build-wasm.mjs into build/<name>.wasm and embedded by scripts/embed-wasm.mjs as
// bindings/wasm/<name>.wasm.ts, so that a bundle holds only the modules its code can reach.
//
// All families that run on one WebAssembly.Memory share it (a kernel of one family may feed another's, in place),
// so each module's static data (constants, tiles) lives in a slot of its own below the scratch area:
// [memoryBase, next family's memoryBase). The build checks every module's static data ends inside its slot.
// Modules are built with --zeroFilledMemory (binaryen drops zero data segments: a module may assume its slot is
// zero when it is instantiated, which holds as nothing else ever writes there).
//
// A new kernel goes into the family it is used with (or a new family: a new entry here, a new slot, a new
// assembly/families/<name>.ts, a KernelFamily in bindings/wasm/families.ts). Every export of assembly/index.ts
// (the list of all kernels) must belong to some family: the build fails otherwise.
//
// optimizeLevel / shrinkLevel: per family where measured better than the defaults of asconfig.json's release
// target (see docs/benchmarks.md).

/** End of the static slots: the scratch area starts here (bindings/wasm/instance.ts SCRATCH_OFFSET). */
export const STATIC_LIMIT = 65536;

/** @type {{ name: string, memoryBase: number, optimizeLevel?: number, shrinkLevel?: number }[]} */
export const FAMILIES = [
  // byte swaps, fp16, int8 quantization, bfloat16/float8: always reached together (see assembly/families/convert.ts)
  { name: "convert", memoryBase: 1024 },
  { name: "stats", memoryBase: 4096 },
  { name: "diff", memoryBase: 8192 },
  { name: "transpose", memoryBase: 9216 },
  // the f16 constants and two tiles of 12 KiB
  { name: "transposeF16", memoryBase: 16384 },
];

/** The slot of family `index`: [memoryBase, end). */
export function slotEnd(index) {
  return FAMILIES[index + 1]?.memoryBase ?? STATIC_LIMIT;
}
