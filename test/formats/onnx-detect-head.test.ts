/**
 * Detection on the first 64 bytes accepts every model whose first initializer starts there, whatever its storage:
 * dims written packed (onnx.create, most protobuf writers) or one tag per dim, typed fields packed or one tag per
 * entry (fixed32 float_data, fixed64 double_data, varints). It once took packed dims for "not ONNX" (BAD_MAGIC).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { detectFormat, readAny } from "../../bindings/any.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { type TensorSpec, buildModel } from "../helpers/onnx-models.js";

describe("onnx detection: models whose first initializer is in the head", () => {
  it("onnx.create() with a small graph (packed dims in the first 64 bytes) is detected and read", () => {
    const bytes = onnx.write(
      onnx.create({
        graph: {
          name: "g",
          nodes: [],
          inputs: [],
          outputs: [],
          initializers: [{ name: "w", dtype: "float32", dims: [2, 2], data: new Float32Array([1, 2, 3, 4]) }],
        },
      }),
    );
    expect(onnx.detect(bytes)).toBe(true);
    expect(detectFormat(bytes.subarray(0, 64))).toBe("onnx");
    expect(Array.from(readAny(bytes).tensors()[0]!.data as Float32Array)).toEqual([1, 2, 3, 4]);
  });

  it("every storage, packed or not, with an unknown field or not, short names: detected from the head as from the whole file", () => {
    const specArb = fc
      .record({
        dims: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 3 }),
        storage: fc.constantFrom("raw", "floats", "doubles", "int32s", "int64s", "uint64s"),
        unpacked: fc.boolean(),
        unknownField: fc.boolean(),
      })
      .map(({ dims, storage, unpacked, unknownField }): TensorSpec => {
        const n = dims.reduce((a, b) => a * b, 1);
        // unknownField: a field 99 (a newer ONNX's, say) inside the TensorProto
        const base = { name: "w", dims, unpacked, unknownField };
        if (storage === "raw") return { ...base, dataType: 1, raw: new Uint8Array(n * 4) };
        if (storage === "floats") return { ...base, dataType: 1, floats: Array.from({ length: n }, (_, i) => i / 2) };
        if (storage === "doubles")
          return { ...base, dataType: 11, doubles: Array.from({ length: n }, (_, i) => i / 3) };
        if (storage === "int32s") return { ...base, dataType: 6, int32s: Array.from({ length: n }, (_, i) => -i) };
        if (storage === "int64s")
          return { ...base, dataType: 7, int64s: Array.from({ length: n }, (_, i) => i * 1000) };
        return { ...base, dataType: 13, uint64s: Array.from({ length: n }, (_, i) => i) };
      });
    fc.assert(
      fc.property(specArb, (spec) => {
        // no producer name: the graph, and its first initializer, start within the first 64 bytes
        const bytes = buildModel({ producer: "", graph: { name: "", initializers: [spec] } });
        expect(onnx.detect(bytes)).toBe(true);
        expect(detectFormat(bytes.subarray(0, 64))).toBe("onnx");
      }),
      { seed: 6464, numRuns: 300 },
    );
  });

  it("onnx.create() says what is missing in words (TypeError), not 'is not iterable'", () => {
    const bad = (input: unknown) => () => onnx.create(input as onnx.OnnxModelInput);
    expect(bad({ graph: { initializers: [] } })).toThrow(/graph\.nodes must be an array/);
    expect(bad({ graph: { name: "g", nodes: [], inputs: [] } })).toThrow(/graph\.outputs must be an array/);
    expect(bad({})).toThrow(/graph must be an object/);
    expect(bad(null)).toThrow(TypeError);
    expect(bad(null)).toThrow(/onnx\.create\(\) takes an object/);
  });
});
