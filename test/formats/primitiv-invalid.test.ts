/**
 * primitiv on damaged and unusual input: hand-made files (bytes written from the MessagePack spec with
 * test/helpers/primitiv-builders.ts `mp`, not with the module) give the right code, offset and field; what
 * primitiv accepts but never writes is read and reported by verify(); seeded byte-flip fuzzing lets only
 * FormatErrors escape. (The fixture folder has no invalid/ files for primitiv: these cases replace them.)
 */
import { encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as primitiv from "../../bindings/formats/primitiv.js";
import { fromBytes } from "../../bindings/io/source.js";
import { bytes, mp, randomFile } from "../helpers/primitiv-builders.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { rng } from "../helpers/rng.js";

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

interface Failure {
  code: string;
  offset?: number;
  field?: string;
  message: string;
}

function failure(fn: () => unknown): Failure | "ok" {
  try {
    fn();
    return "ok";
  } catch (error) {
    if (!isFormatError(error)) throw error;
    return { code: error.code, offset: error.offset, field: error.field, message: error.message };
  }
}

function readFailure(input: Uint8Array): Failure {
  const result = failure(() => primitiv.read(input));
  if (result === "ok") throw new Error(`read() accepted ${hex(input)}`);
  return result;
}

const PARAM = 0x200;
const HEADER = 15;

describe("primitiv: header", () => {
  it("an empty file is TRUNCATED at offset 0", () => {
    expect(readFailure(new Uint8Array(0))).toMatchObject({ code: "TRUNCATED", offset: 0, field: "header.major" });
  });

  it("a compact integer where the header's uint32 belongs is BAD_MAGIC, naming both type bytes", () => {
    const f = readFailure(bytes([0xcc, 0x00], mp.u32(1), mp.u32(PARAM)));
    expect(f).toMatchObject({ code: "BAD_MAGIC", offset: 0, field: "header.major" });
    expect(f.message).toContain("expected 0xce, got 0xcc");
    expect(readFailure(bytes(mp.u32(0), [0x01], mp.u32(PARAM)))).toMatchObject({
      code: "BAD_MAGIC",
      offset: 5,
      field: "header.minor",
    });
    expect(readFailure(bytes(mp.u32(0), mp.u32(1), [0xcd, 0x02, 0x00]))).toMatchObject({
      code: "BAD_MAGIC",
      offset: 10,
      field: "header.dataType",
    });
  });

  it("the header a generic MessagePack encoder writes (fixints) is refused, as primitiv refuses it", () => {
    const generic = Uint8Array.from([...encode(0), ...encode(1), ...encode(PARAM)]);
    expect(hex(generic)).toBe("0001cd0200");
    expect(readFailure(generic)).toMatchObject({ code: "BAD_MAGIC", offset: 0 });
  });

  it("a version other than 0.1 is UNSUPPORTED_VERSION", () => {
    const f = readFailure(bytes(mp.header(PARAM, 1, 1), mp.tensor([], [1]), mp.u32(0)));
    expect(f).toMatchObject({ code: "UNSUPPORTED_VERSION", offset: 0, field: "header.version" });
    expect(f.message).toContain("1.1");
    expect(readFailure(bytes(mp.header(PARAM, 0, 2)))).toMatchObject({ code: "UNSUPPORTED_VERSION" });
  });

  it("an unknown data type is UNSUPPORTED at offset 10", () => {
    const f = readFailure(bytes(mp.header(0x500)));
    expect(f).toMatchObject({ code: "UNSUPPORTED", offset: 10, field: "header.dataType" });
    expect(f.message).toContain("0x500");
  });
});

describe("primitiv: body type bytes and primitiv's own checks", () => {
  const param = (...body: number[][]) => bytes(mp.header(PARAM), ...body);

  it("a valid hand-made Parameter reads (the baseline for the cases below)", () => {
    const file = primitiv.read(param(mp.tensor([2], [1, 2]), mp.u32(0)));
    expect(file.dataType).toBe("parameter");
  });

  it("a fixint batch: CORRUPT with expected and observed type at the byte's offset", () => {
    const f = readFailure(param(mp.array(1), mp.u32(2), [0x01], mp.bin(mp.floats([1, 2])), mp.u32(0)));
    expect(f).toMatchObject({ code: "CORRUPT", offset: HEADER + 1 + 5, field: "value.shape.batch" });
    expect(f.message).toContain("expected uint32 (0xce), found positive fixint (0x01)");
  });

  it("a uint16 dim, a map for dims, a str for data: CORRUPT naming the type found", () => {
    const dim16 = readFailure(param(mp.array(1), [0xcd, 0x00, 0x02], mp.u32(1), mp.bin(mp.floats([1, 2])), mp.u32(0)));
    expect(dim16).toMatchObject({ code: "CORRUPT", offset: HEADER + 1, field: "value.shape.dims[0]" });
    expect(dim16.message).toContain("uint16 (0xcd)");
    const mapDims = readFailure(param(mp.map(0), mp.u32(1), mp.bin(mp.floats([1])), mp.u32(0)));
    expect(mapDims).toMatchObject({ code: "CORRUPT", offset: HEADER, field: "value.shape.dims" });
    expect(mapDims.message).toContain("fixmap (0x80)");
    const strData = readFailure(param(mp.shape([]), mp.rawStr([0, 0, 0x80, 0x3f]), mp.u32(0)));
    expect(strData).toMatchObject({ code: "CORRUPT", offset: HEADER + 6, field: "value.data" });
    expect(strData.message).toContain("expected bin");
  });

  it("more than 8 dims, a zero dim, a zero batch: CORRUPT (primitiv: invalid shape / MAX_DEPTH)", () => {
    const nine = readFailure(param(mp.shape([1, 1, 1, 1, 1, 1, 1, 1, 2]), mp.bin(mp.floats([1, 2])), mp.u32(0)));
    expect(nine).toMatchObject({ code: "CORRUPT", offset: HEADER, field: "value.shape.dims" });
    expect(nine.message).toContain("at most 8");
    // eight dims is fine
    expect(
      primitiv.read(param(mp.shape([1, 1, 1, 1, 1, 1, 1, 2]), mp.bin(mp.floats([1, 2])), mp.u32(0))).dataType,
    ).toBe("parameter");
    expect(readFailure(param(mp.shape([2, 0]), mp.bin([]), mp.u32(0)))).toMatchObject({
      code: "CORRUPT",
      offset: HEADER + 6,
      field: "value.shape.dims[1]",
    });
    expect(readFailure(param(mp.shape([2], 0), mp.bin([]), mp.u32(0)))).toMatchObject({
      code: "CORRUPT",
      offset: HEADER + 6,
      field: "value.shape.batch",
    });
  });

  it("data whose length is not 4 x volume x batch: CORRUPT at the bin", () => {
    const f = readFailure(param(mp.shape([3]), mp.bin(mp.floats([1, 2])), mp.u32(0)));
    expect(f).toMatchObject({ code: "CORRUPT", offset: HEADER + 11, field: "value.data" });
    expect(f.message).toContain("8 bytes");
    expect(f.message).toContain("needs 12");
    // a huge declared length in a tiny file is still reported as the mismatch, not as an allocation
    const huge = readFailure(param(mp.shape([3]), [0xc6, 0xff, 0xff, 0xff, 0xf0], mp.u32(0)));
    expect(huge).toMatchObject({ code: "CORRUPT", field: "value.data" });
  });

  it("a parameter value with batch > 1: CORRUPT (primitiv: batch size of the parameter should be 1)", () => {
    const f = readFailure(param(mp.tensor([2], [1, 2, 3, 4], 2), mp.u32(0)));
    expect(f).toMatchObject({ code: "CORRUPT", offset: HEADER + 6, field: "value.shape.batch" });
    // a Tensor file may hold a batch
    expect(primitiv.read(bytes(mp.header(0x100), mp.tensor([2], [1, 2, 3, 4], 2))).dataType).toBe("tensor");
  });

  it("stats: a count that cannot fit is TRUNCATED before any allocation; a bad key type and a duplicate key CORRUPT", () => {
    const value = mp.tensor([], [1]);
    const countAt = HEADER + value.length;
    expect(readFailure(param(value, mp.u32(0xffffffff)))).toMatchObject({ code: "TRUNCATED", field: "stats.count" });
    expect(readFailure(param(value, [0x01]))).toMatchObject({ code: "CORRUPT", offset: countAt, field: "stats.count" });
    expect(readFailure(param(value, mp.u32(1), mp.bin([0x61]), mp.tensor([], [1])))).toMatchObject({
      code: "CORRUPT",
      offset: countAt + 5,
      field: "stats[0].key",
    });
    const stat = [...mp.str("m"), ...mp.tensor([], [2])];
    const dup = readFailure(param(value, mp.u32(2), stat, stat));
    expect(dup).toMatchObject({ code: "CORRUPT", offset: countAt + 5 + stat.length, field: "stats[1].key" });
    expect(dup.message).toContain('duplicate stats key "m"');
  });

  it("optimizer: float64 and compact ints refused; duplicate keys CORRUPT", () => {
    const opt = (...body: number[][]) => bytes(mp.header(0x400), ...body);
    const epoch = [...mp.map(1), ...mp.str("Optimizer.epoch"), ...mp.u32(3)];
    expect(primitiv.read(opt(epoch, mp.map(1), mp.str("SGD.eta"), mp.f32(0.5))).dataType).toBe("optimizer");
    const f64 = readFailure(opt(epoch, mp.map(1), mp.str("SGD.eta"), [0xcb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0]));
    expect(f64).toMatchObject({
      code: "CORRUPT",
      offset: HEADER + epoch.length + 1 + 8,
      field: "floatConfigs[0].value",
    });
    expect(f64.message).toContain("expected float32 (0xca), found float64 (0xcb)");
    expect(readFailure(opt(mp.map(1), mp.str("Optimizer.epoch"), [0x03], mp.map(0)))).toMatchObject({
      code: "CORRUPT",
      field: "uintConfigs[0].value",
    });
    const dup = readFailure(opt(epoch, mp.map(2), mp.str("SGD.eta"), mp.f32(0.5), mp.str("SGD.eta"), mp.f32(0.25)));
    expect(dup).toMatchObject({
      code: "CORRUPT",
      offset: HEADER + epoch.length + 1 + 8 + 5,
      field: "floatConfigs[1].key",
    });
    expect(readFailure(opt(epoch, mp.array(0)))).toMatchObject({
      code: "CORRUPT",
      offset: HEADER + epoch.length,
      field: "floatConfigs",
    });
  });

  it("a generic encoder's optimizer (compact ints, float64) is refused, ours is read", () => {
    const generic = Uint8Array.from([
      ...mp.header(0x400),
      ...encode({ "Optimizer.epoch": 3 }),
      ...encode({ "SGD.eta": 0.5 }),
    ]);
    expect(readFailure(generic)).toMatchObject({ code: "CORRUPT", field: "uintConfigs[0].value" });
  });

  it("model: duplicate key paths and non-str path elements CORRUPT", () => {
    const entry = (path: string[]) => [
      ...mp.array(path.length),
      ...path.flatMap((p) => mp.str(p)),
      ...mp.tensor([], [1]),
      ...mp.u32(0),
    ];
    const model = (...entries: number[][]) => bytes(mp.header(0x300), mp.u32(entries.length), ...entries);
    expect(primitiv.read(model(entry(["a", "b"]), entry(["a"]))).dataType).toBe("model");
    const dup = readFailure(model(entry(["a", "b"]), entry(["a", "b"])));
    expect(dup).toMatchObject({
      code: "CORRUPT",
      offset: HEADER + 5 + entry(["a", "b"]).length,
      field: "parameters[1].path",
    });
    expect(
      readFailure(bytes(mp.header(0x300), mp.u32(1), mp.array(1), mp.u32(7), mp.tensor([], [1]), mp.u32(0))),
    ).toMatchObject({ code: "CORRUPT", offset: HEADER + 6, field: "parameters[0].path[0]" });
  });

  it.runIf(haveFixtures())("trailing bytes after the last object: CORRUPT at the first extra byte", () => {
    for (const name of ["param_2x2.param", "model_xor_adam.model", "optimizer_adam.optimizer", "shape_scalar.shape"]) {
      const valid = readFixture("primitiv", name);
      const extra = new Uint8Array(valid.length + 3);
      extra.set(valid);
      const f = readFailure(extra);
      expect(f, name).toMatchObject({ code: "CORRUPT", offset: valid.length, field: "end" });
      expect(f.message).toContain("3 bytes after the end");
    }
  });
});

describe("primitiv: what primitiv reads but never writes", () => {
  it("wide length forms are read, reported by verify(), and written back in the smallest form", () => {
    const wide = bytes(
      mp.header(PARAM),
      mp.array(1, "16"),
      mp.u32(2),
      mp.u32(1),
      mp.bin(mp.floats([1, 2]), "16"),
      mp.u32(1),
      mp.str("m", "16"),
      mp.tensor([], [3]),
    );
    const narrow = bytes(mp.header(PARAM), mp.tensor([2], [1, 2]), mp.u32(1), mp.str("m"), mp.tensor([], [3]));
    const file = primitiv.read(wide);
    expect(file).toEqual(primitiv.read(narrow));
    const notes = primitiv.verify(file);
    expect(notes).toHaveLength(3);
    expect(notes.join("\n")).toContain("value.shape.dims at offset 15");
    expect(notes.join("\n")).toContain("array16");
    expect(notes.join("\n")).toContain("bin16");
    expect(notes.join("\n")).toContain("str16");
    expect(hex(primitiv.write(file))).toBe(hex(narrow));
    expect(primitiv.verify(primitiv.read(narrow))).toEqual([]);
    const map16 = bytes(mp.header(0x400), mp.map(0, "16"), mp.map(0, "32"));
    expect(primitiv.verify(primitiv.read(map16))).toHaveLength(2);
  });

  it("an unsorted Model is kept in file order (byte-identical) and verify() says primitiv would sort it", () => {
    const entry = (key: string) => [...mp.array(1), ...mp.str(key), ...mp.tensor([], [1]), ...mp.u32(0)];
    const file = bytes(mp.header(0x300), mp.u32(2), entry("b"), entry("a"));
    const model = primitiv.read(file);
    expect(hex(primitiv.write(model))).toBe(hex(file));
    expect(primitiv.verify(model).join("\n")).toContain("sorted by key path");
  });

  it("trailing 1s in dims are kept and reported", () => {
    const file = bytes(mp.header(PARAM), mp.tensor([2, 1], [1, 2]), mp.u32(0));
    const read = primitiv.read(file);
    expect(hex(primitiv.write(read))).toBe(hex(file));
    expect(primitiv.tensors(read)[0]!.shape).toEqual([2, 1]);
    expect(primitiv.verify(read).join("\n")).toContain("end in 1");
  });

  it("keys that are not UTF-8 round-trip byte for byte and are reported", () => {
    const raw = [0xff, 0x61, 0xc3, 0x28, 0xe9, 0x87];
    const file = bytes(
      mp.header(0x300),
      mp.u32(1),
      mp.array(1),
      mp.rawStr(raw),
      mp.tensor([], [1]),
      mp.u32(1),
      mp.rawStr([0x80]),
      mp.tensor([], [2]),
    );
    const read = primitiv.read(file);
    expect(read.dataType === "model" && read.model.parameters[0]!.path[0]).toBe("\udcffa\udcc3(\udce9\udc87");
    expect(hex(primitiv.write(read))).toBe(hex(file));
    expect(primitiv.verify(read).filter((w) => w.includes("not valid UTF-8"))).toHaveLength(2);
    expect(primitiv.decodeKey(Uint8Array.from(raw))).toBe("\udcffa\udcc3(\udce9\udc87");
  });

  it("a NaN float config keeps its exact bits", () => {
    const nan = [0xca, 0x7f, 0x80, 0x00, 0x01];
    const file = bytes(mp.header(0x400), mp.map(0), mp.map(2), mp.str("x"), nan, mp.str("y"), [0xca, 0xff, 0xc0, 0, 0]);
    const read = primitiv.read(file);
    expect(read.dataType === "optimizer" && Number.isNaN(read.optimizer.floatConfigs.get("x"))).toBe(true);
    expect(hex(primitiv.write(read))).toBe(hex(file));
    expect(primitiv.inspect(read).optimizer).toEqual({
      uintConfigs: [],
      floatConfigs: [
        { key: "x", value: "NaN" },
        { key: "y", value: "NaN" },
      ],
    });
  });

  it("stats with a batch (primitiv does not check them) read and decode with batch first", () => {
    const file = bytes(mp.header(PARAM), mp.tensor([], [1]), mp.u32(1), mp.str("s"), mp.tensor([2], [1, 2, 3, 4], 2));
    const stat = primitiv.tensors(primitiv.read(file))[1]!;
    expect(stat).toMatchObject({ name: "stats/s", shape: [2, 2] });
    expect(Array.from(stat.data as Float32Array)).toEqual([1, 2, 3, 4]);
  });

  it("unknown optimizer keys are reported (primitiv ignores them on load)", () => {
    const file = bytes(
      mp.header(0x400),
      mp.map(1),
      mp.str("Mine.steps"),
      mp.u32(1),
      mp.map(1),
      mp.str("SGD.eta"),
      mp.f32(0.1),
    );
    expect(primitiv.verify(primitiv.read(file))).toEqual([expect.stringContaining('"Mine.steps"')]);
  });
});

describe("primitiv: write() refuses what primitiv could not save", () => {
  const writeFailure = (file: primitiv.PrimitivFile) => {
    const f = failure(() => primitiv.write(file));
    if (f === "ok") throw new Error("write() accepted it");
    return f;
  };
  const scalar = () => primitiv.makeTensor([], [1]);

  it("a parameter value with batch > 1, data of the wrong length, bad dims, non-uint32 configs, lone surrogates", () => {
    const batched = primitiv.makeTensor([2], [1, 2, 3, 4], 2);
    expect(writeFailure({ dataType: "parameter", parameter: { value: batched, stats: new Map() } })).toMatchObject({
      code: "CORRUPT",
      field: "value.shape.batch",
    });
    expect(
      writeFailure({ dataType: "tensor", tensor: { shape: { dims: [3], batch: 1 }, data: new Uint8Array(8) } }),
    ).toMatchObject({ code: "CORRUPT", field: "tensor.data" });
    expect(writeFailure({ dataType: "shape", shape: { dims: [1, 2, 3, 4, 5, 6, 7, 8, 9], batch: 1 } })).toMatchObject({
      code: "CORRUPT",
      field: "shape.dims",
    });
    expect(writeFailure({ dataType: "shape", shape: { dims: [2, 0], batch: 1 } })).toMatchObject({
      code: "CORRUPT",
      field: "shape.dims[1]",
    });
    expect(writeFailure({ dataType: "shape", shape: { dims: [2], batch: 1.5 } })).toMatchObject({
      code: "CORRUPT",
      field: "shape.batch",
    });
    expect(
      writeFailure({
        dataType: "optimizer",
        optimizer: { uintConfigs: new Map([["e", 2 ** 32]]), floatConfigs: new Map() },
      }),
    ).toMatchObject({ code: "LIMIT", field: "uintConfigs[0].value" });
    expect(
      writeFailure({ dataType: "parameter", parameter: { value: scalar(), stats: new Map([["\ud800", scalar()]]) } }),
    ).toMatchObject({ code: "CORRUPT", field: "stats[0].key" });
    expect(writeFailure({ dataType: "nope" } as unknown as primitiv.PrimitivFile)).toMatchObject({
      code: "UNSUPPORTED",
      field: "dataType",
    });
  });

  it("a readFrom() result (data not loaded) cannot be written or decoded", async () => {
    const file = await primitiv.readFrom(fromBytes(primitiv.write({ dataType: "tensor", tensor: scalar() })));
    expect(writeFailure(file)).toMatchObject({ code: "UNSUPPORTED", field: "tensor.data" });
    expect(failure(() => primitiv.tensors(file))).toMatchObject({ code: "UNSUPPORTED" });
  });

  it("the builders refuse bad input with RangeError", () => {
    expect(() => primitiv.makeTensor([2, 2], [1, 2, 3])).toThrow(RangeError);
    expect(() => primitiv.makeShape([0])).toThrow(RangeError);
    expect(() => primitiv.makeParameter(primitiv.makeTensor([1], [1, 2], 2))).toThrow(RangeError);
    expect(() =>
      primitiv.makeModel([
        [["a"], primitiv.makeParameter(scalar())],
        [["a"], primitiv.makeParameter(scalar())],
      ]),
    ).toThrow(RangeError);
    expect(() => primitiv.makeOptimizer({ e: -1 }, {})).toThrow(RangeError);
  });
});

describe("primitiv: seeded fuzzing (only FormatErrors escape)", () => {
  function mutate(input: Uint8Array, next: () => number): Uint8Array {
    let out = input.slice();
    const edits = 1 + Math.floor(next() * 3);
    for (let e = 0; e < edits; e++) {
      const kind = next();
      const at = Math.floor(next() * out.length);
      if (kind < 0.6) out[at] = Math.floor(next() * 256);
      else if (kind < 0.75) out[at] = out[at]! ^ (1 << Math.floor(next() * 8));
      else if (kind < 0.85) out = out.subarray(0, at);
      else if (kind < 0.95) {
        const grown = new Uint8Array(out.length + 1);
        grown.set(out.subarray(0, at));
        grown[at] = Math.floor(next() * 256);
        grown.set(out.subarray(at), at + 1);
        out = grown;
      } else {
        out = Uint8Array.from([...out.subarray(0, at), ...out.subarray(at + 1)]);
      }
    }
    return out;
  }

  function check(input: Uint8Array, label: string): void {
    let file: primitiv.PrimitivFile;
    try {
      file = primitiv.read(input);
    } catch (error) {
      if (!isFormatError(error)) throw new Error(`${label}: ${String(error)}`);
      return;
    }
    // whatever reads must write back identically, unless verify() says a length form will be normalized
    primitiv.tensors(file);
    JSON.stringify(primitiv.inspect(file));
    const out = primitiv.write(file);
    if (hex(out) !== hex(input))
      expect(
        primitiv.verify(file).some((w) => w.includes("smallest form")),
        label,
      ).toBe(true);
  }

  const seeds: { name: string; bytes: Uint8Array }[] = [];
  for (let s = 1; s <= 6; s++) seeds.push({ name: `random${s}`, bytes: primitiv.write(randomFile(s * 101)) });
  if (haveFixtures()) {
    for (const name of listFixtures("primitiv").filter(
      (n) => !n.endsWith(".md") && !n.endsWith(".json") && !n.includes("128x129"),
    )) {
      seeds.push({ name, bytes: readFixture("primitiv", name) });
    }
  }

  for (const [index, { name, bytes: input }] of seeds.entries()) {
    it(`${name}: 400 mutations (seed ${1000 + index})`, () => {
      const next = rng(1000 + index);
      for (let i = 0; i < 400; i++) check(mutate(input, next), `${name} #${i}`);
    });
  }

  it("random bytes after a valid header (seed 77)", () => {
    const next = rng(77);
    for (let i = 0; i < 2000; i++) {
      const body = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 256));
      const type = [0, 0x100, 0x200, 0x300, 0x400][i % 5]!;
      check(bytes(mp.header(type), body), `random body #${i}`);
    }
  });
});
