/**
 * Node-only helpers (also exported by the main entry, where they import node:fs at the call). This entry
 * re-exports the main entry's own functions, so both share one copy of the library's state.
 */
export { fromFile, loadFile, openFile, loadBlob, loadSource } from "./index.js";
export type { LoadOptions, LoadedFile, OpenOptions, OpenedFile } from "./index.js";
export { openTensorFolder } from "./folder/open.js";
export type { TensorFolder } from "./folder/open.js";
