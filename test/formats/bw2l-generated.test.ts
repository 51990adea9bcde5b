/** bw2l on files made here: builder round trips for both versions and every dtype, and crafted edge cases. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as bw2l from "../../bindings/formats/bw2l.js";
import { bytesOf } from "../../bindings/tensor.js";
import {
  concat,
  f32Sequence,
  longStr,
  rawArray,
  rawFile,
  rawFloat32Array,
  rawKeyval,
  rawLayers,
  randomModel,
  shortStr,
  tinyModel,
  u64,
  u8,
} from "../helpers/bw2l-builders.js";
import { randomNormal } from "../helpers/rng.js";
import { expectFormatError } from "../helpers/bytes.js";
import { columnToRowOracle, rowToColumnOracle } from "../helpers/oracles.js";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const utf8 = (s: string) => new TextEncoder().encode(s);

function withoutPositions(file: bw2l.Bw2lFile): unknown {
  return JSON.parse(
    JSON.stringify(file, (key, value) => {
      if (key === "byteOffset" || key === "dataOffset") return undefined;
      if (typeof value === "bigint") return `${value}n`;
      if (ArrayBuffer.isView(value)) return { type: value.constructor.name, sha: sha256(bytesOf(value)) };
      return value;
    }),
  );
}

const ALL_DTYPES: { dtype: bw2l.Bw2lDType; dims: number[]; data: bw2l.Bw2lArrayData }[] = [
  { dtype: "fp64", dims: [2, 3], data: Float64Array.from([-1.5, 0, Math.PI, 1e300, -0, Number.MIN_VALUE]) },
  { dtype: "fp32", dims: [3, 2, 2, 1], data: f32Sequence(-2, 0.375, 12) },
  { dtype: "fp16", dims: [2, 2], data: Uint16Array.from([0x3c00, 0xc000, 0x7c00, 0x0001]) },
  { dtype: "i64", dims: [2, 2], data: BigInt64Array.from([-(2n ** 63n), -1n, 2n ** 53n + 1n, 2n ** 63n - 1n]) },
  { dtype: "i32", dims: [4], data: Int32Array.from([-(2 ** 31), -1, 0, 2 ** 31 - 1]) },
  { dtype: "i16", dims: [1, 5], data: Int16Array.from([-32768, -1, 0, 32767, 12345]) },
  { dtype: "i8", dims: [3, 2, 1, 1], data: Int8Array.from([-128, -1, 0, 1, 127, 42]) },
];

describe("bw2l builder round trips", () => {
  it.each([1, 2] as const)(
    "v%i: every dtype as layer params and array sections; row-major in, row-major out",
    (version) => {
      const file = bw2l.create({
        version,
        name: "all dtypes",
        layers: [{ arch: "X", params: ALL_DTYPES.map((p) => ({ dims: p.dims, data: p.data })) }, { arch: "" }],
        arrays: Object.fromEntries(
          ALL_DTYPES.map((p) => [`a_${p.dtype}`, { dtype: p.dtype, dims: p.dims, data: p.data }]),
        ),
      });
      const bytes = bw2l.write(file);
      const back = bw2l.read(bytes);
      expect(withoutPositions(back)).toEqual(withoutPositions(file));
      expect(bw2l.write(back)).toEqual(bytes);
      const tensors = new Map(bw2l.tensors(back).map((t) => [t.name, t]));
      ALL_DTYPES.forEach((p, j) => {
        for (const name of [`layers.0.${j}`, `a_${p.dtype}`]) {
          const t = tensors.get(name)!;
          expect(t.shape).toEqual(version === 2 ? p.dims : [p.data.length]);
          expect(t.dtype).toBe(
            { fp64: "float64", fp32: "float32", fp16: "float16", i64: "int64", i32: "int32", i16: "int16", i8: "int8" }[
              p.dtype
            ],
          );
          // v2 gives the data back as given; v1 has no dims, so it shows the stored (column-major) order
          const expected =
            version === 2
              ? Array.from(p.data as ArrayLike<unknown>)
              : rowToColumnOracle(p.data as ArrayLike<unknown>, p.dims);
          expect(Array.from(t.data as ArrayLike<unknown>), name).toEqual(expected);
        }
      });
    },
  );

  it("stores builder data column-major (what ArrayFire and the wav2letter loader expect)", () => {
    const data = Float32Array.from({ length: 24 }, (_, i) => i);
    for (const version of [1, 2] as const) {
      const file = bw2l.read(bw2l.write(bw2l.create({ version, arrays: { w: { dims: [6, 4, 1, 1], data } } })));
      const section = file.sections[0]!;
      if (!bw2l.isArraySection(section)) throw new Error("w");
      expect(Array.from(section.array.data as Float32Array)).toEqual(rowToColumnOracle(data, [6, 4]));
      expect(section.array.dims).toEqual(version === 2 ? [6, 4, 1, 1] : undefined);
    }
  });

  it("create() follows the exporter's section order and sorts keyval keys bytewise", () => {
    const file = bw2l.create({
      spm: Uint8Array.of(1, 2),
      arrays: { extra: { data: [1, 2], dtype: "fp32" } },
      transitions: { dims: [2, 2, 1, 1], data: Float32Array.of(1, 2, 3, 4) },
      layers: [{ arch: "R" }, { arch: "L 2 2", params: [{ data: [1, 2, 3, 4], dtype: "fp32", dims: [2, 2, 1, 1] }] }],
      tokens: ["a", "b"],
      config: { criterion: "ctc" },
      flags: { zeta: "1", "": "", Beta: "2", alpha: "3", é: "4" },
    });
    expect(file.version).toBe(2);
    expect(file.sections.map((s) => [s.name, s.type])).toEqual([
      ["flags", "keyval"],
      ["config", "keyval"],
      ["arch", "utf8"],
      ["tokens", "utf8"],
      ["layers", "layers"],
      ["transitions", "array"],
      ["extra", "array"],
      ["spm", "data"],
    ]);
    const flags = file.sections[0]!;
    if (!bw2l.isKeyvalSection(flags)) throw new Error("flags");
    expect(flags.entries.map((e) => e.key)).toEqual(["", "Beta", "alpha", "zeta", "é"]);
    const arch = file.sections[2]!;
    expect(bw2l.isUtf8Section(arch) && arch.text).toBe("R\nL 2 2\n");
    const tokens = file.sections[3]!;
    expect(bw2l.isUtf8Section(tokens) && tokens.text).toBe("a\nb\n");
    expect(bw2l.verify(bw2l.read(bw2l.write(file)))).toEqual([]);
  });

  it.each([1, 2] as const)("v%i: a tiny CTC model written and read back is the same model", (version) => {
    const model = tinyModel(version);
    const bytes = bw2l.write(model);
    const back = bw2l.read(bytes);
    expect(withoutPositions(back)).toEqual(withoutPositions(model));
    expect(bw2l.flags(back).get("criterion")).toBe("ctc");
    expect(bw2l.tokens(back)).toEqual(["|", "'", "a", "b", "c", "#"]);
    expect(bw2l.blobs(back).map((b) => b.name)).toEqual(["spm.bin"]);
    const weight = bw2l.tensors(back).find((t) => t.name === "layers.4.0")!;
    expect(Array.from(weight.data as Float32Array)).toEqual(
      version === 2
        ? Array.from(f32Sequence(-1.5, 0.125, 24))
        : rowToColumnOracle(f32Sequence(-1.5, 0.125, 24), [6, 4]),
    );
  });

  it.each([1, 2] as const)("v%i: a multi-MB model round-trips byte for byte with exact tensors", (version) => {
    const model = randomModel(version, 6 * 1024 * 1024, 6, 31);
    const bytes = bw2l.write(model);
    expect(bytes.length).toBeGreaterThan(6 * 1024 * 1024);
    const back = bw2l.read(bytes);
    expect(sha256(bw2l.write(back))).toBe(sha256(bytes));
    const tensors = bw2l.tensors(back);
    expect(tensors).toHaveLength(12);
    // weight 0 was randomNormal(31) in row-major [out, 64] order; v1 shows it as stored (column-major, flat)
    const first = tensors[0]!;
    const rowMajor = randomNormal(31, first.data.length, 0.1);
    const out = first.data.length / 64;
    if (version === 2) {
      expect(first.shape).toEqual([out, 64, 1, 1]);
      expect(sha256(bytesOf(first.data))).toBe(sha256(bytesOf(rowMajor)));
    } else {
      expect(first.shape).toEqual([out * 64]);
      expect(sha256(bytesOf(first.data))).toBe(
        sha256(bytesOf(Float32Array.from(rowToColumnOracle(rowMajor, [out, 64])))),
      );
    }
  });
});

describe("bw2l keyval, strings and sections", () => {
  it("keeps every keyval entry in file order: the empty key and duplicates; the maps follow the reference", () => {
    const entries: [string, string][] = [
      ["z", "1"],
      ["", "hidden by the reference"],
      ["a", "first"],
      ["a", "second"],
      ["criterion", "asg"],
    ];
    const bytes = rawFile(2, "", [
      { name: "flags", type: "keyval", data: rawKeyval(entries) },
      { name: "config", type: "keyval", data: rawKeyval([["criterion", "ctc"]]) },
    ]);
    const file = bw2l.read(bytes);
    const flags = file.sections[0]!;
    if (!bw2l.isKeyvalSection(flags)) throw new Error("flags");
    expect(flags.entries.map((e) => [e.key, e.value])).toEqual(entries);
    expect([...bw2l.flags(file)]).toEqual([
      ["z", "1"],
      ["a", "second"],
      ["criterion", "asg"],
    ]);
    expect(bw2l.config(file).get("criterion")).toBe("ctc");
    expect(bw2l.write(file)).toEqual(bytes);
    expect(bw2l.verify(file)).toContainEqual(expect.stringMatching(/repeats the key "a"/));
    expect((bw2l.inspect(file).keyval as Record<string, unknown>).flags).toEqual(entries);
  });

  it("an unknown section type is kept as raw bytes and written back unchanged", () => {
    const payload = Uint8Array.of(9, 8, 7, 6, 5);
    const bytes = rawFile(1, "x", [{ name: "future", type: "tensor3", desc: "from a later version", data: payload }]);
    const file = bw2l.read(bytes);
    const s = file.sections[0]!;
    expect(s.type).toBe("tensor3");
    expect(s.desc).toBe("from a later version");
    expect(bw2l.isRawSection(s) && Array.from(s.data as Uint8Array)).toEqual([9, 8, 7, 6, 5]);
    expect(bw2l.write(file)).toEqual(bytes);
    expect(bw2l.verify(file)).toContainEqual(expect.stringMatching(/unknown type "tensor3"/));
    expect(bw2l.blobs(file)).toEqual([]);
  });

  it("v2 dims that disagree with len: read, warned about, shape [len]", () => {
    const array = rawFloat32Array(2, [1, 2, 3, 4, 5, 6], [4, 4, 1, 1]);
    const bytes = rawFile(2, "", [{ name: "odd", type: "array", data: array }]);
    const file = bw2l.read(bytes);
    expect(bw2l.verify(file)).toContainEqual(expect.stringMatching(/6 elements but dims \[4, 4, 1, 1\] hold 16/));
    const [t] = bw2l.tensors(file);
    expect(t!.shape).toEqual([6]);
    expect(Array.from(t!.data as ArrayLike<unknown>)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(bw2l.write(file)).toEqual(bytes);
  });

  it("trailing bytes after the last section are kept, warned about and written back", () => {
    const bytes = rawFile(2, "", [{ name: "s", type: "utf8", data: utf8("hi") }], Uint8Array.of(0, 0, 0xee));
    const file = bw2l.read(bytes);
    expect(Array.from(file.trailing as Uint8Array)).toEqual([0, 0, 0xee]);
    expect(bw2l.verify(file)).toContainEqual(expect.stringMatching(/3 bytes after the last section/));
    expect(bw2l.inspect(file).trailingBytes).toBe(3);
    expect(bw2l.write(file)).toEqual(bytes);
  });

  it("a repeated section name: kept, warned about; the uniform view uses the last (as the reference does)", () => {
    const bytes = rawFile(2, "", [
      { name: "transitions", type: "array", data: rawFloat32Array(2, [1, 2], [2]) },
      { name: "transitions", type: "array", data: rawFloat32Array(2, [3, 4, 5], [3]) },
      { name: "spm", type: "data", data: Uint8Array.of(1) },
      { name: "spm", type: "data", data: Uint8Array.of(2) },
    ]);
    const file = bw2l.read(bytes);
    expect(file.sections).toHaveLength(4);
    expect(bw2l.verify(file).filter((w) => /repeats the name/.test(w))).toHaveLength(2);
    const tensors = bw2l.tensors(file);
    expect(tensors.map((t) => [t.name, Array.from(t.data as ArrayLike<unknown>)])).toEqual([
      ["transitions", [3, 4, 5]],
    ]);
    expect(bw2l.blobs(file).map((b) => Array.from(b.bytes as Uint8Array))).toEqual([[2]]);
    expect(bw2l.write(file)).toEqual(bytes);
  });

  it("bytes left inside an array or layers section's data_length are CORRUPT, at their offset", () => {
    const array = concat(rawFloat32Array(2, [1, 2], [2]), Uint8Array.of(0xaa, 0xbb));
    const bytes = rawFile(2, "", [{ name: "a", type: "array", data: array }]);
    const dataStart = bytes.length - array.length;
    expectFormatError(() => bw2l.read(bytes), "CORRUPT", {
      offset: dataStart + array.length - 2,
      field: "sections[0].data",
    });
    const layers = concat(rawLayers(1, [{ arch: "R", params: [] }]), Uint8Array.of(1));
    const bytes1 = rawFile(1, "", [{ name: "layers", type: "layers", data: layers }]);
    expectFormatError(() => bw2l.read(bytes1), "CORRUPT", { offset: bytes1.length - 1 });
  });

  it("an unknown dtype is UNSUPPORTED, naming where", () => {
    const layers = rawLayers(2, [{ arch: "L", params: [rawArray(2, "bf16", new Uint8Array(4), 2, [2])] }]);
    const bytes = rawFile(2, "", [{ name: "layers", type: "layers", data: layers }]);
    const dtypeAt = bytes.length - layers.length + 8 + 8 + 1 + 8;
    const error = expectFormatError(() => bw2l.read(bytes), "UNSUPPORTED", {
      offset: dtypeAt,
      field: "sections[0].layers[0].params[0].dtype",
    });
    expect(error.message).toMatch(/"bf16"/);
  });

  it("huge declared counts and lengths fail at once without allocating", () => {
    const header = (count: bigint) => concat(utf8("BW2L"), u8(2), shortStr(""), u64(count));
    expectFormatError(() => bw2l.read(header(2n ** 62n)), "TRUNCATED", { field: "sections" });
    expectFormatError(() => bw2l.read(header(2n ** 64n - 1n)), "TRUNCATED", { field: "sections" });
    const section = (rest: Uint8Array) => concat(header(1n), shortStr("a"), shortStr("array"), rest);
    expectFormatError(() => bw2l.read(section(concat(u64(2n ** 63n), utf8("desc")))), "TRUNCATED", {
      field: "sections[0].desc",
    });
    expectFormatError(() => bw2l.read(section(concat(longStr(""), u64(2n ** 60n)))), "TRUNCATED", {
      field: "sections[0].data",
    });
    const array = (a: Uint8Array) => rawFile(2, "", [{ name: "a", type: "array", data: a }]);
    expectFormatError(() => bw2l.read(array(rawArray(2, "fp64", new Uint8Array(8), 2n ** 61n, [1]))), "TRUNCATED", {
      field: "sections[0].array.data",
    });
    expectFormatError(() => bw2l.read(array(rawArray(2, "fp32", new Uint8Array(4), 1, [2n ** 60n]))), "LIMIT", {
      field: "sections[0].array.dims[0]",
    });
    const layers = rawFile(1, "", [
      { name: "layers", type: "layers", data: concat(u64(2n ** 40n), new Uint8Array(40)) },
    ]);
    expectFormatError(() => bw2l.read(layers), "TRUNCATED", { field: "sections[0].layers" });
  });

  it("short strings: 255 bytes round-trip, 256 is an error (the reference writer silently corrupts the file)", () => {
    const long = "é".repeat(127) + "x"; // 255 bytes of UTF-8
    const file = bw2l.create({ name: long, arrays: { [long]: { data: Float32Array.of(1) } } });
    expect(bw2l.read(bw2l.write(file)).name).toBe(long);
    expect(() => bw2l.write({ ...file, name: `${long}y` })).toThrow(/name is 256 bytes/);
    expect(() => bw2l.write(bw2l.create({ flags: { ["k".repeat(256)]: "v" } }))).toThrow(
      /sections\[0\]\.entries\[0\]\.key is 256 bytes/,
    );
    // long strings have no such limit
    const big = "v".repeat(100_000);
    expect(bw2l.flags(bw2l.read(bw2l.write(bw2l.create({ flags: { k: big } })))).get("k")).toBe(big);
  });

  it("strings that are not valid UTF-8 (and a leading BOM) come back byte for byte; verify says so", () => {
    const badName = Uint8Array.of(0x61, 0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80);
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf, 0x68, 0x69);
    const bytes = rawFile(1, badName, [
      { name: "flags", type: "keyval", data: rawKeyval([[Uint8Array.of(0x80), Uint8Array.of(0xfe, 0x41)]]) },
      { name: bom, type: "utf8", data: concat(bom, Uint8Array.of(0xc0, 0xaf)) },
    ]);
    const file = bw2l.read(bytes);
    expect(file.name.startsWith("a")).toBe(true);
    expect(bw2l.write(file)).toEqual(bytes);
    const text = file.sections[1]!;
    expect(bw2l.isUtf8Section(text) && text.text.startsWith("\ufeffhi")).toBe(true);
    const warnings = bw2l.verify(file);
    for (const field of ["name", "sections[0].entries[0].key", "sections[0].entries[0].value", "sections[1].text"]) {
      expect(warnings).toContainEqual(`${field} is not valid UTF-8 (kept byte for byte)`);
    }
    expect(warnings.some((w) => w.startsWith("sections[1].name"))).toBe(false);
  });

  it("blobs(): data sections as <name>.bin, with unsafe characters replaced", () => {
    const file = bw2l.create({ spm: Uint8Array.of(1) });
    file.sections.push({ name: "../etc/passwd", type: "data", desc: "", data: Uint8Array.of(2) });
    file.sections.push({ name: "", type: "data", desc: "", data: Uint8Array.of(3) });
    expect(bw2l.blobs(file).map((b) => b.name)).toEqual(["spm.bin", "___etc_passwd.bin", "_.bin"]);
  });

  it("inspect() is plain JSON: sections, arch lines, criterion, token count, layers", () => {
    const file = bw2l.read(bw2l.write(tinyModel(1)));
    const result = bw2l.inspect(file);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    expect(result.format).toBe("bw2l");
    expect(result.version).toBe(1);
    expect(result.meta).toMatchObject({ criterion: "ctc", tokenCount: 6, layerCount: 5 });
    expect(result.arch).toEqual(["V -1 1 8 0", "C 8 4 3 1 -1 1", "R", "RO 2 0 3 1", "L 4 6"]);
    expect((result.sections as { name: string }[]).map((s) => s.name)).toEqual([
      "flags",
      "config",
      "arch",
      "tokens",
      "layers",
      "spm",
    ]);
    expect((result.sections as { size: number }[])[5]!.size).toBe(40);
    expect((result.layers as { params: unknown[]; scale: number; offset: number }[])[1]).toEqual({
      arch: "C 8 4 3 1 -1 1",
      scale: 1,
      offset: 0,
      params: [
        { dtype: "fp32", length: 96 },
        { dtype: "fp32", length: 4 },
      ],
    });
    expect(result.tensors[0]).toEqual({ name: "layers.1.0", dtype: "float32", shape: [96], byteLength: 384 });
  });

  it("column-major tensors of rank > 8: axes of extent 1 are fine, more than 8 long axes are UNSUPPORTED", () => {
    const dims = [2, 1, 1, 1, 1, 1, 1, 1, 1, 3];
    const values = Float32Array.from({ length: 6 }, (_, i) => i);
    const ok = bw2l.read(
      bw2l.write({
        version: 2,
        name: "",
        sections: [{ name: "a", type: "array", desc: "", array: { dtype: "fp32", dims, data: values } }],
      }),
    );
    const [t] = bw2l.tensors(ok);
    expect(t!.shape).toEqual(dims);
    expect(Array.from(t!.data as ArrayLike<unknown>)).toEqual(columnToRowOracle(values, [2, 3]));
    const wide = bw2l.read(
      bw2l.write({
        version: 2,
        name: "",
        sections: [
          {
            name: "w",
            type: "array",
            desc: "",
            array: { dtype: "i8", dims: new Array(9).fill(2), data: new Int8Array(512) },
          },
        ],
      }),
    );
    expectFormatError(() => bw2l.tensors(wide), "UNSUPPORTED");
  });
});

describe("bw2l writer checks", () => {
  it("refuses what it cannot write faithfully, naming the field", () => {
    const ok = (): bw2l.Bw2lFile =>
      bw2l.create({ version: 1, layers: [{ arch: "L", params: [{ data: Float32Array.of(1, 2) }] }] });
    const layer = (f: bw2l.Bw2lFile) => f.sections.find(bw2l.isLayersSection)!.layers[0]!;
    const range = ok();
    layer(range).params[0]!.data = { byteOffset: 10, byteLength: 8 };
    expect(() => bw2l.write(range)).toThrow(/params\[0\]\.data is a byte range from readFrom/);
    const wrongType = ok();
    layer(wrongType).params[0]!.data = Float64Array.of(1, 2);
    expect(() => bw2l.write(wrongType)).toThrow(/must be a Float32Array for dtype fp32/);
    const v1dims = ok();
    layer(v1dims).params[0]!.dims = [2];
    expect(() => bw2l.write(v1dims)).toThrow(/version 1 arrays have no dims/);
    const v2scale = { ...ok(), version: 2 as const };
    layer(v2scale).scale = 0.5;
    expect(() => bw2l.write(v2scale)).toThrow(/version 2 layers cannot hold/);
    // identity scale/offset are simply not written in v2
    const v2identity = { ...ok(), version: 2 as const };
    expect(bw2l.read(bw2l.write(v2identity)).sections.find(bw2l.isLayersSection)!.layers[0]!.scale).toBeUndefined();
    expect(() => bw2l.write({ ...ok(), version: 3 as 2 })).toThrow(/version must be 1 or 2/);
    expect(() => bw2l.create({ arrays: { a: { dims: [2, 2], data: Float32Array.of(1, 2, 3) } } })).toThrow(
      /do not hold the 3 elements/,
    );
    expect(() => bw2l.create({ arrays: { a: { data: [1, 2] } } })).toThrow(/dtype is needed/);
  });
});

describe("inspect and verify agree on where criterion comes from", () => {
  const layers = [{ arch: "L 1 1", params: [{ dims: [1, 1, 1, 1], data: new Float32Array([1]) }] }];
  it("config's criterion is meta.criterion; a criterion only in flags is meta.flagsCriterion and verify names it", () => {
    const onlyFlags = bw2l.read(
      bw2l.write(
        bw2l.create({ flags: { criterion: "ctc" }, config: { other: "x" }, arch: ["L 1 1"], tokens: ["a"], layers }),
      ),
    );
    expect(bw2l.inspect(onlyFlags).meta).toMatchObject({ flagsCriterion: "ctc" });
    expect(bw2l.inspect(onlyFlags).meta.criterion).toBeUndefined();
    expect(bw2l.verify(onlyFlags)).toContainEqual(
      expect.stringMatching(/config criterion null: .*flags say "ctc", but the loader reads config's/),
    );
    const both = bw2l.read(
      bw2l.write(
        bw2l.create({
          flags: { criterion: "asg" },
          config: { criterion: "ctc" },
          arch: ["L 1 1"],
          tokens: ["a"],
          layers,
        }),
      ),
    );
    expect(bw2l.inspect(both).meta).toMatchObject({ criterion: "ctc", flagsCriterion: "asg" });
    expect(bw2l.verify(both).some((w) => w.includes("criterion"))).toBe(false);
  });
});
