/**
 * The safetensors format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as safetensors from "../safetensors.js";
import type { FormatCapabilities, FormatReading } from "../types.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof safetensors.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: safetensors.id,
  extensions: safetensors.extensions,
  detect: safetensors.detect,
  read: safetensors.read,
  readFrom: safetensors.readFrom,
  tensors: safetensors.tensors,
  tensorInfos: safetensors.tensorInfos,
  loadTensor: safetensors.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof safetensors, File> = {
  id: safetensors.id,
  module: safetensors,
};
