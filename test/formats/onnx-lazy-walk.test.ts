/**
 * Lazy ONNX opens over sources that read only asynchronously (URLs, Blobs, custom sources): the header walk fetches
 * what the parser reads so the parser runs once (it restarted once per header before: quadratic in the weights);
 * malformed files give read()'s error; varint-typed payloads are not fetched by a lazy open (their entry count is
 * checked when the weight is decoded).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { LAZY_READ_STATS } from "../../bindings/formats/onnx/lazy-read.js";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { type GraphSpec, type TensorSpec, buildModel, le } from "../helpers/onnx-models.js";
import { inputForms } from "../helpers/input-formats.js";
import { choppySource, countingSource, sparseSource } from "../helpers/sources.js";

function bytesOf(t: NamedTensor): Uint8Array {
  const d = t.data as ArrayBufferView;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/** Runs `open` and gives how many times the parser ran and how many header walks were made. */
async function counted<T>(open: () => Promise<T>): Promise<{ result: T; parses: number; walks: number }> {
  const before = { ...LAZY_READ_STATS };
  const result = await open();
  return { result, parses: LAZY_READ_STATS.parses - before.parses, walks: LAZY_READ_STATS.walks - before.walks };
}

/** A model with every kind of header the parser reads: subgraphs with weights, Constants, attributes of each type, value infos, external data, unknown fields. */
function richModel(initializers: number): Uint8Array {
  const inner: GraphSpec = {
    name: "then",
    initializers: [
      { name: "lstm.weight", dataType: 1, dims: [4, 8], raw: le(new Float32Array(32).map((_, i) => i / 3)) },
    ],
    nodes: [
      {
        name: "c",
        opType: "Constant",
        inputs: [],
        outputs: ["k"],
        attrs: [{ name: "value", type: 4, t: { name: "", dataType: 7, dims: [3], int64s: [1, -2, 3] } }],
      },
    ],
    outputs: [{ name: "k", elemType: 7, shape: [3] }],
  };
  const weights: TensorSpec[] = [];
  for (let i = 0; i < initializers; i++) {
    const kind = i % 4;
    if (kind === 0) weights.push({ name: `w${i}`, dataType: 1, dims: [16], raw: le(new Float32Array(16).fill(i)) });
    else if (kind === 1) weights.push({ name: `w${i}`, dataType: 1, dims: [2, 2], floats: [i, 1, 2, 3] });
    else if (kind === 2)
      weights.push({ name: `w${i}`, dataType: 7, dims: [2], int64s: [BigInt(i), -1n], unknownField: true });
    else weights.push({ name: `w${i}`, dataType: 6, dims: [3], int32s: [i, -i, 7], unpacked: true });
  }
  weights.push({ name: "far", dataType: 1, dims: [4], external: { location: "weights.bin", offset: 16, length: 16 } });
  return buildModel({
    unknownFields: true,
    graph: {
      initializers: weights,
      inputs: [
        { name: "cond", elemType: 9, shape: [] },
        { name: "x", elemType: 1, shape: ["batch", 16] },
      ],
      nodes: [
        {
          name: "If_0",
          opType: "If",
          inputs: ["cond"],
          outputs: ["k"],
          attrs: [
            { name: "then_branch", type: 5, g: inner },
            { name: "else_branch", type: 5, g: inner },
          ],
        },
        {
          name: "conv",
          opType: "Conv",
          inputs: ["x", "w0"],
          outputs: ["y"],
          attrs: [
            { name: "alpha", type: 1, f: 0.5 },
            { name: "group", type: 2, i: 1 },
            { name: "auto_pad", type: 3, s: "NOTSET" },
            { name: "pads", type: 7, ints: [0, 1, 0, 1] },
            { name: "scales", type: 6, floats: [1.5, 2] },
          ],
        },
        {
          name: "loop",
          opType: "Loop",
          inputs: [],
          outputs: ["z"],
          attrs: [{ name: "bodies", type: 10, graphs: [inner, inner] }],
        },
      ],
      outputs: [
        { name: "k", elemType: 7, shape: [3] },
        { name: "y", elemType: 1, shape: ["batch", 16] },
      ],
    },
  });
}

