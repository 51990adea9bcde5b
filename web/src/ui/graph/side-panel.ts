/**
 * The graph's side panel: the graph overview (counts, inputs, outputs, op histogram) or the selected node (name,
 * weights one click from their tensor, attributes, inputs, consumers, subgraphs). Each panel has an empty
 * `.graph-panel-actions` row where other features (the editor's "Edit" button) add their controls.
 */
import type { GraphModel, GraphNode, GraphPort, GraphProperties } from "../../model/graph.js";
import { nodeCountText, weightText } from "../../model/graph.js";
import { formatCount } from "../../model/format.js";
import { onnxOpSignature } from "../../model/onnx-ops.js";
import { clear, h } from "../dom.js";

export interface SidePanelActions {
  focusNode(id: number): void;
  openTensor(name: string): void;
  /** `step` is `<node name>:<subgraph name>` (the URL keeps the path). */
  openSubgraph(model: GraphModel, title: string, step: string): void;
  select(id: number | undefined): void;
  /** Whether a node's subgraphs are drawn in place (graph-expand.ts); undefined: the view cannot expand it. */
  isExpanded?(id: number): boolean | undefined;
  /** Draws a node's subgraphs in place, or folds them back. */
  toggleExpand?(id: number): void;
}

/** A node's or the graph's actions row (empty here; features append buttons to it). */
export function actionsRow(kind: "graph" | "node"): HTMLElement {
  return h("div", { class: "graph-panel-actions", id: "graph-panel-actions", "data-panel": kind });
}

/**
 * A node's actions row; a node with subgraphs gets "Expand" (its branches drawn in place inside its box, one frame
 * each) or, once expanded, "Collapse".
 */
function nodeActions(node: GraphNode, actions: SidePanelActions): HTMLElement {
  const row = actionsRow("node");
  const expanded = node.subgraphs.length > 0 ? actions.isExpanded?.(node.id) : undefined;
  if (expanded !== undefined)
    row.append(
      h(
        "button",
        {
          type: "button",
          id: "graph-expand",
          "aria-expanded": String(expanded),
          title: expanded
            ? `Fold ${node.subgraphs.map((s) => s.name).join(" and ")} back into the box`
            : `Draw ${node.subgraphs.map((s) => s.name).join(" and ")} inside the box, with the values they read`,
          onclick: () => actions.toggleExpand?.(node.id),
        },
        expanded ? "Collapse" : "Expand",
      ),
    );
  return row;
}

/** What the Properties panel adds to a graph's own properties: the parameter count of its weights. */
export interface PropertiesExtra {
  /** Elements of the graph's weights (subgraphs included), from the file's tensor table. */
  parameters: number;
  /** How many weight tensors that counts. */
  weights: number;
}

function portList(id: string, ports: readonly GraphPort[]): HTMLElement {
  return h(
    "ul",
    { class: "graph-ports", id },
    ...ports.map((p) =>
      h(
        "li",
        {},
        h("span", { class: "mono" }, p.name || "(omitted)"),
        p.type ? h("span", { class: "muted" }, ` ${p.type}`) : h("span", { class: "muted" }, " (type not declared)"),
        p.type && p.inferred
          ? h("span", { class: "muted", title: "the model does not declare this shape" }, " (inferred by tensorfile)")
          : null,
      ),
    ),
  );
}

