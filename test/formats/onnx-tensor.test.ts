/**
 * ONNX TensorProto files (.pb, format "onnx-tensor"): files encoded by onnx-proto (an independent protobuf
 * encoder) for every data type, raw_data and typed storage; ONNX's own test data (Debian's libonnx-testdata,
 * when installed) decoded bit-exact against onnx-proto's TensorProto.decode; detection that never takes another
 * format's file or an .onnx model; the hostile cases (truncation, external data, STRING, SequenceProto).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import { DETECT_BYTES, FORMATS, detectFormat, formatOfName, readAny, readFromAny } from "../../bindings/any.js";
import { FormatError, UnsupportedError, isFormatError } from "../../bindings/bytes/errors.js";
import { exampleFiles } from "../../bindings/examples.js";
import * as onnx from "../../bindings/formats/onnx.js";
import * as onnxTensor from "../../bindings/formats/onnx-tensor.js";
import * as lib from "../../bindings/index.js";
import { SourceError, fromBytes } from "../../bindings/io/source.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { checkAnyLaws, checkFormatLaws, checkInputForms } from "../../fuzz/laws.mjs";
import { randomBytes } from "../helpers/rng.js";
import { choppySource, countingSource } from "../helpers/sources.js";
import { loadFile, openFile } from "../../bindings/load-file.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

const { onnx: proto } = onnxProto;
type ProtoTensor = onnxProto.onnx.ITensorProto;
const UNTIMED = { callLimitMs: Number.POSITIVE_INFINITY };

function bytesOf(t: NamedTensor): Uint8Array {
  const d = t.data as ArrayBufferView;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

function encode(t: ProtoTensor): Uint8Array {
  return proto.TensorProto.encode(proto.TensorProto.create(t)).finish();
}

/** Per ONNX data type: tensorfile's dtype, bits per element, and the typed field ONNX stores it in. */
const TYPES: Record<
  number,
  { dtype: string; bits: number; field: "int32Data" | "int64Data" | "uint64Data" | "floatData" | "doubleData" }
> = {
  1: { dtype: "float32", bits: 32, field: "floatData" },
  2: { dtype: "uint8", bits: 8, field: "int32Data" },
  3: { dtype: "int8", bits: 8, field: "int32Data" },
  4: { dtype: "uint16", bits: 16, field: "int32Data" },
  5: { dtype: "int16", bits: 16, field: "int32Data" },
  6: { dtype: "int32", bits: 32, field: "int32Data" },
  7: { dtype: "int64", bits: 64, field: "int64Data" },
  9: { dtype: "bool", bits: 8, field: "int32Data" },
  10: { dtype: "float16", bits: 16, field: "int32Data" },
  11: { dtype: "float64", bits: 64, field: "doubleData" },
  12: { dtype: "uint32", bits: 32, field: "uint64Data" },
  13: { dtype: "uint64", bits: 64, field: "uint64Data" },
  14: { dtype: "complex64", bits: 64, field: "floatData" },
  15: { dtype: "complex128", bits: 128, field: "doubleData" },
  16: { dtype: "bfloat16", bits: 16, field: "int32Data" },
  17: { dtype: "float8_e4m3", bits: 8, field: "int32Data" },
  18: { dtype: "uint8", bits: 8, field: "int32Data" },
  19: { dtype: "float8_e5m2", bits: 8, field: "int32Data" },
  20: { dtype: "uint8", bits: 8, field: "int32Data" },
  21: { dtype: "uint8", bits: 4, field: "int32Data" },
  22: { dtype: "uint8", bits: 4, field: "int32Data" },
  23: { dtype: "uint8", bits: 4, field: "int32Data" },
  24: { dtype: "uint8", bits: 8, field: "int32Data" },
};

/**
 * The elements of a decoded TensorProto (onnx-proto's object) as raw_data holds them: little-endian, the
 * dtype's width; written here from the typed fields, independently of the reader.
 */
