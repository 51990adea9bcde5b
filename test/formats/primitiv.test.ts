/**
 * primitiv against the reference fixtures (written by primitiv C++ @db14ca44): decoded values vs expected.json
 * (an independent python3-msgpack decode), byte-identical write(read(x)), the same bytes from objects built
 * from scratch, every prefix TRUNCATED, detect(), and an independent MessagePack decoder over our output.
 */
import { decodeMulti } from "@msgpack/msgpack";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as primitiv from "../../bindings/formats/primitiv.js";
import { fixtureObjects } from "../helpers/primitiv-builders.js";
import { fixturePath, haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";

const FOLDER = "primitiv";
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

interface ExpectedTensor {
  shape: { dims: number[]; batch: number };
  nbytes: number;
  sha256_f32le: string;
  first: number[];
  last: number;
  sum: number;
}
interface ExpectedParameter {
  value: ExpectedTensor;
  n_stats: number;
  stats: { key: string; tensor: ExpectedTensor }[];
}
interface Expected {
  file: string;
  size: number;
  sha256_file: string;
  ver: [number, number];
  data_type: string;
  kind: "Shape" | "Tensor" | "Parameter" | "Model" | "Optimizer";
  shape?: { dims: number[]; batch: number };
  tensor?: ExpectedTensor;
  parameter?: ExpectedParameter;
  model?: { n_params: number; params: { key: string[]; param: ExpectedParameter }[] };
  optimizer?: { uint_configs: Record<string, number>; float_configs: Record<string, number> };
  trailing_bytes: number;
  first_wire_bytes: string[];
}

function loadExpected(): Expected[] {
  if (!haveFixtures()) return [];
  return JSON.parse(readFileSync(fixturePath(FOLDER, "expected.json"), "utf8")) as Expected[];
}

const fixtureNames = () => listFixtures(FOLDER).filter((n) => !n.endsWith(".md") && !n.endsWith(".json"));

/** Independent reference for tensors(): row-major [batch?, d0, …] from column-major-per-sample storage. */
function rowMajorReference(stored: Float32Array, dims: number[], batch: number): Float32Array {
  const sample = dims.reduce((a, b) => a * b, 1);
  const out = new Float32Array(stored.length);
  const index = new Array<number>(dims.length).fill(0);
  for (let b = 0; b < batch; b++) {
    for (let flat = 0; flat < sample; flat++) {
      // flat is the row-major position; decompose it into [i0 … i(n-1)]
      let rest = flat;
      for (let k = dims.length - 1; k >= 0; k--) {
        index[k] = rest % dims[k]!;
        rest = Math.floor(rest / dims[k]!);
      }
      let storage = 0;
      for (let k = dims.length - 1; k >= 0; k--) storage = storage * dims[k]! + index[k]!;
      out[b * sample + flat] = stored[b * sample + storage]!;
    }
  }
  return out;
}

function storedFloats(tensor: primitiv.PrimitivTensor): Float32Array {
  const data = tensor.data as Uint8Array;
  return new Float32Array(data.slice().buffer);
}

function checkTensor(actual: primitiv.PrimitivTensor, expected: ExpectedTensor, where: string): void {
  expect(actual.shape, where).toEqual(expected.shape);
  const data = actual.data as Uint8Array;
  expect(data).toBeInstanceOf(Uint8Array);
  expect(data.byteLength, where).toBe(expected.nbytes);
  expect(sha256(data), where).toBe(expected.sha256_f32le);
  const floats = storedFloats(actual);
  expected.first.forEach((v, i) => expect(floats[i], `${where} first[${i}]`).toBeCloseTo(v, 6));
  expect(floats[floats.length - 1], `${where} last`).toBeCloseTo(expected.last, 5);
  let sum = 0;
  for (const v of floats) sum += v;
  expect(sum, `${where} sum`).toBeCloseTo(expected.sum, 3);
}

function checkParameter(actual: primitiv.PrimitivParameter, expected: ExpectedParameter, where: string): void {
  checkTensor(actual.value, expected.value, `${where}.value`);
  expect(actual.stats.size).toBe(expected.n_stats);
  expect([...actual.stats.keys()], `${where} stats order`).toEqual(expected.stats.map((s) => s.key));
  for (const s of expected.stats) checkTensor(actual.stats.get(s.key)!, s.tensor, `${where}.stats[${s.key}]`);
}

function expectTruncated(fn: () => unknown, what: string): void {
  try {
    fn();
  } catch (error) {
    if (!isFormatError(error)) throw error;
    expect(error.code, `${what}: ${error.message}`).toBe("TRUNCATED");
    return;
  }
  throw new Error(`${what}: read() succeeded`);
}

describe.skipIf(!haveFixtures())("primitiv: reference fixtures", () => {
  const expected = loadExpected();
  const objects = fixtureObjects();

  it("expected.json covers every fixture file", () => {
    expect(expected.map((e) => e.file).sort()).toEqual(fixtureNames());
    const trained = ["model_xor_adam.model", "model_xor_adam_nostats.model"]; // values only as hashes
    expect(Object.keys(objects).sort()).toEqual(fixtureNames().filter((n) => !trained.includes(n)));
  });

  for (const e of expected) {
    describe(e.file, () => {
      const bytes = readFixture(FOLDER, e.file);

      it("is the file expected.json describes", () => {
        expect(bytes.length).toBe(e.size);
        expect(sha256(bytes)).toBe(e.sha256_file);
      });

      it("reads to the values of expected.json", () => {
        const file = primitiv.read(bytes);
        expect(file.dataType).toBe(e.kind.toLowerCase());
        expect(`0x${primitiv.DATA_TYPE_CODES[file.dataType].toString(16)}`).toBe(e.data_type);
        expect(e.ver).toEqual([0, 1]);
        expect(e.trailing_bytes).toBe(0);
        switch (file.dataType) {
          case "shape":
            expect(file.shape).toEqual(e.shape);
            break;
          case "tensor":
            checkTensor(file.tensor, e.tensor!, "tensor");
            break;
          case "parameter":
            checkParameter(file.parameter, e.parameter!, "parameter");
            break;
          case "model":
            expect(file.model.parameters.length).toBe(e.model!.n_params);
            file.model.parameters.forEach((entry, i) => {
              expect(entry.path).toEqual(e.model!.params[i]!.key);
              checkParameter(entry.parameter, e.model!.params[i]!.param, entry.path.join("."));
            });
            break;
          case "optimizer":
            expect([...file.optimizer.uintConfigs]).toEqual(Object.entries(e.optimizer!.uint_configs));
            expect([...file.optimizer.floatConfigs]).toEqual(Object.entries(e.optimizer!.float_configs));
            break;
        }
      });

      it("tensors(): contract names, logical shapes, row-major data", () => {
        const file = primitiv.read(bytes);
        const named = primitiv.tensors(file);
        const names: string[] = [];
        const sources: primitiv.PrimitivTensor[] = [];
        if (file.dataType === "tensor") {
          names.push("tensor");
          sources.push(file.tensor);
        } else if (file.dataType === "parameter") {
          names.push("value", ...[...file.parameter.stats.keys()].map((k) => `stats/${k}`));
          sources.push(file.parameter.value, ...file.parameter.stats.values());
        } else if (file.dataType === "model") {
          for (const { path, parameter } of file.model.parameters) {
            names.push(path.join("."), ...[...parameter.stats.keys()].map((k) => `${path.join(".")}/stats/${k}`));
            sources.push(parameter.value, ...parameter.stats.values());
          }
        }
        expect(named.map((t) => t.name)).toEqual(names);
        named.forEach((t, i) => {
          const { dims, batch } = sources[i]!.shape;
          expect(t.dtype).toBe("float32");
          expect(t.shape).toEqual(batch > 1 ? [batch, ...dims] : dims);
          expect(t.data).toBeInstanceOf(Float32Array);
          expect(Array.from(t.data as Float32Array)).toEqual(
            Array.from(rowMajorReference(storedFloats(sources[i]!), dims, batch)),
          );
        });
      });

      it("write(read(x)) is byte-identical", () => {
        expect(hex(primitiv.write(primitiv.read(bytes)))).toBe(hex(bytes));
      });

      it.runIf(e.file in objects)(
        "the object built from scratch (PROVENANCE.md values) writes the fixture bytes",
        () => {
          const built = objects[e.file]!;
          expect(hex(primitiv.write(built))).toBe(hex(bytes));
          expect(primitiv.read(bytes)).toEqual(primitiv.read(primitiv.write(built)));
        },
      );

      it("rebuilding from the row-major tensors() view writes the fixture bytes", () => {
        const file = primitiv.read(bytes);
        const views = new Map(primitiv.tensors(file).map((t) => [t.name, t]));
        const rebuild = (name: string, t: primitiv.PrimitivTensor) =>
          primitiv.makeTensor(t.shape.dims, views.get(name)!.data as Float32Array, t.shape.batch);
        let rebuilt: primitiv.PrimitivFile;
        switch (file.dataType) {
          case "tensor":
            rebuilt = { dataType: "tensor", tensor: rebuild("tensor", file.tensor) };
            break;
          case "parameter":
            rebuilt = {
              dataType: "parameter",
              parameter: primitiv.makeParameter(
                rebuild("value", file.parameter.value),
                [...file.parameter.stats].map(([k, t]) => [k, rebuild(`stats/${k}`, t)] as const),
              ),
            };
            break;
          case "model":
            rebuilt = {
              dataType: "model",
              model: primitiv.makeModel(
                [...file.model.parameters].reverse().map(({ path, parameter }) => {
                  const name = path.join(".");
                  return [
                    path,
                    primitiv.makeParameter(
                      rebuild(name, parameter.value),
                      [...parameter.stats].map(([k, t]) => [k, rebuild(`${name}/stats/${k}`, t)] as const),
                    ),
                  ] as const;
                }),
              ),
            };
            break;
          default:
            rebuilt = file;
        }
        expect(hex(primitiv.write(rebuilt))).toBe(hex(bytes));
      });

      it("an independent MessagePack decoder sees the same objects in our output as in the fixture", () => {
        const ours = primitiv.write(primitiv.read(bytes));
        const theirs = [...decodeMulti(bytes)];
        expect([...decodeMulti(ours)]).toEqual(theirs);
        expect(theirs.slice(0, 3)).toEqual([0, 1, Number(e.data_type)]);
        for (const wire of e.first_wire_bytes) {
          const [type, at] = wire.split("@") as [string, string];
          expect(ours[Number(at)], wire).toBe(Number(type));
        }
      });

      it("every prefix is TRUNCATED", () => {
        for (let n = 0; n < bytes.length; n++) {
          expectTruncated(() => primitiv.read(bytes.subarray(0, n)), `${e.file}[0..${n})`);
        }
      });

      it("detect() is true", () => {
        expect(primitiv.detect(bytes)).toBe(true);
        expect(primitiv.detect(bytes.subarray(0, 64))).toBe(true);
      });

      it("read({ expect }) checks the data type as primitiv's loaders do", () => {
        const kind = primitiv.read(bytes).dataType;
        expect(primitiv.read(bytes, { expect: kind }).dataType).toBe(kind);
        const other = kind === "model" ? "parameter" : "model";
        try {
          primitiv.read(bytes, { expect: other });
          throw new Error("accepted the wrong data type");
        } catch (error) {
          if (!isFormatError(error)) throw error;
          expect(error.code).toBe("BAD_MAGIC");
          expect(error.offset).toBe(10);
          expect(error.field).toBe("header.dataType");
        }
      });

      it("inspect() is plain JSON with the data type, shapes, stats and configs; verify() and blobs()", () => {
        const file = primitiv.read(bytes);
        const info = primitiv.inspect(file);
        expect(JSON.parse(JSON.stringify(info))).toEqual(info);
        expect(info.format).toBe("primitiv");
        expect(info.version).toBe("0.1");
        expect(info.meta).toEqual({ dataType: e.kind.toLowerCase(), dataTypeCode: e.data_type });
        expect(info.tensors.map((t) => t.name)).toEqual(primitiv.tensors(file).map((t) => t.name));
        expect(info.tensors.every((t) => t.dtype === "float32")).toBe(true);
        if (e.shape) expect(info.shape).toEqual(e.shape);
        if (e.tensor) expect(info.tensor).toEqual(e.tensor.shape);
        if (e.parameter) {
          expect(info.parameter).toEqual({
            value: e.parameter.value.shape,
            stats: e.parameter.stats.map((s) => ({ key: s.key, ...s.tensor.shape })),
          });
        }
        if (e.model)
          expect((info.parameters as { path: string[] }[]).map((p) => p.path)).toEqual(
            e.model.params.map((p) => p.key),
          );
        if (e.optimizer) {
          expect(info.optimizer).toEqual({
            uintConfigs: Object.entries(e.optimizer.uint_configs).map(([key, value]) => ({ key, value })),
            floatConfigs: Object.entries(e.optimizer.float_configs).map(([key, value]) => ({ key, value })),
          });
        }
        const warnings = primitiv.verify(file);
        if (e.kind === "Shape" || e.kind === "Tensor") expect(warnings).toHaveLength(1);
        else expect(warnings).toEqual([]);
        expect(primitiv.blobs(file)).toEqual([]);
      });
    });
  }

  it("detect() is false for every other format's fixtures", () => {
    const others = ["april", "bw2l", "tennis", "spraak"];
    let checked = 0;
    for (const folder of others) {
      for (const name of listFixtures(folder)) {
        const head = readFixture(folder, name).subarray(0, 64);
        expect(primitiv.detect(head), `${folder}/${name}`).toBe(false);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe("primitiv: detect", () => {
  it("needs the whole 15-byte header and never throws", () => {
    const header = Uint8Array.from([0xce, 0, 0, 0, 0, 0xce, 0, 0, 0, 1, 0xce, 0, 0, 2, 0]);
    expect(primitiv.detect(header)).toBe(true);
    for (let n = 0; n < 15; n++) expect(primitiv.detect(header.subarray(0, n))).toBe(false);
    for (let i = 0; i < 11; i++) {
      const changed = header.slice();
      changed[i] = changed[i]! ^ 0x01;
      expect(primitiv.detect(changed), `byte ${i}`).toBe(false);
    }
    expect(primitiv.detect(undefined as unknown as Uint8Array)).toBe(false);
    expect(primitiv.detect(new Uint8Array(0))).toBe(false);
  });
});
