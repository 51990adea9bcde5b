/**
 * onnx.create never writes a value other than the one given: every field of OnnxModelInput is either written so
 * that onnx-proto (an independent decoder) reads back the same value, or refused with a TypeError (the wrong kind
 * of value) or a RangeError (a value its field cannot hold). Hostile cases first, then a property over random
 * models whose fields are drawn from values of every kind.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import onnxProto from "onnx-proto";
import { type OnnxModelInput, type OnnxTensorInput, create } from "../../bindings/formats/onnx/builder.js";
import * as onnxFacade from "../../bindings/formats/onnx.js";

const { onnx } = onnxProto;
const A = onnx.AttributeProto.AttributeType;

const model = (graph: Partial<OnnxModelInput["graph"]>, top: Partial<OnnxModelInput> = {}): OnnxModelInput =>
  ({ ...top, graph: { name: "g", nodes: [], inputs: [], outputs: [], ...graph } }) as OnnxModelInput;
const withAttribute = (value: unknown) =>
  model({ nodes: [{ opType: "Op", inputs: [], outputs: ["y"], attributes: { a: value as never } }] });
const withTensor = (tensor: unknown) => model({ initializers: [tensor as OnnxTensorInput] });
const decodeAttribute = (bytes: Uint8Array) => onnx.ModelProto.decode(bytes).graph!.node![0]!.attribute![0]!;

describe("onnx.create: hostile values are written as given or refused", () => {
  it("a number that is not a safe integer is a FLOAT attribute (3.4e38 was INT 0)", () => {
    for (const v of [3.4e38, 2 ** 53, -(2 ** 60), 1e20]) {
      const a = decodeAttribute(create(withAttribute(v)));
      expect(a.type, String(v)).toBe(A.FLOAT);
      expect(a.f).toBe(Math.fround(v));
    }
    expect(decodeAttribute(create(withAttribute(2 ** 53 - 1))).type).toBe(A.INT);
    expect(() => create(withAttribute(3.5e38))).toThrow(RangeError); // beyond float32: it would be written as Infinity
    expect(() => create(withAttribute([1.5, 1e39]))).toThrow(RangeError);
  });

  it("a bigint outside int64 is a RangeError, anywhere an int64 goes", () => {
    expect(() => create(withAttribute(2n ** 63n))).toThrow(RangeError);
    expect(() => create(withAttribute(-(2n ** 63n) - 1n))).toThrow(RangeError);
    expect(() => create(withAttribute({ type: "ints", value: [1n, 2n ** 64n] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "int64", dims: [1], data: [2n ** 63n] }))).toThrow(RangeError);
    expect(() => create(model({}, { modelVersion: (2n ** 63n) as never }))).toThrow(RangeError);
    expect(String(decodeAttribute(create(withAttribute(2n ** 63n - 1n))).i)).toBe(String(2n ** 63n - 1n));
  });

  it("nested or mixed arrays are a TypeError", () => {
    for (const v of [[[1, 2]], [1, "a"], [1, null], [1n, 2], [{}], ["a", "b"]])
      expect(
        () => create(withAttribute(v)),
        JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x)),
      ).toThrow(TypeError);
    for (const v of [true, null, () => 1, Symbol("s")]) expect(() => create(withAttribute(v))).toThrow(TypeError);
    expect(() => create(withAttribute({ type: "float", value: "1" }))).toThrow(TypeError);
    expect(() => create(withAttribute({ type: "ints", value: [1, 2.5] }))).toThrow(RangeError);
    expect(() => create(withAttribute({ type: "wat", value: 1 }))).toThrow(TypeError);
  });

  it("a string where a list of names goes is a TypeError ('abc' was three inputs)", () => {
    expect(() => create(model({ nodes: [{ opType: "Relu", inputs: "abc" as never, outputs: ["y"] }] }))).toThrow(
      TypeError,
    );
    expect(() => create(model({ nodes: [{ opType: "Relu", inputs: ["x"], outputs: "y" as never }] }))).toThrow(
      TypeError,
    );
    expect(() => create(model({ nodes: [{ opType: "Relu", inputs: [1 as never], outputs: ["y"] }] }))).toThrow(
      TypeError,
    );
    expect(() => create(model({ inputs: "x" as never }))).toThrow(TypeError);
    expect(() =>
      create(model({ nodes: [{ opType: "Relu", inputs: ["x"], outputs: ["y"], attributes: [1, 2] as never }] })),
    ).toThrow(TypeError);
  });

  it("tensor elements must fit their dtype; dims, sizes and dtypes are checked", () => {
    expect(() => create(withTensor({ dtype: "uint8", dims: [1], data: [300] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "int8", dims: [1], data: [-129] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "int32", dims: [1], data: [1.5] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "int64", dims: [1], data: [2 ** 60] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "bool", dims: [1], data: [2] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "float32", dims: [1], data: [1e39] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "float32", dims: [1], data: ["1"] }))).toThrow(TypeError);
    expect(() => create(withTensor({ dtype: "float32", dims: [1.5], data: [] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "float32", dims: [2 ** 40, 2 ** 40], data: [] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: "float32", dims: "12" as never, data: [] }))).toThrow(TypeError);
    expect(() => create(withTensor({ dtype: "float32", dims: [1], data: new ArrayBuffer(4) }))).toThrow(TypeError);
    expect(() => create(withTensor({ dtype: "toString", dims: [0], data: [] }))).toThrow(TypeError);
    expect(() => create(withTensor({ dtype: "string", dims: [1], data: new Uint8Array(1) }))).toThrow(TypeError);
    expect(() => create(withTensor({ dtype: 0, dims: [0], data: [] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: 99, dims: [0], data: [] }))).toThrow(RangeError);
    expect(() => create(withTensor({ dtype: 22, dims: [3], data: new Uint8Array(1) }))).toThrow(RangeError); // int4: 2 bytes
    expect(create(withTensor({ dtype: 22, dims: [3], data: new Uint8Array(2) })).length).toBeGreaterThan(0);
  });

  it("value infos, opset versions, versions and metadata are checked the same way", () => {
    expect(() => create(model({ inputs: [{ name: "x", dtype: "float32", shape: [-1] }] }))).toThrow(RangeError);
    expect(() => create(model({ inputs: [{ name: "x", dtype: "float32", shape: [1.5] }] }))).toThrow(RangeError);
    expect(() => create(model({ inputs: [{ name: "x", dtype: "float32", shape: [true as never] }] }))).toThrow(
      TypeError,
    );
    expect(() => create(model({ inputs: [{ name: 5 as never, dtype: "float32" }] }))).toThrow(TypeError);
    expect(() => create(model({}, { opsetImports: [{ version: 17.5 }] }))).toThrow(RangeError);
    expect(() => create(model({}, { opsetImports: [{ version: -1 }] }))).toThrow(RangeError);
    expect(() => create(model({}, { opsetImports: [{ version: "17" as never }] }))).toThrow(TypeError);
    expect(() => create(model({}, { irVersion: 2 ** 53 }))).toThrow(RangeError);
    expect(() => create(model({}, { irVersion: -8 }))).toThrow(RangeError);
    expect(() => create(model({}, { modelVersion: 0.5 }))).toThrow(RangeError);
    expect(() => create(model({}, { metadata: { k: 1 as never } }))).toThrow(TypeError);
    expect(() => create(model({}, { metadata: ["a"] as never }))).toThrow(TypeError);
    expect(() => create(model({}, { producerName: "\ud800" }))).toThrow(RangeError); // UTF-8 would store U+FFFD
    expect(() => create(model({}, { docString: 7 as never }))).toThrow(TypeError);
    expect(() => onnxFacade.create(model({}, { opsetImports: [{ version: 1e300 }] }))).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------------------
// property: anything create accepts, onnx-proto decodes to the same values

/** Mostly values the field holds, sometimes any other value (so both acceptance and refusal are exercised). */
const mix = <T, U>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>): fc.Arbitrary<T | U> =>
  fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: hostile, weight: 1 });
