import { describe, expect, it } from "vitest";
import { detectFormat, readAny, readFromAny } from "../../bindings/any.js";
import { isFormatError } from "../../bindings/bytes/errors.js";
import { npyDescr, writeNpy } from "../../bindings/export/npy.js";
import * as npy from "../../bindings/formats/npy.js";
import { fromBytes } from "../../bindings/io/source.js";
import * as kernels from "../../bindings/kernels/index.js";
import { type DType, type NamedTensor, allocateArray, dtypeBytes } from "../../bindings/tensor.js";
import { expectFormatError } from "../helpers/bytes.js";
import {
  bytesOf,
  expectSameTensors,
  f32Bytes,
  f64Bytes,
  i32Bytes,
  inputForms,
  npyFile,
  tensorSets,
} from "../helpers/input-formats.js";
import { choppySource, countingSource } from "../helpers/sources.js";

const ALL_DTYPES: DType[] = [
  "float16",
  "float32",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
  "complex32",
  "complex64",
  "complex128",
  "char8",
  "char16",
  "char32",
  "ptr",
  "unknown8",
  "unknown16",
  "unknown32",
  "unknown64",
  "unknown128",
  "sink8q0",
  "sink8q7",
  "bfloat16",
  "float8_e4m3",
  "float8_e5m2",
];

/** One [2, 3] tensor of every dtype, filled with a byte pattern. */
export function everyDtype(): NamedTensor[] {
  return ALL_DTYPES.map((dtype, k) => {
    const data = allocateArray(dtype, 6);
    const bytes = bytesOf(data);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 29 + k * 7) & 0xff;
    if (dtype === "bool") bytes.forEach((_, i) => (bytes[i] = i & 1));
    return { name: `t_${dtype}`, dtype, shape: [2, 3], data } as NamedTensor;
  });
}

/** The dtype writeNpy's descr reads back as (types numpy has no name for come back as raw void: unknown<bits>). */
function readBackDtype(dtype: DType): DType {
  return npy.descrInfo(npyDescr(dtype))!.dtype;
}

describe("npy: round trips through writeNpy", () => {
  const sets = [...tensorSets(), { label: "every dtype", tensors: everyDtype() }];
  it.each(sets.map((s) => [s.label, s] as const))(
    "%s: every tensor reads back (dtype, shape, bytes), write(read(x)) is x",
    async (_label, set) => {
      for (const tensor of set.tensors) {
        const bytes = writeNpy(tensor);
        expect(detectFormat(bytes.subarray(0, 64))).toBe("npy");
        const file = npy.read(bytes, { name: tensor.name });
        const want = {
          ...tensor,
          dtype: readBackDtype(tensor.dtype),
          data: tensor.dtype === "bfloat16" ? bytesOf(tensor.data) : tensor.data,
        } as NamedTensor;
        if (want.dtype !== tensor.dtype) want.data = bytesOf(tensor.data) as never;
        expectSameTensors(npy.tensors(file), [want], `${set.label} ${tensor.name}`);
        expect(Buffer.from(npy.write(file)).equals(Buffer.from(bytes))).toBe(true);
        const lazy = await npy.readFrom(choppySource(bytes, 3), { name: tensor.name });
        expect(npy.tensorInfos(lazy)).toEqual(npy.tensorInfos(file));
        expectSameTensors([await npy.loadTensor(fromBytes(bytes), npy.tensorInfos(lazy)[0]!)], [want]);
      }
    },
  );
});

