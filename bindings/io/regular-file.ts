/**
 * The sources opened from a path that fstat of the opened file showed to be a regular file (fromFile, loadFile,
 * openFile, the CLI's FILE): only they have a folder, where an ONNX model's external data is looked for
 * (io/external-data.ts). A WeakMap keyed by the source object, filled only by the openers that ran fstat, so no
 * field a caller sets on a source (its `name`) can give it a folder. Imports nothing (source.ts uses it).
 */
const regularFiles = new WeakMap<object, string | URL>();

/** Records that `source` reads the regular file at `path` (call only after fstat of the opened file said so). */
export function markRegularFile<T extends object>(source: T, path: string | URL): T {
  regularFiles.set(source, path);
  return source;
}

/** The path `source` was opened from when it is a regular file's; undefined for anything else. */
export function regularFilePath(source: object): string | URL | undefined {
  return regularFiles.get(source);
}
