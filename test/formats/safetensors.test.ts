import { describe, expect, it } from "vitest";
import { detectFormat, readAny, readFromAny } from "../../bindings/any.js";
import { isFormatError } from "../../bindings/bytes/errors.js";
import { writeSafetensors } from "../../bindings/export/safetensors.js";
import * as safetensors from "../../bindings/formats/safetensors.js";
import { fromBytes } from "../../bindings/io/source.js";
import { type NamedTensor, isNarrowFloat, isStandardDType } from "../../bindings/tensor.js";
import { expectFormatError } from "../helpers/bytes.js";
import { haveFixtures } from "../helpers/fixtures.js";
import {
  bytesOf,
  expectSameTensors,
  f32Bytes,
  inputForms,
  safetensorsFile,
  tensorSets,
} from "../helpers/input-formats.js";
import { parseSafetensors } from "../helpers/parsers.js";
import { choppySource, countingSource } from "../helpers/sources.js";

/** A small valid file: a float32 [2, 2], an int8 [3] and an empty tensor; data offsets tile 19 bytes. */
function smallFile(): Uint8Array {
  const data = new Uint8Array(19);
  data.set(f32Bytes([1, 2, 3, 4]));
  data.set([0xff, 0, 7], 16);
  return safetensorsFile(
    {
      w: { dtype: "F32", shape: [2, 2], data_offsets: [0, 16] },
      b: { dtype: "I8", shape: [3], data_offsets: [16, 19] },
      e: { dtype: "F16", shape: [0, 4], data_offsets: [19, 19] },
      __metadata__: { format: "pt", note: "small" },
    },
    data,
  );
}

describe("safetensors: round trips through writeSafetensors", () => {
  const sets = tensorSets();
  it("covers the examples", () => {
    expect(sets.filter((s) => s.label.startsWith("example ")).length).toBeGreaterThan(3);
  });
  it.skipIf(!haveFixtures())("covers the fixtures", () => {
    expect(sets.filter((s) => !s.label.startsWith("example ")).length).toBeGreaterThan(5);
  });

  it.each(sets.map((s) => [s.label, s] as const))(
    "%s: read(writeSafetensors(tensors)) gives the same tensors, write(read(x)) the same bytes",
    async (_label, set) => {
      const bytes = writeSafetensors(set.tensors, { "tensorfile.source": "test" });
      expect(detectFormat(bytes.subarray(0, 64))).toBe("safetensors");
      const file = safetensors.read(bytes);
      expectSameTensors(safetensors.tensors(file), set.tensors, set.label);
      expect(Buffer.from(safetensors.write(file)).equals(Buffer.from(bytes))).toBe(true);
      expect(safetensors.verify(file)).toEqual([]);
      // lazy == eager, through a source that answers in random short pieces
      const lazy = await safetensors.readFrom(choppySource(bytes, 7));
      const infos = safetensors.tensorInfos(lazy);
      expect(infos).toEqual(safetensors.tensorInfos(file));
      const loaded: NamedTensor[] = [];
      for (const info of infos) loaded.push(await safetensors.loadTensor(fromBytes(bytes), info));
      expectSameTensors(loaded, set.tensors, `${set.label} (lazy)`);
      // dtype "float32": every real-valued tensor as float32, complex and format-specific dtypes as stored
      const wide = readAny(bytes).tensors({ dtype: "float32" });
      wide.forEach((t, i) => {
        const stored = set.tensors[i]!;
        expect(t.dtype).toBe(isStandardDType(stored.dtype) || isNarrowFloat(stored.dtype) ? "float32" : stored.dtype);
      });
    },
  );
});

