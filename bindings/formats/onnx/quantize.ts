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
 */
import { bfloat16Bits } from "../../bfloat16.js";
import { UnsupportedError } from "../../bytes/errors.js";
import * as kernels from "../../kernels/index.js";
import { makeTensor } from "./edit.js";
import {
  type OnnxAttribute,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxTensor,
  type OnnxValueInfo,
  DATA_TYPES,
  id,
  rawByteLength,
} from "./model.js";
import { modelBytes, tensorOf, weightInfo } from "./view.js";

/** The three precision modes. */
export type QuantizeMode = "fp16" | "bf16" | "i8";

/** quantize() options. */
export interface QuantizeOptions {
  /** fp16 (computation in float16), bf16 (weights stored as bfloat16) or i8 (weights as int8 per channel). */
  mode: QuantizeMode;
  /** fp16: keep the graph's inputs and outputs float32 (default true). */
  keepIO?: boolean | undefined;
}

/** What a conversion did (the CLI prints it; `--json` gives it as is). */
export interface QuantizeReport {
  /** The mode. */
  mode: QuantizeMode;
  /** The model's ai.onnx opset. */
  opset: number;
  /** Weights converted (float32 -> float16, bfloat16 or int8). */
  tensorsConverted: number;
  /** float32 weights left as they are, with the reason. */
  tensorsKept: {
    /** The weight's name (an initializer's, or a Constant's output). */
    name: string;
    /** Why it was left float32. */
    reason: string;
  }[];
  /** Bytes of every weight before (all dtypes). */
  weightBytesBefore: number;
  /** Bytes of every weight after (scales of i8 included). */
  weightBytesAfter: number;
  /** Bytes of the float32 weights before. */
  float32BytesBefore: number;
  /** fp16: values beyond ±65504 clamped to it. */
  clamped: number;
  /** Non-zero values that became zero (underflow). */
  flushed: number;
  /** fp16: ops that compute in float32, by op type, with the reason. */
  opsKeptFloat32: {
    /** The op type (`domain.op` outside ai.onnx). */
    opType: string;
    /** How many nodes. */
    count: number;
    /** Why they stay float32. */
    reason: string;
  }[];
  /** fp16: ops that compute in float16. */
  opsFloat16: number;
  /** Cast (fp16, bf16) or DequantizeLinear (i8) nodes added. */
  nodesAdded: number;
  /** fp16: existing Cast(to=FLOAT) retargeted to FLOAT16. */
  castsRetargeted: number;
  /** Anything else worth saying (per-tensor scales below opset 13, …). */
  notes: string[];
}

const FLOAT = 1;
const FLOAT16 = 10;
const BFLOAT16 = 16;
const INT8 = 3;
const HALF_MAX = 65504;
/** Weights with fewer elements are left float32 by bf16 and i8 (their size does not matter; they are often scalars of formulas). */
export const MIN_WEIGHT_ELEMENTS = 16;

/** An op of the fp16 allowlist: the first opset with float16, and which inputs share its float type. */
export interface Fp16Op {
  /** The first ai.onnx opset whose version of the op takes float16. */
  minOpset: number;
  /** The inputs that take the float type T (undefined: all of them); the others keep their type. */
  tInputs?: readonly number[] | undefined;
}

/**
 * The ops that compute in float16 (ai.onnx, with float16 in their type constraints from `minOpset`; onnxruntime
 * implements them in float16, and where one of its execution providers has no float16 kernel it inserts the
 * Casts itself, as its CPU provider does). Every other op keeps float32.
 */
export const FP16_OPS: Readonly<Record<string, Fp16Op>> = (() => {
  const ops: Record<string, Fp16Op> = {};
  const all = (minOpset: number, ...names: string[]) => {
    for (const n of names) ops[n] = { minOpset };
  };
  const first = (minOpset: number, tInputs: number[], ...names: string[]) => {
    for (const n of names) ops[n] = { minOpset, tInputs };
  };
  all(7, "Add", "Sub", "Mul", "Div", "Sum", "Mean", "Max", "Min");
  all(
    6,
    "Relu",
    "LeakyRelu",
    "Sigmoid",
    "HardSigmoid",
    "Tanh",
    "Elu",
    "Selu",
    "Softplus",
    "Softsign",
    "Exp",
    "Log",
    "Sqrt",
    "Neg",
    "Abs",
    "Reciprocal",
    "Floor",
    "Ceil",
  );
  all(9, "Erf");
  all(7, "PRelu");
  all(14, "HardSwish");
  all(18, "Mish");
  all(20, "Gelu");
  all(
    1,
    "Softmax",
    "LogSoftmax",
    "Conv",
    "ConvTranspose",
    "MatMul",
    "Gemm",
    "BatchNormalization",
    "InstanceNormalization",
  );
  first(1, [0, 1, 2], "LayerNormalization");
  ops.LayerNormalization!.minOpset = 17;
  first(
    1,
    [0],
    "ReduceMean",
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "ReduceL2",
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Reshape",
    "Transpose",
    "Slice",
    "Squeeze",
    "Unsqueeze",
    "Flatten",
    "Gather",
    "GatherElements",
    "Split",
    "Expand",
    "Tile",
    "Identity",
    "Dropout",
    "DepthToSpace",
    "SpaceToDepth",
    "Resize",
    "Upsample",
    "Pad",
  );
  ops.Pad = { minOpset: 2, tInputs: [0, 2] };
  ops.Resize!.minOpset = 10;
  all(4, "Concat");
  first(6, [0, 1, 2], "Clip");
  all(7, "Pow");
  first(9, [1, 2], "Where");
  first(7, [0, 1, 2, 3, 5, 6, 7], "LSTM", "GRU", "RNN");
  return ops;
})();

