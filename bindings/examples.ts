/**
 * Small files of every format, made with the library's own writers and builders: the demo (`npm run demo`)
 * inspects, converts and verifies them, and the CLI tests run every command on them. Deterministic.
 */
import * as april from "./formats/april.js";
import * as bw2l from "./formats/bw2l.js";
import { ProtoWriter } from "./formats/onnx/proto-writer.js";
import * as primitiv from "./formats/primitiv.js";
import * as spraak from "./formats/spraak.js";
import * as tsm from "./formats/tsm.js";
import type { FormatId } from "./formats/types.js";
import * as kernels from "./kernels/index.js";

export interface ExampleFile {
  format: FormatId;
  /** A file name with the format's usual extension. */
  name: string;
  bytes: Uint8Array;
  /** What the file shows off. */
  description: string;
  /** True when it holds float16 tensors (for --dtype float32). */
  hasFloat16: boolean;
}

/** n values of a smooth, sign-changing ramp (deterministic stand-ins for weights). */
function ramp(n: number, scale = 0.01): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) * scale * (1 + (i % 7)));
}

function bw2lExample(): ExampleFile {
  const file = bw2l.create({
    version: 2,
    flags: { criterion: "ctc", samplerate: "16000", filterbanks: "40", featuresType: "mfsc" },
    config: { criterion: "ctc" },
    tokens: ["a", "b", "c", "'", "|", "#"],
    layers: [
      {
        arch: "C 40 16 3 1 1 1",
        params: [
          { dims: [3, 1, 40, 16], data: ramp(3 * 40 * 16) },
          { dims: [1, 1, 16, 1], data: ramp(16) },
        ],
      },
      { arch: "R" },
      {
        arch: "L 16 6",
        params: [
          { dtype: "fp16", dims: [6, 16, 1, 1], data: kernels.f32ToF16(ramp(96, 0.5)) },
          { dims: [6, 1, 1, 1], data: ramp(6) },
        ],
      },
    ],
    spm: new TextEncoder().encode("(a sentencepiece model would go here)"),
  });
  return {
    format: "bw2l",
    name: "demo.b2l",
    bytes: bw2l.write(file),
    hasFloat16: true,
    description: "a v2 CTC model: conv + linear layers (one fp16 param), flags, tokens, an spm section",
  };
}

