/** Node-only helpers (also re-exported from the main entry, where fromFile imports node:fs lazily). */
export { fromFile } from "./io/source.js";
export { loadFile, openFile, loadBlob, loadSource } from "./load-file.js";
export type { LoadOptions, LoadedFile, OpenedFile } from "./load-file.js";
