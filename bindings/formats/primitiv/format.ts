/**
 * The primitiv format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as primitiv from "../primitiv.js";
import type { FormatCapabilities, FormatReading } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof primitiv.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: primitiv.id,
  extensions: primitiv.extensions,
  detect: primitiv.detect,
  read: primitiv.read,
  readFrom: primitiv.readFrom,
  tensors: primitiv.tensors,
  tensorInfos: primitiv.tensorInfos,
  loadTensor: primitiv.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof primitiv, File> = {
  id: primitiv.id,
  module: primitiv,
  planPatch,
};
