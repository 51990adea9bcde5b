/**
 * The spraak format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as spraak from "../spraak.js";
import type { FormatCapabilities, FormatReading } from "../types.js";
import { planPatch } from "./patch.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof spraak.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: spraak.id,
  extensions: spraak.extensions,
  detect: spraak.detect,
  read: spraak.read,
  readFrom: spraak.readFrom,
  tensors: spraak.tensors,
  tensorInfos: spraak.tensorInfos,
  loadTensor: spraak.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof spraak, File> = {
  id: spraak.id,
  module: spraak,
  planPatch,
  errorHint: (message) => /\d+ bytes? short/.test(message)
    ? " (hint: a binary file a few bytes short was often copied as text, which turns CRLF into LF inside the data: git autocrlf, FTP ASCII mode; get a binary copy)"
    : undefined,
};