/** The model's Properties (region named "Properties"): format fields, inputs/outputs with types, metadata, parameters. */
export function propertiesSection(
  model: GraphModel,
  properties: GraphProperties | undefined,
  extra: PropertiesExtra,
): HTMLElement {
  const name = (id: number) => model.nodes[id]?.name ?? String(id);
  const props: GraphProperties = properties ?? {
    format: "",
    fields: [],
    metadata: [],
    inputs: model.inputs.map((id) => ({ name: name(id) })),
    outputs: model.outputs.map((id) => ({ name: name(id) })),
  };
  return h(
    "section",
    { class: "graph-properties", id: "graph-properties", role: "region", "aria-label": "Properties", tabindex: -1 },
    h("h3", {}, "Properties"),
    h(
      "dl",
      { class: "kv" },
      ...(props.format ? [h("dt", {}, "format"), h("dd", {}, props.format)] : []),
      ...props.fields.flatMap(([k, v]) => [h("dt", {}, k), h("dd", { style: "overflow-wrap:anywhere" }, v)]),
      h("dt", {}, "nodes"),
      nodeCountCell("graph-properties-nodes", model),
      h("dt", {}, "parameters"),
      h(
        "dd",
        { id: "graph-parameters", "data-parameters": extra.parameters },
        `${formatCount(extra.parameters)} in ${formatCount(extra.weights)} weight${extra.weights === 1 ? "" : "s"}`,
      ),
    ),
    h("h4", {}, `inputs (${props.inputs.length})`),
    portList("graph-model-inputs", props.inputs),
    h("h4", {}, `outputs (${props.outputs.length})`),
    portList("graph-model-outputs", props.outputs),
    h("h4", {}, `metadata (${props.metadata.length})`),
    props.metadata.length > 0
      ? h(
          "dl",
          { class: "kv", id: "graph-metadata" },
          ...props.metadata.flatMap(([k, v]) => [
            h("dt", { class: "mono" }, k),
            h("dd", { style: "overflow-wrap:anywhere" }, v.length > 300 ? `${v.slice(0, 299)}…` : v),
          ]),
        )
      : h("p", { class: "muted", id: "graph-metadata" }, "none"),
  );
}

/**
 * The node count, worded the same in the graph panel and in Properties (and as `tensorfile inspect` counts): the
 * graph's own nodes, then "(812 with 25 subgraphs)" when it has subgraphs. `#graph-node-count` holds the number.
 */
function nodeCountCell(id: string, model: GraphModel): HTMLElement {
  const { withSubgraphs } = nodeCountText(model);
  return h(
    "dd",
    { "data-nodes": model.sourceNodes, "data-nodes-with-subgraphs": model.nodesWithSubgraphs },
    h("span", { id }, String(model.sourceNodes)),
    withSubgraphs ? h("span", { class: "muted" }, ` (${withSubgraphs})`) : "",
  );
}