/** An async-only source (no readSync, like fromUrl and fromBlob) counting reads and bytes. */
function asyncOnly(bytes: Uint8Array): ReturnType<typeof countingSource> {
  return countingSource(bytes);
}

describe("onnx: lazy opens over asynchronous sources run the parser once", () => {
  it("a rich model (subgraphs, Constants, attributes of each type, external data, unknown fields): one parse, the same infos as read()", async () => {
    const bytes = richModel(40);
    const eager = onnx.read(bytes);
    const forms = inputForms(bytes).map(([, form]) => fromBytes(form)); // a fresh array, a Buffer at an odd offset, an ArrayBuffer
    for (const source of [asyncOnly(bytes), ...forms, choppySource(bytes, 7)] as ByteSource[]) {
      const { result: model, parses, walks } = await counted(() => onnx.readFrom(source));
      expect(parses).toBe(1);
      expect(walks).toBe(1);
      expect(JSON.stringify(onnx.tensorInfos(model))).toBe(JSON.stringify(onnx.tensorInfos(eager)));
      expect(JSON.stringify(onnx.inspect(model))).toBe(JSON.stringify(onnx.inspect(eager)));
      expect(model.graph!.nodes[1]!.attributes.map((a) => a.type)).toEqual([
        "FLOAT",
        "INT",
        "STRING",
        "INTS",
        "FLOATS",
      ]);
    }
  });

  it("5,000 initializers: one parse, reads linear in the initializers, values equal read()'s", async () => {
    const count = 5000;
    const initializers: TensorSpec[] = [];
    // 8 KiB payloads: each header is past the 16 KiB jump read of the one before it only every other time
    for (let i = 0; i < count; i++)
      initializers.push({
        name: `layer.${i}.weight`,
        dataType: 1,
        dims: [2048],
        raw: le(new Float32Array(2048).fill(i)),
      });
    const bytes = buildModel({ graph: { initializers } });
    const source = asyncOnly(bytes);
    const { result: model, parses } = await counted(() => onnx.readFrom(source));
    expect(parses).toBe(1);
    expect(source.reads).toBeLessThanOrEqual(count + 2);
    const infos = onnx.tensorInfos(model);
    expect(infos).toHaveLength(count);
    for (const k of [0, 1234, count - 1]) {
      const t = await onnx.loadTensor(source, infos[k]!);
      expect((t.data as Float32Array)[2047]).toBe(k);
    }
  });

  it("4,000 weights and a node with axis=-1 (a 10-byte varint) per weight: one parse and the reads of the model without them", async () => {
    const count = 4000;
    /** Weights of 8 KiB (each header past the jump read of the one before), a Concat per weight with `axis`. */
    const model = (axis: number) => {
      const initializers: TensorSpec[] = [];
      const nodes: GraphSpec["nodes"] = [];
      for (let i = 0; i < count; i++) {
        initializers.push({ name: `w${i}`, dataType: 1, dims: [2048], raw: le(new Float32Array(2048).fill(i)) });
        nodes!.push({
          name: `cat${i}`,
          opType: "Concat",
          inputs: [`w${i}`],
          outputs: [`y${i}`],
          attrs: [{ name: "axis", type: 2, i: axis }],
        });
      }
      // unpacked int32_data with a negative entry: a 10-byte varint inside a weight's header
      initializers.push({ name: "ids", dataType: 6, dims: [3], int32s: [1, -2, 3], unpacked: true });
      return buildModel({ graph: { initializers, nodes } });
    };
    const open = async (bytes: Uint8Array) => {
      const source = asyncOnly(bytes);
      const { result, parses } = await counted(() => onnx.readFrom(source));
      return { model: result, parses, reads: source.reads };
    };
    const negative = await open(model(-1));
    const positive = await open(model(1));
    expect(positive.parses).toBe(1);
    expect(negative.parses).toBe(1);
    expect(negative.reads).toBeLessThanOrEqual(positive.reads + 2);
    expect(negative.model.graph!.nodes[count - 1]!.attributes[0]!.i).toBe(-1);
    expect(onnx.tensorInfos(negative.model)).toHaveLength(count + 1);
  });

  it("a virtual 1 GiB model of 1,030 raw_data initializers opens reading under 1 MiB plus a few KiB per initializer, parsing once", async () => {
    const count = 1030;
    const payload = 1 << 20;
    // the file: ModelProto { 1: ir_version, 7: graph { 5: TensorProto { dims, data_type, name, 9: raw_data } … }, 8: opset }
    const pieces: { offset: number; bytes: Uint8Array }[] = [];
    const heads: Uint8Array[] = [];
    for (let i = 0; i < count; i++) {
      const head = new ProtoWriter()
        .uintField(1, payload / 4)
        .uintField(2, 1)
        .stringField(8, `big.${i}`)
        .tag(9, 2)
        .varint(payload)
        .finish();
      heads.push(head);
    }
    const bodyLength = (h: Uint8Array) => h.length + payload;
    const tensorFields = heads.map((h) => new ProtoWriter().tag(5, 2).varint(bodyLength(h)).finish());
    const graphLength = heads.reduce((n, h, i) => n + tensorFields[i]!.length + bodyLength(h), 0);
    const top = new ProtoWriter().uintField(1, 8).tag(7, 2).varint(graphLength).finish();
    let at = 0;
    pieces.push({ offset: at, bytes: top });
    at += top.length;
    heads.forEach((h, i) => {
      pieces.push({ offset: at, bytes: tensorFields[i]! });
      at += tensorFields[i]!.length;
      pieces.push({ offset: at, bytes: h });
      at += h.length;
      pieces.push({ offset: at, bytes: new Uint8Array(16).fill(i & 0xff) }); // the start of the payload
      at += payload;
    });
    const tail = new ProtoWriter().messageField(8, (op) => op.uintField(2, 13)).finish();
    pieces.push({ offset: at, bytes: tail });
    at += tail.length;
    const source = sparseSource(at, pieces);
    expect(at).toBeGreaterThan(2 ** 30);
    const { result: model, parses } = await counted(() => onnx.readFrom(source));
    expect(parses).toBe(1);
    expect(source.bytesRead).toBeLessThan((1 << 20) + count * 20 * 1024);
    const infos = onnx.tensorInfos(model);
    expect(infos).toHaveLength(count);
    expect(infos[1029]!.name).toBe("big.1029");
    expect(model.opsetImports).toEqual([{ domain: "", version: 13 }]);
    const t = await onnx.loadTensor(source, infos[1029]!);
    expect(bytesOf(t)[15]).toBe(1029 & 0xff);
  });

  it("an .april of three real networks over an asynchronous source: one parse, three walks, the weights of read()", async () => {
    // each network also holds a varint-typed weight (an .april's lazy open counts their entries, as read() does)
    const net = (n: number) =>
      buildModel({
        graph: {
          initializers: [
            { name: "ids", dataType: 7, dims: [3], int64s: [n, -1, 2 ** 40] },
            ...Array.from({ length: n }, (_, i): TensorSpec => ({
              name: `p${i}`,
              dataType: 1,
              dims: [300],
              raw: le(new Float32Array(300).fill(i + n)),
            })),
          ],
        },
      });
    const bytes = april.write(
      april.create({ networks: { encoder: net(300), decoder: net(20), joiner: net(5) }, tokens: ["<blk>", "a"] }),
    );
    const source = asyncOnly(bytes);
    const { result: file, parses, walks } = await counted(() => april.readFrom(source));
    expect(parses).toBe(1);
    expect(walks).toBe(3);
    const infos = april.tensorInfos(file);
    expect(infos).toHaveLength(328);
    const eager = april.tensors(april.read(bytes));
    const last = await april.loadTensor(source, infos[327]!);
    expect(last.name).toBe("joiner/p4");
    expect(Buffer.from(bytesOf(last)).equals(Buffer.from(bytesOf(eager[327]!)))).toBe(true);
    const ids = await april.loadTensor(
      source,
      infos.find((i) => i.name === "decoder/ids")!,
    );
    expect(Array.from(ids.data as BigInt64Array)).toEqual([20n, -1n, 2n ** 40n]);
  });

  it("an .april whose networks are opaque blobs is not walked past their first bytes", async () => {
    const blob = new Uint8Array(1 << 20).fill(0x0a); // field 1, length-delimited: not a ModelProto
    const bytes = april.write(
      april.create({ networks: { encoder: blob, decoder: blob, joiner: blob }, tokens: ["<blk>"] }),
    );
    const source = asyncOnly(bytes);
    const { parses } = await counted(() => april.readFrom(source));
    expect(parses).toBe(1);
    expect(source.bytesRead).toBeLessThan(256 * 1024);
  });
});

