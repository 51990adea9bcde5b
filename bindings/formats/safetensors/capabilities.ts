/** What safetensors offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as safetensors from "../safetensors.js";
import type { FormatCapabilities } from "../types.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof safetensors.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof safetensors, File> = {
  id: safetensors.id,
  module: safetensors,
  rawReadable: true,
};