/** Ops whose float inputs are sizes, scales or indices (they stay float32). */
const INDEX_INPUTS: Readonly<Record<string, readonly number[]>> = {
  Range: [0, 1, 2],
  Resize: [1, 2],
  Upsample: [1],
  ConstantOfShape: [0],
  OneHot: [1],
};
const SHAPE_OPS = new Set(["Shape", "Size"]);
/**
 * The elementwise ops that size and index formulas are made of: a float that only ends in integers (a Cast to an
 * integer type, Range, Resize sizes) is walked back through these, and they stay float32. The walk stops at any
 * other op (a Conv or Gemm whose result is later used as an index is data, and runs in float16).
 */
const INDEX_ARITHMETIC = new Set([
  "Add",
  "Sub",
  "Mul",
  "Div",
  "Floor",
  "Ceil",
  "Round",
  "Neg",
  "Abs",
  "Max",
  "Min",
  "Clip",
  "Sqrt",
  "Pow",
  "Reciprocal",
  "Mod",
  "Identity",
]);
/** Ops that move elements without arithmetic: on weights alone (not data) they still run in float16 (exact). */
const DATA_MOVEMENT = new Set([
  "Slice",
  "Concat",
  "Unsqueeze",
  "Squeeze",
  "Reshape",
  "Transpose",
  "Gather",
  "Split",
  "Identity",
  "Flatten",
  "Expand",
  "Tile",
]);
const INTEGER_TYPES = new Set([2, 3, 4, 5, 6, 7, 9, 12, 13]);

interface GraphCtx {
  graph: OnnxGraph;
  owner: OnnxNode | undefined;
  isMain: boolean;
}
interface NodeRef {
  node: OnnxNode;
  ctx: GraphCtx;
}
interface Use {
  ref: NodeRef;
  index: number;
}
interface Source {
  name: string;
  ctx: GraphCtx;
  tensor: OnnxTensor;
  kind: "initializer" | "constant";
  node?: OnnxNode;
  attr?: OnnxAttribute;
}

/** The parts of a model the transforms look at: types, producers, users, weights, taint by the graph's inputs. */
class Analysis {
  readonly types = new Map<string, number | undefined>();
  readonly declared = new Map<string, number | undefined>();
  readonly tainted = new Set<string>();
  readonly producer = new Map<string, NodeRef>();
  readonly uses = new Map<string, Use[]>();
  readonly branchOutputs = new Map<string, { ctx: GraphCtx; k: number }[]>();
  readonly sources = new Map<string, Source>();
  readonly graphInputs = new Set<string>();
  readonly names = new Set<string>();
  readonly order: NodeRef[] = [];
  readonly contexts: GraphCtx[] = [];
  readonly indexLike = new Set<string>();

  constructor(readonly model: OnnxModel) {
    if (model.graph) this.walk({ graph: model.graph, owner: undefined, isMain: true }, true);
    this.findIndexArithmetic();
  }

  typeOf(name: string): number | undefined {
    return this.declared.get(name) ?? this.types.get(name);
  }

  private walk(ctx: GraphCtx, inputsTainted: boolean): void {
    this.contexts.push(ctx);
    const g = ctx.graph;
    const initializerNames = new Set(g.initializers.map((t) => t.name));
    for (const v of [...g.valueInfo, ...g.outputs])
      if (v.type.kind === "tensor") this.declared.set(v.name, v.type.elemType);
    for (const v of g.inputs) {
      this.names.add(v.name);
      this.types.set(v.name, v.type.kind === "tensor" ? v.type.elemType : undefined);
      if (!initializerNames.has(v.name) || !ctx.isMain) {
        if (inputsTainted) this.tainted.add(v.name);
      }
      if (ctx.isMain) this.graphInputs.add(v.name);
    }
    for (const t of g.initializers) {
      this.names.add(t.name);
      this.types.set(t.name, t.dataType);
      if (t.dataType === FLOAT && !this.graphInputs.has(t.name))
        this.sources.set(t.name, { name: t.name, ctx, tensor: t, kind: "initializer" });
    }
    g.outputs.forEach((v, k) => {
      if (!ctx.isMain)
        (this.branchOutputs.get(v.name) ?? this.branchOutputs.set(v.name, []).get(v.name)!).push({ ctx, k });
    });
    for (const node of g.nodes) {
      const ref = { node, ctx };
      this.order.push(ref);
      node.inputs.forEach((name, index) => {
        if (name !== "") (this.uses.get(name) ?? this.uses.set(name, []).get(name)!).push({ ref, index });
      });
      const inputTaint = node.inputs.some((n) => this.tainted.has(n));
      const subgraphs = subgraphsOf(node);
      let subTaint = false;
      for (const sub of subgraphs) {
        const subCtx = { graph: sub, owner: node, isMain: false };
        this.walk(subCtx, inputTaint);
        if (sub.outputs.some((o) => this.tainted.has(o.name))) subTaint = true;
      }
      const outTypes = this.inferOutputs(node);
      node.outputs.forEach((name, k) => {
        if (name === "") return;
        this.names.add(name);
        this.producer.set(name, ref);
        this.types.set(name, outTypes[k]);
        if ((inputTaint || subTaint) && !(isDefault(node) && SHAPE_OPS.has(node.opType))) this.tainted.add(name);
      });
      if (isDefault(node) && node.opType === "Constant") {
        const attr = node.attributes.find((a) => a.name === "value" && a.t);
        if (attr?.t && attr.t.dataType === FLOAT && node.outputs[0])
          this.sources.set(node.outputs[0], {
            name: node.outputs[0],
            ctx,
            tensor: attr.t,
            kind: "constant",
            node,
            attr,
          });
      }
    }
  }