describe("npy: files made by hand", () => {
  it("little-endian C order, named 'array' unless named", () => {
    const bytes = npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", f32Bytes([1, 2, 3, 4]));
    const file = npy.read(bytes);
    expect(file).toMatchObject({ version: "1.0", descr: "<f4", fortranOrder: false, shape: [2, 2], name: "array" });
    const [t] = npy.tensors(file);
    expect(t).toMatchObject({ name: "array", dtype: "float32", shape: [2, 2] });
    expect(Array.from(t!.data as Float32Array)).toEqual([1, 2, 3, 4]);
    expect(npy.tensors(npy.read(bytes, { name: "w" }))[0]!.name).toBe("w");
    expect(npy.inspect(file)).toMatchObject({
      format: "npy",
      version: "1.0",
      meta: { descr: "<f4", fortran_order: false, shape: [2, 2] },
      dataOffset: 128,
    });
    expect(npy.verify(file)).toEqual([]);
  });

  it.each(["js", "wasm"] as const)("big-endian data is byte-swapped (%s kernels)", (backend) => {
    kernels.setBackend(backend);
    try {
      const values = Array.from({ length: 300 }, (_, i) => i * 0.25 - 7);
      const f4 = npy.tensors(
        npy.read(npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (300,), }", f32Bytes(values, true))),
      )[0]!;
      expect(Array.from(f4.data as Float32Array)).toEqual(values);
      const f8 = npy.tensors(
        npy.read(npyFile("{'descr': '>f8', 'fortran_order': False, 'shape': (3, 100), }", f64Bytes(values, true))),
      )[0]!;
      expect(Array.from(f8.data as Float64Array)).toEqual(values);
      const i4 = npy.tensors(
        npy.read(npyFile("{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }", i32Bytes([-1, 2, 70000], true))),
      )[0]!;
      expect(Array.from(i4.data as Int32Array)).toEqual([-1, 2, 70000]);
      // complex64 swaps each float32 of the pair
      const c8 = npy.tensors(
        npy.read(npyFile("{'descr': '>c8', 'fortran_order': False, 'shape': (2,), }", f32Bytes([1, 2, 3, 4], true))),
      )[0]!;
      expect(Array.from(new Float32Array(bytesOf(c8.data).slice().buffer))).toEqual([1, 2, 3, 4]);
      // float16 big-endian, widened
      const halves = new Uint8Array([0x3c, 0x00, 0xc0, 0x00]);
      const f2 = npy.tensors(npy.read(npyFile("{'descr': '>f2', 'fortran_order': False, 'shape': (2,), }", halves)), {
        dtype: "float32",
      })[0]!;
      expect(Array.from(f2.data as Float32Array)).toEqual([1, -2]);
    } finally {
      kernels.setBackend("auto");
    }
  });

  it("Fortran order is transposed to row-major (2-D and 3-D)", () => {
    // logical a[i][j] = 10 i + j for shape (2, 3): stored column-major a[0][0] a[1][0] a[0][1] …
    const stored = [0, 10, 1, 11, 2, 12];
    const t = npy.tensors(
      npy.read(npyFile("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", i32Bytes(stored))),
    )[0]!;
    expect(t.shape).toEqual([2, 3]);
    expect(Array.from(t.data as Int32Array)).toEqual([0, 1, 2, 10, 11, 12]);
    // shape (2, 3, 4): element [i][j][k] = 100 i + 10 j + k stored at i + 2 (j + 3 k)
    const values = new Array<number>(24);
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 3; j++) for (let k = 0; k < 4; k++) values[i + 2 * (j + 3 * k)] = 100 * i + 10 * j + k;
    const u = npy.tensors(
      npy.read(npyFile("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3, 4), }", f64Bytes(values))),
    )[0]!;
    const want: number[] = [];
    for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 4; k++) want.push(100 * i + 10 * j + k);
    expect(Array.from(u.data as Float64Array)).toEqual(want);
    // big-endian and Fortran at once
    const be = npy.tensors(
      npy.read(npyFile("{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }", i32Bytes(stored, true))),
    )[0]!;
    expect(Array.from(be.data as Int32Array)).toEqual([0, 1, 2, 10, 11, 12]);
  });

  it("versions 2.0 and 3.0 (UTF-8 header), 16-byte padding of numpy < 1.14 (a warning), scalars, empty arrays, double quotes", () => {
    const v2 = npy.read(
      npyFile("{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", Uint8Array.of(7, 1), { version: 2 }),
    );
    expect(v2.version).toBe("2.0");
    expect(Array.from(npy.tensors(v2)[0]!.data as Uint16Array)).toEqual([263]);
    const v3 = npy.read(
      npyFile('{"descr": "|u1", "fortran_order": False, "shape": (2,)}', Uint8Array.of(1, 2), { version: 3 }),
    );
    expect(v3.version).toBe("3.0");
    const old = npy.read(
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", f32Bytes([5]), { align: 16 }),
    );
    expect(npy.tensors(old)[0]).toMatchObject({ shape: [] });
    expect(npy.verify(old).join("\n")).toMatch(/not of 64/);
    const empty = npy.read(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }", new Uint8Array(0)));
    expect(npy.tensors(empty)[0]).toMatchObject({ shape: [0, 5] });
    const native = npy.read(npyFile("{'descr': 'f4', 'fortran_order': False, 'shape': (1,), }", f32Bytes([2])));
    expect(npy.verify(native).join("\n")).toMatch(/no byte order/);
    for (const bytes of [
      npyFile("{'descr':'<i2','fortran_order':False,'shape':(1,)}", Uint8Array.of(1, 0)),
      npyFile("{ 'shape' : ( 1 , ) , 'fortran_order' : False , 'descr' : '<i2' , }", Uint8Array.of(1, 0)),
    ]) {
      expect(Array.from(npy.tensors(npy.read(bytes))[0]!.data as Int16Array)).toEqual([1]);
    }
  });

  it("every input form gives the same tensor; readFrom reads the header only", async () => {
    const bytes = npyFile(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (65536,), }",
      new Uint8Array(65536 * 4).fill(0x3f),
    );
    const want = npy.tensors(npy.read(bytes));
    for (const [form, input] of inputForms(bytes))
      expectSameTensors(npy.tensors(npy.read(input as Uint8Array)), want, form);
    const source = countingSource(bytes);
    const file = await npy.readFrom(source);
    expect(source.bytesRead).toBeLessThan(70_000);
    expect(() => npy.tensors(file)).toThrow(/readFrom/);
    const opened = await readFromAny(fromBytes(bytes));
    expect(opened.format).toBe("npy");
    expectSameTensors([await opened.loadTensor("array")], want);
    expect(readAny(bytes).format).toBe("npy");
  });
});

