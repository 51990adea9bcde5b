/**
 * bw2l against the reference-written fixtures (../shared/fixtures/bw2l, values from its PROVENANCE.md) and
 * against files made here (test/helpers/bw2l-builders.ts).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type FormatErrorCode, isFormatError } from "../../bindings/bytes/errors.js";
import * as bw2l from "../../bindings/formats/bw2l.js";
import { isByteRange } from "../../bindings/formats/bw2l/model.js";
import { fromBytes } from "../../bindings/io/source.js";
import { bytesOf } from "../../bindings/tensor.js";
import { f32Sequence } from "../helpers/bw2l-builders.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { rng } from "../helpers/rng.js";
import { choppySource } from "../helpers/sources.js";
import { expectFormatError } from "../helpers/bytes.js";
import { columnToRowOracle } from "../helpers/oracles.js";
function expectBw2lError(
  fn: () => unknown,
  code: FormatErrorCode,
  where: { offset?: number; field?: string | RegExp } = {},
) {
  return expectFormatError(fn, code, { format: "bw2l", ...where });
}

// ---------------------------------------------------------------------------------------------------- helpers

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const text = (s: string) => new TextEncoder().encode(s);

function section(file: bw2l.Bw2lFile, name: string): bw2l.Bw2lSection {
  const found = file.sections.filter((s) => s.name === name);
  expect(found.length, `section ${name}`).toBeGreaterThan(0);
  return found[found.length - 1]!;
}

function arrayOf(file: bw2l.Bw2lFile, name: string): bw2l.Bw2lArray {
  const s = section(file, name);
  if (!bw2l.isArraySection(s)) throw new Error(`${name} is not an array section`);
  return s.array;
}

function layersOf(file: bw2l.Bw2lFile): bw2l.Bw2lLayer[] {
  const s = section(file, "layers");
  if (!bw2l.isLayersSection(s)) throw new Error("no layers section");
  return s.layers;
}

function rawBytesOf(array: bw2l.Bw2lArray): Uint8Array {
  if (isByteRange(array.data)) throw new Error("not loaded");
  return bytesOf(array.data);
}

/** read()'s result with every payload replaced by its byte range: what readFrom() must return. */
function withRanges(file: bw2l.Bw2lFile, fileSize: number): unknown {
  const range = (offset: number | undefined, data: { byteLength: number }) => ({
    byteOffset: offset,
    byteLength: data.byteLength,
  });
  const array = (a: bw2l.Bw2lArray) => ({ ...a, data: range(a.byteOffset, a.data) });
  return {
    ...file,
    sections: file.sections.map((s) => {
      if (bw2l.isArraySection(s)) return { ...s, array: array(s.array) };
      if (bw2l.isLayersSection(s))
        return { ...s, layers: s.layers.map((l) => ({ ...l, params: l.params.map(array) })) };
      if (bw2l.isRawSection(s)) return { ...s, data: range(s.dataOffset, s.data) };
      return s;
    }),
    ...(file.trailing ? { trailing: range(fileSize - file.trailing.byteLength, file.trailing) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------- fixtures

const VALID = [
  "ref_b2l_test_out_v1.b2l",
  "ref_b2l_test_out_v2.b2l",
  "tiny_ctc_v1.b2l",
  "tiny_ctc_v2.b2l",
  "tiny_asg_v1.b2l",
  "tiny_asg_v2.b2l",
  "dtypes_v1.b2l",
  "dtypes_v2.b2l",
  "empty_v1.b2l",
  "empty_v2.b2l",
  "synthetic/fp16_v2.b2l",
];

const FILE_SHA256: Record<string, string> = {
  "ref_b2l_test_out_v1.b2l": "641262e5e2613843f740ee9941fa1b8d5b7c86a0f34ce64040a64ebdb1ba87b8",
  "ref_b2l_test_out_v2.b2l": "ef0c8fcf42fe017fefe3feb26824b37a9b840c2b4cb7d56c15c0e12130d49c99",
  "tiny_ctc_v1.b2l": "95e96df6bd0605168d499f21f8b0ced2980011f1efed6baa2b8e0644b31d582b",
  "tiny_ctc_v2.b2l": "455b4357663391453da97089fc767b1edcdc9fd27e241e2ac72e4df11beca4ce",
  "tiny_asg_v1.b2l": "f67abe2fbe624914d6f272fde8df772e29c05b9bd73e0493bffdef181db9c965",
  "tiny_asg_v2.b2l": "deca40e4cdfefa11b61de9889c6f2b0f471544b8caa78ec96a3cf750547eb3ac",
  "dtypes_v1.b2l": "c5638ecc28228a2fda4dc027e448064f1f6ceab47bee10bffa29597a65c9fbf2",
  "dtypes_v2.b2l": "a1f6871d4194fdbd0c064a3a2d3a68ccdf663682ddf43ddc43e2ebb99d0185ed",
  "empty_v1.b2l": "f3bef1ea731f9f496fa1f7c2698e3e67bd2e9b7bba9750570e59ddc3b4f060d6",
  "empty_v2.b2l": "d66b459b890120ed63234a2dd601ec5b5bf6a5d6dcb9b2c887fff5aeb4bc7981",
  "synthetic/fp16_v2.b2l": "beda64008d27abccab30fed7ca3115da864ef6f9b22757df85ccc0f49e342d2d",
};

const load = (name: string) => readFixture("bw2l", ...name.split("/"));

const SHA = {
  convWeight: "ba474714b653cf5e23e4f8f75573fcee3d3c45c18009602f152a5a85361ec254",
  convBias: "8a2552d20305472b50d67c3853236cef51a063895b6d22be87fe1e687bfa8ad6",
  ctcWeight: "1859b17e7622f50314d71cb3fb7055ed1553887f8bb07edcf1e15b3abc32ef56",
  ctcBias: "b1290cd43eac8e2fa4ad8d45d9f79f8868fc8a6e08c627c33557814743ffdf3e",
  asgWeight: "77fac16d7ffb6cf5a6bd37911eee87becbdb358cd7a72591fee64c9dd9f63f81",
  asgBias: "8c17b853da997047f788d2093283622d69e09390e3388c6af23631e2b2970fd8",
  transitions: "cea205a4a3a804198fc2a18c49f22358aa56c764bb4b752dcc3d34f01f49f94a",
  fp16: "7a29d82055e6c0fd0819d9f080c3abe3f5cfcff950e5a7a28ab7a336248a44db",
};

const TINY_FLAGS: [string, string][] = [
  ["", ""],
  ["arch", "am.arch"],
  ["archdir", ""],
  ["channels", "1"],
  ["criterion", "ctc"],
  ["devwin", "0"],
  ["filterbanks", "8"],
  ["framesizems", "25"],
  ["framestridems", "10"],
  ["highfreqfilterbank", "-1"],
  ["localnrmlleftctx", "300"],
  ["localnrmlrightctx", "0"],
  ["lowfreqfilterbank", "0"],
  ["mfcccoeffs", "13"],
  ["mfsc", "true"],
  ["samplerate", "16000"],
  ["tokens", ""],
  ["train", ""],
  ["wordseparator", "|"],
];

describe.skipIf(!haveFixtures())("bw2l reference fixtures", () => {
  it("are the files PROVENANCE.md describes", () => {
    for (const name of VALID) expect(sha256(load(name)), name).toBe(FILE_SHA256[name]);
  });

  it.each(VALID)("%s: write(read(x)) is byte-identical", (name) => {
    const bytes = load(name);
    const out = bw2l.write(bw2l.read(bytes));
    expect(out.length).toBe(bytes.length);
    expect(sha256(out)).toBe(sha256(bytes));
  });

  it.each([1, 2] as const)("tiny_ctc_v%i: flags, config, arch, tokens, layers as exported", (version) => {
    const file = bw2l.read(load(`tiny_ctc_v${version}.b2l`));
    expect(file.version).toBe(version);
    expect(file.name).toBe("");
    expect(file.sections.map((s) => [s.name, s.type, s.desc])).toEqual([
      ["flags", "keyval", ""],
      ["config", "keyval", ""],
      ["arch", "utf8", ""],
      ["tokens", "utf8", ""],
      ["layers", "layers", ""],
      ...(version === 2 ? [["spm", "data", ""]] : []),
    ]);
    const flags = section(file, "flags");
    if (!bw2l.isKeyvalSection(flags)) throw new Error("flags");
    expect(flags.entries.map((e) => [e.key, e.value])).toEqual(TINY_FLAGS);
    expect(bw2l.inspect(file).sections).toContainEqual(expect.objectContaining({ name: "flags", size: 392 }));
    // the reference hides the "" key: 18 entries
    expect(bw2l.flags(file).size).toBe(18);
    expect(bw2l.flags(file).has("")).toBe(false);
    expect([...bw2l.config(file)]).toEqual([["criterion", "ctc"]]);
    expect(bw2l.archLines(file)).toEqual(["V -1 1 8 0", "C 8 4 3 1 -1 1", "R", "RO 2 0 3 1", "L 4 6"]);
    expect(bw2l.tokens(file)).toEqual(["|", "'", "a", "b", "c", "#"]);
    const layers = layersOf(file);
    expect(layers.map((l) => l.arch)).toEqual(bw2l.archLines(file));
    expect(layers.map((l) => l.params.length)).toEqual([0, 2, 0, 0, 2]);
    for (const l of layers) {
      if (version === 1) {
        expect(l.scale).toBe(1);
        expect(l.offset).toBe(0n);
      } else {
        expect(l.scale).toBeUndefined();
        expect(l.offset).toBeUndefined();
      }
    }
    const expected = [
      {
        p: layers[1]!.params[0]!,
        at: [728, 737],
        dims: [3, 1, 8, 4],
        sha: SHA.convWeight,
        values: f32Sequence(-0.48, 0.01, 96),
      },
      {
        p: layers[1]!.params[1]!,
        at: [1125, 1167],
        dims: [1, 1, 4, 1],
        sha: SHA.convBias,
        values: f32Sequence(-1, 0.5, 4),
      },
      {
        p: layers[4]!.params[0]!,
        at: [1254, 1293],
        dims: [6, 4, 1, 1],
        sha: SHA.ctcWeight,
        values: f32Sequence(-1.5, 0.125, 24),
      },
      {
        p: layers[4]!.params[1]!,
        at: [1363, 1435],
        dims: [6, 1, 1, 1],
        sha: SHA.ctcBias,
        values: f32Sequence(0, 0.25, 6),
      },
    ];
    for (const { p, at, dims, sha, values } of expected) {
      expect(p.dtype).toBe("fp32");
      expect(p.byteOffset).toBe(at[version - 1]);
      expect(sha256(rawBytesOf(p))).toBe(sha);
      expect(Array.from(p.data as Float32Array)).toEqual(Array.from(values));
      if (version === 2) expect(p.dims).toEqual(dims);
      else expect(p.dims).toBeUndefined();
    }
    // the uniform view: v2 row-major for the stored dims, v1 flat
    const tensors = bw2l.tensors(file);
    expect(tensors.map((t) => t.name)).toEqual(["layers.1.0", "layers.1.1", "layers.4.0", "layers.4.1"]);
    tensors.forEach((t, k) => {
      const { dims, values } = expected[k]!;
      expect(t.dtype).toBe("float32");
      expect(t.shape).toEqual(version === 2 ? dims : [values.length]);
      expect(Array.from(t.data as Float32Array)).toEqual(
        version === 2 ? columnToRowOracle(values, dims) : Array.from(values),
      );
    });
  });

  it("tiny_ctc_v2: the spm section is the pack input minus its whitespace bytes, extracted as spm.bin", () => {
    const file = bw2l.read(load("tiny_ctc_v2.b2l"));
    const spm = section(file, "spm");
    expect(spm.dataOffset).toBe(1484);
    if (!bw2l.isRawSection(spm) || !(spm.data instanceof Uint8Array)) throw new Error("spm");
    expect(spm.data.length).toBe(58);
    expect(sha256(spm.data)).toBe("25a1dca98481d58883486da099a64ff7170d4f339d7fbef50972b09cf3d5c2c3");
    const input = load("tiny_ctc_v2.spm_input.bin");
    expect(sha256(input)).toBe("fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108");
    const whitespace = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20]);
    expect(Array.from(spm.data as ArrayLike<unknown>)).toEqual(Array.from(input).filter((b) => !whitespace.has(b)));
    const blobs = bw2l.blobs(file);
    expect(blobs.map((b) => b.name)).toEqual(["spm.bin"]);
    expect(blobs[0]!.bytes).toEqual(spm.data);
  });

  it.each([1, 2] as const)("tiny_asg_v%i: asg criterion, 5 tokens, transitions", (version) => {
    const file = bw2l.read(load(`tiny_asg_v${version}.b2l`));
    expect(bw2l.config(file).get("criterion")).toBe("asg");
    expect(bw2l.flags(file).get("criterion")).toBe("asg");
    expect(bw2l.tokens(file)).toEqual(["|", "'", "a", "b", "c"]);
    expect(bw2l.archLines(file)!.at(-1)).toBe("L 4 5");
    const linear = layersOf(file)[4]!.params;
    expect(sha256(rawBytesOf(linear[0]!))).toBe(SHA.asgWeight);
    expect(sha256(rawBytesOf(linear[1]!))).toBe(SHA.asgBias);
    expect(Array.from(linear[0]!.data as Float32Array)).toEqual(Array.from(f32Sequence(-1.5, 0.125, 20)));
    expect(Array.from(linear[1]!.data as Float32Array)).toEqual(Array.from(f32Sequence(0, 0.25, 5)));
    const conv = layersOf(file)[1]!.params;
    expect(sha256(rawBytesOf(conv[0]!))).toBe(SHA.convWeight);
    const transitions = arrayOf(file, "transitions");
    expect(transitions.byteOffset).toBe(version === 1 ? 1412 : 1517);
    expect(sha256(rawBytesOf(transitions))).toBe(SHA.transitions);
    const values = f32Sequence(0.5, -0.0625, 25);
    expect(values[24]).toBe(-1);
    expect(Array.from(transitions.data as Float32Array)).toEqual(Array.from(values));
    if (version === 2) {
      expect(linear.map((p) => p.dims)).toEqual([
        [5, 4, 1, 1],
        [5, 1, 1, 1],
      ]);
      expect(transitions.dims).toEqual([5, 5, 1, 1]);
    }
    const t = bw2l.tensors(file).find((x) => x.name === "transitions")!;
    expect(t.shape).toEqual(version === 2 ? [5, 5, 1, 1] : [25]);
    // ASG transitions: element [i][j] of the 5x5 matrix is stored at i + 5j
    expect(Array.from(t.data as Float32Array)).toEqual(
      version === 2 ? columnToRowOracle(values, [5, 5]) : Array.from(values),
    );
  });

  it.each([1, 2] as const)(
    "dtypes_v%i: every writable dtype, edge values, UTF-8, desc, raw data, keyval, layers",
    (version) => {
      const file = bw2l.read(load(`dtypes_v${version}.b2l`));
      expect(file.name).toBe("dtypes é");
      expect(file.sections.map((s) => [s.name, s.type])).toEqual([
        ["a_fp64", "array"],
        ["a_fp32", "array"],
        ["a_i64", "array"],
        ["a_i32", "array"],
        ["a_i16", "array"],
        ["a_i8", "array"],
        ["a_empty", "array"],
        ["with_desc", "utf8"],
        ["raw", "data"],
        ["kv", "keyval"],
        ["layers", "layers"],
      ]);
      const cases: [string, bw2l.Bw2lDType, unknown[], number[]][] = [
        ["a_fp64", "fp64", [-1.5, 0, 3.141592653589793, 1e300], [4]],
        ["a_fp32", "fp32", [-2.5, 0, 0.3333333432674408, 65504, -0], [5, 1]],
        ["a_i64", "i64", [-9007199254740993n, 0n, 9223372036854775807n, -9223372036854775808n], [2, 2]],
        ["a_i32", "i32", [-2147483648, -1, 0, 2147483647], [4, 1, 1, 1]],
        ["a_i16", "i16", [-32768, -1, 0, 32767, 12345], []],
        ["a_i8", "i8", [-128, -1, 0, 1, 127, 42], [3, 2]],
        ["a_empty", "fp32", [], [0]],
      ];
      const tensors = new Map(bw2l.tensors(file).map((t) => [t.name, t]));
      for (const [name, dtype, values, dims] of cases) {
        const a = arrayOf(file, name);
        expect(a.dtype).toBe(dtype);
        expect(Array.from(a.data as ArrayLike<unknown>)).toEqual(values);
        if (version === 2) expect(a.dims).toEqual(dims);
        const t = tensors.get(name)!;
        const shape = version === 2 && dims.length > 0 ? dims : [values.length];
        expect(t.shape).toEqual(shape);
        expect(Array.from(t.data as ArrayLike<unknown>)).toEqual(columnToRowOracle(values, shape));
      }
      expect(Object.is((arrayOf(file, "a_fp32").data as Float32Array)[4], -0)).toBe(true);
      expect(arrayOf(file, "a_i64").data).toBeInstanceOf(BigInt64Array);
      const withDesc = section(file, "with_desc");
      expect(withDesc.desc).toBe("a section description ✓");
      if (!bw2l.isUtf8Section(withDesc)) throw new Error("with_desc");
      expect(withDesc.text).toBe("café — 🎤\n");
      expect(text(withDesc.text).length).toBe(15);
      const raw = section(file, "raw");
      if (!bw2l.isRawSection(raw)) throw new Error("raw");
      expect(Array.from(raw.data as Uint8Array)).toEqual([0x00, 0x01, 0x02, 0xfe, 0xff]);
      const kv = section(file, "kv");
      if (!bw2l.isKeyvalSection(kv)) throw new Error("kv");
      expect(kv.entries).toEqual([
        { key: "a", value: "1" },
        { key: "b", value: "2" },
        { key: "name", value: "example" },
        { key: "quantization", value: "" },
      ]);
      const layers = layersOf(file);
      expect(layers.map((l) => l.arch)).toEqual(["L1", "", "L3"]);
      expect(layers.map((l) => l.params.map((p) => [p.dtype, (p.data as ArrayLike<unknown>).length]))).toEqual([
        [
          ["i8", 6],
          ["fp32", 5],
        ],
        [],
        [
          ["i16", 5],
          ["i64", 4],
          ["fp64", 4],
          ["i32", 4],
        ],
      ]);
      if (version === 2)
        for (const l of layers)
          for (const p of l.params) expect(p.dims).toEqual([(p.data as ArrayLike<unknown>).length]);
      expect(bw2l.blobs(file).map((b) => b.name)).toEqual(["raw.bin"]);
    },
  );

  it.each([1, 2] as const)("ref_b2l_test_out_v%i: the reference unit test's 7 sections", (version) => {
    const file = bw2l.read(load(`ref_b2l_test_out_v${version}.b2l`));
    expect(file.version).toBe(version);
    expect(file.name).toBe("filename");
    expect(file.sections.map((s) => [s.name, s.type])).toEqual([
      ["data", "data"],
      ["utf8", "utf8"],
      ["keyval", "keyval"],
      ["array_float", "array"],
      ["layers", "layers"],
      ["config", "keyval"],
      ["str2", "utf8"],
    ]);
    const data = section(file, "data");
    expect(bw2l.isRawSection(data) && Array.from(data.data as Uint8Array)).toEqual([1, 2, 3]);
    const utf8 = section(file, "utf8");
    expect(bw2l.isUtf8Section(utf8) && utf8.text).toBe("test string");
    expect([...bw2l.keyvalMap(file, "keyval")]).toEqual([
      ["a", "b"],
      ["another key", "another key"],
      ["more keys", "more values"],
    ]);
    const arrayFloat = arrayOf(file, "array_float");
    expect(arrayFloat.byteOffset).toBe(version === 1 ? 236 : 237);
    expect(Array.from(arrayFloat.data as Float32Array)).toEqual([4, 3, 2, 1]);
    expect(sha256(rawBytesOf(arrayFloat))).toBe("3dc1251808e656ca371e19156ac6df18b5283efdb3202fd45157502fb2399fca");
    if (version === 2) {
      expect(arrayFloat.dims).toEqual([]);
      expect(section(file, "layers").dataOffset).toBe(283);
      expect(bw2l.inspect(file).sections).toContainEqual({ name: "layers", type: "layers", size: 151, offset: 283 });
    }
    const layers = layersOf(file);
    expect(layers.map((l) => [l.arch, l.params.map((p) => p.dtype)])).toEqual([
      ["L1", ["fp32"]],
      ["L2", ["i32"]],
      ["L3", ["fp64"]],
    ]);
    expect(layers.map((l) => sha256(rawBytesOf(l.params[0]!)))).toEqual([
      "a4dddee1b1b2dcadc2ef8ff241f2a69b453ae5c9ba219f1c0fb67beba77e98aa",
      "8ca6ee1043defcfd05aa29dee581cbc519e783e414a687d7c26ac6070d3f6dee",
      "dd82a005a88c6c90f80017afd2fa1aa9efbe7a8b03b0be919b6ad54b6c4d5d78",
    ]);
    expect(Array.from(layers[0]!.params[0]!.data as Float32Array)).toEqual([1.1, 2.2, 3.3].map(Math.fround));
    expect(Array.from(layers[1]!.params[0]!.data as Int32Array)).toEqual([4, 5, 6]);
    expect(Array.from(layers[2]!.params[0]!.data as Float64Array)).toEqual([7.0, 8.4, 9.1]);
    if (version === 1)
      expect(layers.map((l) => [l.scale, l.offset])).toEqual([
        [1, 0n],
        [1, 0n],
        [1, 0n],
      ]);
    expect(bw2l.config(file)).toEqual(
      new Map([
        ["criterion", "ctc"],
        ["name", "example"],
        ["quantization", ""],
      ]),
    );
    const str2 = section(file, "str2");
    expect(bw2l.isUtf8Section(str2) && str2.text).toBe("test string 2");
    // ndim 0: the contract shape is [len]
    expect(bw2l.tensors(file).map((t) => [t.name, t.shape])).toEqual([
      ["array_float", [4]],
      ["layers.0.0", [3]],
      ["layers.1.0", [3]],
      ["layers.2.0", [3]],
    ]);
  });

  it.each([1, 2] as const)("empty_v%i: magic, version, empty name, no sections", (version) => {
    const bytes = load(`empty_v${version}.b2l`);
    expect(Array.from(bytes)).toEqual([0x42, 0x57, 0x32, 0x4c, version, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(bw2l.read(bytes)).toEqual({ version, name: "", sections: [] });
    expect(bw2l.tensors(bw2l.read(bytes))).toEqual([]);
  });

  it("synthetic/fp16_v2: IEEE binary16, 2 bytes an element (the reference desyncs here)", () => {
    const file = bw2l.read(load("synthetic/fp16_v2.b2l"));
    expect(file.name).toBe("fp16 synthetic");
    const param = layersOf(file)[0]!.params[0]!;
    const half = arrayOf(file, "half");
    for (const a of [param, half]) {
      expect(a.dtype).toBe("fp16");
      expect(sha256(rawBytesOf(a))).toBe(SHA.fp16);
      // 1.0, -2.0, 0.5, 65504 as binary16 bits
      expect(Array.from(a.data as Uint16Array)).toEqual([0x3c00, 0xc000, 0x3800, 0x7bff]);
    }
    expect(param.dims).toEqual([2, 2, 1, 1]);
    expect(half.dims).toEqual([4]);
    expect(layersOf(file).map((l) => [l.arch, l.params.length])).toEqual([
      ["L 2 2", 1],
      ["R", 0],
    ]);
    const raw = new Map(bw2l.tensors(file).map((t) => [t.name, t]));
    expect(raw.get("half")!.dtype).toBe("float16");
    const wide = new Map(bw2l.tensors(file, { dtype: "float32" }).map((t) => [t.name, t]));
    expect(Array.from(wide.get("half")!.data as ArrayLike<unknown>)).toEqual([1, -2, 0.5, 65504]);
    expect(wide.get("layers.0.0")!.shape).toEqual([2, 2, 1, 1]);
    expect(Array.from(wide.get("layers.0.0")!.data as ArrayLike<unknown>)).toEqual(
      columnToRowOracle([1, -2, 0.5, 65504], [2, 2]),
    );
    const dequantized = bw2l.read(load("synthetic/fp16_v2.b2l"), { dequantize: true });
    expect(arrayOf(dequantized, "half").dtype).toBe("fp32");
    expect(Array.from(arrayOf(dequantized, "half").data as Float32Array)).toEqual([1, -2, 0.5, 65504]);
    expect(bw2l.verify(file).some((w) => /fp16/.test(w))).toBe(true);
  });

  it.each(VALID)("%s: every proper prefix is TRUNCATED", (name) => {
    const bytes = load(name);
    for (let n = 0; n < bytes.length; n++) {
      const error = expectBw2lError(() => bw2l.read(bytes.subarray(0, n)), "TRUNCATED");
      expect((error as { offset: number }).offset).toBeLessThanOrEqual(n);
    }
  });

  it("invalid/: every file gives the right error", () => {
    const files = listFixtures("bw2l/invalid");
    expect(files).toEqual([
      "bad_magic.b2l",
      "bad_version_3.b2l",
      "truncated_header.b2l",
      "truncated_last_byte.b2l",
      "truncated_mid.b2l",
    ]);
    const read = (name: string) => () => bw2l.read(readFixture("bw2l", "invalid", name));
    const magic = expectBw2lError(read("bad_magic.b2l"), "BAD_MAGIC", { offset: 0, field: "magic" });
    expect(magic.message).toMatch(/BW2X/);
    expectBw2lError(read("bad_version_3.b2l"), "UNSUPPORTED_VERSION", { offset: 4, field: "version" });
    // 12 bytes: magic, version 2, empty name, then 6 of the 8 bytes of section_count
    expectBw2lError(read("truncated_header.b2l"), "TRUNCATED", { offset: 6, field: "section_count" });
    expectBw2lError(read("truncated_mid.b2l"), "TRUNCATED", { field: /^sections\[\d+\]/ });
    // the reference opens this one and fails only when spm is read; we say so at once
    expectBw2lError(read("truncated_last_byte.b2l"), "TRUNCATED", { offset: 1484, field: "sections[5].data" });
  });

  it("detect() is true for bw2l files only", () => {
    for (const name of VALID) expect(bw2l.detect(load(name).subarray(0, 64)), name).toBe(true);
    expect(bw2l.detect(readFixture("bw2l", "invalid", "bad_magic.b2l"))).toBe(false);
    expect(bw2l.detect(readFixture("bw2l", "tiny_ctc_v2.spm_input.bin"))).toBe(false);
    let others = 0;
    for (const folder of ["april", "tennis", "primitiv", "spraak"]) {
      for (const name of listFixtures(folder)) {
        const head = readFixture(folder, name).subarray(0, 64);
        expect(bw2l.detect(head), `${folder}/${name}`).toBe(false);
        others++;
      }
    }
    expect(others).toBeGreaterThan(0);
    expect(bw2l.detect(new Uint8Array(0))).toBe(false);
    expect(bw2l.detect(text("BW2"))).toBe(false);
  });

  it.each(VALID)("%s: readFrom() equals read() with payloads as ranges; loadTensor equals tensors()", async (name) => {
    const bytes = load(name);
    const file = bw2l.read(bytes);
    for (const [label, source] of [
      ["fromBytes", fromBytes(bytes)],
      ["choppy", choppySource(bytes, 7)],
    ] as const) {
      const lazy = await bw2l.readFrom(source);
      expect(lazy, label).toEqual(withRanges(file, bytes.length));
      expect(bw2l.tensorInfos(lazy)).toEqual(bw2l.tensorInfos(file));
      expect(bw2l.inspect(lazy)).toEqual(bw2l.inspect(file));
      const expected = bw2l.tensors(file, { dtype: "float32" });
      const infos = bw2l.tensorInfos(lazy);
      for (let k = 0; k < infos.length; k++) {
        const t = await bw2l.loadTensor(source, infos[k]!, { dtype: "float32" });
        expect(t.name).toBe(expected[k]!.name);
        expect(t.shape).toEqual(expected[k]!.shape);
        expect(t.dtype).toBe(expected[k]!.dtype);
        expect(Array.from(t.data as ArrayLike<unknown>)).toEqual(Array.from(expected[k]!.data as ArrayLike<unknown>));
      }
    }
  });

  it("seeded byte flips (seed 2024): only FormatErrors escape, and whatever reads writes back byte for byte", () => {
    const next = rng(2024);
    let accepted = 0;
    let refused = 0;
    for (const name of VALID) {
      const original = load(name);
      for (let round = 0; round < 250; round++) {
        const bytes = original.slice();
        const flips = 1 + Math.floor(next() * 4);
        for (let f = 0; f < flips; f++) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
        let file: bw2l.Bw2lFile;
        try {
          file = bw2l.read(bytes);
        } catch (error) {
          if (!isFormatError(error)) throw error;
          refused++;
          continue;
        }
        accepted++;
        expect(sha256(bw2l.write(file))).toBe(sha256(bytes));
        expect(() => JSON.stringify(bw2l.inspect(file))).not.toThrow();
        bw2l.verify(file);
        try {
          bw2l.tensors(file, { dtype: "float32" });
        } catch (error) {
          if (!isFormatError(error)) throw error;
        }
      }
    }
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it("seeded byte flips through readFrom (seed 99): only FormatErrors escape", async () => {
    const next = rng(99);
    for (const name of VALID) {
      const original = load(name);
      for (let round = 0; round < 40; round++) {
        const bytes = original.slice();
        bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
        try {
          await bw2l.readFrom(choppySource(bytes, round));
        } catch (error) {
          if (!isFormatError(error)) throw error;
        }
      }
    }
  });
});
