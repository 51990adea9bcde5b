/** What onnx offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as onnx from "../onnx.js";
import type { FormatCapabilities } from "../types.js";
import { tensorChunks } from "./chunks.js";
import { externalFileOf, externalStoredBytes } from "./external.js";
import { planPatch } from "./patch.js";
import { rewritePieces } from "./rewrite-from.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof onnx.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof onnx, File> = {
  id: onnx.id,
  module: onnx,
  planPatch,
  rewritePieces,
  externalFileOf,
  storedBytesOutside: externalStoredBytes,
  tensorChunks,
  edit: {
    model: (file) => file,
    fields: onnx.MODEL_FIELDS,
    setField: onnx.setModelField,
    writeTo: (file, sink) => onnx.writeTo(file, sink),
    quantize: (file, options) => {
      const { model, report } = onnx.quantizeWithReport(file, options);
      return { file: model, reports: [{ network: undefined, report }] };
    },
  },
  graph: (file) => ({ kind: "onnx", model: file }),
  inspectTables: ["inputs", "outputs"],
  inspectMetadataKey: "metadataProps",
};