  private inferOutputs(node: OnnxNode): (number | undefined)[] {
    const inType = (i: number) => (node.inputs[i] ? this.typeOf(node.inputs[i]!) : undefined);
    const firstKnown = () => {
      for (const n of node.inputs) if (n !== "" && this.typeOf(n) !== undefined) return this.typeOf(n);
      return undefined;
    };
    const n = node.outputs.length;
    const fill = (t: number | undefined) => new Array<number | undefined>(n).fill(t);
    if (!isDefault(node)) return fill(undefined);
    const attrInt = (name: string) => node.attributes.find((a) => a.name === name)?.i;
    switch (node.opType) {
      case "Cast":
        return fill(attrInt("to"));
      case "Shape":
      case "Size":
      case "NonZero":
      case "ArgMax":
      case "ArgMin":
        return fill(7);
      case "Equal":
      case "Less":
      case "Greater":
      case "LessOrEqual":
      case "GreaterOrEqual":
      case "Not":
      case "And":
      case "Or":
      case "Xor":
      case "IsNaN":
      case "IsInf":
        return fill(9);
      case "Constant": {
        const a = node.attributes[0];
        if (a?.t) return fill(a.t.dataType);
        if (a?.name === "value_float" || a?.name === "value_floats") return fill(FLOAT);
        if (a?.name === "value_int" || a?.name === "value_ints") return fill(7);
        return fill(undefined);
      }
      case "ConstantOfShape": {
        const a = node.attributes.find((x) => x.name === "value");
        return fill(a?.t ? a.t.dataType : FLOAT);
      }
      case "If": {
        const then = node.attributes.find((a) => a.name === "then_branch")?.g;
        return node.outputs.map((_, k) => elemTypeOf(then?.outputs[k]));
      }
      case "Loop": {
        const body = node.attributes.find((a) => a.name === "body")?.g;
        return node.outputs.map((_, k) => elemTypeOf(body?.outputs[k + 1]));
      }
      case "Scan": {
        const body = node.attributes.find((a) => a.name === "body")?.g;
        return node.outputs.map((_, k) => elemTypeOf(body?.outputs[k]));
      }
      case "TopK":
        return [inType(0), 7];
      case "MaxPool":
        return [inType(0), 7];
      case "Dropout":
        return [inType(0), 9];
      case "DequantizeLinear":
        return fill(inType(1));
      case "QuantizeLinear":
        return fill(inType(2) ?? 2);
      case "Where":
        return fill(inType(1));
      case "Gather":
      case "GatherElements":
      case "GatherND":
        return fill(inType(0));
      default:
        return fill(firstKnown());
    }
  }

  /** Floats that only feed sizes, indices or integer Casts (walked back from their users). */
  private findIndexArithmetic(): void {
    const isFloat = (name: string) => name !== "" && this.typeOf(name) === FLOAT;
    for (let i = this.order.length - 1; i >= 0; i--) {
      const { node } = this.order[i]!;
      if (!isDefault(node)) continue;
      if (node.opType === "Cast") {
        const to = node.attributes.find((a) => a.name === "to")?.i;
        if (to !== undefined && INTEGER_TYPES.has(to) && isFloat(node.inputs[0] ?? ""))
          this.indexLike.add(node.inputs[0]!);
        continue;
      }
      for (const k of INDEX_INPUTS[node.opType] ?? [])
        if (isFloat(node.inputs[k] ?? "")) this.indexLike.add(node.inputs[k]!);
      if (!INDEX_ARITHMETIC.has(node.opType)) continue;
      const floatOutputs = node.outputs.filter(isFloat);
      if (
        floatOutputs.length > 0 &&
        floatOutputs.every((o) => this.indexLike.has(o) && !this.branchOutputs.has(o) && !this.isMainOutput(o))
      ) {
        for (const n of node.inputs) if (isFloat(n)) this.indexLike.add(n);
      }
    }
  }

  isMainOutput(name: string): boolean {
    return this.model.graph?.outputs.some((o) => o.name === name) ?? false;
  }

  freshName(base: string): string {
    let name = base;
    for (let k = 2; this.names.has(name); k++) name = `${base}_${k}`;
    this.names.add(name);
    return name;
  }
}

function isDefault(node: OnnxNode): boolean {
  return node.domain === "" || node.domain === "ai.onnx";
}

function subgraphsOf(node: OnnxNode): OnnxGraph[] {
  const out: OnnxGraph[] = [];
  for (const a of node.attributes) {
    if (a.g) out.push(a.g);
    if (a.graphs) out.push(...a.graphs);
  }
  return out;
}

function elemTypeOf(v: OnnxValueInfo | undefined): number | undefined {
  return v?.type.kind === "tensor" ? v.type.elemType : undefined;
}

