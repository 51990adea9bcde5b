/** Node-only helpers (also re-exported from the main entry, where fromFile imports node:fs lazily). */
export { fromFile } from "./io/source.js";