function oracleBytes(t: ProtoTensor): Uint8Array {
  const type = TYPES[t.dataType ?? 0];
  if (!type) throw new Error(`oracle: data type ${t.dataType}`);
  if (t.rawData && t.rawData.length > 0) return new Uint8Array(t.rawData);
  const count = (t.dims ?? []).reduce<number>((a, d) => a * Number(d), 1);
  const bytes = type.bits === 4 ? Math.ceil(count / 2) : (count * type.bits) / 8;
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  switch (type.field) {
    case "floatData":
      (t.floatData ?? []).forEach((v, i) => view.setFloat32(4 * i, v, true));
      break;
    case "doubleData":
      (t.doubleData ?? []).forEach((v, i) => view.setFloat64(8 * i, v, true));
      break;
    case "int64Data":
      (t.int64Data ?? []).forEach((v, i) => view.setBigInt64(8 * i, BigInt(String(v)), true));
      break;
    case "uint64Data":
      (t.uint64Data ?? []).forEach((v, i) => {
        if (type.bits === 32) view.setUint32(4 * i, Number(String(v)), true);
        else view.setBigUint64(8 * i, BigInt.asUintN(64, BigInt(String(v))), true);
      });
      break;
    case "int32Data":
      (t.int32Data ?? []).forEach((v, i) => {
        const width = type.bits === 4 ? 1 : type.bits / 8;
        if (width === 1) view.setUint8(i, v & 0xff);
        else if (width === 2) view.setUint16(2 * i, v & 0xffff, true);
        else view.setInt32(4 * i, v, true);
      });
      break;
  }
  return out;
}

/** A tensor of `dataType` with deterministic values, as raw_data or its typed field. */
function sample(dataType: number, dims: number[], storage: "raw" | "typed", name = `t${dataType}`): ProtoTensor {
  const type = TYPES[dataType]!;
  const count = dims.reduce((a, d) => a * d, 1);
  const t: ProtoTensor = { name, dataType, dims };
  const entries = type.bits === 4 ? Math.ceil(count / 2) : type.dtype.startsWith("complex") ? 2 * count : count;
  const byte = (i: number) => (i * 37 + dataType * 11 + 5) & 0xff;
  if (storage === "raw") {
    const bytes = type.bits === 4 ? entries : (count * type.bits) / 8;
    t.rawData = Uint8Array.from({ length: bytes }, (_, i) => (dataType === 9 ? i & 1 : byte(i)));
    return t;
  }
  switch (type.field) {
    case "floatData":
      t.floatData = Array.from({ length: entries }, (_, i) => Math.fround((i - 3) * 1.25));
      break;
    case "doubleData":
      t.doubleData = Array.from({ length: entries }, (_, i) => (i - 3) / 7);
      break;
    case "int64Data":
      t.int64Data = Array.from({ length: entries }, (_, i) => (i % 2 ? -1 : 1) * (i * 1000003 + 7));
      break;
    case "uint64Data":
      t.uint64Data = Array.from({ length: entries }, (_, i) => (type.bits === 32 ? 0xfffffff0 - i : i * 1000003 + 7));
      break;
    case "int32Data": {
      const max = type.bits === 4 ? 0xff : 2 ** Math.min(type.bits, 16);
      t.int32Data = Array.from({ length: entries }, (_, i) => {
        if (dataType === 9) return i & 1;
        if (dataType === 3 || dataType === 5) return ((byte(i) * 131) % max) - max / 2; // signed
        if (dataType === 6) return (i - 2) * 123457;
        return (byte(i) * 131) % max;
      });
      break;
    }
  }
  return t;
}

const DATA_TYPE_CODES = Object.keys(TYPES).map(Number);