/** The model's ai.onnx opset (1 when it imports none). */
export function opsetOf(model: OnnxModel): number {
  let opset = 0;
  for (const o of model.opsetImports) if (o.domain === "" || o.domain === "ai.onnx") opset = Math.max(opset, o.version);
  return opset || 1;
}

// ------------------------------------------------------------------------------------------- tensors

function tensorBytes(t: OnnxTensor): number {
  const info = DATA_TYPES[t.dataType];
  if (!info || info.bits === 0) return 0;
  return rawByteLength(
    info,
    t.dims.reduce((a, b) => a * b, 1),
  );
}

function elementCount(t: OnnxTensor): number {
  return t.dims.reduce((a, b) => a * b, 1);
}

/** The float32 values of a weight (a copy), from the model's bytes. */
export function floatValues(bytes: Uint8Array, source: Pick<Source, "name" | "tensor" | "kind">): Float32Array {
  const values = source.tensor.values;
  if (values) return new Float32Array(values.slice().buffer);
  const w = { name: source.name, tensor: source.tensor, kind: source.kind };
  const decoded = tensorOf(bytes, w, weightInfo(w));
  return new Float32Array(decoded.data as Float32Array);
}

/** Why a float32 weight cannot be read here (external data, no data), or undefined. */
function unreadable(t: OnnxTensor): string | undefined {
  if (t.storage === "external") return "stored in an external file";
  if (t.storage === "none" && elementCount(t) > 0) return "has no data";
  return undefined;
}

interface Counters {
  clamped: number;
  flushed: number;
}

/** A weight as quantizeInPlace found it (its tensor as read, before it is replaced). */
export interface WeightSource {
  /** The weight's name (an initializer's, or a Constant's output). */
  name: string;
  /** The tensor as read. */
  tensor: OnnxTensor;
  /** Where it is stored. */
  kind: "initializer" | "constant";
}

/**
 * How quantizeInPlace reads weights and stores what it converts, when not from and into memory (the streamed
 * conversion of onnx/quantize-stream.ts): `pieces` gives a weight's float32 values in order, in pieces (each one
 * may be changed, and is not used after the next is asked for); `defer`, given the byte length of a converted
 * tensor and how to compute it piece by piece, returns a stand-in of that length that write() keeps by reference
 * (the pieces are then swapped for what `produce` gives, as they are written), or undefined to have it computed
 * now. Counters (values clamped, flushed) of deferred tensors are added to the report as they are made.
 */
export interface WeightAccess {
  pieces(source: WeightSource): Iterable<Float32Array>;
  defer(byteLength: number, produce: () => Iterable<Uint8Array>): Uint8Array | undefined;
}

function memoryAccess(bytes: () => Uint8Array): WeightAccess {
  return { pieces: (source) => [floatValues(bytes(), source)], defer: () => undefined };
}

/** A raw_data tensor whose elements `produce` computes: now, or when written (access.defer). */
function convertedTensor(
  access: WeightAccess,
  header: { name: string; dataType: number; dims: number[]; docString: string },
  byteLength: number,
  produce: () => Iterable<Uint8Array>,
): OnnxTensor {
  let values = access.defer(byteLength, produce);
  if (!values) {
    const parts = [...produce()];
    values = parts.length === 1 ? parts[0]! : new Uint8Array(byteLength);
    if (parts.length !== 1) {
      let at = 0;
      for (const part of parts) {
        values.set(part, at);
        at += part.length;
      }
    }
  }
  return {
    ...header,
    dims: [...header.dims],
    storage: "raw_data",
    data: { byteOffset: 0, byteLength: 0 },
    frames: [],
    values,
  };
}

function asBytes(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function toFloat16(values: Float32Array, counters: Counters): Uint16Array {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v > HALF_MAX && v !== Infinity) {
      values[i] = HALF_MAX;
      counters.clamped++;
    } else if (v < -HALF_MAX && v !== -Infinity) {
      values[i] = -HALF_MAX;
      counters.clamped++;
    }
  }
  const half = kernels.f32ToF16(values);
  for (let i = 0; i < values.length; i++)
    if (values[i] !== 0 && (half[i]! & 0x7fff) === 0 && !Number.isNaN(values[i])) counters.flushed++;
  return half;
}

/** bfloat16 bits of float32 values, rounded to nearest even (NaN stays NaN): bfloat16.ts's bfloat16Bits. */
export function toBfloat16(values: Float32Array, counters: Counters): Uint16Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const x = bits[i]!;
    const rounded = bfloat16Bits(x);
    out[i] = rounded;
    if ((x & 0x7fffffff) !== 0 && (x & 0x7fffffff) <= 0x7f800000 && (rounded & 0x7fff) === 0) counters.flushed++;
  }
  return out;
}

// ------------------------------------------------------------------------------------------- the edits

function castNode(name: string, input: string, output: string, to: number): OnnxNode {
  return {
    name,
    opType: "Cast",
    domain: "",
    inputs: [input],
    outputs: [output],
    attributes: [{ name: "to", type: "INT", i: to }],
    docString: "",
  };
}

function withElemType(v: OnnxValueInfo, elemType: number): OnnxValueInfo {
  return { ...v, type: { ...v.type, elemType } };
}

