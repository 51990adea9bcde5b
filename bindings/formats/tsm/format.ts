/**
 * The tsm format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as tsm from "../tsm.js";
import type { FormatCapabilities, FormatReading } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof tsm.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: tsm.id,
  extensions: tsm.extensions,
  detect: tsm.detect,
  read: tsm.read,
  readFrom: tsm.readFrom,
  tensors: tsm.tensors,
  tensorInfos: tsm.tensorInfos,
  loadTensor: tsm.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof tsm, File> = {
  id: tsm.id,
  module: tsm,
  planPatch,
  graph: (file) => tsm.graph(file),
  // a patched .csta may be written as a plain .tsm (its module) and a .tsm as a .csta (the default container)
  containers: {
    extensions: [".tsm", ".csta"],
    rewrap: (bytes, extension) => {
      const file = tsm.read(bytes);
      return extension === ".tsm" ? tsm.write({ ...file, container: undefined }) : tsm.writeCsta(file);
    },
  },
  convertsTo: ["onnx"],
  inspectMetaText: (key, value) => {
    if (key !== "reserved" || typeof value !== "string") return undefined;
    if (value === "") return "all zero";
    return `${(value.match(/../g) ?? []).join(" ")} (then zeros)`;
  },
};
