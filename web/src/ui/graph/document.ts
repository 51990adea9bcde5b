/** Which opened files have a graph, and their graphs (TenniS / SeetaFace6, ONNX, april's three networks). */
import { capabilitiesOf } from "../../../../bindings/formats/registry.js";
import { april, type onnx, tsm } from "../../../../bindings/index.js";
import type { GraphDocument } from "../../model/graph.js";
import {
  type ConstantValue,
  type ConstantValues,
  aprilGraphDocument,
  loadConstantValues,
  onnxGraphDocument,
  onnxTensorNames,
} from "../../model/graph-onnx.js";
import { tsmGraphDocument } from "../../model/graph-tsm.js";
import type { InspectorContext, OpenedFile } from "../context.js";

/**
 * The graphs of the opened file, or undefined when its format has none; `values`: the ONNX models' small constants
 * (loadGraphConstants), shown inline and read by the shape inference.
 */
export function graphDocumentOf(context: InspectorContext, values?: ConstantValues): GraphDocument | undefined {
  const file = context.current;
  if (!file) return undefined;
  if (file.lazy.format === "tsm") return tsmGraphDocument(tsm.graph(file.lazy.file as Parameters<typeof tsm.graph>[0]));
  if (file.lazy.format === "onnx") return onnxGraphDocument(file.lazy.file as onnx.OnnxModel, values);
  if (file.lazy.format === "april")
    return aprilGraphDocument(file.lazy.file as april.AprilFile, april.NETWORK_NAMES, values);
  return undefined;
}

/** The ONNX models of an opened file with the prefix of their weights' table names (april: `encoder/`…). */
function onnxModelsOf(file: OpenedFile): { model: onnx.OnnxModel; prefix: string }[] {
  if (file.lazy.format === "onnx") return [{ model: file.lazy.file as onnx.OnnxModel, prefix: "" }];
  if (file.lazy.format !== "april") return [];
  const networks = (file.lazy.file as april.AprilFile).onnx ?? {};
  return april.NETWORK_NAMES.flatMap((network) => {
    const model = networks[network];
    return model ? [{ model, prefix: `${network}/` }] : [];
  });
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