function replaceSource(source: Source, tensor: OnnxTensor): void {
  if (source.kind === "initializer") {
    const list = source.ctx.graph.initializers;
    list[list.indexOf(source.tensor)] = tensor;
  } else {
    source.attr!.t = tensor;
  }
  source.tensor = tensor;
}

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

// ---------------------------------------------------------------------------------------------- fp16

function fp16(a: Analysis, keepIO: boolean, report: QuantizeReport, access: WeightAccess): void {
  const model = a.model;
  const opset = report.opset;
  const main = model.graph!;
  const mainOutputs = new Set(main.outputs.map((o) => o.name));
  const isFloat = (name: string) => name !== "" && a.typeOf(name) === FLOAT;
  const kept = new Map<string, { opType: string; count: number; reason: string }>();
  const keep = (opType: string, reason: string) => {
    const key = `${opType}\u0000${reason}`;
    const entry = kept.get(key) ?? kept.set(key, { opType, count: 0, reason }).get(key)!;
    entry.count++;
  };

  // 1. the nodes that compute in float16
  const half = new Set<OnnxNode>();
  for (const { node } of a.order) {
    const outputsFloat = node.outputs.some(isFloat);
    const inputsFloat = node.inputs.some(isFloat);
    if (!outputsFloat && !inputsFloat) continue;
    if (!isDefault(node)) {
      keep(`${node.domain}.${node.opType}`, "not an ai.onnx op");
      continue;
    }
    if (["Cast", "Constant", "If", "Loop", "Scan", "Shape", "Size"].includes(node.opType)) continue;
    const op = FP16_OPS[node.opType];
    if (!op) {
      keep(node.opType, "no float16 in the allowlist");
      continue;
    }
    if (opset < op.minOpset) {
      keep(node.opType, `float16 from opset ${op.minOpset}`);
      continue;
    }
    if (!node.inputs.some((n) => a.tainted.has(n)) && !DATA_MOVEMENT.has(node.opType)) {
      keep(node.opType, "constant or shape arithmetic");
      continue;
    }
    if (INDEX_ARITHMETIC.has(node.opType) && node.outputs.some((o) => isFloat(o) && a.indexLike.has(o))) {
      keep(node.opType, "sizes or indices computed in float");
      continue;
    }
    const tIn = (op.tInputs ?? node.inputs.map((_, i) => i)).filter((i) => (node.inputs[i] ?? "") !== "");
    if (tIn.some((i) => a.typeOf(node.inputs[i]!) !== FLOAT) || !isFloat(node.outputs[0] ?? "")) {
      keep(node.opType, "not float32 (or its type is unknown)");
      continue;
    }
    if (
      node.opType === "LayerNormalization" &&
      node.outputs.slice(1).some((o) => o !== "" && ((a.uses.get(o)?.length ?? 0) > 0 || mainOutputs.has(o)))
    ) {
      keep(node.opType, "its mean/inverse-deviation outputs are used");
      continue;
    }
    half.add(node);
  }
  report.opsFloat16 = half.size;
  const isTInput = (node: OnnxNode, index: number) => {
    const t = FP16_OPS[node.opType]?.tInputs;
    return t === undefined || t.includes(index);
  };

  // 2. the precision of every float32 value
  const precision = new Map<string, "fp16" | "fp32">();
  const is16 = (name: string) => precision.get(name) === "fp16";
  const pinned = (name: string) => keepIO && mainOutputs.has(name);
  const renamedOutputs = new Set<string>();
  for (const node of half) {
    for (const o of node.outputs) {
      if (!isFloat(o)) continue;
      if (pinned(o)) renamedOutputs.add(o);
      else precision.set(o, "fp16");
    }
  }
  if (!keepIO)
    for (const v of main.inputs)
      if (isFloat(v.name) && !a.sources.has(v.name) && !main.initializers.some((t) => t.name === v.name))
        precision.set(v.name, "fp16");
  // sources: weights, Cast(to=FLOAT), If outputs: float16 when a float16 computation reads them
  const candidates: string[] = [];
  for (const [name, s] of a.sources) if (!unreadable(s.tensor)) candidates.push(name);
  for (const { node } of a.order) {
    if (!isDefault(node)) continue;
    if (node.opType === "Cast" && node.attributes.find((x) => x.name === "to")?.i === FLOAT && node.outputs[0])
      candidates.push(node.outputs[0]);
    if (node.opType === "If") candidates.push(...node.outputs.filter(isFloat));
  }
  const wants16 = (name: string): boolean => {
    if ((a.uses.get(name) ?? []).some((u) => half.has(u.ref.node) && isTInput(u.ref.node, u.index))) return true;
    for (const { ctx, k } of a.branchOutputs.get(name) ?? []) {
      if (ctx.owner?.opType === "If" && is16(ctx.owner.outputs[k] ?? "")) return true;
    }
    return false;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const name of candidates) {
      if (is16(name) || pinned(name) || a.indexLike.has(name) || a.graphInputs.has(name) || !wants16(name)) continue;
      precision.set(name, "fp16");
      changed = true;
    }
  }

  // 3. weights and Casts
  for (const [name, s] of a.sources) {
    if (is16(name)) {
      const read = { name: s.name, tensor: s.tensor, kind: s.kind };
      replaceSource(
        s,
        convertedTensor(
          access,
          { name: s.tensor.name, dataType: FLOAT16, dims: s.tensor.dims, docString: s.tensor.docString },
          elementCount(s.tensor) * 2,
          function* () {
            for (const piece of access.pieces(read)) yield asBytes(toFloat16(piece, report));
          },
        ),
      );
      report.tensorsConverted++;
    } else {
      const why =
        unreadable(s.tensor) ??
        (pinned(name)
          ? "a graph output"
          : a.indexLike.has(name)
            ? "sizes or scales"
            : "no float16 computation reads it");
      report.tensorsKept.push({ name, reason: why });
    }
  }
  for (const { node } of a.order) {
    if (isDefault(node) && node.opType === "Cast" && is16(node.outputs[0] ?? "")) {
      const to = node.attributes.find((x) => x.name === "to")!;
      const i = node.attributes.indexOf(to);
      node.attributes[i] = { ...to, i: FLOAT16 };
      report.castsRetargeted++;
    }
  }

  // 4. Casts where a value's precision is not the one its user needs
  for (const ctx of a.contexts) {
    const casts = new Map<string, string>();
    const nodes: OnnxNode[] = [];
    const castOf = (name: string, to: "fp16" | "fp32"): string => {
      const key = `${to}\u0000${name}`;
      let out = casts.get(key);
      if (out === undefined) {
        out = a.freshName(`${name}_${to}`);
        casts.set(key, out);
        nodes.push(castNode(a.freshName(`${out}_cast`), name, out, to === "fp16" ? FLOAT16 : FLOAT));
        report.nodesAdded++;
      }
      return out;
    };
    for (const node of ctx.graph.nodes) {
      const passThrough = isDefault(node) && ["Cast", "Shape", "Size"].includes(node.opType);
      node.inputs.forEach((name, i) => {
        if (!isFloat(name) || passThrough) return;
        const need = half.has(node) && isTInput(node, i) ? "fp16" : "fp32";
        const have = is16(name) ? "fp16" : "fp32";
        if (need !== have) node.inputs[i] = castOf(name, need);
      });
      nodes.push(node);
      if (half.has(node)) {
        node.outputs.forEach((o, k) => {
          if (!renamedOutputs.has(o)) return;
          const inner = a.freshName(`${o}_fp16`);
          node.outputs[k] = inner;
          nodes.push(castNode(a.freshName(`${o}_cast`), inner, o, FLOAT));
          report.nodesAdded++;
        });
      }
    }
    // subgraph outputs: an If branch gives what its If gives; Loop/Scan bodies keep their declared types
    if (!ctx.isMain) {
      ctx.graph.outputs.forEach((v, k) => {
        if (!isFloat(v.name) && elemTypeOf(v) !== FLOAT) return;
        const ownerOut = ctx.owner?.opType === "If" ? (ctx.owner.outputs[k] ?? "") : "";
        const need = ownerOut !== "" && is16(ownerOut) ? "fp16" : "fp32";
        const have = is16(v.name) ? "fp16" : "fp32";
        let out = v;
        if (need !== have) out = { ...v, name: castOf(v.name, need) };
        ctx.graph.outputs[k] = need === "fp16" ? withElemType(out, FLOAT16) : out;
      });
    }
    ctx.graph.nodes.splice(0, ctx.graph.nodes.length, ...nodes);
    ctx.graph.valueInfo.forEach((v, k) => {
      if (is16(v.name) && v.type.kind === "tensor") ctx.graph.valueInfo[k] = withElemType(v, FLOAT16);
    });
  }
  if (!keepIO) {
    main.inputs.forEach((v, k) => {
      if (is16(v.name)) main.inputs[k] = withElemType(v, FLOAT16);
    });
    main.outputs.forEach((v, k) => {
      if (is16(v.name)) main.outputs[k] = withElemType(v, FLOAT16);
    });
  }
  report.opsKeptFloat32 = [...kept.values()].sort((x, y) => y.count - x.count);
}

