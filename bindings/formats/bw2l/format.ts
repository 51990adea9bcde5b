/**
 * The bw2l format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as bw2l from "../bw2l.js";
import type { FormatCapabilities, FormatReading } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof bw2l.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: bw2l.id,
  extensions: bw2l.extensions,
  detect: bw2l.detect,
  read: bw2l.read,
  readFrom: bw2l.readFrom,
  tensors: bw2l.tensors,
  tensorInfos: bw2l.tensorInfos,
  loadTensor: bw2l.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof bw2l, File> = {
  id: bw2l.id,
  module: bw2l,
  planPatch,
};