/** Little-endian bytes of a typed array. */
function leBytes(array: Float32Array | Uint16Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * A small ONNX model, y = MatMul(x, weight) + bias, encoded field by field (protobuf wire format): the weight as
 * raw_data, the bias in float_data, a scale Constant (float16 in int32_data, cast to float) and, with `subgraph`, an If node
 * whose then-branch holds its own initializer (named `If_0/then_branch/gain`).
 */
function onnxNetwork(name: string, rows: number, cols: number, subgraph: boolean): Uint8Array {
  const tensor = (
    w: ProtoWriter,
    t: {
      name: string;
      dataType: number;
      dims: number[];
      raw?: Uint8Array;
      floats?: Float32Array;
      int32s?: Uint16Array;
    },
  ) => {
    for (const d of t.dims) w.uintField(1, d);
    w.uintField(2, t.dataType);
    if (t.floats) w.bytesField(4, leBytes(t.floats));
    if (t.int32s) w.messageField(5, (p) => t.int32s!.forEach((v) => p.varint(v)));
    w.stringField(8, t.name);
    if (t.raw) w.bytesField(9, t.raw);
  };
  const value = (w: ProtoWriter, v: string, dims: number[]) => {
    w.stringField(1, v);
    w.messageField(2, (type) =>
      type.messageField(1, (tt) => {
        tt.uintField(1, 1);
        tt.messageField(2, (shape) => dims.forEach((d) => shape.messageField(1, (dim) => dim.uintField(1, d))));
      }),
    );
  };
  const node = (
    w: ProtoWriter,
    op: string,
    nodeName: string,
    inputs: string[],
    outputs: string[],
    attrs?: (a: ProtoWriter) => void,
  ) => {
    inputs.forEach((i) => w.stringField(1, i));
    outputs.forEach((o) => w.stringField(2, o));
    w.stringField(3, nodeName).stringField(4, op);
    if (attrs) w.messageField(5, attrs);
  };
  const model = new ProtoWriter().uintField(1, 8).stringField(2, "tensorfile examples").stringField(3, "1");
  model.messageField(7, (g) => {
    g.messageField(1, (n) => node(n, "MatMul", "matmul", ["x", "weight"], ["xw"]));
    g.messageField(1, (n) => node(n, "Add", "add", ["xw", "bias"], ["y0"]));
    g.messageField(1, (n) =>
      node(n, "Constant", "scale_const", [], ["scale"], (a) => {
        a.stringField(1, "value")
          .messageField(5, (t) =>
            tensor(t, { name: "scale", dataType: 10, dims: [1], int32s: kernels.f32ToF16(Float32Array.of(0.5)) }),
          )
          .uintField(20, 4);
      }),
    );
    g.messageField(1, (n) =>
      node(n, "Cast", "cast_scale", ["scale"], ["scale32"], (a) =>
        a.stringField(1, "to").uintField(3, 1).uintField(20, 2),
      ),
    );
    g.messageField(1, (n) => node(n, "Mul", "mul", ["y0", "scale32"], [subgraph ? "y1" : "y"]));
    if (subgraph) {
      g.messageField(1, (n) =>
        node(n, "Constant", "cond_const", [], ["cond"], (a) => {
          a.stringField(1, "value")
            .messageField(5, (t) => tensor(t, { name: "cond", dataType: 9, dims: [], raw: Uint8Array.of(1) }))
            .uintField(20, 4);
        }),
      );
      g.messageField(1, (n) => {
        node(n, "If", "If_0", ["cond"], ["y"]);
        for (const branch of ["then_branch", "else_branch"]) {
          n.messageField(5, (a) => {
            a.stringField(1, branch);
            a.messageField(6, (sub) => {
              sub.messageField(1, (m) => node(m, "Mul", `${branch}_mul`, ["y1", "gain"], [`${branch}_y`]));
              sub.stringField(2, branch);
              sub.messageField(5, (t) =>
                tensor(t, {
                  name: "gain",
                  dataType: 1,
                  dims: [cols],
                  raw: leBytes(branch === "then_branch" ? ramp(cols, 2) : ramp(cols, 2).map((v) => 0.5 - v)),
                }),
              );
              sub.messageField(12, (v) => value(v, `${branch}_y`, [1, cols]));
            });
            a.uintField(20, 5);
          });
        }
      });
    }
    g.stringField(2, name);
    g.messageField(5, (t) =>
      tensor(t, { name: "weight", dataType: 1, dims: [rows, cols], raw: leBytes(ramp(rows * cols, 1)) }),
    );
    g.messageField(5, (t) => tensor(t, { name: "bias", dataType: 1, dims: [cols], floats: ramp(cols, 0.1) }));
    g.messageField(11, (v) => value(v, "x", [1, rows]));
    g.messageField(12, (v) => value(v, "y", [1, cols]));
  });
  model.messageField(8, (op) => op.stringField(1, "").uintField(2, 13));
  return model.finish();
}

function onnxExample(): ExampleFile {
  return {
    format: "onnx",
    name: "demo.onnx",
    bytes: onnxNetwork("demo", 8, 4, true),
    hasFloat16: true,
    description:
      "an ONNX model: MatMul + Add + Mul and an If subgraph; raw_data, float_data and float16 (int32_data) weights",
  };
}

function aprilExample(): ExampleFile {
  const file = april.create({
    networks: {
      encoder: onnxNetwork("encoder", 16, 8, false),
      decoder: onnxNetwork("decoder", 8, 8, false),
      joiner: onnxNetwork("joiner", 8, 8, true),
    },
    tokens: ["<blk>", "<sos/eos>", "<unk>", "▁the", "▁a", "s", "▁of", "."],
    name: "Demo model",
    description: "Packaged by tensorfile's april.create()",
  });
  return {
    format: "april",
    name: "demo.april",
    bytes: april.write(file),
    hasFloat16: false,
    description: "an april-asr model in the reference layout: header, three small ONNX networks, params and 8 tokens",
  };
}

function tsmExample(): ExampleFile {
  const module = tsm.create({
    nodes: [
      {
        op: "<param>",
        name: "input",
        params: { "#shape": { dtype: "int32", shape: [2], data: new Int32Array([1, 3]) } },
      },
      { op: "<const>", name: "weight", value: { dtype: "float32", shape: [4, 3], data: ramp(12, 1) } },
      { op: "<const>", name: "bias", value: { dtype: "float16", shape: [4], data: kernels.f32ToF16(ramp(4, 1)) } },
      {
        op: "inner_prod",
        name: "fc",
        inputs: ["input", "weight"],
        params: { transpose: { dtype: "bool", shape: [], data: new Uint8Array([1]) } },
      },
      // TenniS's add_bias refuses a float16 bias on a float32 layer: the bias is cast to float32 first
      { op: "to_float", name: "bias_float32", inputs: ["bias"] },
      {
        op: "add_bias",
        name: "fc_bias",
        inputs: ["fc", "bias_float32"],
        params: { dim: { dtype: "int32", shape: [], data: new Int32Array([1]) } },
      },
      { op: "sigmoid", name: "output", inputs: ["fc_bias"] },
    ],
    inputs: ["input"],
    outputs: ["output"],
  });
  return {
    format: "tsm",
    name: "demo.tsm",
    bytes: tsm.write(module),
    hasFloat16: true,
    description: "a TenniS module: input -> inner_prod -> add_bias (its float16 bias cast by to_float) -> sigmoid",
  };
}

function primitivExample(): ExampleFile {
  const w = primitiv.makeTensor([3, 2], ramp(6, 1));
  const b = primitiv.makeTensor([3], ramp(3, 1));
  const model = primitiv.makeModel([
    [
      ["encoder", "w"],
      primitiv.makeParameter(w, [
        ["Adam.m1", primitiv.makeTensor([3, 2], ramp(6))],
        ["Adam.m2", primitiv.makeTensor([3, 2], ramp(6, 0.001))],
      ]),
    ],
    [["encoder", "b"], primitiv.makeParameter(b)],
  ]);
  return {
    format: "primitiv",
    name: "demo.model",
    bytes: primitiv.write(model),
    hasFloat16: false,
    description: "a primitiv Model: two parameters (one with Adam statistics), column-major float32",
  };
}

function spraakExample(): ExampleFile {
  const frames = 50;
  const file = spraak.matrix(ramp(frames * 24, 10), {
    cols: 24,
    format: "BIN10",
    data: "TRACK",
    header: { FSHIFT: "0.01", FLENGTH: "0.025", SAMPLEFREQ: "16000", NCHAN: "1", TRACKTYPE: "SPECTRUM" },
  });
  return {
    format: "spraak",
    name: "demo.trk",
    bytes: spraak.write(file),
    hasFloat16: false,
    description: "a SPRAAK feature track: 50 frames x 24 mel bands, F32, big-endian (BIN10)",
  };
}

/** One small file of every format. */
export function exampleFiles(): ExampleFile[] {
  return [bw2lExample(), aprilExample(), tsmExample(), primitivExample(), spraakExample(), onnxExample()];
}

/**
 * The files the README's quick start and transcripts open, as `tensorfile sample DIR` writes them beside the demo
 * files: model.b2l (what examples/make-model.mjs writes), model.april (the demo's april model) and edit.py (the
 * numpy edit of examples/april-edit.py that the README's april transcript runs).
 */
export function quickStartFiles(): { name: string; bytes: Uint8Array; description: string }[] {
  const ramp = (n: number, scale = 0.01) => Float32Array.from({ length: n }, (_, i) => Math.sin(i) * scale);
  const model = bw2l.create({
    flags: { criterion: "ctc", samplerate: "16000" },
    config: { criterion: "ctc" },
    tokens: ["a", "b", "c", "|"],
    layers: [
      {
        arch: "C 40 16 3 1 1 1",
        params: [
          { dims: [3, 1, 40, 16], data: ramp(3 * 40 * 16) },
          { dims: [1, 1, 16, 1], data: ramp(16) },
        ],
      },
      { arch: "R" },
      { arch: "L 16 4", params: [{ dtype: "fp16", dims: [4, 16, 1, 1], data: kernels.f32ToF16(ramp(64, 0.5)) }] },
    ],
  });
  return [
    {
      name: "model.b2l",
      bytes: bw2l.write(model),
      description: "the README's quick-start model (examples/make-model.mjs)",
    },
    {
      name: "model.april",
      bytes: aprilExample().bytes,
      description: "the README's april model (the demo's demo.april)",
    },
    {
      name: "edit.py",
      bytes: new TextEncoder().encode(APRIL_EDIT_PY),
      description: "the README's numpy edit of weights.safetensors",
    },
  ];
}

/** examples/april-edit.py (a test keeps the two equal). */
const APRIL_EDIT_PY = `# Edits two weights of an april model exported to safetensors, with numpy only (docs/formats/onnx.md, README).
# safetensors is an 8-byte header length, a JSON header and the tensors' bytes.
import json, struct
import numpy as np

raw = open("weights.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = bytearray(raw[8 + n:])
kinds = {"F32": np.float32, "F16": np.float16, "BOOL": np.bool_}

def tensor(name):
    h = header[name]
    begin, end = h["data_offsets"]
    kind = kinds[h["dtype"]]
    return np.frombuffer(data, dtype=kind, count=(end - begin) // np.dtype(kind).itemsize, offset=begin).reshape(h["shape"])

bias = tensor("joiner/bias")
print("joiner/bias before:", bias)
bias += 1.0                                       # shift the joiner's bias by 1
gain = tensor("joiner/If_0/then_branch/gain")
gain *= 0.5                                       # halve a weight inside the If subgraph
print("joiner/bias after: ", bias)
print("then_branch gain:  ", gain)
open("edited.safetensors", "wb").write(raw[:8 + n] + bytes(data))
`;