// ---------------------------------------------------------------------------------------------- bf16

/** float32 weights a weight-only mode may change: readable, not a graph input, large enough, not sizes. */
function weightCandidates(a: Analysis, report: QuantizeReport, accept: (s: Source) => string | undefined): Source[] {
  const out: Source[] = [];
  for (const [name, s] of a.sources) {
    const why =
      unreadable(s.tensor) ??
      (elementCount(s.tensor) < MIN_WEIGHT_ELEMENTS ? `fewer than ${MIN_WEIGHT_ELEMENTS} elements` : undefined) ??
      (a.indexLike.has(name) ? "sizes or scales" : undefined) ??
      (a.isMainOutput(name) ? "a graph output" : undefined) ??
      accept(s);
    if (why) report.tensorsKept.push({ name, reason: why });
    else out.push(s);
  }
  return out;
}

/** Puts the weight's stored form under a new name and a node computing the original name from it. */
function storeBehind(
  a: Analysis,
  s: Source,
  stored: OnnxTensor,
  makeNodes: (storedName: string) => OnnxNode[],
): number {
  const storedName = a.freshName(stored.name);
  stored.name = storedName;
  const g = s.ctx.graph;
  if (s.kind === "initializer") {
    g.initializers[g.initializers.indexOf(s.tensor)] = stored;
    const nodes = makeNodes(storedName);
    g.nodes.unshift(...nodes);
    return nodes.length;
  }
  // a Constant: it now gives the stored form, under the new name
  s.attr!.t = stored;
  s.node!.outputs[0] = storedName;
  const nodes = makeNodes(storedName);
  g.nodes.splice(g.nodes.indexOf(s.node!) + 1, 0, ...nodes);
  return nodes.length;
}