describe("onnx-tensor: files onnx-proto encodes, every data type, raw_data and typed fields", () => {
  const cases = DATA_TYPE_CODES.flatMap((dataType) =>
    (["raw", "typed"] as const).flatMap((storage) =>
      [[2, 3], [5], [], [0, 4]].map((dims) => ({ dataType, storage, dims })),
    ),
  );

  it.each(cases.map((c) => [`${c.dataType} ${c.storage} [${c.dims}]`, c] as const))(
    "%s: read, readFrom, readAny and loadTensor agree with onnx-proto",
    async (_label, c) => {
      const bytes = encode(sample(c.dataType, c.dims, c.storage));
      const decoded = proto.TensorProto.decode(bytes);
      const want = oracleBytes(decoded);
      expect(onnxTensor.detect(bytes.subarray(0, DETECT_BYTES))).toBe(true);
      expect(detectFormat(bytes)).toBe("onnx-tensor");
      const file = onnxTensor.read(bytes);
      const [t] = onnxTensor.tensors(file);
      expect(t!.name).toBe(`t${c.dataType}`);
      expect(t!.dtype).toBe(TYPES[c.dataType]!.dtype);
      const logical = TYPES[c.dataType]!.bits === 4 ? [want.length] : c.dims;
      expect(t!.shape).toEqual(logical);
      expect(hex(bytesOf(t!))).toBe(hex(want));
      // readAny, the lazy open and loadTensor: the same bytes
      expect(hex(bytesOf(readAny(bytes).tensors()[0]!))).toBe(hex(want));
      const source = fromBytes(bytes);
      const lazy = await onnxTensor.readFrom(source);
      expect(onnxTensor.tensorInfos(lazy)).toEqual(onnxTensor.tensorInfos(file));
      const loaded = await onnxTensor.loadTensor(source, onnxTensor.tensorInfos(lazy)[0]!);
      expect(hex(bytesOf(loaded))).toBe(hex(want));
      const any = await readFromAny(fromBytes(bytes));
      expect(any.format).toBe("onnx-tensor");
      expect(hex(bytesOf(await any.loadTensor(`t${c.dataType}`)))).toBe(hex(want));
      // write(read(x)) is x; inspect names the tensor
      expect(hex(onnxTensor.write(file))).toBe(hex(bytes));
      expect(onnxTensor.inspect(file).tensors).toEqual([
        { name: `t${c.dataType}`, dtype: t!.dtype, shape: logical, byteLength: want.length },
      ]);
      // the float32 mode widens the real-valued ones like every format
      expect(onnxTensor.tensors(file, { dtype: "float32" })[0]!.shape).toEqual(logical);
    },
  );

  it("keeps the laws on every input form (Buffer, Uint8Array, odd offsets), and readAny's", async () => {
    for (const dataType of DATA_TYPE_CODES) {
      for (const storage of ["raw", "typed"] as const) {
        const bytes = encode(sample(dataType, [3, 2], storage));
        expect(
          await checkInputForms((input) => checkFormatLaws(lib, "onnx-tensor", input, UNTIMED), bytes, "onnx-tensor"),
        ).toMatch(/^accepted/);
        expect(await checkAnyLaws(lib, bytes, UNTIMED)).toMatch(/^onnx-tensor accepted/);
      }
    }
  });

  it("mutated files give a value or a FormatError and keep the laws", async () => {
    const arb = fc.record({
      dataType: fc.constantFrom(...DATA_TYPE_CODES),
      storage: fc.constantFrom("raw" as const, "typed" as const),
      dims: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
      at: fc.nat(),
      kind: fc.constantFrom("truncate", "flip", "byte"),
      value: fc.integer({ min: 0, max: 255 }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ dataType, storage, dims, at, kind, value }) => {
        const bytes = encode(sample(dataType, dims, storage)).slice();
        const i = at % bytes.length;
        const mutated = kind === "truncate" ? bytes.slice(0, i) : bytes;
        if (kind === "flip") mutated[i]! ^= 1 << (value & 7);
        if (kind === "byte") mutated[i] = value;
        expect(await checkFormatLaws(lib, "onnx-tensor", mutated, UNTIMED)).toMatch(/^(accepted|rejected)/);
        await checkAnyLaws(lib, mutated, UNTIMED);
      }),
      { seed: 3131, numRuns: 400 },
    );
  });

  it("a tensor without a name is named `tensor`; a scalar; packed and unpacked dims alike", () => {
    const scalar = encode({ dataType: 1, rawData: Uint8Array.of(0, 0, 0x80, 0x3f) });
    const [t] = onnxTensor.tensors(onnxTensor.read(scalar));
    expect(t).toMatchObject({ name: "tensor", dtype: "float32", shape: [] });
    expect(Array.from(t!.data as Float32Array)).toEqual([1]);
    expect(readAny(scalar).format).toBe("onnx-tensor");
    // unpacked dims (field 1 as single varints, as old writers did)
    const unpacked = Uint8Array.of(0x08, 0x02, 0x08, 0x01, 0x10, 0x02, 0x4a, 0x02, 7, 9);
    expect(detectFormat(unpacked)).toBe("onnx-tensor");
    const [u] = readAny(unpacked).tensors();
    expect(u).toMatchObject({ name: "tensor", dtype: "uint8", shape: [2, 1] });
    expect(Array.from(u!.data as Uint8Array)).toEqual([7, 9]);
  });
});

