/**
 * Which opened files have a graph, and their graphs: the registry's `graph` capability says what a format's file
 * holds (a TenniS graph, one ONNX model, ONNX networks by name), and this turns it into the graph view's document.
 */
import type { FormatGraph } from "../../../../bindings/formats/types.js";
import { capabilitiesOf } from "../../../../bindings/formats/registry.js";
import type { GraphDocument } from "../../model/graph.js";
import {
  type ConstantValue,
  type ConstantValues,
  loadConstantValues,
  onnxGraphDocument,
  onnxModelGraph,
  onnxTensorNames,
  unavailableGraph,
} from "../../model/graph-onnx.js";
import { tsmGraphDocument } from "../../model/graph-tsm.js";
import type { InspectorContext, OpenedFile } from "../context.js";
import type { onnx } from "../../../../bindings/index.js";

/**
 * The graph view's document of a format's graph (one graph per network; weights named `<network>/<weight>`);
 * `values`: the ONNX models' small constants (loadGraphConstants), shown inline and read by the shape inference.
 */
export function graphDocumentFrom(graph: FormatGraph, values?: ConstantValues): GraphDocument {
  switch (graph.kind) {
    case "tsm":
      return tsmGraphDocument(graph.graph);
    case "onnx":
      return onnxGraphDocument(graph.model, values);
    case "onnx-networks":
      return {
        graphs: graph.networks.map(({ name, model, error }) =>
          model
            ? onnxModelGraph(model, name, `${name}/`, values)
            : unavailableGraph(name, error ?? "not a readable ONNX model"),
        ),
      };
  }
}

/** The graphs of the opened file, or undefined when its format has none. */
export function graphDocumentOf(context: InspectorContext, values?: ConstantValues): GraphDocument | undefined {
  const file = context.current;
  const graph = file && capabilitiesOf(file.lazy.format)?.graph?.(file.lazy.file);
  return graph ? graphDocumentFrom(graph, values) : undefined;
}

/** The ONNX models of an opened file with the prefix of their weights' table names (april: `encoder/`…). */
function onnxModelsOf(file: OpenedFile): { model: onnx.OnnxModel; prefix: string }[] {
  const graph = capabilitiesOf(file.lazy.format)?.graph?.(file.lazy.file);
  if (graph?.kind === "onnx") return [{ model: graph.model, prefix: "" }];
  if (graph?.kind !== "onnx-networks") return [];
  return graph.networks.flatMap(({ name, model }) => (model ? [{ model, prefix: `${name}/` }] : []));
}

/**
 * Decodes the small constants of the file's ONNX graphs with the format's own loadTensor over the opened source
 * (a few small range reads; external data is never read). Empty for other formats.
 */
export async function loadGraphConstants(file: OpenedFile): Promise<ConstantValues> {
  const infos = new Map(file.infos.map((info) => [info.name, info]));
  const values = new Map<onnx.OnnxTensor, ConstantValue>();
  for (const { model, prefix } of onnxModelsOf(file)) {
    const tableName = onnxTensorNames(model, prefix);
    const loaded = await loadConstantValues(model, async (t, options) => {
      const name = tableName(t);
      const info = name !== undefined ? infos.get(name) : undefined;
      return info ? file.module.loadTensor(file.source, info, options) : undefined;
    });
    for (const [t, value] of loaded) values.set(t, value);
  }
  return values;
}

/** Formats whose files have a graph view (the `graph` capability: TenniS / SeetaFace6, ONNX, april's networks). */
export function hasGraph(format: string | undefined): boolean {
  return format !== undefined && capabilitiesOf(format)?.graph !== undefined;
}