function bf16(a: Analysis, report: QuantizeReport, access: WeightAccess): void {
  for (const s of weightCandidates(a, report, () => undefined)) {
    const read = { name: s.name, tensor: s.tensor, kind: s.kind };
    const stored = convertedTensor(
      access,
      { name: `${s.name}_bf16`, dataType: BFLOAT16, dims: s.tensor.dims, docString: s.tensor.docString },
      elementCount(s.tensor) * 2,
      function* () {
        for (const piece of access.pieces(read)) yield asBytes(toBfloat16(piece, report));
      },
    );
    report.nodesAdded += storeBehind(a, s, stored, (storedName) => [
      castNode(a.freshName(`${s.name}_cast`), storedName, s.name, FLOAT),
    ]);
    report.tensorsConverted++;
  }
}

// ------------------------------------------------------------------------------------------------ i8

/** The output-channel axis of a weight read by `node` at `index`, or undefined when the op is not one i8 changes. */
function channelAxis(node: OnnxNode, index: number, rank: number): number | undefined {
  if (!isDefault(node)) return undefined;
  switch (node.opType) {
    case "MatMul":
      return index === 1 && rank >= 2 ? rank - 1 : undefined;
    case "Gemm":
      return index === 1 && rank === 2 ? (node.attributes.find((x) => x.name === "transB")?.i ? 0 : 1) : undefined;
    case "Conv":
      return index === 1 ? 0 : undefined;
    case "ConvTranspose":
      return index === 1 ? 1 : undefined;
    case "LSTM":
    case "GRU":
    case "RNN":
      return index === 1 || index === 2 ? 1 : undefined;
    default:
      return undefined;
  }
}

/** Where a weight's channels are: `channels` runs of `inner` elements, repeated (axis undefined: one channel). */
interface ChannelLayout {
  channels: number;
  inner: number;
}

function channelLayout(dims: readonly number[], axis: number | undefined): ChannelLayout {
  if (axis === undefined) return { channels: 1, inner: dims.reduce((x, y) => x * y, 1) || 1 };
  return { channels: dims[axis]!, inner: dims.slice(axis + 1).reduce((x, y) => x * y, 1) };
}

/** Adds the largest |w| per channel of a piece of the weight that starts at element `start` to `max`. */
function channelMax(piece: Float32Array, start: number, layout: ChannelLayout, max: Float32Array): void {
  const { channels, inner } = layout;
  for (let i = 0; i < piece.length; i++) {
    const c = channels === 1 ? 0 : Math.floor((start + i) / inner) % channels;
    const v = Math.abs(piece[i]!);
    if (v > max[c]!) max[c] = v;
  }
}

/** Scales from the largest |w| per channel: max / 127 as float32 (1 for an all-zero channel). */
function scalesFrom(max: Float32Array): Float32Array {
  return max.map((m) => Math.fround(m > 0 ? m / 127 : 1));
}

/** Buffers quantizePiece reuses from one piece of a weight to the next. */
interface PieceScratch {
  order: Int32Array;
  grouped: Float32Array;
  groupedQ: Int8Array;
}

function scratchFor(scratch: Partial<PieceScratch>, n: number): PieceScratch {
  if (!scratch.order || scratch.order.length < n) {
    scratch.order = new Int32Array(n);
    scratch.grouped = new Float32Array(n);
    scratch.groupedQ = new Int8Array(n);
  }
  return scratch as PieceScratch;
}

/**
 * The int8 steps of a piece of the weight that starts at element `start`, with the quantizeI8 kernel, channel by
 * channel (the kernel works element by element, so a piece gives the steps the whole weight gives).
 */
function quantizePiece(
  piece: Float32Array,
  start: number,
  layout: ChannelLayout,
  scales: Float32Array,
  reuse: Partial<PieceScratch>,
): Int8Array {
  const q = new Int8Array(piece.length);
  const { channels, inner } = layout;
  if (channels === 1) {
    kernels.quantizeI8(piece, scales[0]!, 0, q);
    return q;
  }
  // the piece's elements grouped by channel (counting sort), quantized group by group, put back
  const channelOf = (i: number) => Math.floor((start + i) / inner) % channels;
  const counts = new Int32Array(channels + 1);
  for (let i = 0; i < piece.length; i++) counts[channelOf(i) + 1]!++;
  for (let c = 0; c < channels; c++) counts[c + 1]! += counts[c]!;
  const { order, grouped, groupedQ } = scratchFor(reuse, piece.length);
  const next = counts.slice(0, channels);
  for (let i = 0; i < piece.length; i++) order[next[channelOf(i)]!++] = i;
  for (let k = 0; k < piece.length; k++) grouped[k] = piece[order[k]!]!;
  for (let c = 0; c < channels; c++) {
    const from = counts[c]!;
    const to = counts[c + 1]!;
    if (to > from) kernels.quantizeI8(grouped.subarray(from, to), scales[c]!, 0, groupedQ.subarray(from, to));
  }
  for (let k = 0; k < piece.length; k++) q[order[k]!] = groupedQ[k]!;
  return q;
}

