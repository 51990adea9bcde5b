/** What april offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as april from "../april.js";
import type { FormatCapabilities } from "../types.js";
import { planPatch } from "./patch.js";
import { rewritePieces } from "./rewrite-from.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof april.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof april, File> = {
  id: april.id,
  module: april,
  planPatch,
  rewritePieces,
  edit: {
    networks: april.NETWORK_NAMES,
    model: (file, network) => april.networkModel(file, network ?? ""),
    fields: april.SETTABLE_FIELDS,
    setField: april.setField,
    writeTo: (file, sink) => april.writeTo(file, sink),
    quantize: (file, options) => {
      const result = april.quantizeWithReport(file, options);
      return {
        file: result.file,
        reports: april.NETWORK_NAMES.flatMap((network) => {
          const report = result.reports[network];
          return report ? [{ network, report }] : [];
        }),
      };
    },
  },
  graph: (file) => ({
    kind: "onnx-networks",
    networks: april.NETWORK_NAMES.map((name) => {
      const model = file.onnx?.[name];
      return model ? { name, model } : { name, error: file.onnxErrors?.[name] ?? "not a readable ONNX model" };
    }),
  }),
  embeds: {
    format: "onnx",
    names: april.NETWORK_NAMES,
    location: (file, name) => file.layout.networks[(april.NETWORK_NAMES as readonly string[]).indexOf(name)],
  },
};