export function renderSidePanel(
  side: HTMLElement,
  model: GraphModel | undefined,
  node: GraphNode | undefined,
  error: string | undefined,
  actions: SidePanelActions,
  properties?: { own: GraphProperties | undefined; extra: PropertiesExtra },
): void {
  clear(side);
  if (!model) {
    side.append(h("p", { class: "muted" }, error ? `no graph: ${error}` : ""));
    return;
  }
  if (model.error) {
    side.append(h("h3", {}, model.name), h("p", { id: "graph-error" }, `not a readable ONNX network: ${model.error}`));
    return;
  }
  if (!node) {
    const name = (id: number) => model.nodes[id]?.name ?? String(id);
    const weightCount = model.nodes.reduce((a, n) => a + n.weights.length, 0);
    side.append(
      h("h3", {}, model.name),
      actionsRow("graph"),
      ...(properties ? [propertiesSection(model, properties.own, properties.extra)] : []),
      h("h3", {}, "graph"),
      h(
        "dl",
        { class: "kv" },
        h("dt", {}, "nodes"),
        nodeCountCell("graph-node-count", model),
        h("dt", {}, "boxes"),
        h("dd", {}, model.nodes.length),
        h("dt", {}, "weights"),
        h("dd", {}, weightCount),
        h("dt", {}, "edges"),
        h("dd", {}, model.edges.length),
        h("dt", {}, "inputs"),
        h("dd", {}, model.inputs.map(name).join(", ")),
        h("dt", {}, "outputs"),
        h("dd", {}, model.outputs.map(name).join(", ")),
      ),
      h("h3", {}, "ops"),
      h("dl", { class: "kv" }, ...model.ops.flatMap(([op, count]) => [h("dt", {}, op), h("dd", {}, count)])),
      h(
        "p",
        { class: "muted" },
        "Click a node for its attributes and weights; double-click a weight row for its tensor.",
      ),
    );
    return;
  }
  const link = (id: number) => {
    const other = model.nodes[id];
    return h(
      "li",
      {},
      h(
        "button",
        { class: "linkish", type: "button", onclick: () => actions.focusNode(id) },
        other ? `${other.op} ${other.name}` : String(id),
      ),
    );
  };
  const tensorButton = (label: string, tensor: string) =>
    h(
      "button",
      {
        type: "button",
        class: "linkish",
        "data-tensor": tensor,
        title: `statistics, histogram and heatmap of ${tensor}`,
        onclick: () => actions.openTensor(tensor),
      },
      label,
    );
  const signature = node.kind === "op" && node.docUrl ? onnxOpSignature(node.op) : undefined;
  const parts: (Node | null)[] = [
    h("h3", {}, node.op),
    h("div", { class: "mono", style: "word-break:break-all", id: "graph-node-name" }, node.name),
    nodeActions(node, actions),
    node.docUrl
      ? h(
          "p",
          {},
          h(
            "a",
            { href: node.docUrl, target: "_blank", rel: "noopener noreferrer", id: "graph-op-doc" },
            `${node.op} on onnx.ai`,
          ),
        )
      : null,
    signature
      ? h(
          "p",
          { class: "mono graph-signature", id: "graph-op-signature", style: "overflow-wrap:anywhere" },
          `${node.op}(${signature.inputs.join(", ")}) → ${signature.outputs.join(", ")}`,
          signature.attributes.length > 0 ? h("br") : null,
          signature.attributes.length > 0
            ? h("span", { class: "muted" }, `attributes: ${signature.attributes.join(", ")}`)
            : null,
        )
      : null,
    node.ports && node.ports.inputs.length > 0 ? h("h3", {}, "input values") : null,
    node.ports && node.ports.inputs.length > 0 ? portList("graph-node-input-values", node.ports.inputs) : null,
    node.ports && node.ports.outputs.length > 0 ? h("h3", {}, "output values") : null,
    node.ports && node.ports.outputs.length > 0 ? portList("graph-node-output-values", node.ports.outputs) : null,
    ...node.tensors.map((t) =>
      h(
        "p",
        {},
        h(
          "button",
          { type: "button", class: "primary", "data-tensor": t, onclick: () => actions.openTensor(t) },
          `statistics & heatmap: ${t}`,
        ),
      ),
    ),
    node.weights.length > 0 ? h("h3", {}, "weights") : null,
    node.weights.length > 0
      ? h(
          "ul",
          { class: "graph-weights", id: "graph-weights" },
          ...node.weights.map((w) =>
            h(
              "li",
              {},
              // the shape opens the tensor; a small constant's value follows it (`B ⟨⟩ = 16000`)
              w.tensors[0]
                ? tensorButton(weightText({ ...w, value: undefined }), w.tensors[0])
                : h("span", {}, weightText({ ...w, value: undefined })),
              w.value !== undefined ? h("span", { class: "mono" }, ` = ${w.value}`) : null,
              h("span", { class: "muted" }, ` ${w.dtype} · ${w.name}`),
            ),
          ),
        )
      : null,
    node.attrs.length > 0 ? h("h3", {}, "attributes") : null,
    node.attrs.length > 0
      ? h(
          "dl",
          { class: "kv", id: "graph-attributes" },
          ...node.attrs.flatMap(([k, v]) => [
            h("dt", {}, k),
            h("dd", { class: "mono", style: "word-break:break-all" }, v),
          ]),
        )
      : null,
    node.inputs.length > 0 ? h("h3", {}, "inputs") : null,
    node.inputs.length > 0 ? h("ul", { id: "graph-inputs" }, ...node.inputs.map(link)) : null,
    node.consumers.length > 0 ? h("h3", {}, "used by") : null,
    node.consumers.length > 0 ? h("ul", { id: "graph-consumers" }, ...node.consumers.map(link)) : null,
    node.subgraphs.length > 0 ? h("h3", {}, "subgraphs") : null,
    node.subgraphs.length > 0
      ? h(
          "ul",
          {},
          ...node.subgraphs.map((s) =>
            h(
              "li",
              {},
              h(
                "button",
                {
                  type: "button",
                  class: "linkish",
                  onclick: () => actions.openSubgraph(s.graph, `${node.name}.${s.name}`, `${node.name}:${s.name}`),
                },
                `open ${s.name} (${s.graph.nodes.length} nodes)`,
              ),
            ),
          ),
        )
      : null,
    h(
      "p",
      {},
      h("button", { class: "linkish", type: "button", onclick: () => actions.select(undefined) }, "graph overview"),
    ),
  ];
  for (const part of parts) if (part) side.append(part);
}
