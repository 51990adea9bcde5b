// The WASM kernels come as one module per family (bindings/wasm/families.ts), compiled on first use and
// instantiated on every memory they run on. These tests check that each family compiles, that using one family
// compiles no other, and that families sharing a memory (the shared scratch memory, allocate()'s dedicated ones)
// work side by side, their static data in separate slots.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { randomNormal, randomWords } from "../helpers/rng.js";

type Kernels = typeof import("../../bindings/kernels/index.js");
type Instance = typeof import("../../bindings/wasm/instance.js");
type Families = typeof import("../../bindings/wasm/families.js");

/** Fresh copies of the kernel modules: nothing compiled yet. */
async function fresh(): Promise<{ kernels: Kernels; instance: Instance; families: Families }> {
  vi.resetModules();
  const kernels = await import("../../bindings/kernels/index.js");
  const instance = await import("../../bindings/wasm/instance.js");
  const families = await import("../../bindings/wasm/families.js");
  return { kernels, instance, families };
}

function bits(data: ArrayBufferView): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** `run` on both backends; the results' bytes (or JSON) must agree. */
function bothBackends<T>(kernels: Kernels, run: () => T): [T, T] {
  kernels.setBackend("js");
  const js = run();
  kernels.setBackend("wasm");
  const wasm = run();
  kernels.setBackend("auto");
  return [js, wasm];
}