describe("onnx: varint-typed payloads are not fetched by a lazy open", () => {
  const values = BigInt64Array.from({ length: 50_000 }, (_, i) => BigInt(i) * 1_000_003n - 7n);

  it("int64_data of 50,000 entries: the lazy open reads its header only, loadTensor decodes it", async () => {
    const bytes = buildModel({
      graph: { initializers: [{ name: "ids", dataType: 7, dims: [values.length], int64s: Array.from(values) }] },
    });
    expect(bytes.length).toBeGreaterThan(150_000);
    for (const make of [
      (b: Uint8Array) => countingSource(b),
      (b: Uint8Array) => ({ ...countingSource(b), readSync: undefined }),
    ]) {
      const source = make(bytes);
      const model = await onnx.readFrom(source);
      expect(source.bytesRead).toBeLessThan(20 * 1024);
      const t = await onnx.loadTensor(source, onnx.tensorInfos(model)[0]!);
      expect(Array.from(t.data as BigInt64Array)).toEqual(Array.from(values));
    }
  });

  it("a wrong entry count: read() refuses it, a lazy open accepts the headers and loadTensor refuses the weight (CORRUPT, with its offset)", async () => {
    for (const t of [
      { name: "short", dataType: 6, dims: [4], int32s: [1, 2, 3] },
      { name: "long", dataType: 7, dims: [2], int64s: [1, 2, 3] },
      { name: "u64", dataType: 13, dims: [3], uint64s: [1, 2] },
    ] as TensorSpec[]) {
      const bytes = buildModel({ graph: { initializers: [t] } });
      let eagerError: unknown;
      try {
        onnx.read(bytes);
      } catch (error) {
        eagerError = error;
      }
      expect(isFormatError(eagerError) && eagerError.code).toBe("CORRUPT");
      const model = await onnx.readFrom(fromBytes(bytes));
      const info = onnx.tensorInfos(model)[0]!;
      await expect(onnx.loadTensor(fromBytes(bytes), info)).rejects.toMatchObject({
        code: "CORRUPT",
        offset: expect.any(Number),
      });
    }
  });
});

