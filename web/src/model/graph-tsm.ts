/**
 * The graph adapter for TenniS modules and SeetaFace6 .csta files: tsm.graph() → one GraphModel. A `<const>`
 * node that feeds ops (and is no module output) becomes weight rows of each consumer's box (`W ⟨32×16×3×3⟩`,
 * `B ⟨32⟩`), labelled by the consumer's op and the input's position; other nodes keep their box. Tensor names
 * are the contract's: the const node's name, or `name/k` for field k of a packed value.
 */
import type { tsm } from "../../../bindings/index.js";
import { type GraphDocument, type GraphModel, type GraphWeight, type NodeSpec, buildGraph } from "./graph.js";
import { valueText } from "./format.js";

type TsmGraph = ReturnType<typeof tsm.graph>;
type TsmGraphNode = TsmGraph["nodes"][number];

/** Input names of TenniS ops whose constant inputs have a conventional meaning (index = input position). */
const INPUT_NAMES: Record<string, readonly string[]> = {
  conv2d: ["x", "W"],
  depthwise_conv2d: ["x", "W"],
  conv2d_v2: ["x", "padding", "W"],
  depthwise_conv2d_v2: ["x", "padding", "W"],
  transpose_conv2d: ["x", "W"],
  inner_prod: ["x", "W"],
  add_bias: ["x", "B"],
  prelu: ["x", "slope"],
  batch_norm: ["x", "mean", "variance"],
  batch_scale: ["x", "scale", "bias"],
  fused_batch_norm: ["x", "mean", "variance", "scale", "bias"],
  _onnx_pooling2d_padding: ["x", "ksize", "stride"],
  pooling2d_v2: ["x", "padding", "ksize", "stride"],
  _resize2d: ["x", "size"],
  crop_nd: ["x", "size"],
};

function weightLabel(consumer: TsmGraphNode, position: number, rank: number): string {
  const known = Object.hasOwn(INPUT_NAMES, consumer.op) ? INPUT_NAMES[consumer.op]![position] : undefined; // (ops from the file)
  if (known) return known;
  return rank >= 2 ? "W" : `in${position}`;
}

function constTensors(node: TsmGraphNode): string[] {
  const fields = node.value?.length ?? 0;
  if (fields === 0) return [];
  return fields === 1 ? [node.name] : Array.from({ length: fields }, (_, k) => `${node.name}/${k}`);
}

/** The module's graph with its weights folded into their consumers. */
export function tsmGraphModel(graph: TsmGraph, name = "module"): GraphModel {
  const inputSet = new Set(graph.inputs.map((n) => n.index));
  const outputSet = new Set(graph.outputs.map((n) => n.index));
  const folded = (node: TsmGraphNode) =>
    node.op === "<const>" && !outputSet.has(node.index) && !inputSet.has(node.index) && node.consumers.length > 0;
  const idOf = new Map<number, number>();
  for (const node of graph.nodes) if (!folded(node)) idOf.set(node.index, idOf.size);
  const specs: NodeSpec[] = [];
  for (const node of graph.nodes) {
    const id = idOf.get(node.index);
    if (id === undefined) continue;
    const attrs: [string, string][] = Object.entries(node.attrs).map(([k, v]) => [k, valueText(v, 200)]);
    if (node.shape) attrs.unshift(["#shape", `[${node.shape.join(", ")}]`]);
    if (node.dtype) attrs.unshift(["#dtype", node.dtype]);
    const fields = node.value?.length ?? 0;
    node.value?.forEach((f, k) =>
      attrs.push([fields === 1 ? "value" : `value/${k}`, `${f.dtype} [${f.shape.join(", ")}]`]),
    );
    const weights: GraphWeight[] = [];
    const inputs: number[] = [];
    node.inputs.forEach((input, position) => {
      if (!folded(input)) {
        inputs.push(idOf.get(input.index)!);
        return;
      }
      const tensors = constTensors(input);
      const values = input.value ?? [];
      if (values.length === 0) {
        weights.push({ label: weightLabel(node, position, 0), name: input.name, tensors: [], dtype: "?", shape: [] });
      }
      values.forEach((field, k) => {
        const label = weightLabel(node, position, field.shape.length);
        weights.push({
          label: values.length === 1 ? label : `${label}/${k}`,
          name: input.name,
          tensors: tensors[k] ? [tensors[k]!] : [],
          dtype: field.dtype,
          shape: [...field.shape],
        });
      });
    });
    specs.push({
      id,
      name: node.name,
      op: node.op,
      kind: inputSet.has(node.index)
        ? "input"
        : outputSet.has(node.index)
          ? "output"
          : node.op === "<const>"
            ? "const"
            : "op",
      inputs,
      outputs: [node.name],
      attrs,
      weights,
      tensors: node.op === "<const>" ? constTensors(node) : [],
      subgraphs: [],
    });
  }
  const ids = (nodes: TsmGraphNode[]) =>
    nodes.map((n) => idOf.get(n.index)).filter((i): i is number => i !== undefined);
  return buildGraph(name, specs, ids(graph.inputs), ids(graph.outputs), graph.nodes.length);
}

export function tsmGraphDocument(graph: TsmGraph): GraphDocument {
  return { graphs: [tsmGraphModel(graph)] };
}