describe("onnx-tensor: lazy opens and files by path", () => {
  it("readFrom reads the TensorProto's fields, not its raw_data; loadTensor then reads it", async () => {
    const values = Float32Array.from({ length: 1 << 20 }, (_, i) => i);
    const bytes = encode({ name: "big", dataType: 1, dims: [1024, 1024], rawData: new Uint8Array(values.buffer) });
    const source = countingSource(bytes);
    const file = await onnxTensor.readFrom(source);
    expect(source.bytesRead).toBeLessThan(70_000);
    const t = await onnxTensor.loadTensor(source, onnxTensor.tensorInfos(file)[0]!);
    expect(hex(bytesOf(t))).toBe(hex(new Uint8Array(values.buffer)));
    // sources that hand out odd pieces give the same
    const choppy = await readFromAny(choppySource(bytes, 5));
    expect(hex(bytesOf(await choppy.loadTensor("big")))).toBe(hex(new Uint8Array(values.buffer)));
  });

  it("loadFile and openFile read a .pb by its name when its content is not recognised", async () => {
    const folder = mkdtempSync(join(tmpdir(), "tensorfile-pb-"));
    try {
      const odd = Uint8Array.of(0x4a, 0x04, 0, 0, 0x80, 0x3f, 0x10, 0x01);
      writeFileSync(join(folder, "odd.pb"), odd);
      writeFileSync(join(folder, "odd.bin"), odd);
      const loaded = await loadFile(join(folder, "odd.pb"));
      expect(loaded.format).toBe("onnx-tensor");
      expect(Array.from(loaded.tensors[0]!.data as Float32Array)).toEqual([1]);
      const opened = await openFile(join(folder, "odd.pb"));
      expect(opened.format).toBe("onnx-tensor");
      await opened.close();
      await expect(loadFile(join(folder, "odd.bin"))).rejects.toThrow(/unknown format/);
      // a truncated .pb by name: the parser's error, not "unknown format"
      writeFileSync(join(folder, "cut.pb"), Uint8Array.of(0x4a, 0x04, 0, 0));
      await expect(loadFile(join(folder, "cut.pb"))).rejects.toThrow(/^onnx-tensor: .*\[tensor\.raw_data/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("onnx-tensor: what it refuses, and how", () => {
  it("a truncated file is a FormatError with offset and field, for read and readFrom alike", async () => {
    const bytes = encode(sample(1, [4, 4], "raw"));
    for (let cut = 1; cut < bytes.length; cut += 3) {
      const part = bytes.subarray(0, cut);
      let error: unknown;
      try {
        onnxTensor.read(part);
      } catch (e) {
        error = e;
      }
      expect(isFormatError(error), `cut ${cut}: ${String(error)}`).toBe(true);
      expect((error as FormatError).format).toBe("onnx-tensor");
      expect((error as FormatError).field).toMatch(/^tensor/);
      await expect(onnxTensor.readFrom(fromBytes(part))).rejects.toThrow(FormatError);
    }
  });

  it("external data is refused with a SourceError naming the location (tensors and loadTensor)", async () => {
    const bytes = encode({
      name: "w",
      dataType: 1,
      dims: [2],
      dataLocation: 1,
      externalData: [
        { key: "location", value: "w.bin" },
        { key: "length", value: "8" },
      ],
    });
    const file = onnxTensor.read(bytes);
    expect(onnxTensor.inspect(file).externalData).toEqual([expect.objectContaining({ name: "w", location: "w.bin" })]);
    expect(onnxTensor.verify(file).join("\n")).toContain("w.bin");
    expect(() => onnxTensor.tensors(file)).toThrow(SourceError);
    expect(() => onnxTensor.tensors(file)).toThrow(/w\.bin/);
    const source = fromBytes(bytes, "/tmp/x/w.pb");
    const lazy = await onnxTensor.readFrom(source);
    await expect(onnxTensor.loadTensor(source, onnxTensor.tensorInfos(lazy)[0]!)).rejects.toThrow(SourceError);
  });

  it("a STRING tensor is listed by inspect and verify, never decoded", () => {
    const bytes = encode({
      name: "words",
      dataType: 8,
      dims: [3],
      stringData: ["a", "bc", ""].map((s) => new TextEncoder().encode(s)),
    });
    expect(detectFormat(bytes)).toBe("onnx-tensor");
    const file = onnxTensor.read(bytes);
    expect(onnxTensor.tensors(file)).toEqual([]);
    expect(onnxTensor.tensorInfos(file)).toEqual([]);
    const inspected = onnxTensor.inspect(file);
    expect(inspected.strings).toEqual([{ name: "words", dims: [3], count: 3 }]);
    expect(inspected.meta).toMatchObject({ name: "words", dataType: "STRING", dims: [3] });
    expect(onnxTensor.verify(file)).toEqual(['"words" is a STRING tensor of 3 strings: listed, not decoded']);
    // a count that does not match the dims is corrupt
    expect(() =>
      onnxTensor.read(encode({ name: "w", dataType: 8, dims: [2], stringData: [Uint8Array.of(97)] })),
    ).toThrow(FormatError);
  });

  it("a SequenceProto or OptionalProto is refused saying what it is, never read as a tensor", () => {
    const tensor = proto.TensorProto.encode(proto.TensorProto.create(sample(1, [2], "raw"))).finish();
    // SequenceProto { name "seq" (1), elem_type TENSOR (2), tensor_values (3) × 2 }, written field by field
    const field = (n: number, body: Uint8Array) => [(n << 3) | 2, body.length, ...body];
    const seq = Uint8Array.from([
      ...field(1, new TextEncoder().encode("seq")),
      0x10,
      0x01,
      ...field(3, tensor),
      ...field(3, tensor),
    ]);
    const optional = Uint8Array.from([...field(1, new TextEncoder().encode("opt")), 0x10, 0x01, ...field(3, tensor)]);
    for (const [bytes, kind] of [
      [seq, 'SequenceProto "seq" (elem_type TENSOR, 2 values)'],
      [optional, 'SequenceProto or OptionalProto "opt"'],
    ] as const) {
      let error: unknown;
      try {
        onnxTensor.read(bytes);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnsupportedError);
      expect((error as Error).message).toContain(`this is an ONNX ${kind}`);
    }
  });

  it("an .onnx model read as a model: a TensorProto's error names [model.producer_name], not [model.model.producer_name]", () => {
    // as ONNX's test data writes them: unpacked dims (field 1 varints, which read as ir_version), then data_type
    const bytes = Uint8Array.of(0x08, 0x02, 0x10, 0x01, 0x4a, 0x08, 0, 0, 0, 0, 0, 0, 0, 0);
    expect(detectFormat(bytes)).toBe("onnx-tensor");
    let error: unknown;
    try {
      onnx.read(bytes);
    } catch (e) {
      error = e;
    }
    expect(isFormatError(error)).toBe(true);
    expect((error as FormatError).field).toBe("model.producer_name");
    expect((error as FormatError).message).toContain("[model.producer_name]");
    expect((error as FormatError).message).toContain("field 2 (producer_name) has varint wire type");
  });
});

describe("onnx-tensor: detection never takes another format's file", () => {
  it("no other format's example file, and no .onnx model, is detected as a TensorProto", () => {
    for (const example of exampleFiles()) {
      expect(onnxTensor.detect(example.bytes.subarray(0, DETECT_BYTES)), example.name).toBe(false);
      expect(detectFormat(example.bytes), example.name).toBe(example.format);
    }
    const model = onnx.write(
      onnx.create({
        graph: {
          name: "g",
          nodes: [{ opType: "Identity", inputs: ["x"], outputs: ["y"] }],
          inputs: [{ name: "x", dtype: "float32", shape: [2] }],
          outputs: [{ name: "y", dtype: "float32", shape: [2] }],
        },
      } as never),
    );
    expect(onnxTensor.detect(model)).toBe(false);
    expect(detectFormat(model)).toBe("onnx");
  });

  it("random heads, and heads starting like a TensorProto, are almost never detected; detect never throws", () => {
    let detected = 0;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), (head) => {
        if (onnxTensor.detect(head)) detected++;
      }),
      { numRuns: 5000, seed: 77 },
    );
    expect(detected).toBe(0);
    // a head opening with dims and a data_type still has to read as a TensorProto to its end
    let prefixed = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.uint8Array({ minLength: 60, maxLength: 60 }),
        (dataType, rest) => {
          if (onnxTensor.detect(Uint8Array.of(0x08, 0x03, 0x10, dataType, ...rest))) prefixed++;
        },
      ),
      { numRuns: 5000, seed: 78 },
    );
    // (a raw_data tag with a length past the head passes: about 1 in 70 of these, never a random head)
    expect(prefixed).toBeLessThan(100);
    for (let seed = 0; seed < 300; seed++) expect(() => onnxTensor.detect(randomBytes(seed, seed % 90))).not.toThrow();
  });

  it("the first 64 bytes decide, as for the whole file; unknown data types, field order and unknown fields are not detected", () => {
    const big = encode({ name: "a_long_name_".repeat(8), dataType: 1, dims: [64], rawData: new Uint8Array(256) });
    expect(onnxTensor.detect(big)).toBe(onnxTensor.detect(big.subarray(0, 64)));
    expect(onnxTensor.detect(big)).toBe(true);
    expect(onnxTensor.detect(Uint8Array.of(0x10, 99, 0x4a, 0x00))).toBe(false); // data_type 99
    expect(onnxTensor.detect(Uint8Array.of(0x4a, 0x04, 0, 0, 0, 0, 0x10, 0x01))).toBe(false); // raw_data before data_type
    expect(onnxTensor.detect(Uint8Array.of(0x10, 0x01, 0xf8, 0x07, 0x00))).toBe(false); // field 127
    expect(onnxTensor.detect(Uint8Array.of(0x08, 0x02))).toBe(false); // no data_type
  });

  it("a name ending in .pb picks onnx-tensor when the content is not recognised, and only then", async () => {
    expect(formatOfName("x/input_0.pb")).toBe("onnx-tensor");
    expect(formatOfName("X.PB")).toBe("onnx-tensor");
    expect(formatOfName("model.onnx")).toBe("onnx"); // .onnx chooses the ONNX parser the same way
    expect(formatOfName("model.bin")).toBeUndefined();
    expect(formatOfName(undefined)).toBeUndefined();
    // raw_data before data_type: not detected by content, read by name
    const odd = Uint8Array.of(0x4a, 0x04, 0, 0, 0x80, 0x3f, 0x10, 0x01);
    expect(detectFormat(odd)).toBeUndefined();
    const named = await readFromAny(fromBytes(odd, "odd.pb"));
    expect(named.format).toBe("onnx-tensor");
    expect(Array.from((await named.loadTensor("tensor")).data as Float32Array)).toEqual([1]);
    await expect(readFromAny(fromBytes(odd, "odd.bin"))).rejects.toThrow(/unknown format/);
    // another format's file named .pb stays that format
    const npy = lib.writeNpy({ name: "a", dtype: "float32", shape: [1], data: Float32Array.of(2) });
    expect((await readFromAny(fromBytes(npy, "a.pb"))).format).toBe("npy");
  });

  it("is the last format detection tries", () => {
    expect(FORMATS[FORMATS.length - 1]!.id).toBe("onnx-tensor");
  });
});

// ------------------------------------------------------------------------- ONNX's own test data (Debian)

const TESTDATA = "/usr/share/libonnx-testdata/data";

function pbFiles(): string[] {
  if (!existsSync(TESTDATA)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".pb")) out.push(path);
    }
  };
  walk(TESTDATA);
  return out.sort();
}