describe("onnx: a malformed model gives read()'s error through the header walk", () => {
  const tensorArb = fc
    .record({
      name: fc.string({ maxLength: 6 }),
      kind: fc.constantFrom("raw", "floats", "int64s", "int32s"),
      n: fc.integer({ min: 0, max: 40 }),
    })
    .map(({ name, kind, n }): TensorSpec => {
      const dims = [n];
      if (kind === "raw") return { name, dataType: 1, dims, raw: le(new Float32Array(n).fill(1.5)) };
      if (kind === "floats") return { name, dataType: 1, dims, floats: Array.from({ length: n }, (_, i) => i) };
      if (kind === "int64s") return { name, dataType: 7, dims, int64s: Array.from({ length: n }, (_, i) => i * 300) };
      return { name, dataType: 6, dims, int32s: Array.from({ length: n }, (_, i) => -i) };
    });
  const modelArb = fc
    .record({ initializers: fc.array(tensorArb, { maxLength: 6 }), sub: fc.array(tensorArb, { maxLength: 3 }) })
    .map(({ initializers, sub }) =>
      buildModel({
        graph: {
          initializers,
          nodes: [
            {
              name: "If_0",
              opType: "If",
              inputs: ["c"],
              outputs: ["o"],
              attrs: [{ name: "then_branch", type: 5, g: { initializers: sub } }],
            },
          ],
          inputs: [{ name: "c", elemType: 9, shape: [1] }],
        },
      }),
    );
  const mutationArb = fc.record({
    at: fc.nat(),
    kind: fc.constantFrom("flip", "truncate", "byte"),
    value: fc.integer({ min: 0, max: 255 }),
  });

  it("every mutated model: readFrom (async source) rejects as read() does, or accepts where only a varint entry count is wrong", async () => {
    await fc.assert(
      fc.asyncProperty(modelArb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), async (original, mutations) => {
        let bytes = original.slice();
        for (const m of mutations) {
          if (bytes.length === 0) break;
          const at = m.at % bytes.length;
          if (m.kind === "truncate") bytes = bytes.slice(0, at);
          else if (m.kind === "flip") bytes[at] = bytes[at]! ^ (1 << (m.value & 7));
          else bytes[at] = m.value;
        }
        const outcome = async (fn: () => unknown) => {
          try {
            await fn();
            return "ok";
          } catch (error) {
            if (!isFormatError(error)) throw error;
            return `${error.code} ${error.offset} ${error.field} ${error.detail}`;
          }
        };
        const eager = await outcome(() => onnx.read(bytes));
        const { result: lazy, parses } = await counted(() => outcome(() => onnx.readFrom(asyncOnly(bytes))));
        // the walk foresees what the parser reads; a malformed file may stop it early (one restart fetches the rest)
        expect(parses).toBeLessThanOrEqual(2);
        if (lazy === eager) return;
        // the one difference: a varint-typed field whose entries are malformed or do not fill the dims, which a lazy
        // open does not read (no payload): it opens, or stops at a later fault, and the weight is refused when decoded
        expect(eager).toMatch(
          /^CORRUPT \d+ \S+\.(int32|int64|uint64)_data (need \d+|varint|packed varint)|^CORRUPT .* need \d+ (int32|int64|uint64)_data entries/,
        );
        if (lazy !== "ok") return;
        const model = await onnx.readFrom(fromBytes(bytes));
        let refused = false;
        for (const info of onnx.tensorInfos(model)) {
          refused ||= (await outcome(() => onnx.loadTensor(fromBytes(bytes), info))).startsWith("CORRUPT");
        }
        expect(refused).toBe(true);
      }),
      { seed: 2411, numRuns: 400 },
    );
  });
});

