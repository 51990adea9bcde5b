/**
 * The spraak format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading, in capabilities.ts (re-exported here: a bundle
 * that uses only `reading` never includes that module, which holds the whole format as a value). The reading
 * functions are named imports: Rolldown (Vite) keeps a whole namespace whose members are read here.
 */
import { detect, extensions, id, loadTensor, read, readFrom, tensorInfos, tensors } from "../spraak.js";
import type { FormatReading } from "../types.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id,
  title: "SPRAAK",
  extensions,
  detect,
  read,
  readFrom,
  tensors,
  tensorInfos,
  loadTensor,
};

export { capabilities } from "./capabilities.js";
