/** The file names of an extract folder: the library's bindings/folder/names.ts (kept here for the CLI's imports). */
export { MANIFEST, decodePart, decodePath, encodePart, encodePath, folderPaths } from "../folder/names.js";
