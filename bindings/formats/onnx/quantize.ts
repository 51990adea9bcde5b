/**
 * Precision changes of an ONNX model, as edits of the object read() returned (the editing convention: new
 * tensors carry their elements in `values`, new nodes and value infos are plain objects in the arrays):
 *
 * - fp16: float32 weights (initializers, Constant values) become float16 and the computation runs in float16 for
 *   the ops of {@link FP16_OPS} that read data computed from the graph's inputs; every other op keeps float32 with
 *   Casts inserted around it. Casts to FLOAT whose result feeds float16 computation are retargeted to FLOAT16.
 *   Shape and index arithmetic (anything computed from Shape/Size, floats that end in a Cast to an integer type or
 *   in Range/Resize sizes) is left as it is. Graph inputs and outputs keep float32 unless `keepIO` is false; the
 *   outputs of If branches follow their If's outputs; Loop/Scan bodies keep their declared types at their borders.
 *   Values beyond float16's range are clamped to ±65504 and counted; values that become 0 are counted.
 * - bf16: weight-only. float32 weights are stored as bfloat16 with a Cast to float32 in front of their users
 *   (opset 13 or later: Cast from bfloat16 does not exist before).
 * - i8: weight-only int8. Weights read only by MatMul/Gemm/Conv/ConvTranspose (as the weight operand) and
 *   LSTM/GRU/RNN (W and R) are stored as int8 per output channel with a float32 scale (symmetric, zero point 0,
 *   round half to even) and a DequantizeLinear (axis) in front; below opset 13 one scale per tensor.
 *
 * Value names are taken as unique across the model (as exporters write them); a subgraph that shadows an outer
 * name is not told apart.
 *
 * This module holds the entry (checkQuantize, quantizeInPlace); beside it: quantize-types.ts (modes, options,
 * report), quantize-analysis.ts (the op table and graph analysis), quantize-tensors.ts (weights and shared edits),
 * quantize-fp16.ts and quantize-weights.ts (bf16, i8).
 */
import { UnsupportedError } from "../../bytes/errors.js";
import { type OnnxGraph, type OnnxModel, type OnnxTensor, id } from "./model.js";
import { modelBytes } from "./view.js";
import { FLOAT, type QuantizeMode, type QuantizeOptions, type QuantizeReport } from "./quantize-types.js";
import { Analysis, isDefault, opsetOf, subgraphsOf } from "./quantize-analysis.js";
import { type WeightAccess, memoryAccess, tensorBytes } from "./quantize-tensors.js";
import { fp16 } from "./quantize-fp16.js";
import { bf16, i8 } from "./quantize-weights.js";

export type { QuantizeMode, QuantizeOptions, QuantizeReport } from "./quantize-types.js";
export { MIN_WEIGHT_ELEMENTS } from "./quantize-types.js";
export { FP16_OPS, type Fp16Op, opsetOf } from "./quantize-analysis.js";
export { type WeightAccess, type WeightSource, floatValues, toBfloat16 } from "./quantize-tensors.js";

function emptyReport(mode: QuantizeMode, opset: number): QuantizeReport {
  return {
    mode,
    opset,
    tensorsConverted: 0,
    tensorsKept: [],
    weightBytesBefore: 0,
    weightBytesAfter: 0,
    float32BytesBefore: 0,
    clamped: 0,
    flushed: 0,
    opsKeptFloat32: [],
    opsFloat16: 0,
    nodesAdded: 0,
    castsRetargeted: 0,
    notes: [],
  };
}

function allWeights(model: OnnxModel): OnnxTensor[] {
  const out: OnnxTensor[] = [];
  const walk = (g: OnnxGraph) => {
    out.push(...g.initializers);
    for (const n of g.nodes) {
      if (isDefault(n) && n.opType === "Constant")
        for (const a of n.attributes) if (a.name === "value" && a.t) out.push(a.t);
      for (const s of subgraphsOf(n)) walk(s);
    }
  };
  if (model.graph) walk(model.graph);
  return out;
}

/** Throws what quantizeInPlace() would refuse (a TypeError for a bad mode; bf16 below opset 13), changing nothing. */
export function checkQuantize(model: OnnxModel, options: QuantizeOptions, where?: string): void {
  const mode = options?.mode;
  if (mode !== "fp16" && mode !== "bf16" && mode !== "i8")
    throw new TypeError(`tensorfile: quantize: mode must be fp16, bf16 or i8, not ${String(mode)}`);
  const opset = opsetOf(model);
  if (mode === "bf16" && opset < 13) {
    throw new UnsupportedError(
      id,
      `bf16 needs opset 13 or later (ONNX has no Cast from bfloat16 before it); ${where ? `the ${where} network` : "this model"} imports opset ${opset}`,
    );
  }
}

/**
 * Changes `model` in place (an object read() returned, whose bytes `bytes` are) to `options.mode` and returns
 * what it did. Refused (UnsupportedError, nothing changed) for bf16 below opset 13 and i8 below opset 10.
 */
export function quantizeInPlace(
  model: OnnxModel,
  options: QuantizeOptions,
  bytes: Uint8Array | undefined = modelBytes.get(model),
  access?: WeightAccess,
): QuantizeReport {
  checkQuantize(model, options);
  const mode = options.mode;
  const opset = opsetOf(model);
  const report = emptyReport(mode, opset);
  const before = allWeights(model);
  report.weightBytesBefore = before.reduce((s, t) => s + tensorBytes(t), 0);
  report.float32BytesBefore = before.filter((t) => t.dataType === FLOAT).reduce((s, t) => s + tensorBytes(t), 0);
  if (!model.graph) return report;
  const analysis = new Analysis(model);
  const external = [...analysis.sources.values()].filter((s) => s.tensor.storage === "external");
  if (external.length > 0) {
    const files = [...new Set(external.map((s) => s.tensor.external?.location ?? "?"))];
    report.notes.push(
      `${external.length} float32 weight${external.length === 1 ? " is" : "s are"} stored in external data (${files.slice(0, 3).join(", ")}${files.length > 3 ? ", …" : ""}) and left as ${external.length === 1 ? "it is" : "they are"}: the converted model still reads ${files.length === 1 ? "that file" : "those files"} by ${files.length === 1 ? "its" : "their"} relative path, so keep it next to ${files.length === 1 ? "it" : "them"}`,
    );
  }
  const needBytes = (): Uint8Array => {
    if (!bytes)
      throw new UnsupportedError(id, "this model object has no bytes (use a read() result)", undefined, "quantize");
    return bytes;
  };
  const weights = access ?? memoryAccess(needBytes);
  if (mode === "fp16") fp16(analysis, options.keepIO ?? true, report, weights);
  else if (mode === "bf16") bf16(analysis, report, weights);
  else i8(analysis, opset, report, weights);
  report.weightBytesAfter = allWeights(model).reduce((s, t) => s + tensorBytes(t), 0);
  return report;
}