describe("npy: every rule is a FormatError with its code, offset and field", () => {
  const dict = (descr = "'<f4'", fortran = "False", shape = "(1,)") =>
    `{'descr': ${descr}, 'fortran_order': ${fortran}, 'shape': ${shape}, }`;
  const file = (text: string, data = f32Bytes([1]), options: { version?: 1 | 2 | 3; align?: number } = {}) =>
    npyFile(text, data, options);
  const at = (bytes: Uint8Array, needle: string) => Buffer.from(bytes).indexOf(needle);
  const withByte = (bytes: Uint8Array, index: number, value: number) => {
    const out = new Uint8Array(bytes);
    out[index] = value;
    return out;
  };
  const good = file(dict());
  const cases: [string, Uint8Array, string, number | ((b: Uint8Array) => number), string | RegExp][] = [
    ["bad magic", withByte(good, 1, 0x58), "BAD_MAGIC", 0, "magic"],
    ["version 4", withByte(good, 6, 4), "UNSUPPORTED_VERSION", 6, "version.major"],
    ["minor version 1", withByte(good, 7, 1), "UNSUPPORTED_VERSION", 7, "version.minor"],
    ["header_len past the end", withByte(good, 9, 0x7f), "TRUNCATED", 10, "header"],
    [
      "header_len over the limit",
      (() => {
        const b = file(dict(), undefined, { version: 2 });
        new DataView(b.buffer).setUint32(8, 2 ** 21, true);
        return b;
      })(),
      "LIMIT",
      8,
      "header_len",
    ],
    ["not a dict", file("['descr']"), "CORRUPT", 10, "header"],
    ["a missing key", file("{'descr': '<f4', 'shape': (1,), }"), "CORRUPT", 10, "header"],
    [
      "an extra key",
      file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1, }"),
      "CORRUPT",
      10,
      "header",
    ],
    [
      "a duplicate key",
      file("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"),
      "CORRUPT",
      (b) => at(b, "'descr'") + 16,
      "header",
    ],
    ["descr not a string", file(dict("4")), "CORRUPT", (b) => at(b, "4,"), "header.descr"],
    ["a descr not read", file(dict("'<U4'")), "UNSUPPORTED", (b) => at(b, "'<U4'"), "header.descr"],
    ["a structured descr", file(dict("[('a', '<f4')]")), "UNSUPPORTED", (b) => at(b, "[("), "header.descr"],
    ["fortran_order not a bool", file(dict("'<f4'", "0")), "CORRUPT", (b) => at(b, "0,"), "header.fortran_order"],
    ["shape a list", file(dict("'<f4'", "False", "[1]")), "CORRUPT", (b) => at(b, "[1]"), "header"],
    ["shape (1) without a comma", file(dict("'<f4'", "False", "(1)")), "CORRUPT", (b) => at(b, "(1)"), "header"],
    ["a negative dim", file(dict("'<f4'", "False", "(-1,)")), "CORRUPT", (b) => at(b, "-1"), "header"],
    [
      "a dim past 2^53",
      file(dict("'<f4'", "False", "(99999999999999999999,)")),
      "LIMIT",
      (b) => at(b, "9999"),
      "header",
    ],
    ["a string not closed", file("{'descr: 1}"), "CORRUPT", (b) => at(b, "'descr"), "header"],
    ["text after the dict", file(`${dict()} x`), "CORRUPT", (b) => at(b, " x") + 1, "header.padding"],
    ["no final newline", withByte(good, good.length - 5, 0x20), "CORRUPT", good.length - 5, "header.padding"],
    [
      "padding to neither 64 nor 16",
      file(dict(), undefined, { align: 8 }),
      "CORRUPT",
      (b) => at(b, "\n"),
      "header.padding",
    ],
    ["data short", file(dict("'<f4'", "False", "(2,)")), "TRUNCATED", (b) => b.length - 4, "data"],
    ["data long", file(dict("'<f4'", "False", "(1,)"), f32Bytes([1, 2])), "CORRUPT", (b) => b.length - 4, "data"],
    [
      "Fortran order over 8 long axes",
      file(dict("'|u1'", "True", "(2, 2, 2, 2, 2, 2, 2, 2, 2)"), new Uint8Array(512)),
      "UNSUPPORTED",
      (b) => at(b, "(2, 2"),
      "header.shape",
    ],
    [
      "invalid UTF-8 in a 3.0 header",
      (() => {
        const b = file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'é': 1}", undefined, { version: 3 });
        b[b.indexOf(0xc3)] = 0xff;
        return b;
      })(),
      "CORRUPT",
      (b) => b.indexOf(0xff),
      "header",
    ],
  ];
  it.each(cases)("%s", (_what, bytes, code, offset, field) => {
    const expected = typeof offset === "function" ? offset(bytes) : offset;
    expectFormatError(() => npy.read(bytes), code as never, { format: "npy", offset: expected, field });
  });

  it("a truncation at every prefix is TRUNCATED", () => {
    const bytes = npyFile(dict("'<f8'", "False", "(3,)"), f64Bytes([1, 2, 3]));
    for (let n = 0; n < bytes.length; n++) {
      let caught: unknown;
      try {
        npy.read(bytes.subarray(0, n));
      } catch (error) {
        caught = error;
      }
      expect(isFormatError(caught), `prefix ${n}: ${String(caught)}`).toBe(true);
      expect((caught as { code: string }).code, `prefix ${n}: ${String(caught)}`).toBe("TRUNCATED");
    }
  });

  it("detects the magic only", () => {
    expect(npy.detect(good)).toBe(true);
    expect(npy.detect(good.subarray(0, 5))).toBe(false);
    expect(npy.detect(withByte(good, 0, 0x92))).toBe(false);
  });
});

describe("npy: the element size of every descr tensorfile reads matches its dtype", () => {
  it.each([
    "b1",
    "i1",
    "u1",
    "i2",
    "u2",
    "i4",
    "u4",
    "i8",
    "u8",
    "f2",
    "f4",
    "f8",
    "c8",
    "c16",
    "S1",
    "V1",
    "V2",
    "V4",
    "V8",
    "V16",
  ])("%s", (kind) => {
    const info = npy.descrInfo(`<${kind}`)!;
    expect(dtypeBytes(info.dtype)).toBe(Number(kind.slice(1)));
  });
});