describe("safetensors: files made by hand", () => {
  it("reads a small file (header order kept, metadata, an empty tensor)", () => {
    const file = safetensors.read(smallFile());
    expect(file.tensors.map((t) => t.name)).toEqual(["w", "b", "e"]);
    expect(file.metadata).toEqual({ format: "pt", note: "small" });
    const [w, b, e] = safetensors.tensors(file);
    expect(w).toMatchObject({ name: "w", dtype: "float32", shape: [2, 2] });
    expect(Array.from(w!.data as Float32Array)).toEqual([1, 2, 3, 4]);
    expect(b!.dtype).toBe("int8");
    expect(Array.from(b!.data as Int8Array)).toEqual([-1, 0, 7]);
    expect(e).toMatchObject({ dtype: "float16", shape: [0, 4] });
    expect((e!.data as Uint16Array).length).toBe(0);
    const info = safetensors.inspect(file);
    expect(info).toMatchObject({
      format: "safetensors",
      meta: { format: "pt", note: "small" },
      dataOffset: 8 + (info.headerSize as number),
    });
    expect(info.tensors).toEqual([
      { name: "w", dtype: "float32", shape: [2, 2], byteLength: 16 },
      { name: "b", dtype: "int8", shape: [3], byteLength: 3 },
      { name: "e", dtype: "float16", shape: [0, 4], byteLength: 0 },
    ]);
  });

  it("keeps integer-like names in file order (JSON.parse would move them first) and reads escaped names", () => {
    const bytes = safetensorsFile(
      '{"z":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"10":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},"2":{"dtype":"U8","shape":[1],"data_offsets":[2,3]},"caf\\u00e9\\ud83d\\ude00\\n":{"dtype":"U8","shape":[1],"data_offsets":[3,4]}}',
      Uint8Array.of(1, 2, 3, 4),
    );
    const names = safetensors.tensors(safetensors.read(bytes)).map((t) => t.name);
    expect(names).toEqual(["z", "10", "2", "café😀\n"]);
  });

  it("BF16, F8_E4M3, F8_E5M2 and C64: stored types, widened exactly with dtype float32", () => {
    // bf16: 1, -2, 0.5, NaN; e4m3: 1, 448, -2^-9, NaN; e5m2: 1, 57344, -inf, 2^-16
    const data = new Uint8Array(8 + 4 + 4 + 8);
    new Uint16Array(data.buffer, 0, 4).set([0x3f80, 0xc000, 0x3f00, 0x7fc0]);
    data.set([0x38, 0x7e, 0x81, 0x7f], 8);
    data.set([0x3c, 0x7b, 0xfc, 0x01], 12);
    data.set(f32Bytes([1.5, -2]), 16);
    const bytes = safetensorsFile(
      {
        bf: { dtype: "BF16", shape: [2, 2], data_offsets: [0, 8] },
        e4: { dtype: "F8_E4M3", shape: [4], data_offsets: [8, 12] },
        e5: { dtype: "F8_E5M2", shape: [4], data_offsets: [12, 16] },
        c: { dtype: "C64", shape: [1], data_offsets: [16, 24] },
      },
      data,
    );
    const file = safetensors.read(bytes);
    const stored = safetensors.tensors(file);
    expect(stored.map((t) => t.dtype)).toEqual(["bfloat16", "float8_e4m3", "float8_e5m2", "complex64"]);
    expect(stored[0]!.data).toBeInstanceOf(Uint16Array);
    expect(Array.from(stored[0]!.data as Uint16Array)).toEqual([0x3f80, 0xc000, 0x3f00, 0x7fc0]);
    expect(stored[1]!.data).toBeInstanceOf(Uint8Array);
    const wide = safetensors.tensors(file, { dtype: "float32" });
    expect(wide.map((t) => t.dtype)).toEqual(["float32", "float32", "float32", "complex64"]);
    expect(Array.from(wide[0]!.data as Float32Array)).toEqual([1, -2, 0.5, NaN]);
    expect(Array.from(wide[1]!.data as Float32Array)).toEqual([1, 448, -(2 ** -9), NaN]);
    expect(Array.from(wide[2]!.data as Float32Array)).toEqual([1, 57344, -Infinity, 2 ** -16]);
    expect(safetensors.inspect(file).dtypes).toMatchObject({
      BF16: expect.stringContaining("bfloat16"),
      F8_E4M3: expect.stringContaining("float8_e4m3"),
    });
    // writeSafetensors keeps them: BF16 / F8_* / C64 again, and the same bytes
    const again = writeSafetensors(stored);
    expect(
      parseSafetensors(again)
        .tensors.map((t) => t.dtype)
        .sort(),
    ).toEqual(["BF16", "C64", "F8_E4M3", "F8_E5M2"]);
    expectSameTensors(safetensors.tensors(safetensors.read(again)), stored);
  });

  it("restores the dtypes writeSafetensors stores as U8 (tensorfile.dtype.<name>), and only when they fit", () => {
    const tensors: NamedTensor[] = [
      { name: "c128", dtype: "complex128", shape: [2], data: new Uint8Array(32).fill(3) },
      { name: "chars", dtype: "char8", shape: [3], data: Uint8Array.of(97, 98, 99) },
    ];
    const bytes = writeSafetensors(tensors);
    expect(parseSafetensors(bytes).header.c128).toMatchObject({ dtype: "U8", shape: [2, 16] });
    expectSameTensors(safetensors.tensors(safetensors.read(bytes)), tensors);
    // a declared dtype that does not fit the stored shape is ignored (and reported)
    const odd = safetensorsFile(
      { x: { dtype: "U8", shape: [3], data_offsets: [0, 3] }, __metadata__: { "tensorfile.dtype.x": "complex128" } },
      Uint8Array.of(1, 2, 3),
    );
    const file = safetensors.read(odd);
    expect(safetensors.tensors(file)[0]).toMatchObject({ dtype: "uint8", shape: [3] });
    expect(safetensors.verify(file).join("\n")).toMatch(/does not fit/);
  });

  it("every input form gives the same tensors; views of aligned data, copies of unaligned", () => {
    const bytes = smallFile();
    const want = safetensors.tensors(safetensors.read(bytes));
    for (const [form, input] of inputForms(bytes)) {
      expectSameTensors(safetensors.tensors(safetensors.read(input as Uint8Array)), want, form);
    }
    const copy = new Uint8Array(bytes);
    const file = safetensors.read(copy);
    expect(safetensors.tensors(file)[1]!.data.buffer).toBe(copy.buffer); // int8: always a view
    copy.fill(0);
    expect(Array.from(safetensors.tensors(safetensors.read(bytes, { copy: true }))[1]!.data as Int8Array)).toEqual([
      -1, 0, 7,
    ]);
  });

  it("readFrom reads the header only", async () => {
    const big = new Uint8Array(1 << 20);
    const bytes = safetensorsFile({ w: { dtype: "F32", shape: [big.length / 4], data_offsets: [0, big.length] } }, big);
    const source = countingSource(bytes);
    const file = await safetensors.readFrom(source);
    expect(source.bytesRead).toBeLessThan(70_000);
    expect(() => safetensors.tensors(file)).toThrow(/readFrom/);
    const opened = await readFromAny(fromBytes(bytes));
    expect(opened.format).toBe("safetensors");
    expect((await opened.loadTensor("w")).data.byteLength).toBe(big.length);
  });
});

