/** What onnx offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as onnx from "../onnx.js";
import type { FormatCapabilities } from "../types.js";
import { externalStoredBytes } from "./external.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof onnx.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof onnx, File> = {
  id: onnx.id,
  module: onnx,
  planPatch,
  externalData: true,
  storedBytesOutside: externalStoredBytes,
  edit: {
    model: (file) => file,
    fields: onnx.MODEL_FIELDS,
    setField: onnx.setModelField,
    writeTo: (file, sink) => onnx.writeTo(file, sink),
  },
  graph: (file) => ({ kind: "onnx", model: file }),
  inspectTables: ["inputs", "outputs"],
  inspectMetadataKey: "metadataProps",
};