describe("april: a lazy open of a local file counts large varint payloads in windows it does not keep", () => {
  /** A source with readSync (a local file's kind) recording the largest read. */
  function syncSource(bytes: Uint8Array) {
    const source = {
      size: bytes.length,
      largest: 0,
      read: async (o: number, n: number) => bytes.subarray(o, o + n),
      readSync: (o: number, n: number) => {
        source.largest = Math.max(source.largest, n);
        return bytes.subarray(o, o + n);
      },
    };
    return source;
  }
  const n = 1_600_000; // float16 bit patterns as 3-byte varints: a 4.8 MB payload
  const halves = Array.from({ length: n }, (_, i) => 0x4000 + (i % 1000));

  it("the counts are read()'s and no read is larger than a window", async () => {
    const net = buildModel({ graph: { initializers: [{ name: "big", dataType: 10, dims: [n], int32s: halves }] } });
    const bytes = april.write(
      april.create({ networks: { encoder: net, decoder: net, joiner: net }, tokens: ["<blk>"] }),
    );
    const source = syncSource(bytes);
    const file = await april.readFrom(source);
    expect(source.largest).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(april.tensorInfos(file).map((i) => i.name)).toEqual(["encoder/big", "decoder/big", "joiner/big"]);
    const t = await april.loadTensor(source, april.tensorInfos(file)[1]!);
    expect((t.data as Uint16Array)[999_999]).toBe(0x4000 + 999);
  });

  it("a wrong count or a varint cut off gives the network read()'s error", async () => {
    for (const broken of [
      buildModel({ graph: { initializers: [{ name: "big", dataType: 10, dims: [n + 1], int32s: halves }] } }),
      (() => {
        const net = buildModel({ graph: { initializers: [{ name: "big", dataType: 10, dims: [n], int32s: halves }] } });
        const at = net.length - 40; // inside the payload, near its end: a run of continuation bytes
        net.fill(0xff, at, at + 12);
        return net;
      })(),
    ]) {
      const bytes = april.write(
        april.create({ networks: { encoder: broken, decoder: broken, joiner: broken }, tokens: ["<blk>"] }),
      );
      const eager = april.read(bytes);
      const lazy = await april.readFrom(syncSource(bytes));
      expect(eager.onnxErrors?.encoder).toMatch(/CORRUPT|entries|varint/i);
      expect(lazy.onnxErrors).toEqual(eager.onnxErrors);
    }
  });
});
