// Format modules are facades over their folders (reader, writer, view, builder, …): their runtime exports are the
// public namespaces, so a name lost in a move fails here.
import { describe, expect, it } from "vitest";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import * as primitiv from "../../bindings/formats/primitiv.js";
import * as spraak from "../../bindings/formats/spraak.js";

describe("format facades", () => {
  it("spraak exports the public namespace, name for name", () => {
    expect(Object.keys(spraak).sort()).toEqual([
      "KEY_HEADER_RULES",
      "PROVISIONAL",
      "asBeginEnd",
      "asStartLength",
      "blobs",
      "channels",
      "convert",
      "corpusEntries",
      "corpusEntry",
      "decodeG711",
      "detect",
      "encodeG711",
      "entryTimes",
      "extensions",
      "id",
      "inspect",
      "list",
      "listFields",
      "loadTensor",
      "mapKeyHeader",
      "matrix",
      "read",
      "readFrom",
      "replaceTensors",
      "tensorInfos",
      "tensors",
      "toKeyHeader",
      "verify",
      "write",
      "writeTo",
    ]);
    expect(spraak.id).toBe("spraak");
  });

  it("primitiv exports the public namespace, name for name", () => {
    expect(Object.keys(primitiv).sort()).toEqual([
      "DATA_TYPE_CODES",
      "MAX_DIMS",
      "VERSION",
      "asFile",
      "blobs",
      "compareKeyPaths",
      "decodeKey",
      "detect",
      "extensions",
      "id",
      "inspect",
      "loadTensor",
      "logicalShape",
      "makeModel",
      "makeOptimizer",
      "makeParameter",
      "makeShape",
      "makeTensor",
      "namedTensors",
      "read",
      "readFrom",
      "replaceTensors",
      "tensorInfos",
      "tensorValues",
      "tensors",
      "verify",
      "write",
      "writeTo",
    ]);
    expect(primitiv.id).toBe("primitiv");
  });

  it("april exports the public namespace, name for name", () => {
    expect(Object.keys(april).sort()).toEqual([
      "HEADER_FIELDS",
      "MODEL_TYPE_LSTM_TRANSDUCER_STATELESS",
      "NETWORK_NAMES",
      "REFERENCE_PARAMS",
      "SETTABLE_FIELDS",
      "blobs",
      "create",
      "detect",
      "encodeHeaderAndParams",
      "extensions",
      "id",
      "inspect",
      "loadNetworks",
      "loadTensor",
      "networkModel",
      "quantize",
      "quantizeTo",
      "quantizeWithReport",
      "read",
      "readFrom",
      "replaceTensors",
      "setField",
      "tensorInfos",
      "tensors",
      "verify",
      "verifyErrors",
      "write",
      "writeTo",
    ]);
    expect(april.id).toBe("april");
  });

  it("onnx exports the public namespace, name for name", () => {
    expect(Object.keys(onnx).sort()).toEqual([
      "ATTRIBUTE_TYPES",
      "DATA_TYPES",
      "FP16_OPS",
      "MAX_GRAPH_DEPTH",
      "MIN_WEIGHT_ELEMENTS",
      "MODEL_FIELDS",
      "ONNX_DTYPES",
      "blobs",
      "create",
      "createPieces",
      "dataTypeName",
      "dataTypeOf",
      "deleteMetadata",
      "detect",
      "extensions",
      "id",
      "inspect",
      "loadTensor",
      "makeTensor",
      "nodeLabel",
      "parseShape",
      "quantize",
      "quantizeTo",
      "quantizeWithReport",
      "read",
      "readFrom",
      "renameValue",
      "replaceTensors",
      "setMetadata",
      "setModelField",
      "setShape",
      "tensorInfos",
      "tensors",
      "verify",
      "weights",
      "write",
      "writeTo",
    ]);
    expect(onnx.id).toBe("onnx");
    // create() gives a model object like the other builders: write() of it is the builder's bytes
    const input = {
      graph: {
        name: "g",
        nodes: [{ opType: "Relu", inputs: ["x"], outputs: ["y"] }],
        initializers: [{ name: "w", dtype: "float32" as const, dims: [2], data: new Float32Array([1.5, -2]) }],
        inputs: [{ name: "x", dtype: "float32" as const, shape: [2] }],
        outputs: [{ name: "y", dtype: "float32" as const, shape: [2] }],
      },
    };
    const model = onnx.create(input);
    expect(model.graph?.nodes[0]?.opType).toBe("Relu");
    expect(Array.from(onnx.tensors(model)[0]!.data as Float32Array)).toEqual([1.5, -2]);
    const pieces = onnx.createPieces(input);
    expect(Array.from(onnx.write(model))).toEqual(Array.from(new Uint8Array(pieces.flatMap((p) => Array.from(p)))));
  });
});
