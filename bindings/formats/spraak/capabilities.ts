/** What spraak offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as spraak from "../spraak.js";
import type { FormatCapabilities } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof spraak.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof spraak, File> = {
  id: spraak.id,
  module: spraak,
  planPatch,
  speechFrames: true,
  segmentList: (file) => (file.data.layout === "LIST" ? { keys: file.keys, entries: file.data.entries } : undefined),
  errorHint: (message) =>
    /\d+ bytes? short/.test(message)
      ? " (hint: a binary file a few bytes short was often copied as text, which turns CRLF into LF inside the data: git autocrlf, FTP ASCII mode; get a binary copy)"
      : undefined,
};
