/**
 * Where a model's external data may come from (ONNX `external_data`: weights kept in other files, named by a
 * location relative to the model's folder). A name is not a path: a source has a folder only when it was opened
 * from a path that fstat showed to be a regular file (fromFile, loadFile, openFile, the CLI's FILE), recorded here
 * when it is opened. Bytes, a Blob or File (whatever its `name` says), a URL, standard input, a pipe or a device
 * have none; their external weights are found only where the caller says: {@link withExternalData} with a folder
 * or a resolver (the `externalData` option of loadFile, openFile, loadBlob and loadSource; the CLI's
 * `--external-dir DIR`).
 *
 * The facts live in a WeakMap keyed by the source object, so nothing a caller puts in a source's fields (its
 * `name`) can give it a folder.
 */
import { markRegularFile, regularFilePath } from "./regular-file.js";
import type { ByteSource } from "./source.js";

/** What a resolver is asked for: one tensor's bytes in the external file `location`. */
export interface ExternalDataRequest {
  /** The tensor's name (as tensorInfos() lists it). */
  tensor: string;
  /** Where its bytes start in the external file (the `offset` key, 0 when absent). */
  offset: number;
  /** How many bytes it takes. */
  length: number;
}

/**
 * Gives the external file named by `location` (the ONNX `location` key, as written in the model) as a ByteSource
 * or its bytes: tensorfile then reads `[request.offset, request.offset + request.length)` of it. Called once per
 * tensor read; what it returns is not closed by tensorfile (a resolver that opens files keeps and closes them).
 * Throwing refuses the location (the error is passed on).
 */
export type ExternalDataResolver = (
  location: string,
  request: ExternalDataRequest,
) => ByteSource | Uint8Array | Promise<ByteSource | Uint8Array>;

/**
 * The `externalData` option: a folder (a path; locations are resolved in it and must stay in it, symlinks
 * included, and name regular files) or a {@link ExternalDataResolver}.
 */
export type ExternalDataOption = string | ExternalDataResolver;

/** How a source finds its external data (see the module comment). */
export type ExternalDataPlace =
  | { kind: "model-path"; path: string | URL }
  | { kind: "folder"; folder: string }
  | { kind: "resolver"; resolve: ExternalDataResolver };

/** The folders and resolvers callers named (withExternalData's sources). */
const places = new WeakMap<object, ExternalDataPlace>();

/**
 * Where `source` finds its external data: what the caller named (withExternalData), else the folder of the regular
 * file it reads (io/regular-file.ts); undefined when it has neither.
 */
export function externalDataPlace(source: ByteSource): ExternalDataPlace | undefined {
  const named = places.get(source);
  if (named) return named;
  const path = regularFilePath(source);
  return path === undefined ? undefined : { kind: "model-path", path };
}

/** The option checked: a folder path (a non-empty string) or a function; anything else is a TypeError. */
export function checkExternalDataOption(option: unknown, fn: string): ExternalDataOption | undefined {
  if (option === undefined) return undefined;
  if ((typeof option === "string" && option.length > 0) || typeof option === "function")
    return option as ExternalDataOption;
  throw new TypeError(
    `tensorfile: ${fn}() option externalData is a folder (a path) or a function (location, request) => ByteSource | Uint8Array, not ${option === null ? "null" : typeof option}`,
  );
}

/**
 * `source` with its external data looked for where `option` says (a folder, or a resolver) instead of beside the
 * file: a new ByteSource reading through `source` (closing it closes `source`). Without an option, `source` itself.
 *
 * ```ts
 * // an .onnx model received as bytes, its weights in files of /models/big
 * const file = await readFromAny(withExternalData(fromBytes(modelBytes), "/models/big"));
 * // or from anywhere: (location, { offset, length }) => a ByteSource or the file's bytes
 * const remote = withExternalData(fromUrl(modelUrl), (location) => fromUrl(new URL(location, modelUrl)));
 * ```
 */
export function withExternalData(source: ByteSource, option: ExternalDataOption | undefined): ByteSource {
  const checked = checkExternalDataOption(option, "withExternalData");
  if (checked === undefined) return source;
  if (source === null || typeof source !== "object" || typeof source.read !== "function") {
    throw new TypeError("tensorfile: withExternalData() takes a ByteSource (fromBytes, fromBlob, fromFile or fromUrl)");
  }
  const wrapped: ByteSource = {
    get size() {
      return source.size;
    },
    get name() {
      return source.name;
    },
    read: (offset, length) => source.read(offset, length),
  };
  if (source.readSync) wrapped.readSync = (offset, length) => source.readSync!(offset, length);
  if (source.readInto) wrapped.readInto = (target, offset) => source.readInto!(target, offset);
  if (source.close) wrapped.close = () => source.close!();
  places.set(
    wrapped,
    typeof checked === "string" ? { kind: "folder", folder: checked } : { kind: "resolver", resolve: checked },
  );
  return wrapped;
}

/**
 * Gives `derived` (a source that reads through `original`: a counting or caching wrapper) the external data place
 * of `original`. Returns `derived`.
 */
export function inheritExternalData<T extends ByteSource>(derived: T, original: ByteSource): T {
  const named = places.get(original);
  if (named) places.set(derived, named);
  else {
    const path = regularFilePath(original);
    if (path !== undefined) markRegularFile(derived, path);
  }
  return derived;
}
