/**
 * ONNX as protobuf defines it: fields in any order (repeated ones interleaved with others), unknown fields of every
 * wire type (varint, fixed64, length-delimited, fixed32, groups: wire 3 … 4, nested) in every message, the
 * ModelProto included. Models are written with onnx-proto (protobufjs, canonical order) and rewritten with the
 * tests' own codec (helpers/proto-shuffle.ts); every read path is checked against onnx-proto's decode of the same
 * bytes. Before this, a group anywhere was CORRUPT and detection wanted ir_version first.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import onnxProto from "onnx-proto";
import { afterEach, describe, expect, it } from "vitest";
import { detectFormat, formatOfName, readAny, readFromAny } from "../../bindings/any.js";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { TYPED_CHUNK_TUNING, typedFieldChunks } from "../../bindings/formats/onnx/typed-chunks.js";
import { loadBlob, loadFile, openFile } from "../../bindings/load-file.js";
import { patchFrom } from "../../bindings/patch.js";
import { fromBlob, fromBytes } from "../../bindings/io/source.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { cli } from "../helpers/cli.js";
import { hostileModel, moveFieldLast } from "../helpers/proto-shuffle.js";

const { onnx: proto } = onnxProto;
type ProtoTensor = onnxProto.onnx.ITensorProto;
type ProtoGraph = onnxProto.onnx.IGraphProto;

const le = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
const bytesOf = (t: NamedTensor): Uint8Array => {
  const d = t.data as ArrayBufferView;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
};
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** onnx-proto's view of the weights: name, dims and the values as raw_data bytes. */
function oracle(bytes: Uint8Array): { name: string; dims: number[]; data: Uint8Array }[] {
  const model = proto.ModelProto.decode(bytes);
  const out: { name: string; dims: number[]; data: Uint8Array }[] = [];
  const dataOf = (t: ProtoTensor): Uint8Array => {
    if (t.rawData && t.rawData.length > 0) return new Uint8Array(t.rawData);
    if (t.dataType === 1) return le(new Float32Array(t.floatData ?? []));
    if (t.dataType === 11) return le(new Float64Array(t.doubleData ?? []));
    if (t.dataType === 7) return le(BigInt64Array.from((t.int64Data ?? []).map((v) => BigInt(String(v)))));
    if (t.dataType === 6) return le(Int32Array.from(t.int32Data ?? []));
    throw new Error(`oracle: data type ${t.dataType}`);
  };
  const walk = (g: ProtoGraph, prefix: string) => {
    for (const t of g.initializer ?? [])
      out.push({ name: prefix + t.name, dims: (t.dims ?? []).map(Number), data: dataOf(t) });
    (g.node ?? []).forEach((n, i) => {
      const label = n.name ? n.name : `${n.opType}#${i}`;
      if (n.opType === "Constant") {
        const value = (n.attribute ?? []).find((a) => a.name === "value" && a.t);
        if (value?.t)
          out.push({ name: prefix + n.output![0]!, dims: (value.t.dims ?? []).map(Number), data: dataOf(value.t) });
      }
      for (const a of n.attribute ?? []) {
        if (a.g) walk(a.g, `${prefix}${label}/${a.name}/`);
        (a.graphs ?? []).forEach((sub, k) => walk(sub, `${prefix}${label}/${a.name}/${k}/`));
      }
    });
  };
  if (model.graph) walk(model.graph, "");
  return out;
}

const f32 = (values: number[]) => le(new Float32Array(values));
const tensorType = (elemType: number, dims: (number | string)[]) => ({
  tensorType: {
    elemType,
    shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
  },
});

