/** What npz offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as npz from "../npz.js";
import type { FormatCapabilities } from "../types.js";
import { tensorChunks } from "./chunks.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof npz.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof npz, File> = {
  id: npz.id,
  module: npz,
  verifyFrom: npz.verifyFrom,
  tensorChunks,
};
