/**
 * The april format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as april from "../april.js";
import type { FormatCapabilities, FormatReading } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof april.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: april.id,
  extensions: april.extensions,
  detect: april.detect,
  read: april.read,
  readFrom: april.readFrom,
  tensors: april.tensors,
  tensorInfos: april.tensorInfos,
  loadTensor: april.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof april, File> = {
  id: april.id,
  module: april,
  planPatch,
  graph: (file) => file,
  embeds: { format: "onnx", names: april.NETWORK_NAMES },
};
