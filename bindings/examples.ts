/**
 * Small files of every format, made with the library's own writers and builders: the demo (`npm run demo`)
 * inspects, converts and verifies them, and the CLI tests run every command on them. Deterministic.
 */
import * as april from "./formats/april.js";
import * as bw2l from "./formats/bw2l.js";
import * as primitiv from "./formats/primitiv.js";
import * as spraak from "./formats/spraak.js";
import * as tsm from "./formats/tsm.js";
import type { FormatId } from "./formats/types.js";
import * as kernels from "./kernels.js";

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
      { arch: "C 40 16 3 1 1 1", params: [{ dims: [3, 1, 40, 16], data: ramp(3 * 40 * 16) }, { dims: [1, 1, 16, 1], data: ramp(16) }] },
      { arch: "R" },
      { arch: "L 16 6", params: [{ dtype: "fp16", dims: [6, 16, 1, 1], data: kernels.f32ToF16(ramp(96, 0.5)) }, { dims: [6, 1, 1, 1], data: ramp(6) }] },
    ],
    spm: new TextEncoder().encode("(a sentencepiece model would go here)"),
  });
  return {
    format: "bw2l", name: "demo.b2l", bytes: bw2l.write(file), hasFloat16: true,
    description: "a v2 CTC model: conv + linear layers (one fp16 param), flags, tokens, an spm section",
  };
}

function aprilExample(): ExampleFile {
  const blob = (name: string, size: number) => {
    const b = new Uint8Array(size);
    b.set(new TextEncoder().encode(`fake ${name} ONNX bytes `));
    return b;
  };
  const file = april.create({
    networks: { encoder: blob("encoder", 600), decoder: blob("decoder", 300), joiner: blob("joiner", 400) },
    tokens: ["<blk>", "<sos/eos>", "<unk>", "▁the", "▁a", "s", "▁of", "."],
    name: "Demo model",
    description: "Packaged by tensorfile's april.create()",
  });
  return {
    format: "april", name: "demo.april", bytes: april.write(file), hasFloat16: false,
    description: "an april-asr model in the reference layout: header, three networks, params and 8 tokens",
  };
}

function tsmExample(): ExampleFile {
  const module = tsm.create({
    nodes: [
      { op: "<param>", name: "input", params: { "#shape": { dtype: "int32", shape: [2], data: new Int32Array([1, 3]) } } },
      { op: "<const>", name: "weight", value: { dtype: "float32", shape: [4, 3], data: ramp(12, 1) } },
      { op: "<const>", name: "bias", value: { dtype: "float16", shape: [4], data: kernels.f32ToF16(ramp(4, 1)) } },
      { op: "inner_prod", name: "fc", inputs: ["input", "weight"], params: { transpose: { dtype: "bool", shape: [], data: new Uint8Array([1]) } } },
      { op: "add_bias", name: "fc_bias", inputs: ["fc", "bias"], params: { dim: { dtype: "int32", shape: [], data: new Int32Array([1]) } } },
      { op: "sigmoid", name: "output", inputs: ["fc_bias"] },
    ],
    inputs: ["input"],
    outputs: ["output"],
  });
  return {
    format: "tsm", name: "demo.tsm", bytes: tsm.write(module), hasFloat16: true,
    description: "a TenniS module: input -> inner_prod -> add_bias -> sigmoid, float32 and float16 constants",
  };
}

function primitivExample(): ExampleFile {
  const w = primitiv.makeTensor([3, 2], ramp(6, 1));
  const b = primitiv.makeTensor([3], ramp(3, 1));
  const model = primitiv.makeModel([
    [["encoder", "w"], primitiv.makeParameter(w, [["Adam.m1", primitiv.makeTensor([3, 2], ramp(6))], ["Adam.m2", primitiv.makeTensor([3, 2], ramp(6, 0.001))]])],
    [["encoder", "b"], primitiv.makeParameter(b)],
  ]);
  return {
    format: "primitiv", name: "demo.model", bytes: primitiv.write(model), hasFloat16: false,
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
    format: "spraak", name: "demo.trk", bytes: spraak.write(file), hasFloat16: false,
    description: "a SPRAAK feature track: 50 frames x 24 mel bands, F32, big-endian (BIN10)",
  };
}

/** One small file of every format. */
export function exampleFiles(): ExampleFile[] {
  return [bw2lExample(), aprilExample(), tsmExample(), primitivExample(), spraakExample()];
}
