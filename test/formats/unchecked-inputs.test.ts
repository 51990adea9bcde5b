/**
 * Inputs from JavaScript callers that do not match their TypeScript types: the builders and writers check them
 * field by field (no cast trusts them) and refuse them with a TypeError saying what is wrong, never a crash deeper
 * in (onnx.create's nodes, attributes, tensors and value infos; primitiv.write's builder results; spraak.create's
 * typed arrays).
 */
import { describe, expect, it } from "vitest";
import { create } from "../../bindings/formats/onnx/builder.js";
import * as primitiv from "../../bindings/formats/primitiv.js";

/** onnx.create with one node `node` in an otherwise valid graph (inputs/outputs as `io`). */
function withNode(node: unknown, io: unknown = { name: "x", dtype: "float32", shape: [1] }): () => unknown {
  return () =>
    create({
      graph: { name: "g", nodes: [node], inputs: [io], outputs: [{ name: "y", dtype: "float32" }] },
    } as never);
}

describe("onnx.create: unchecked input objects", () => {
  const node = (attributes: unknown) => ({ opType: "Custom", inputs: ["x"], outputs: ["y"], attributes });

  it("a valid node and value info are written", () => {
    expect(
      withNode(node({ t: { type: "tensor", value: { dtype: "int64", dims: [1], data: [1n] } } }))(),
    ).toBeInstanceOf(Uint8Array);
  });

  it("refuses a node, value info, attribute or tensor that is not an object", () => {
    expect(withNode(7)).toThrow(/must be an object, not/);
    expect(withNode(node({}), "x")).toThrow(/must be an object, not/);
    expect(withNode(node({ t: { type: "tensor", value: 3 } }))).toThrow(/must be an object, not/);
    expect(withNode(node({ ts: { type: "tensors", value: [null] } }))).toThrow(/must be an object, not/);
  });

  it("refuses an attribute of an unknown type, and list values that are not arrays", () => {
    expect(withNode(node({ a: { type: "bogus", value: 1 } }))).toThrow(/unknown type "bogus"|unknown type bogus/);
    expect(withNode(node({ a: { type: "tensors", value: "no" } }))).toThrow(/must be an array/);
    expect(withNode(node({ a: { type: "floats", value: 2 } }))).toThrow(/must be an array/);
    expect(withNode({ opType: "Custom", inputs: "x", outputs: ["y"] })).toThrow(/inputs must be an array/);
  });
});

describe("primitiv.write: what is not a primitiv object", () => {
  it("refuses null, numbers, strings and look-alikes with the message, never a bare TypeError from `in`", () => {
    for (const value of [null, undefined, 5, "model", { parameters: "all" }, { dims: [1] }, { uintConfigs: 1 }])
      expect(() => primitiv.write(value as never), JSON.stringify(value)).toThrow(/takes a primitiv file/);
  });

  it("takes a shape and an optimizer as builders give them", () => {
    const shape = primitiv.write({ dims: [2, 3], batch: 1 } as never);
    expect(primitiv.read(shape)).toMatchObject({ dataType: "shape", shape: { dims: [2, 3], batch: 1 } });
    const optimizer = primitiv.write({ uintConfigs: new Map([["epoch", 3]]), floatConfigs: new Map() } as never);
    expect(primitiv.read(optimizer)).toMatchObject({ dataType: "optimizer" });
  });
});