const anyNumber = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double(),
  fc.constantFrom(3.4e38, 3.5e38, 2 ** 53, 2 ** 53 - 1, -(2 ** 63), 2 ** 64, NaN, Infinity, -0, 1e-46, 0.1),
  fc.maxSafeInteger(),
  fc.integer({ min: 0, max: 255 }),
  fc.integer({ min: 0, max: 65535 }),
);
const anyBigint = fc.oneof(
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  fc.constantFrom(2n ** 63n - 1n, -(2n ** 63n), 2n ** 63n),
);
const goodString = fc.oneof(fc.string(), fc.constantFrom("héllo", "", "😀"));
const anyString = mix(goodString, fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom("\ud800", "a\udc00b")));
const anyScalar = fc.oneof(anyNumber, anyBigint, anyString, fc.boolean(), fc.constant(null), fc.constant(undefined));
const anyList = mix(
  fc.oneof(
    fc.array(anyNumber, { maxLength: 4 }),
    fc.array(anyBigint, { maxLength: 4 }),
    fc.array(fc.integer({ min: -3, max: 300 }), { maxLength: 4 }),
  ),
  fc.oneof(fc.array(anyScalar, { maxLength: 4 }), fc.array(fc.array(anyNumber, { maxLength: 2 }), { maxLength: 2 })),
);
const anyValue = fc.oneof(anyNumber, anyBigint, anyString, anyList, fc.boolean(), fc.constant(null));
const DTYPE_NAMES = [
  "float32",
  "uint8",
  "int8",
  "uint16",
  "int16",
  "int32",
  "int64",
  "bool",
  "float16",
  "float64",
  "uint32",
  "uint64",
  "bfloat16",
  "string",
  "complex64",
] as const;
const anyDType = mix(
  fc.constantFrom(...DTYPE_NAMES),
  fc.oneof(fc.integer({ min: -1, max: 30 }), fc.constantFrom("toString", "float", 1.5)),
);
const anyAttribute = fc.oneof(
  anyValue,
  fc.record({ type: fc.constantFrom("float", "int", "string", "floats", "ints", "strings"), value: anyValue }),
);
const anyDims = mix(
  fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
  fc.oneof(fc.array(fc.oneof(fc.integer({ min: -1, max: 3 }), anyNumber), { maxLength: 3 }), anyValue),
);
/** A tensor whose data length often matches its dims. */
const anyTensor = fc
  .record({ name: fc.option(anyString, { nil: undefined }), dtype: anyDType, dims: anyDims, data: anyList })
  .map((t) => {
    if (
      Array.isArray(t.dims) &&
      (t.dims as unknown[]).every((d) => Number.isSafeInteger(d) && (d as number) >= 0) &&
      Array.isArray(t.data) &&
      t.data.length > 0
    ) {
      const count = (t.dims as number[]).reduce((a, b) => a * b, 1);
      if (count > 64) return t;
      return {
        ...t,
        data: Array.from({ length: count }, (_, i) => (t.data as unknown[])[i % (t.data as unknown[]).length]),
      };
    }
    return t;
  });
