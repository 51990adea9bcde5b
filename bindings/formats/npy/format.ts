/**
 * The npy format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as npy from "../npy.js";
import type { FormatCapabilities, FormatReading } from "../types.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof npy.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: npy.id,
  extensions: npy.extensions,
  detect: npy.detect,
  read: npy.read,
  readFrom: npy.readFrom,
  tensors: npy.tensors,
  tensorInfos: npy.tensorInfos,
  loadTensor: npy.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof npy, File> = {
  id: npy.id,
  module: npy,
  unnamedTensor: () => "a .npy file: it holds one tensor and no name; give the name with --tensor NAME",
};
