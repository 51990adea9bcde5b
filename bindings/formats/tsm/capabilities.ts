/** What tsm offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as tsm from "../tsm.js";
import type { FormatCapabilities } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof tsm.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof tsm, File> = {
  id: tsm.id,
  module: tsm,
  planPatch,
  graph: (file) => ({ kind: "tsm", graph: tsm.graph(file) }),
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