const anyValueInfo = fc.record({
  name: anyString,
  dtype: anyDType,
  shape: fc.option(
    fc.array(
      mix(
        fc.oneof(fc.integer({ min: 0, max: 9 }), goodString, fc.constant(null)),
        fc.oneof(fc.integer({ min: -2, max: -1 }), anyNumber, anyBigint),
      ),
      { maxLength: 3 },
    ),
    { nil: undefined },
  ),
});
const anyModel = fc.record({
  irVersion: fc.option(mix(fc.integer({ min: 0, max: 12 }), fc.oneof(anyNumber, anyBigint)), { nil: undefined }),
  modelVersion: fc.option(
    mix(
      fc.oneof(fc.maxSafeInteger(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
      fc.oneof(anyNumber, anyBigint),
    ),
    { nil: undefined },
  ),
  producerName: fc.option(anyString, { nil: undefined }),
  opsetImports: fc.option(
    fc.array(
      fc.record({
        domain: fc.option(anyString, { nil: undefined }),
        version: mix(fc.integer({ min: 0, max: 30 }), fc.oneof(anyNumber, anyBigint)),
      }),
      { maxLength: 2 },
    ),
    { nil: undefined },
  ),
  metadata: fc.option(fc.dictionary(fc.string(), mix(goodString, anyNumber)), { nil: undefined }),
  graph: fc.record({
    name: anyString,
    nodes: fc.array(
      fc.record({
        opType: anyString,
        inputs: mix(fc.array(goodString, { maxLength: 3 }), anyString),
        outputs: fc.array(anyString, { maxLength: 2 }),
        attributes: fc.dictionary(fc.string(), anyAttribute, { maxKeys: 3 }),
      }),
      { maxLength: 2 },
    ),
    initializers: fc.array(anyTensor, { maxLength: 2 }),
    inputs: fc.array(anyValueInfo, { maxLength: 2 }),
    outputs: fc.constant([]),
  }),
});

const same = (a: unknown, b: unknown): boolean =>
  Object.is(a, b) || (typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b));
const long = (v: unknown): string => String(v ?? 0);

/** Reads raw_data elements of `code` as numbers/bigints. */
function elements(code: number, raw: Uint8Array): (number | bigint)[] {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const size: Record<number, number> = {
    1: 4,
    2: 1,
    3: 1,
    4: 2,
    5: 2,
    6: 4,
    7: 8,
    9: 1,
    10: 2,
    11: 8,
    12: 4,
    13: 8,
    16: 2,
  };
  const out: (number | bigint)[] = [];
  for (let at = 0; at < raw.length; at += size[code]!) {
    switch (code) {
      case 1:
        out.push(view.getFloat32(at, true));
        break;
      case 11:
        out.push(view.getFloat64(at, true));
        break;
      case 2:
      case 9:
        out.push(view.getUint8(at));
        break;
      case 3:
        out.push(view.getInt8(at));
        break;
      case 4:
      case 10:
      case 16:
        out.push(view.getUint16(at, true));
        break;
      case 5:
        out.push(view.getInt16(at, true));
        break;
      case 6:
        out.push(view.getInt32(at, true));
        break;
      case 12:
        out.push(view.getUint32(at, true));
        break;
      case 7:
        out.push(view.getBigInt64(at, true));
        break;
      case 13:
        out.push(view.getBigUint64(at, true));
        break;
    }
  }
  return out;
}

function checkAttribute(given: unknown, a: onnxProto.onnx.IAttributeProto): void {
  const utf8 = (b: Uint8Array | null | undefined) => new TextDecoder().decode(b ?? new Uint8Array());
  const explicit =
    given !== null && typeof given === "object" && !Array.isArray(given)
      ? (given as { type: string; value: unknown })
      : undefined;
  const type =
    explicit?.type ??
    (typeof given === "bigint" || Number.isSafeInteger(given)
      ? "int"
      : typeof given === "number"
        ? "float"
        : typeof given === "string"
          ? "string"
          : (given as unknown[]).every((v) => typeof v === "bigint" || Number.isSafeInteger(v))
            ? "ints"
            : "floats");
  const value = explicit ? explicit.value : given;
  switch (type) {
    case "int":
      expect([a.type, long(a.i)]).toEqual([A.INT, String(value)]);
      break;
    case "float":
      expect(a.type).toBe(A.FLOAT);
      expect(same(a.f ?? 0, Math.fround(value as number))).toBe(true);
      break;
    case "string":
      expect([a.type, utf8(a.s)]).toEqual([A.STRING, value]);
      break;
    case "ints":
      expect([a.type, (a.ints ?? []).map(long)]).toEqual([A.INTS, (value as unknown[]).map(String)]);
      break;
    case "floats": {
      expect(a.type).toBe(A.FLOATS);
      const floats = a.floats ?? [];
      expect(floats.length).toBe((value as number[]).length);
      (value as number[]).forEach((v, i) => expect(same(floats[i], Math.fround(v))).toBe(true));
      break;
    }
    case "strings":
      expect([a.type, (a.strings ?? []).map(utf8)]).toEqual([A.STRINGS, value]);
      break;
    default:
      throw new Error(`unexpected type ${type}`);
  }
}

describe("onnx.create property: anything it accepts, onnx-proto decodes to the same values", () => {
  it("random models with fields of every kind: TypeError/RangeError, or the same values back", () => {
    let accepted = 0;
    fc.assert(
      fc.property(anyModel, (input) => {
        let bytes: Uint8Array;
        try {
          bytes = create(input as unknown as OnnxModelInput);
        } catch (error) {
          expect(error instanceof TypeError || error instanceof RangeError, String(error)).toBe(true);
          return;
        }
        accepted++;
        const m = onnx.ModelProto.decode(bytes);
        expect(long(m.irVersion)).toBe(String(input.irVersion ?? 8));
        if (input.modelVersion !== undefined) expect(long(m.modelVersion)).toBe(String(input.modelVersion));
        expect(m.producerName).toBe(input.producerName ?? "tensorfile");
        const opsets = input.opsetImports ?? [{ domain: "", version: 17 }];
        expect((m.opsetImport ?? []).map((o) => [o.domain ?? "", long(o.version)])).toEqual(
          opsets.map((o) => [o.domain ?? "", String(o.version)]),
        );
        expect((m.metadataProps ?? []).map((p) => [p.key, p.value])).toEqual(Object.entries(input.metadata ?? {}));
        const g = m.graph!;
        expect(g.name ?? "").toBe(input.graph.name);
        input.graph.nodes.forEach((n, k) => {
          const node = g.node![k]!;
          expect([node.opType ?? "", node.input ?? [], node.output ?? []]).toEqual([n.opType, n.inputs, n.outputs]);
          Object.entries(n.attributes).forEach(([key, value], j) => {
            expect(node.attribute![j]!.name ?? "").toBe(key);
            checkAttribute(value, node.attribute![j]!);
          });
        });
        input.graph.initializers.forEach((t, k) => {
          const tensor = g.initializer![k]!;
          const code = typeof t.dtype === "number" ? t.dtype : onnxFacade.ONNX_DTYPES[t.dtype as "float32"];
          expect(tensor.dataType).toBe(code);
          expect((tensor.dims ?? []).map(Number)).toEqual((t.dims as number[]).map((d) => d + 0)); // (-0 is the dim 0)
          if (t.name !== undefined) expect(tensor.name).toBe(t.name);
          const back = elements(code, tensor.rawData ?? new Uint8Array());
          const given = (t.data as (number | bigint)[]).map((v) => (code === 1 ? Math.fround(v as number) : v));
          expect(back.length).toBe(given.length);
          // (floats keep -0 and NaN; an integer dtype stores the integer -0 as 0)
          const equal = (v: number | bigint, g: unknown) =>
            code === 1 || code === 11 ? same(v, g) : String(v) === String(g === 0 ? 0 : g);
          back.forEach((v, i) => expect(equal(v, given[i]), `${v} vs ${String(given[i])}`).toBe(true));
        });
        input.graph.inputs.forEach((v, k) => {
          const info = g.input![k]!;
          expect(info.name).toBe(v.name);
          expect(info.type!.tensorType!.elemType).toBe(
            typeof v.dtype === "number" ? v.dtype : onnxFacade.ONNX_DTYPES[v.dtype as "float32"],
          );
          if (v.shape) {
            const dims = info.type!.tensorType!.shape?.dim ?? [];
            expect(
              dims.map((d) =>
                d.dimParam ? d.dimParam : d.dimValue === undefined || d.dimValue === null ? null : Number(d.dimValue),
              ),
            ).toEqual(v.shape.map((d) => (d === "" ? null : typeof d === "number" ? d + 0 : d)));
          }
        });
      }),
      { numRuns: 2000, seed: 31 },
    );
    expect(accepted).toBeGreaterThan(20);
  });
});
