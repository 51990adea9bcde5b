/** What primitiv offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as primitiv from "../primitiv.js";
import type { FormatCapabilities } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof primitiv.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof primitiv, File> = {
  id: primitiv.id,
  module: primitiv,
  planPatch,
};
