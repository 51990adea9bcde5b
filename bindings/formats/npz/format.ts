/**
 * The npz format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as npz from "../npz.js";
import type { FormatCapabilities, FormatReading } from "../types.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof npz.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: npz.id,
  extensions: npz.extensions,
  detect: npz.detect,
  read: npz.read,
  readFrom: npz.readFrom,
  tensors: npz.tensors,
  tensorInfos: npz.tensorInfos,
  loadTensor: npz.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof npz, File> = {
  id: npz.id,
  module: npz,
  verifyFrom: npz.verifyFrom,
};