/** Header text of a one-tensor file with `entry` as the tensor's JSON. */
function one(entry: string, dataLength = 4, extra = ""): Uint8Array {
  return safetensorsFile(`{"t":${entry}${extra}}`, new Uint8Array(dataLength));
}

describe("safetensors: every rule is a FormatError with its code, offset and field", () => {
  const at = (bytes: Uint8Array, needle: string) => 8 + new TextDecoder().decode(bytes.subarray(8)).indexOf(needle);
  const cases: [string, Uint8Array, string, number | ((b: Uint8Array) => number), string | RegExp][] = [
    ["header_size over 100 MB", safetensorsFile("{}", undefined, 100_000_001), "LIMIT", 0, "header_size"],
    ["header_size past the end", safetensorsFile("{}", undefined, 50), "TRUNCATED", 8, "header"],
    ["header not starting with {", safetensorsFile(' {"t":1}'), "CORRUPT", 8, "header"],
    ["empty header", safetensorsFile(""), "CORRUPT", 8, "header"],
    ["JSON syntax", safetensorsFile('{"t":{"dtype":"F32",}}'), "CORRUPT", (b) => at(b, "}}"), "header"],
    ["JSON cut short", safetensorsFile('{"t":{"dtype":"F32"'), "CORRUPT", (b) => b.length, "header"],
    ["text after the JSON", safetensorsFile("{} x"), "CORRUPT", (b) => at(b, "x"), "header"],
    [
      "invalid UTF-8 in a name",
      safetensorsFile(Buffer.concat([Buffer.from('{"'), Buffer.from([0xc3, 0x28]), Buffer.from('":1}')])),
      "CORRUPT",
      10,
      "header",
    ],
    ["a duplicate key", safetensorsFile('{"t":{},"t":{}}'), "CORRUPT", (b) => at(b, '"t":{}}'), "header"],
    ["a lone surrogate escape", safetensorsFile('{"\\ud800":{}}'), "CORRUPT", 10, "header"],
    [
      "nesting too deep",
      safetensorsFile(`{"t":${"[".repeat(100)}${"]".repeat(100)}}`),
      "LIMIT",
      (b) => at(b, "[") + 63,
      "header",
    ],
    ["a tensor entry that is not an object", one("[]"), "CORRUPT", (b) => at(b, "[]"), 'header["t"]'],
    ["no dtype", one('{"shape":[1],"data_offsets":[0,4]}'), "CORRUPT", (b) => at(b, '{"shape'), 'header["t"].dtype'],
    [
      "an unknown dtype",
      one('{"dtype":"F33","shape":[1],"data_offsets":[0,4]}'),
      "CORRUPT",
      (b) => at(b, '"F33"'),
      'header["t"].dtype',
    ],
    [
      "an undecoded dtype",
      one('{"dtype":"F8_E8M0","shape":[4],"data_offsets":[0,4]}'),
      "UNSUPPORTED",
      (b) => at(b, '"F8_E8M0"'),
      'header["t"].dtype',
    ],
    [
      "a negative dim",
      one('{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}'),
      "CORRUPT",
      (b) => at(b, "-1"),
      'header["t"].shape[0]',
    ],
    [
      "a fractional dim",
      one('{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}'),
      "CORRUPT",
      (b) => at(b, "1.0"),
      'header["t"].shape[0]',
    ],
    [
      "a dim past 2^53",
      one('{"dtype":"F32","shape":[9007199254740993],"data_offsets":[0,4]}'),
      "LIMIT",
      (b) => at(b, "9007"),
      'header["t"].shape[0]',
    ],
    [
      "a string dim",
      one('{"dtype":"F32","shape":["1"],"data_offsets":[0,4]}'),
      "CORRUPT",
      (b) => at(b, '"1"'),
      'header["t"].shape[0]',
    ],
    [
      "data_offsets of 3 numbers",
      one('{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}'),
      "CORRUPT",
      (b) => at(b, "[0,4,8]"),
      'header["t"].data_offsets',
    ],
    [
      "data_offsets backwards",
      one('{"dtype":"U8","shape":[0],"data_offsets":[4,0]}'),
      "CORRUPT",
      (b) => at(b, "[4,0]"),
      'header["t"].data_offsets',
    ],
    [
      "bytes != elements x size",
      one('{"dtype":"F32","shape":[2],"data_offsets":[0,4]}'),
      "CORRUPT",
      (b) => at(b, "[0,4]"),
      'header["t"].data_offsets',
    ],
    [
      "a hole before the first tensor",
      one('{"dtype":"F32","shape":[1],"data_offsets":[4,8]}', 8),
      "CORRUPT",
      (b) => at(b, "[4,8]"),
      'header["t"].data_offsets',
    ],
    [
      "an overlap",
      safetensorsFile(
        '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}',
        new Uint8Array(4),
      ),
      "CORRUPT",
      (b) => at(b, "[2,4]"),
      'header["b"].data_offsets',
    ],
    [
      "data past the end of the file",
      one('{"dtype":"F32","shape":[2],"data_offsets":[0,8]}', 6),
      "TRUNCATED",
      (b) => b.length - 6,
      /header\["t"\] data/,
    ],
    [
      "bytes after the last tensor",
      one('{"dtype":"F32","shape":[1],"data_offsets":[0,4]}', 5),
      "CORRUPT",
      (b) => b.length - 1,
      "data",
    ],
    [
      "__metadata__ not an object",
      one('{"dtype":"F32","shape":[1],"data_offsets":[0,4]}', 4, ',"__metadata__":[1]'),
      "CORRUPT",
      (b) => at(b, "[1]}"),
      "header.__metadata__",
    ],
    [
      "a __metadata__ value not a string",
      one('{"dtype":"F32","shape":[1],"data_offsets":[0,4]}', 4, ',"__metadata__":{"k":1}'),
      "CORRUPT",
      (b) => at(b, "1}}"),
      'header.__metadata__["k"]',
    ],
  ];
  it.each(cases)("%s", (_what, bytes, code, offset, field) => {
    const expected = typeof offset === "function" ? offset(bytes) : offset;
    const error = expectFormatError(() => safetensors.read(bytes), code as never, {
      format: "safetensors",
      offset: expected,
      field,
    });
    expect(error.message).toMatch(/^safetensors: /);
  });

  it("accepts what the rules allow: null __metadata__, trailing spaces, escapes, unknown keys (a warning)", () => {
    const file = safetensors.read(
      one('{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}', 4, ',"__metadata__":null   '),
    );
    expect(file.metadata).toBeUndefined();
    expect(safetensors.verify(file).join("\n")).toMatch(/keys besides/);
  });

  it("a truncation at every prefix of a small file is a FormatError (TRUNCATED once the header is complete)", () => {
    const bytes = smallFile();
    for (let n = 0; n < bytes.length; n++) {
      let caught: unknown;
      try {
        safetensors.read(bytes.subarray(0, n));
      } catch (error) {
        caught = error;
      }
      expect(isFormatError(caught), `prefix ${n}: ${String(caught)}`).toBe(true);
      expect((caught as { code: string }).code, `prefix ${n}`).toBe("TRUNCATED");
    }
  });

  it("detection claims plausible headers only", () => {
    expect(safetensors.detect(smallFile())).toBe(true);
    expect(safetensors.detect(safetensorsFile("{}"))).toBe(true);
    expect(safetensors.detect(safetensorsFile('{ "a"'))).toBe(true);
    expect(safetensors.detect(safetensorsFile("[]"))).toBe(false);
    expect(safetensors.detect(safetensorsFile("{x}"))).toBe(false);
    expect(safetensors.detect(safetensorsFile('{"a\u0001"}'))).toBe(false);
    expect(safetensors.detect(safetensorsFile("{}", undefined, 100_000_001))).toBe(false);
    expect(safetensors.detect(Uint8Array.of(1, 2, 3))).toBe(false);
    expect(safetensors.detect("x" as unknown as Uint8Array)).toBe(false);
  });
});

describe("safetensors: write()", () => {
  it("puts back the header text as stored and the data in offset order", () => {
    const bytes = safetensorsFile(
      '{ "b" : {"dtype":"U8","shape":[1],"data_offsets":[1,2]} , "a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}    ',
      Uint8Array.of(5, 6),
    );
    const file = safetensors.read(bytes);
    expect(Buffer.from(safetensors.write(file)).equals(Buffer.from(bytes))).toBe(true);
    expect(safetensors.tensors(file).map((t) => [t.name, bytesOf(t.data)[0]])).toEqual([
      ["b", 6],
      ["a", 5],
    ]);
  });
});
