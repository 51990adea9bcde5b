/** What bw2l offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as bw2l from "../bw2l.js";
import type { FormatCapabilities } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof bw2l.read>;

/** The modes `convert --quantize` takes for a bw2l re-encode. */
const QUANTIZE_MODES: readonly bw2l.QuantizeMode[] = ["fp16", "i8"];

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof bw2l, File> = {
  id: bw2l.id,
  module: bw2l,
  planPatch,
  // `convert IN.b2l OUT.b2l --dtype float32` stores float32 params; `--quantize fp16|i8` float16 or int8 ones
  reencode: {
    dtypes: ["float32"],
    quantize: QUANTIZE_MODES,
    read: (bytes, dtype) => bw2l.read(bytes, { dequantize: dtype === "float32" }),
    refusal: (file, quantize, input) =>
      quantize === "i8" && file.version !== 1
        ? `--quantize i8 needs a version 1 bw2l input (only version 1 layers carry a scale and offset); ${input} is version ${file.version}: use --quantize fp16`
        : undefined,
    // (convert passes one of QUANTIZE_MODES or none)
    write: (file, quantize) => bw2l.write(file, { quantize: QUANTIZE_MODES.find((mode) => mode === quantize) }),
  },
};
