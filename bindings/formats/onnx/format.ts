/**
 * The onnx format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as onnx from "../onnx.js";
import type { FormatCapabilities, FormatReading } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof onnx.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: onnx.id,
  extensions: onnx.extensions,
  chosenByName: true,
  detect: onnx.detect,
  read: onnx.read,
  readFrom: onnx.readFrom,
  tensors: onnx.tensors,
  tensorInfos: onnx.tensorInfos,
  loadTensor: onnx.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof onnx, File> = {
  id: onnx.id,
  module: onnx,
  planPatch,
  externalData: true,
  graph: (file) => file,
  inspectTables: ["inputs", "outputs"],
  inspectMetadataKey: "metadataProps",
};