function modelFiles(): string[] {
  if (!existsSync(TESTDATA)) return [];
  return readdirSync(TESTDATA).flatMap((group) => {
    const dir = join(TESTDATA, group);
    return readdirSync(dir)
      .map((test) => join(dir, test, "model.onnx"))
      .filter((p) => existsSync(p));
  });
}

describe.skipIf(!existsSync(TESTDATA))("onnx-tensor: ONNX's test data (libonnx-testdata)", () => {
  it("every TensorProto file decodes bit-exact as onnx-proto decodes it; the rest are SequenceProto/OptionalProto, refused saying so", async () => {
    const files = pbFiles();
    expect(files.length).toBeGreaterThan(3000);
    let tensors = 0;
    let strings = 0;
    const containers: string[] = [];
    for (const path of files) {
      const bytes = new Uint8Array(readFileSync(path));
      let file: onnxTensor.OnnxTensorFile;
      try {
        file = onnxTensor.read(bytes);
      } catch (error) {
        expect(error, path).toBeInstanceOf(UnsupportedError);
        expect((error as Error).message, path).toMatch(
          /this is an ONNX (SequenceProto|SequenceProto or OptionalProto) /,
        );
        containers.push(path);
        // by name (the CLI, loadFile) the same refusal, never "unknown format"
        await expect(readFromAny(fromBytes(bytes, path)), path).rejects.toThrow(/this is an ONNX Sequence/);
        continue;
      }
      // detected by content, from the head alone
      expect(detectFormat(bytes.subarray(0, DETECT_BYTES)), path).toBe("onnx-tensor");
      const decoded = proto.TensorProto.decode(bytes);
      if (decoded.dataType === 8) {
        strings++;
        expect(onnxTensor.tensors(file)).toEqual([]);
        expect(onnxTensor.inspect(file).strings).toEqual([
          { name: file.name, dims: (decoded.dims ?? []).map(Number), count: decoded.stringData?.length ?? 0 },
        ]);
        continue;
      }
      const [t] = onnxTensor.tensors(file);
      expect(t!.name, path).toBe(decoded.name || "tensor");
      expect(t!.dtype, path).toBe(TYPES[decoded.dataType ?? 0]!.dtype);
      if (TYPES[decoded.dataType ?? 0]!.bits !== 4) expect(t!.shape, path).toEqual((decoded.dims ?? []).map(Number));
      expect(hex(bytesOf(t!)) === hex(oracleBytes(decoded)), path).toBe(true);
      tensors++;
    }
    // the sequence/optional inputs and outputs of ONNX's tests, and nothing else
    expect(containers.length).toBeGreaterThan(10);
    expect(containers.length).toBeLessThan(100);
    for (const path of containers) expect(path).toMatch(/seq|opt|loop|if_/);
    expect(tensors + strings + containers.length).toBe(files.length);
    expect(strings).toBeGreaterThan(0);
  });

  it("no model.onnx of the test data is taken for a TensorProto", () => {
    const models = modelFiles();
    expect(models.length).toBeGreaterThan(1000);
    for (const path of models) {
      const head = new Uint8Array(readFileSync(path)).subarray(0, DETECT_BYTES);
      expect(onnxTensor.detect(head), path).toBe(false);
      expect(detectFormat(head), path).toBe("onnx");
    }
  });
});
