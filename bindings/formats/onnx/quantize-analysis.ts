/**
 * ONNX precision changes, the graph analysis: the fp16 op allowlist, which values are index or shape arithmetic,
 * and each value's producer and users across subgraphs.
 */
import type { OnnxAttribute, OnnxGraph, OnnxModel, OnnxNode, OnnxTensor, OnnxValueInfo } from "./model.js";
import { FLOAT } from "./quantize-types.js";

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
export const INDEX_ARITHMETIC = new Set([
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
export const DATA_MOVEMENT = new Set([
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
export interface Source {
  name: string;
  ctx: GraphCtx;
  tensor: OnnxTensor;
  kind: "initializer" | "constant";
  node?: OnnxNode;
  attr?: OnnxAttribute;
}

/** The parts of a model the transforms look at: types, producers, users, weights, taint by the graph's inputs. */
export class Analysis {
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

export function isDefault(node: OnnxNode): boolean {
  return node.domain === "" || node.domain === "ai.onnx";
}

export function subgraphsOf(node: OnnxNode): OnnxGraph[] {
  const out: OnnxGraph[] = [];
  for (const a of node.attributes) {
    if (a.g) out.push(a.g);
    if (a.graphs) out.push(...a.graphs);
  }
  return out;
}

export function elemTypeOf(v: OnnxValueInfo | undefined): number | undefined {
  return v?.type.kind === "tensor" ? v.type.elemType : undefined;
}

/** The model's ai.onnx opset (1 when it imports none). */
export function opsetOf(model: OnnxModel): number {
  let opset = 0;
  for (const o of model.opsetImports) if (o.domain === "" || o.domain === "ai.onnx") opset = Math.max(opset, o.version);
  return opset || 1;
}
