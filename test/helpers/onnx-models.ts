/**
 * Hand-built ONNX models for tests, encoded field by field with the shared ProtoWriter (the wire encoder that
 * onnx-proto's decoder checks in onnx-proto-writer.test.ts), never with the reader's own writer.ts. Every knob is
 * for what exporters rarely write: typed fields of every data type (packed or not), external data, nested
 * subgraphs, unknown fields, Constant-only graphs.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";

const require = createRequire(import.meta.url);
const VAD_DIR = (() => {
  try {
    return join(dirname(require.resolve("@ricky0123/vad-web/package.json")), "dist");
  } catch {
    return "";
  }
})();
/** The real PyTorch-exported Silero VAD models that @ricky0123/vad-web ships (a devDependency), when installed. */
export const VAD_MODELS = ["silero_vad_legacy.onnx", "silero_vad_v5.onnx", "silero_vad_v6.onnx"]
  .map((f) => join(VAD_DIR, f))
  .filter((p) => VAD_DIR !== "" && existsSync(p));

export interface TensorSpec {
  name: string;
  dataType: number;
  dims: number[];
  raw?: Uint8Array;
  /** float_data (field 4). */
  floats?: number[];
  /** int32_data (field 5). */
  int32s?: number[];
  /** int64_data (field 7). */
  int64s?: (number | bigint)[];
  /** double_data (field 10). */
  doubles?: number[];
  /** uint64_data (field 11). */
  uint64s?: (number | bigint)[];
  strings?: string[];
  /** Write typed fields one tag per element instead of packed. */
  unpacked?: boolean;
  external?: { location: string; offset?: number; length?: number };
  /** An unknown field (number 99, varint) inside the TensorProto. */
  unknownField?: boolean;
}

export interface AttrSpec {
  name: string;
  /** AttributeProto.type (1 FLOAT, 2 INT, 4 TENSOR, 5 GRAPH, 7 INTS, 10 GRAPHS …). */
  type: number;
  f?: number;
  i?: number;
  s?: string;
  t?: TensorSpec;
  g?: GraphSpec;
  graphs?: GraphSpec[];
  ints?: number[];
  floats?: number[];
}

export interface NodeSpec {
  name?: string;
  opType: string;
  domain?: string;
  inputs: string[];
  outputs: string[];
  attrs?: AttrSpec[];
}

export interface ValueSpec {
  name: string;
  elemType: number;
  shape: (number | string)[];
}

export interface GraphSpec {
  name?: string;
  nodes?: NodeSpec[];
  initializers?: TensorSpec[];
  inputs?: ValueSpec[];
  outputs?: ValueSpec[];
}

export interface ModelSpec {
  irVersion?: number;
  opset?: number;
  producer?: string;
  graph: GraphSpec;
  /** An unknown top-level field (number 77, length-delimited) and one in the graph (number 66). */
  unknownFields?: boolean;
}

function typed(
  w: ProtoWriter,
  field: number,
  values: readonly (number | bigint)[],
  unpacked: boolean,
  kind: "varint" | "float" | "double",
): void {
  if (unpacked) {
    for (const v of values) {
      if (kind === "varint") w.uintField(field, v);
      else if (kind === "float") w.floatField(field, Number(v));
      else w.tag(field, 1).double(Number(v));
    }
    return;
  }
  const inner = new ProtoWriter();
  for (const v of values) {
    if (kind === "varint") inner.varint(v);
    else if (kind === "float") inner.float(Number(v));
    else inner.double(Number(v));
  }
  w.embed(field, inner);
}

export function writeTensor(w: ProtoWriter, t: TensorSpec): void {
  for (const d of t.dims) w.uintField(1, d);
  w.uintField(2, t.dataType);
  const unpacked = t.unpacked ?? false;
  if (t.floats) typed(w, 4, t.floats, unpacked, "float");
  if (t.int32s) typed(w, 5, t.int32s, unpacked, "varint");
  if (t.strings) for (const s of t.strings) w.stringField(6, s);
  if (t.int64s) typed(w, 7, t.int64s, unpacked, "varint");
  w.stringField(8, t.name);
  if (t.raw) w.bytesField(9, t.raw);
  if (t.doubles) typed(w, 10, t.doubles, unpacked, "double");
  if (t.uint64s) typed(w, 11, t.uint64s, unpacked, "varint");
  if (t.external) {
    const ext = t.external;
    w.messageField(13, (e) => e.stringField(1, "location").stringField(2, ext.location));
    if (ext.offset !== undefined)
      w.messageField(13, (e) => e.stringField(1, "offset").stringField(2, String(ext.offset)));
    if (ext.length !== undefined)
      w.messageField(13, (e) => e.stringField(1, "length").stringField(2, String(ext.length)));
    w.uintField(14, 1);
  }
  if (t.unknownField) w.uintField(99, 12345);
}