function i8(a: Analysis, opset: number, report: QuantizeReport, access: WeightAccess): void {
  // opset 13+: DequantizeLinear with axis; 10-12: DequantizeLinear with one scale per tensor (no axis before
  // 13); below 10 (no DequantizeLinear): Cast to float and Mul by the scales (the same values), per channel
  const castMul = opset < 10;
  const perChannel = opset >= 13 || castMul;
  if (!perChannel)
    report.notes.push(`opset ${opset} < 13: DequantizeLinear has no axis there, so one scale per tensor`);
  if (castMul)
    report.notes.push(
      `opset ${opset} < 10 has no DequantizeLinear: each int8 weight is widened by Cast and Mul by its per-channel scales`,
    );
  const axes = new Map<string, number>();
  // a weight qualifies when every path from it (through ops that only move elements) ends in a weight input
  const weightOnly = (name: string, rank: number, depth: number): { axis?: number; why?: string } => {
    const uses = a.uses.get(name) ?? [];
    if (a.isMainOutput(name)) return { why: "a graph output" };
    let axis: number | undefined;
    for (const { ctx, k } of a.branchOutputs.get(name) ?? []) {
      // an If branch's output: what its If gives
      const outer = ctx.owner?.opType === "If" ? ctx.owner.outputs[k] : undefined;
      if (!outer || depth >= 8) return { why: "a subgraph output" };
      const found = weightOnly(outer, rank, depth + 1);
      if (found.why) return found;
      axis ??= 0;
    }
    if (uses.length === 0 && axis === undefined) return { why: "not used" };
    for (const u of uses) {
      const node = u.ref.node;
      const direct = channelAxis(node, u.index, rank);
      if (direct !== undefined) {
        axis ??= depth === 0 ? direct : 0;
        continue;
      }
      if (
        isDefault(node) &&
        DATA_MOVEMENT.has(node.opType) &&
        (u.index === 0 || node.opType === "Concat") &&
        depth < 8
      ) {
        for (const o of node.outputs) {
          if (o === "") continue;
          const inner = weightOnly(o, rank, depth + 1);
          if (inner.why) return inner;
        }
        axis ??= 0;
        continue;
      }
      return { why: `read by ${node.opType} (input ${u.index}), not a MatMul/Gemm/Conv/LSTM weight` };
    }
    return { axis: axis ?? 0 };
  };
  const candidates = weightCandidates(a, report, (s) => {
    if (s.tensor.dims.length < 2) return "not a matrix (rank < 2)";
    const found = weightOnly(s.name, s.tensor.dims.length, 0);
    if (found.why) return found.why;
    axes.set(s.name, found.axis!);
    return undefined;
  });
  for (const s of candidates) {
    const read = { name: s.name, tensor: s.tensor, kind: s.kind };
    const axis = perChannel ? axes.get(s.name) : undefined;
    const dims = s.tensor.dims;
    // the scales are needed now (a tensor of their own); a deferred int8 tensor reads the weight again when written
    const layout = channelLayout(dims, axis);
    const max = new Float32Array(layout.channels);
    let start = 0;
    for (const piece of access.pieces(read)) {
      channelMax(piece, start, layout, max);
      start += piece.length;
    }
    const scales = scalesFrom(max);
    const stored = convertedTensor(
      access,
      { name: `${s.name}_quantized`, dataType: INT8, dims, docString: s.tensor.docString },
      elementCount(s.tensor),
      function* () {
        let at = 0;
        const reuse: Partial<PieceScratch> = {};
        for (const piece of access.pieces(read)) {
          const q = quantizePiece(piece, at, layout, scales, reuse);
          for (let i = 0; i < piece.length; i++) if (piece[i] !== 0 && q[i] === 0) report.flushed++;
          at += piece.length;
          yield asBytes(q);
        }
      },
    );
    const scaleName = a.freshName(`${s.name}_scale`);
    const rank = s.tensor.dims.length;
    const scaleDims =
      axis === undefined
        ? []
        : castMul
          ? [scales.length, ...new Array<number>(rank - axis - 1).fill(1)]
          : [scales.length];
    const scaleTensor = makeTensor({ name: scaleName, dtype: FLOAT, dims: scaleDims, data: scales });
    report.nodesAdded += storeBehind(a, s, stored, (storedName) => {
      const nodes: OnnxNode[] = [];
      if (s.kind === "initializer") s.ctx.graph.initializers.push(scaleTensor);
      else
        nodes.push({
          name: a.freshName(`${scaleName}_constant`),
          opType: "Constant",
          domain: "",
          inputs: [],
          outputs: [scaleName],
          attributes: [{ name: "value", type: "TENSOR", t: scaleTensor }],
          docString: "",
        });
      if (castMul) {
        const widened = a.freshName(`${s.name}_widened`);
        nodes.push(castNode(a.freshName(`${widened}_cast`), storedName, widened, FLOAT));
        nodes.push({
          name: a.freshName(`${s.name}_scale_mul`),
          opType: "Mul",
          domain: "",
          inputs: [widened, scaleName],
          outputs: [s.name],
          attributes: [],
          docString: "",
        });
        return nodes;
      }
      const attributes: OnnxAttribute[] = axis === undefined ? [] : [{ name: "axis", type: "INT", i: axis }];
      nodes.push({
        name: a.freshName(`${s.name}_dequantize`),
        opType: "DequantizeLinear",
        domain: "",
        inputs: [storedName, scaleName],
        outputs: [s.name],
        attributes,
        docString: "",
      });
      return nodes;
    });
    report.tensorsConverted++;
  }
}