/** A model with every storage the reader handles and nested If subgraphs, written by onnx-proto (canonical order). */
function baseModel(): Uint8Array {
  const branch = (tag: string, value: number) => ({
    name: `${tag}_graph`,
    initializer: [{ name: `${tag}_w`, dataType: 1, dims: [2], rawData: f32([value, -value]) }],
    node: [{ opType: "Identity", input: [`${tag}_w`], output: [`${tag}_out`], name: `${tag}_id` }],
    output: [{ name: `${tag}_out`, type: tensorType(1, [2]) }],
  });
  const model = proto.ModelProto.create({
    irVersion: 9,
    producerName: "tests",
    producerVersion: "1",
    domain: "ai.tests",
    modelVersion: 3,
    docString: "hostile",
    opsetImport: [
      { domain: "", version: 17 },
      { domain: "com.microsoft", version: 1 },
    ],
    metadataProps: [
      { key: "a", value: "1" },
      { key: "b", value: "2" },
    ],
    graph: {
      name: "main",
      input: [
        { name: "x", type: tensorType(1, [2, "N"]) },
        { name: "cond", type: tensorType(9, []) },
      ],
      output: [{ name: "y", type: tensorType(1, [2]) }],
      valueInfo: [{ name: "sum", type: tensorType(1, [2, "N"]) }],
      initializer: [
        { name: "w", dataType: 1, dims: [2, 3], rawData: f32([1, 2, 3, 4, 5, 6.5]) },
        { name: "floats", dataType: 1, dims: [4], floatData: [0.5, -1, 3.25, 1e-3] },
        { name: "ids", dataType: 7, dims: [3], int64Data: [-5, 2 ** 40, 7] },
        { name: "doubles", dataType: 11, dims: [2], doubleData: [Math.PI, -0] },
      ],
      node: [
        {
          opType: "Constant",
          output: ["k"],
          name: "const",
          attribute: [{ name: "value", type: 4, t: { dataType: 6, dims: [2], int32Data: [-3, 9] } }],
        },
        {
          opType: "Add",
          input: ["x", "w"],
          output: ["sum"],
          name: "add",
          attribute: [
            { name: "alpha", type: 1, f: 0.25 },
            { name: "axes", type: 7, ints: [1, -2] },
          ],
        },
        {
          opType: "If",
          input: ["cond"],
          output: ["y"],
          name: "branch",
          attribute: [
            { name: "then_branch", type: 5, g: branch("then", 1) },
            { name: "else_branch", type: 5, g: branch("else", 2) },
          ],
        },
      ],
    },
  });
  return proto.ModelProto.encode(model).finish();
}

const BASE = baseModel();
const DEFAULT_TUNING = { ...TYPED_CHUNK_TUNING };
afterEach(() => Object.assign(TYPED_CHUNK_TUNING, DEFAULT_TUNING));