function writeValue(w: ProtoWriter, v: ValueSpec): void {
  w.stringField(1, v.name);
  w.messageField(2, (type) =>
    type.messageField(1, (tt) => {
      tt.uintField(1, v.elemType);
      tt.messageField(2, (shape) => {
        for (const d of v.shape)
          shape.messageField(1, (dim) => (typeof d === "number" ? dim.uintField(1, d) : dim.stringField(2, d)));
      });
    }),
  );
}

function writeAttr(w: ProtoWriter, a: AttrSpec): void {
  w.stringField(1, a.name);
  if (a.f !== undefined) w.floatField(2, a.f);
  if (a.i !== undefined) w.uintField(3, a.i);
  if (a.s !== undefined) w.stringField(4, a.s);
  if (a.t) w.messageField(5, (t) => writeTensor(t, a.t!));
  if (a.g) w.messageField(6, (g) => writeGraph(g, a.g!, false));
  if (a.floats) for (const f of a.floats) w.floatField(7, f);
  if (a.ints) for (const i of a.ints) w.uintField(8, i);
  if (a.graphs) for (const g of a.graphs) w.messageField(11, (gw) => writeGraph(gw, g, false));
  w.uintField(20, a.type);
}

export function writeGraph(w: ProtoWriter, g: GraphSpec, unknownFields: boolean): void {
  for (const n of g.nodes ?? []) {
    w.messageField(1, (nw) => {
      for (const i of n.inputs) nw.stringField(1, i);
      for (const o of n.outputs) nw.stringField(2, o);
      if (n.name !== undefined) nw.stringField(3, n.name);
      nw.stringField(4, n.opType);
      for (const a of n.attrs ?? []) nw.messageField(5, (aw) => writeAttr(aw, a));
      if (n.domain !== undefined) nw.stringField(7, n.domain);
    });
  }
  w.stringField(2, g.name ?? "g");
  for (const t of g.initializers ?? []) w.messageField(5, (tw) => writeTensor(tw, t));
  for (const v of g.inputs ?? []) w.messageField(11, (vw) => writeValue(vw, v));
  for (const v of g.outputs ?? []) w.messageField(12, (vw) => writeValue(vw, v));
  if (unknownFields) w.stringField(66, "kept as bytes");
}

export function buildModel(spec: ModelSpec): Uint8Array {
  const w = new ProtoWriter();
  w.uintField(1, spec.irVersion ?? 8);
  w.stringField(2, spec.producer ?? "tensorfile-tests");
  w.messageField(7, (g) => writeGraph(g, spec.graph, spec.unknownFields ?? false));
  w.messageField(8, (op) => op.stringField(1, "").uintField(2, spec.opset ?? 13));
  if (spec.unknownFields) w.stringField(77, "an unknown top-level field");
  return w.finish();
}

/** Little-endian bytes of a typed array. */
export function le(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength).slice();
}

/** y = x + bias (float32, shape [n]): the runtime-oracle model; the bias is raw_data or float_data. */
export function addBiasModel(bias: Float32Array, storage: "raw" | "floats"): Uint8Array {
  const n = bias.length;
  return buildModel({
    graph: {
      nodes: [{ name: "add", opType: "Add", inputs: ["x", "bias"], outputs: ["y"] }],
      initializers: [
        storage === "raw"
          ? { name: "bias", dataType: 1, dims: [n], raw: le(bias) }
          : { name: "bias", dataType: 1, dims: [n], floats: Array.from(bias) },
      ],
      inputs: [{ name: "x", elemType: 1, shape: [n] }],
      outputs: [{ name: "y", elemType: 1, shape: [n] }],
    },
  });
}

/** y = x + bias (int32, shape [n]), the bias in int32_data (varints: a patch changes its size). */
export function addInt32BiasModel(bias: Int32Array): Uint8Array {
  const n = bias.length;
  return buildModel({
    graph: {
      nodes: [{ name: "add", opType: "Add", inputs: ["x", "bias"], outputs: ["y"] }],
      initializers: [{ name: "bias", dataType: 6, dims: [n], int32s: Array.from(bias) }],
      inputs: [{ name: "x", elemType: 6, shape: [n] }],
      outputs: [{ name: "y", elemType: 6, shape: [n] }],
    },
  });
}
