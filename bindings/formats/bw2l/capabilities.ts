/** What bw2l offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as bw2l from "../bw2l.js";
import type { FormatCapabilities } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof bw2l.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof bw2l, File> = {
  id: bw2l.id,
  module: bw2l,
  planPatch,
};