describe("onnx: fields in any order and unknown fields of every wire type, in every message", () => {
  const cases = [
    { how: { shuffle: true }, seeds: [1, 2, 3, 4, 5] },
    { how: { unknown: true }, seeds: [11, 12, 13] },
    { how: { shuffle: true, unknown: true }, seeds: [21, 22, 23, 24, 25, 26] },
  ];
  for (const { how, seeds } of cases) {
    for (const seed of seeds) {
      it(`${JSON.stringify(how)} seed ${seed}: read, readFrom (bytes, Blob), write and patch agree with onnx-proto`, async () => {
        const { bytes, unknownInserted } = hostileModel(BASE, how, seed);
        expect(same(bytes, BASE)).toBe(false);
        const expected = oracle(bytes);
        expect(expected.map((e) => e.name)).toEqual(oracle(BASE).map((e) => e.name));
        // read(): every weight bit-exact, the unknown fields counted, the metadata as onnx-proto decodes it
        const model = onnx.read(bytes);
        expect(model.unknownFieldCount).toBe(unknownInserted);
        const decoded = proto.ModelProto.decode(bytes);
        expect(model.irVersion).toBe(Number(decoded.irVersion));
        expect(model.producerName).toBe(decoded.producerName);
        expect(model.opsetImports).toEqual(
          decoded.opsetImport.map((o) => ({ domain: o.domain ?? "", version: Number(o.version) })),
        );
        expect(model.metadataProps).toEqual(decoded.metadataProps.map((e) => ({ key: e.key, value: e.value })));
        expect(model.graph!.inputs.map((v) => v.type.shape)).toEqual([[2, "N"], []]);
        const tensors = onnx.tensors(model);
        expect(tensors.map((t) => t.name)).toEqual(expected.map((e) => e.name));
        tensors.forEach((t, i) => {
          expect(t.shape).toEqual(expected[i]!.dims);
          expect(same(bytesOf(t), expected[i]!.data)).toBe(true);
        });
        // write(read(x)) is x
        expect(same(onnx.write(model), bytes)).toBe(true);
        // lazy opens: a source that reads synchronously, and a Blob (the header walk first)
        for (const source of [fromBytes(bytes, "m.onnx"), fromBlob(new Blob([new Uint8Array(bytes)]), "m.onnx")]) {
          const lazy = await onnx.readFrom(source);
          expect(lazy.unknownFieldCount).toBe(unknownInserted);
          const infos = onnx.tensorInfos(lazy);
          expect(infos.map((i) => i.name)).toEqual(expected.map((e) => e.name));
          for (const [i, info] of infos.entries())
            expect(same(bytesOf(await onnx.loadTensor(source, info)), expected[i]!.data)).toBe(true);
        }
        // the streamed decode of typed-field weights (convert, verify, stats of large ones), in tiny windows
        Object.assign(TYPED_CHUNK_TUNING, { windowBytes: 5, pieceBytes: 4, minBytes: 0 });
        const source = fromBytes(bytes);
        for (const [i, info] of onnx.tensorInfos(model).entries()) {
          if (!(info as onnx.OnnxTensorInfo).onnx) continue;
          const pieces: Uint8Array[] = [];
          for await (const piece of typedFieldChunks(source, info, undefined)) pieces.push(piece.slice());
          expect(same(Buffer.concat(pieces), expected[i]!.data), info.name).toBe(true);
        }
        Object.assign(TYPED_CHUNK_TUNING, DEFAULT_TUNING);
        // patch: a raw_data weight in place, a typed one re-encoded; onnx-proto reads the result
        const patched = await patchFrom(fromBytes(bytes, "m.onnx"), {
          w: { name: "w", dtype: "float32", shape: [2, 3], data: new Float32Array([6, 5, 4, 3, 2, 1]) },
          floats: { name: "floats", dtype: "float32", shape: [4], data: new Float32Array([9, 8, 7, 6]) },
        });
        const after = oracle(patched.bytes);
        expect(after.map((e) => e.name)).toEqual(expected.map((e) => e.name));
        after.forEach((e, i) => {
          const want =
            e.name === "w" ? f32([6, 5, 4, 3, 2, 1]) : e.name === "floats" ? f32([9, 8, 7, 6]) : expected[i]!.data;
          expect(same(e.data, want), e.name).toBe(true);
        });
        expect(onnx.read(patched.bytes).unknownFieldCount).toBe(unknownInserted);
      });
    }
  }

  it("a group that is not closed, an end group without a start, or one closing another field's group is CORRUPT with its offset", () => {
    const graph = proto.ModelProto.encode({ irVersion: 9, graph: { name: "g" } }).finish();
    for (const tail of [
      [0xfb, 0x05],
      [0xfc, 0x05],
      [0xfb, 0x05, 0x84, 0x06],
    ]) {
      const bytes = Uint8Array.from([...graph, ...tail]);
      try {
        onnx.read(bytes);
        expect.unreachable();
      } catch (error) {
        expect(isFormatError(error)).toBe(true);
        expect((error as { offset?: number }).offset).toBeGreaterThanOrEqual(graph.length);
      }
    }
  });
});

