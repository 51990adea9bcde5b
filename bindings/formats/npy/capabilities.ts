/** What npy offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as npy from "../npy.js";
import type { FormatCapabilities } from "../types.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof npy.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof npy, File> = {
  id: npy.id,
  module: npy,
  rawReadable: true,
  unnamedTensor: () => "a .npy file: it holds one tensor and no name; give the name with --tensor NAME",
};
