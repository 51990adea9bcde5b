/**
 * Writers and kernels check their arguments as the readers check bytes (issue 23): the wrong kind of value is a
 * TypeError naming the function (never a value computed from a string, never "Cannot read properties of …").
 * Every row is also run with right arguments of the same shape, so that a check that refuses everything fails.
 */
import { describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { exampleFiles } from "../bindings/examples.js";

const k = lib.kernels;
const anyArg = (v: unknown) => v as never;
const examples = Object.fromEntries(exampleFiles().map((e) => [e.format, e]));

/** [label, call with wrong arguments, call with right ones] */
const KERNELS: [string, () => unknown, () => unknown][] = [
  ["f16ToF32(string)", () => k.f16ToF32(anyArg("abc")), () => k.f16ToF32(new Uint16Array([0x3c00]))],
  ["f16ToF32(number[])", () => k.f16ToF32(anyArg([1, 2])), () => k.f16ToF32(new Uint16Array(2))],
  ["f16ToF32(Float32Array)", () => k.f16ToF32(anyArg(new Float32Array(3))), () => k.f16ToF32(new Uint16Array(3))],
  [
    "f16ToF32(src, string dst)",
    () => k.f16ToF32(new Uint16Array(3), anyArg("xyz")),
    () => k.f16ToF32(new Uint16Array(3), new Float32Array(3)),
  ],
  ["f16ToF32(null)", () => k.f16ToF32(anyArg(null)), () => k.f16ToF32(new Uint16Array(0))],
  ["f32ToF16(string)", () => k.f32ToF16(anyArg("abc")), () => k.f32ToF16(new Float32Array(3))],
  ["bf16ToF32(string)", () => k.bf16ToF32(anyArg("abc")), () => k.bf16ToF32(new Uint16Array(3))],
  ["f8e4m3ToF32(string)", () => k.f8e4m3ToF32(anyArg("abc")), () => k.f8e4m3ToF32(new Uint8Array(3))],
  ["f8e5m2ToF32(null)", () => k.f8e5m2ToF32(anyArg(null)), () => k.f8e5m2ToF32(Buffer.from([1, 2, 3]))],
  ["dequantizeI8(string)", () => k.dequantizeI8(anyArg("abc"), 1, 0), () => k.dequantizeI8(new Int8Array(3), 1, 0)],
  [
    "dequantizeI8(scale string)",
    () => k.dequantizeI8(new Int8Array(3), anyArg("x"), 0),
    () => k.dequantizeI8(new Int8Array(3), 0.5, 0),
  ],
  ["quantizeI8(string)", () => k.quantizeI8(anyArg("abc"), 1, 0), () => k.quantizeI8(new Float32Array(3), 1, 0)],
  [
    "quantizeI8(offset null)",
    () => k.quantizeI8(new Float32Array(3), 1, anyArg(null)),
    () => k.quantizeI8(new Float32Array(3), 1, 3),
  ],
  ["byteSwap(string)", () => k.byteSwap(anyArg("abcd"), 2), () => k.byteSwap(new Uint8Array(4), 2)],
  ["transpose(string)", () => k.transpose(anyArg("abcdef"), 2, 3), () => k.transpose(new Float32Array(6), 2, 3)],
  [
    "transpose(rows string)",
    () => k.transpose(new Float32Array(6), anyArg("2"), 3),
    () => k.transpose(new Float32Array(6), 3, 2),
  ],
  [
    "transpose(dst of another type)",
    () => k.transpose(new Float32Array(6), 2, 3, anyArg(new Int32Array(6))),
    () => k.transpose(new Float32Array(6), 2, 3, new Float32Array(6)),
  ],
  [
    "transposeF16ToF32(string)",
    () => k.transposeF16ToF32(anyArg("ab"), 1, 2),
    () => k.transposeF16ToF32(new Uint16Array(2), 1, 2),
  ],
  [
    "columnToRowMajor(string)",
    () => k.columnToRowMajor(anyArg("abcd"), [2, 2]),
    () => k.columnToRowMajor(new Float32Array(4), [2, 2]),
  ],
  [
    "columnToRowMajor(shape string)",
    () => k.columnToRowMajor(new Float32Array(4), anyArg("22")),
    () => k.columnToRowMajor(new Float32Array(4), [4]),
  ],
  [
    "rowToColumnMajor(shape string)",
    () => k.rowToColumnMajor(new Float32Array(4), anyArg("22")),
    () => k.rowToColumnMajor(new Float32Array(4), [2, 2]),
  ],
  [
    "columnToRowMajorF16ToF32(string)",
    () => k.columnToRowMajorF16ToF32(anyArg("abcd"), [2, 2]),
    () => k.columnToRowMajorF16ToF32(new Uint16Array(4), [2, 2]),
  ],
  [
    "columnToRowMajorBytes(strings)",
    () => k.columnToRowMajorBytes(anyArg("a"), anyArg("b"), [1], 1),
    () => k.columnToRowMajorBytes(new Uint8Array(1), new Uint8Array(1), [1], 1),
  ],
  [
    "transposeColumns(string)",
    () => k.transposeColumns(anyArg("abcd"), 2, 2, 0, 1),
    () => k.transposeColumns(new Float32Array(4), 2, 2, 0, 1),
  ],
  ["allocate(string)", () => k.allocate(anyArg("Float32Array"), 4), () => k.allocate(Float32Array, 4)],
  ["isWasmResident(string)", () => k.isWasmResident(anyArg("x")), () => k.isWasmResident(new Float32Array(1))],
  ["bytesOf(string)", () => k.bytesOf(anyArg("x")), () => k.bytesOf(new Float32Array(1))],
  ["stats(string)", () => k.stats(anyArg("abc")), () => k.stats(new Float32Array(3))],
];

const bw2lFile = lib.bw2l.read(examples.bw2l!.bytes);
const tensor = { name: "a", dtype: "float32" as const, shape: [1], data: new Float32Array(1) };
const WRITERS: [string, () => unknown, () => unknown][] = [
  ["writeSafetensors(string)", () => lib.writeSafetensors(anyArg("x")), () => lib.writeSafetensors([tensor])],
  [
    "writeSafetensors(metadata string)",
    () => lib.writeSafetensors([tensor], anyArg("meta")),
    () => lib.writeSafetensors([tensor], { a: "b" }),
  ],
  ["writeNpy(null)", () => lib.writeNpy(anyArg(null)), () => lib.writeNpy(tensor)],
  ["bw2l.write(null)", () => lib.bw2l.write(anyArg(null)), () => lib.bw2l.write(bw2lFile)],
  ["bw2l.write(string)", () => lib.bw2l.write(anyArg("x")), () => lib.bw2l.write(bw2lFile)],
  ["bw2l.write(no sections)", () => lib.bw2l.write(anyArg({ version: 2 })), () => lib.bw2l.write(bw2lFile)],
  ["bw2l.create(string)", () => lib.bw2l.create(anyArg("x")), () => lib.bw2l.create({ version: 2, layers: [] })],
  [
    "april.write(string)",
    () => lib.april.write(anyArg("x")),
    () => lib.april.write(lib.april.read(examples.april!.bytes)),
  ],
  ["april.write({})", () => lib.april.write(anyArg({})), () => lib.april.write(lib.april.read(examples.april!.bytes))],
  ["tsm.write(string)", () => lib.tsm.write(anyArg("x")), () => lib.tsm.write(lib.tsm.read(examples.tsm!.bytes))],
  [
    "tsm.writeCsta({})",
    () => lib.tsm.writeCsta(anyArg({})),
    () => lib.tsm.writeCsta(lib.tsm.read(examples.tsm!.bytes)),
  ],
  [
    "spraak.write(string)",
    () => lib.spraak.write(anyArg("x")),
    () => lib.spraak.write(lib.spraak.read(examples.spraak!.bytes)),
  ],
  [
    "spraak.write({})",
    () => lib.spraak.write(anyArg({})),
    () => lib.spraak.write(lib.spraak.read(examples.spraak!.bytes)),
  ],
  [
    "spraak.matrix(string)",
    () => lib.spraak.matrix(anyArg("abc"), { cols: 1 }),
    () => lib.spraak.matrix(new Float32Array(3), { cols: 1 }),
  ],
  [
    "safetensors.write(string)",
    () => lib.safetensors.write(anyArg("x")),
    () => lib.safetensors.write(lib.safetensors.read(lib.writeSafetensors([tensor]))),
  ],
  ["npy.write(string)", () => lib.npy.write(anyArg("x")), () => lib.npy.write(lib.npy.read(lib.writeNpy(tensor)))],
  [
    "decodeTensor(string)",
    () => lib.decodeTensor(anyArg("x"), anyArg({ name: "a", dtype: "float32", shape: [1] })),
    () =>
      lib.decodeTensor(
        new Uint8Array(4),
        lib.safetensors.tensorInfos(lib.safetensors.read(lib.writeSafetensors([tensor])))[0]!,
      ),
  ],
];

describe.each([
  ["kernels", KERNELS],
  ["writers", WRITERS],
] as const)("%s", (_group, rows) => {
  it.each(rows.map(([label, wrong, right]) => ({ label, wrong, right })))(
    "$label: TypeError in our words; right arguments work",
    ({ wrong, right }) => {
      let error: unknown;
      try {
        wrong();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^tensorfile: /);
      expect((error as Error).message).not.toMatch(/Cannot read properties|is not a function|undefined \(reading/);
      expect(() => right()).not.toThrow();
    },
  );
});

it("kernels.f16ToF32 and f32ToF16 still round-trip on both backends", () => {
  for (const backend of ["js", "wasm"] as const) {
    k.setBackend(backend);
    const halves = new Uint16Array(4096).map((_, i) => (i * 17) & 0x7bff);
    expect(Array.from(k.f32ToF16(k.f16ToF32(halves)))).toEqual(Array.from(halves));
  }
  k.setBackend("auto");
});