describe("WASM kernel families", () => {
  let env: Awaited<ReturnType<typeof fresh>>;
  beforeEach(async () => {
    env = await fresh();
  });
  afterEach(() => env.kernels.setBackend("auto"));

  it("every family's module compiles and instantiates on a fresh memory", () => {
    const { instance, families } = env;
    for (const family of families.ALL_FAMILIES) {
      expect(instance.familyModule(family), family.name).toBeInstanceOf(WebAssembly.Module);
      const home = instance.allocateDedicated(16)!;
      const exports = instance.kernelsIn(home, family) as { staticEnd(): number };
      expect(exports.staticEnd()).toBeLessThanOrEqual(instance.SCRATCH_OFFSET);
      expect(instance.kernelsIn(home, family), "cached per memory").toBe(exports);
    }
    expect(instance.compiledFamilies.slice().sort()).toEqual(families.ALL_FAMILIES.map((f) => f.name).sort());
  });

  it("wasmAvailable, setBackend and allocate compile no family (a probe module tells)", () => {
    const { kernels, instance } = env;
    expect(kernels.wasmAvailable()).toBe(true);
    kernels.setBackend("wasm");
    kernels.allocate(Float32Array, 1000);
    expect(instance.compiledFamilies).toEqual([]);
  });

  it("using one family compiles that family only", () => {
    const { kernels, instance } = env;
    kernels.setBackend("wasm");
    kernels.f16ToF32(new Uint16Array(3000));
    expect(instance.compiledFamilies).toEqual(["convert"]);
    kernels.byteSwap(new Uint8Array(4000), 4);
    kernels.dequantizeI8(new Int8Array(3000), 0.5, 0);
    kernels.bf16ToF32(new Uint16Array(2000));
    expect(instance.compiledFamilies).toEqual(["convert"]);
    kernels.transpose(new Float32Array(1200), 30, 40);
    expect(instance.compiledFamilies).toEqual(["convert", "transpose"]);
    // stats of float16 values: the stats family, widening with the convert family (compiled already)
    kernels.stats(new Uint16Array(2000), { dtype: "float16" });
    expect(instance.compiledFamilies).toEqual(["convert", "transpose", "stats"]);
    kernels.diffStats(new Float32Array(2000), new Float32Array(2000));
    expect(instance.compiledFamilies).toEqual(["convert", "transpose", "stats", "diff"]);
    // the fused kernel: source and result in one allocate()d memory
    const region = kernels.allocate(Uint8Array, 1200 * 6);
    kernels.transposeF16ToF32(
      new Uint16Array(region.buffer, region.byteOffset, 1200),
      30,
      40,
      new Float32Array(region.buffer, region.byteOffset + 2400, 1200),
    );
    expect(instance.compiledFamilies).toEqual(["convert", "transpose", "stats", "diff", "transposeF16"]);
  });

  it("statistics alone compile the stats family only; a widening transpose of a small array compiles no fused kernel", async () => {
    let { kernels, instance } = env;
    kernels.setBackend("wasm");
    kernels.stats(new Float32Array(5000));
    kernels.histogram(new Float64Array(5000), 10, 0, 1);
    expect(instance.compiledFamilies).toEqual(["stats"]);
    ({ kernels, instance } = await fresh());
    kernels.setBackend("wasm");
    kernels.transposeF16ToF32(new Uint16Array(1200), 30, 40);
    expect(instance.compiledFamilies).toEqual(["transpose", "convert"]);
  });

  it("below WASM_MIN_ELEMENTS the auto backend compiles nothing", () => {
    const { kernels, instance } = env;
    kernels.f16ToF32(new Uint16Array(kernels.WASM_MIN_ELEMENTS - 1));
    kernels.stats(new Float32Array(10));
    expect(instance.compiledFamilies).toEqual([]);
  });

  it("families share a dedicated memory: every kernel in place on arrays in one allocate()d memory, as the TS twins compute, twice", () => {
    const { kernels, instance } = env;
    const n = 4096 + 7;
    const source = randomNormal(3, n);
    const run = () => {
      // one memory holding every array (views at 64-byte aligned offsets), so all families run on it side by side
      let at = 0;
      const place = (bytes: number) => {
        const offset = at;
        at += Math.ceil(bytes / 64) * 64;
        return offset;
      };
      const offsets = {
        f32: place(4 * n),
        halves: place(2 * n),
        wide: place(4 * n),
        q: place(n),
        bf: place(4 * n),
        square: place(2 * 4096),
        transposed: place(4 * 4096),
      };
      const region = kernels.allocate(Uint8Array, at);
      const view = <T>(ctor: new (b: ArrayBufferLike, o: number, l: number) => T, offset: number, length: number) =>
        new ctor(region.buffer, region.byteOffset + offset, length);
      const f32 = view(Float32Array, offsets.f32, n);
      const halves = view(Uint16Array, offsets.halves, n);
      const wide = view(Float32Array, offsets.wide, n);
      const q = view(Int8Array, offsets.q, n);
      const bf = view(Float32Array, offsets.bf, n);
      const square = view(Uint16Array, offsets.square, 4096);
      const transposed = view(Float32Array, offsets.transposed, 4096);
      f32.set(source);
      const rounds = [];
      for (let round = 0; round < 2; round++) {
        kernels.f32ToF16(f32, halves);
        kernels.f16ToF32(halves, wide);
        const stats = kernels.stats(halves, { dtype: "float16" });
        kernels.quantizeI8(f32, 0.05, 1, q);
        const quantStats = kernels.stats(q, { scale: 0.05, offset: 1 });
        kernels.bf16ToF32(halves, bf);
        const hist = kernels.histogram(bf, 17, -3, 3);
        kernels.byteSwap(wide, 4);
        kernels.byteSwap(wide, 4);
        const diff = kernels.diffStats(f32, wide, 1e-3, 1e-3);
        square.set(halves.subarray(0, 4096));
        kernels.transposeF16ToF32(square, 64, 64, transposed); // in place: the fused kernel, its tiles written
        rounds.push({
          halves: [...halves],
          wide: [...bits(wide)],
          q: [...q],
          bf: [...bits(bf)],
          transposed: [...bits(transposed)],
          stats,
          quantStats,
          hist: [...hist.counts],
          diff,
        });
      }
      return { rounds, region };
    };
    const [js, wasm] = bothBackends(kernels, run);
    expect(JSON.stringify(wasm.rounds[0])).toBe(JSON.stringify(js.rounds[0]));
    expect(JSON.stringify(wasm.rounds[1])).toBe(JSON.stringify(js.rounds[1]));
    expect(JSON.stringify(js.rounds[1])).toBe(JSON.stringify(js.rounds[0]));
    const home = instance.memoryOf(wasm.region.buffer)!;
    expect(instance.familiesOn(home).sort()).toEqual(["convert", "diff", "stats", "transposeF16"]);
    // arrays in different memories: each memory gets the families that run there
    kernels.setBackend("wasm");
    const halves = kernels.allocate(Uint16Array, n);
    const wide = kernels.allocate(Float32Array, n);
    expect(instance.familiesOn(instance.memoryOf(halves.buffer)!)).toEqual([]);
    kernels.f16ToF32(halves, wide); // the destination's memory gets the half family; the source's gets nothing
    expect(instance.familiesOn(instance.memoryOf(wide.buffer)!)).toEqual(["convert"]);
    expect(instance.familiesOn(instance.memoryOf(halves.buffer)!)).toEqual([]);
  });

  it("the shared memory serves every family, its static data intact after each (repeated calls agree)", () => {
    const { kernels, instance, families } = env;
    kernels.setBackend("wasm");
    const halves = new Uint16Array(randomWords(7, 2500).buffer).map((h) => h & 0x7bff);
    const first = bits(kernels.f16ToF32(halves)).slice();
    // run every other family on the shared memory (the transpose tiles are written), then the first again
    kernels.transposeF16ToF32(halves.subarray(0, 50 * 100), 50, 100);
    kernels.stats(halves, { dtype: "float16" });
    kernels.bf16ToF32(halves);
    kernels.dequantizeI8(new Int8Array(3000), 0.1, 0);
    kernels.byteSwap(new Uint16Array(3000), 2);
    kernels.diffStats(new Float32Array(3000), new Float32Array(3000));
    expect(bits(kernels.f16ToF32(halves))).toEqual(first);
    const shared = instance.sharedMemory()!;
    // all but the fused fp16 transpose, which runs in dedicated memories only (a small widening transpose goes
    // through the scratch in bands: f16ToF32, then transpose32)
    expect(instance.familiesOn(shared).sort()).toEqual(
      families.ALL_FAMILIES.map((f) => f.name)
        .filter((n) => n !== "transposeF16")
        .sort(),
    );
    // slots: each instance's static data ends at or before the next slot
    const ends = families.ALL_FAMILIES.map((f) =>
      (instance.kernelsIn(shared, f) as { staticEnd(): number }).staticEnd(),
    );
    expect(Math.max(...ends)).toBeLessThanOrEqual(instance.SCRATCH_OFFSET);
  });

  it("where modules do not compile (no SIMD, a CSP without wasm-unsafe-eval) or WebAssembly is missing, the TS twins run", async () => {
    const RealWebAssembly = WebAssembly;
    const halves = new Uint16Array(randomWords(11, 1000).buffer);
    const expected = (() => {
      env.kernels.setBackend("js");
      return {
        wide: bits(env.kernels.f16ToF32(halves)).slice(),
        stats: env.kernels.stats(halves, { dtype: "float16" }),
      };
    })();
    const refusing = {
      Memory: RealWebAssembly.Memory,
      Instance: RealWebAssembly.Instance,
      CompileError: RealWebAssembly.CompileError,
      Module: function Module() {
        throw new RealWebAssembly.CompileError("SIMD unsupported");
      },
    };
    for (const stub of [refusing, undefined]) {
      vi.stubGlobal("WebAssembly", stub);
      try {
        const { kernels, instance } = await fresh();
        expect(bits(kernels.f16ToF32(halves))).toEqual(expected.wide);
        expect(kernels.stats(halves, { dtype: "float16" })).toEqual(expected.stats);
        expect(kernels.wasmAvailable()).toBe(false);
        expect(() => kernels.setBackend("wasm")).toThrow(/unavailable/);
        expect(kernels.isWasmResident(kernels.allocate(Float32Array, 100))).toBe(false);
        expect(instance.compiledFamilies).toEqual([]);
      } finally {
        vi.unstubAllGlobals();
      }
    }
  });

  it("decodes the embedded hex without Buffer or Uint8Array.fromHex (older browsers) as Node does", () => {
    const { instance, families } = env;
    const hex = families.convertFamily.hex;
    const expected = new Uint8Array(Buffer.from(hex, "hex"));
    expect(instance.decodeHex(hex)).toEqual(expected);
    vi.stubGlobal("Buffer", undefined);
    try {
      expect(instance.decodeHex(hex)).toEqual(expected);
      expect(instance.decodeHex("00ff7f80a5")).toEqual(new Uint8Array([0, 255, 127, 128, 165]));
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