describe("onnx: a minimal model in any field order is detected; a .onnx name chooses the parser", () => {
  const minimal = proto.ModelProto.encode({
    irVersion: 8,
    opsetImport: [{ domain: "", version: 17 }],
    graph: { node: [{ opType: "Relu", input: ["x"], output: ["y"] }] },
  }).finish();

  it("a name chooses the parser by its extension only (a URL without its query)", () => {
    expect(formatOfName("dir/model.onnx")).toBe("onnx");
    expect(formatOfName("MODEL.ONNX")).toBe("onnx");
    expect(formatOfName("https://example.com/m.onnx?token=1#x")).toBe("onnx");
    expect(formatOfName("model.onnx.bin")).toBeUndefined();
    expect(formatOfName("onnx")).toBeUndefined();
    expect(formatOfName(undefined)).toBeUndefined();
  });

  it("every order of ir_version, graph and opset_import (and of the node's fields): detectFormat, readAny, CLI", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-order-"));
    try {
      for (let seed = 1; seed <= 24; seed++) {
        const { bytes } = hostileModel(minimal, { shuffle: true }, seed);
        expect(detectFormat(bytes), Buffer.from(bytes).toString("hex")).toBe("onnx");
        expect(readAny(bytes).format).toBe("onnx");
        expect(onnx.read(bytes).graph!.nodes[0]!.opType).toBe("Relu");
      }
      const irLast = moveFieldLast(minimal, 1);
      expect(irLast[0]).not.toBe(0x08);
      expect(detectFormat(irLast)).toBe("onnx");
      const path = join(dir, "m.bin"); // no .onnx: the content decides
      writeFileSync(path, irLast);
      expect((await loadFile(path)).format).toBe("onnx");
      const verified = await cli("verify", path);
      expect(verified.code, verified.stderr).toBe(0);
      expect((await cli("inspect", path)).stdout).toMatch(/format\s+onnx/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a model whose ir_version comes after a large graph: unsure by content, read by its .onnx name (path, Blob, CLI)", async () => {
    const big = proto.ModelProto.encode({
      irVersion: 9,
      opsetImport: [{ domain: "", version: 17 }],
      graph: {
        name: "g",
        initializer: [{ name: "w", dataType: 1, dims: [64], rawData: f32(Array.from({ length: 64 }, (_, i) => i)) }],
      },
    }).finish();
    // graph first (its 256-byte weight fills the head), ir_version last: content detection is unsure
    const late = moveFieldLast(moveFieldLast(big, 8), 1);
    expect(detectFormat(late.subarray(0, 64))).toBeUndefined();
    expect(() => readAny(late)).toThrow(/unknown format/);
    expect(readAny(late, "model.ONNX").format).toBe("onnx");
    expect((await readFromAny(fromBytes(late, "dir/model.onnx"))).format).toBe("onnx");
    expect((await loadBlob(new File([new Uint8Array(late)], "model.onnx"))).tensors.map((t) => t.name)).toEqual(["w"]);
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-name-"));
    try {
      const named = join(dir, "late.onnx");
      writeFileSync(named, late);
      const loaded = await loadFile(named);
      expect(loaded.format).toBe("onnx");
      expect(Array.from(loaded.tensors[0]!.data as Float32Array)).toEqual(Array.from({ length: 64 }, (_, i) => i));
      const opened = await openFile(named);
      expect(opened.format).toBe("onnx");
      await opened.close();
      const verified = await cli("verify", named);
      expect(verified.code, verified.stderr).toBe(0);
      // the same bytes without the name: not recognised
      const unnamed = join(dir, "late.bin");
      writeFileSync(unnamed, late);
      expect((await cli("verify", unnamed)).stderr).toMatch(/unknown format/);
      // a .onnx that is not ONNX: the parser's error (code, offset, field), not "unknown format"
      const garbage = join(dir, "garbage.onnx");
      writeFileSync(garbage, Uint8Array.from([0x08, 0x09, 0x3a, 0x7f, 0x00]));
      for (const command of ["verify", "inspect"]) {
        const r = await cli(command, garbage);
        expect(r.code).toBe(1);
        expect(r.stderr).not.toMatch(/unknown format/);
        expect(r.stderr).toMatch(/onnx: .*at offset \d+/);
        expect(r.stderr).toMatch(/\[model\.graph/);
      }
      await expect(loadFile(garbage)).rejects.toSatisfy(
        (e: unknown) => isFormatError(e) && (e as { code: string }).code !== "BAD_MAGIC",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
