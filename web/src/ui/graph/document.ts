/**
 * Which opened files have a graph, and their graphs: the registry's `graph` capability says what a format's file
 * holds (a TenniS graph, one ONNX model, ONNX networks by name), and this turns it into the graph view's document.
 */
import type { FormatGraph } from "../../../../bindings/formats/types.js";
import { capabilitiesOf } from "../../../../bindings/formats/registry.js";
import type { GraphDocument } from "../../model/graph.js";
import { onnxGraphDocument, onnxModelGraph, unavailableGraph } from "../../model/graph-onnx.js";
import { tsmGraphDocument } from "../../model/graph-tsm.js";
import type { InspectorContext } from "../context.js";

/** The graph view's document of a format's graph (one graph per network; weights named `<network>/<weight>`). */
export function graphDocumentFrom(graph: FormatGraph): GraphDocument {
  switch (graph.kind) {
    case "tsm":
      return tsmGraphDocument(graph.graph);
    case "onnx":
      return onnxGraphDocument(graph.model);
    case "onnx-networks":
      return {
        graphs: graph.networks.map(({ name, model, error }) =>
          model
            ? onnxModelGraph(model, name, `${name}/`)
            : unavailableGraph(name, error ?? "not a readable ONNX model"),
        ),
      };
  }
}

/** The graphs of the opened file, or undefined when its format has none. */
export function graphDocumentOf(context: InspectorContext): GraphDocument | undefined {
  const file = context.current;
  const graph = file && capabilitiesOf(file.lazy.format)?.graph?.(file.lazy.file);
  return graph ? graphDocumentFrom(graph) : undefined;
}

/** Formats whose files have a graph view (the `graph` capability: TenniS / SeetaFace6, ONNX, april's networks). */
export function hasGraph(format: string | undefined): boolean {
  return format !== undefined && capabilitiesOf(format)?.graph !== undefined;
}
