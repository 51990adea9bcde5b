/** Which opened files have a graph, and their graphs (TenniS / SeetaFace6, ONNX, april's three networks). */
import { capabilitiesOf } from "../../../../bindings/formats/registry.js";
import { april, type onnx, tsm } from "../../../../bindings/index.js";
import type { GraphDocument } from "../../model/graph.js";
import { aprilGraphDocument, onnxGraphDocument } from "../../model/graph-onnx.js";
import { tsmGraphDocument } from "../../model/graph-tsm.js";
import type { InspectorContext } from "../context.js";

/** The graphs of the opened file, or undefined when its format has none. */
export function graphDocumentOf(context: InspectorContext): GraphDocument | undefined {
  const file = context.current;
  if (!file) return undefined;
  if (file.lazy.format === "tsm") return tsmGraphDocument(tsm.graph(file.lazy.file as Parameters<typeof tsm.graph>[0]));
  if (file.lazy.format === "onnx") return onnxGraphDocument(file.lazy.file as onnx.OnnxModel);
  if (file.lazy.format === "april") return aprilGraphDocument(file.lazy.file as april.AprilFile, april.NETWORK_NAMES);
  return undefined;
}

/** Formats whose files have a graph view (the `graph` capability: TenniS / SeetaFace6, ONNX, april's networks). */
export function hasGraph(format: string | undefined): boolean {
  return format !== undefined && capabilitiesOf(format)?.graph !== undefined;
}
