/**
 * The way to load a model: `loadFile(path)` gives every tensor in memory, row-major, each read from the file
 * straight into its final place; `openFile(path)` opens it lazily (headers only) for loading some tensors;
 * `loadBlob(file)` does what loadFile does for a browser File or Blob.
 *
 * loadFile reads the headers through the lazy path (readFromAny: a few small positioned reads), then each
 * tensor's bytes with positioned reads: one read per tensor into its final array where the stored form is already
 * the result, else per chunk of at most 1 MiB through a reusable scratch where the kernels swap, widen, dequantize
 * or transpose into the final array (io/arena.ts). The file is never held whole; small files (up to 1 MiB) are
 * read in one go. The tensors equal `readAny(bytes).tensors(options)` of the same file.
 *
 * Node and Deno (`node:fs` is imported at the call, through a variable specifier, so browser bundles stay clean).
 */
import { type AnyLazyFile, type FormatFiles, readFromAny } from "./any.js";
import type { FormatId } from "./formats/types.js";
import { type ArenaPlan, decodeIntoArenas, planArena } from "./io/arena.js";
import { type FileAccess, openFileAccess } from "./io/file-access.js";
import { type ExternalDataOption, checkExternalDataOption, withExternalData } from "./io/external-data.js";
import { markRegularFile } from "./io/regular-file.js";
import { asSource } from "./bytes/input.js";
import { type ByteSource, fromBlob, fromBytes } from "./io/source.js";
import { getBackend, wasmAvailable } from "./kernels/index.js";
import { type NamedTensor, isPlainlyStored } from "./tensor.js";

/** Options of {@link loadFile}, {@link loadBlob} and {@link loadSource}. */
export interface LoadOptions {
  /** "float32": every real-valued tensor as a Float32Array, exactly as tensors() and loadTensor() do it. */
  dtype?: "float32" | undefined;
  /**
   * Where an ONNX model's external data is (weights in other files, named by a `location` relative to the
   * model's folder): a folder, or a function `(location, request) => ByteSource | Uint8Array` (see
   * {@link ExternalDataResolver}). Without it, loadFile and openFile look in the folder of the model's path (a
   * regular file); loadBlob and loadSource look nowhere (a File's `name` is not a path): an external weight is
   * then a SourceError naming the tensor and the location.
   */
  externalData?: ExternalDataOption | undefined;
}

/** Options of {@link openFile}. */
export interface OpenOptions {
  /** As {@link LoadOptions.externalData}. */
  externalData?: ExternalDataOption | undefined;
}

/** What loadFile returns: the format, the file's header-level object (tensor payloads as byte ranges) and the tensors. */
export type LoadedFile = {
  [K in FormatId]: {
    /** The format's id: narrows `file`. */
    format: K;
    /** The format's file object, as its `readFrom()` returns it (tensor payloads as byte ranges). */
    file: FormatFiles[K];
    /** Every tensor of the file, row-major, in the file's order. */
    tensors: NamedTensor[];
  };
}[FormatId];

/** What openFile returns: a readFromAny() result over the file, plus close(). */
export type OpenedFile = AnyLazyFile & {
  /** The file as a ByteSource (for loadTensor(source, info) and the format modules' readFrom/loadTensor). */
  source: ByteSource;
  /** Closes the file. loadTensor fails afterwards. */
  close(): Promise<void>;
};

/**
 * Thresholds (not part of the public API; tests set them to 0 to send every file through the arena):
 * files up to `wholeFileBytes` are read in one go (one read beats several small ones); below `arenaMinBytes`
 * of tensors an arena costs more than it saves.
 */
export const LOAD_TUNING = { wholeFileBytes: 1 << 20, arenaMinBytes: 256 * 1024 };

function checkOptions(options: unknown, fn: string): LoadOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object")
    throw new TypeError(`tensorfile: ${fn}() options must be an object like { dtype: "float32" }`);
  const dtype = (options as LoadOptions).dtype;
  if (dtype !== undefined && dtype !== "float32")
    throw new TypeError(
      `tensorfile: ${fn}() options.dtype must be "float32" or undefined, not ${JSON.stringify(dtype)}`,
    );
  const externalData = checkExternalDataOption((options as LoadOptions).externalData, fn);
  return { ...(dtype === undefined ? {} : { dtype }), ...(externalData === undefined ? {} : { externalData }) };
}

/** The decode options of LoadOptions (without externalData, which is the source's). */
function decodeOptions(options: LoadOptions): LoadOptions {
  return options.dtype === undefined ? {} : { dtype: options.dtype };
}

/** Reads every tensor of an opened file: through the arena when `direct` reads are possible, else via loadTensor. */
async function loadAll(opened: AnyLazyFile, direct: FileAccess | undefined, options: LoadOptions): Promise<LoadedFile> {
  const infos = opened.tensorInfos();
  const tensors = new Array<NamedTensor>(infos.length);
  const plans: ArenaPlan[] = [];
  const planned: number[] = [];
  if (direct && getBackend() !== "js" && wasmAvailable()) {
    infos.forEach((info, i) => {
      const plan = isPlainlyStored(info) ? planArena(info, options.dtype === "float32") : undefined;
      if (plan) {
        plans.push(plan);
        planned.push(i);
      }
    });
    if (plans.reduce((a, p) => a + p.outBytes, 0) >= LOAD_TUNING.arenaMinBytes) {
      const decoded = decodeIntoArenas(direct, plans, opened.format);
      if (decoded) decoded.forEach((t, j) => (tensors[planned[j]!] = t));
    }
  }
  for (let i = 0; i < infos.length; i++) {
    if (!tensors[i]) tensors[i] = await opened.loadTensor(infos[i]!, decodeOptions(options));
  }
  return { format: opened.format, file: opened.file, tensors } as LoadedFile;
}

/**
 * Every tensor of the model file at `path`, in memory, row-major (the same tensors as
 * `readAny(readFileSync(path)).tensors(options)`), read from the file straight into their final arrays.
 * Throws a FormatError for a bad file and a SourceError when the file cannot be read. Node and Deno.
 *
 * Large files' tensors share one WebAssembly memory (their `data.buffer`) that is freed when none is referenced.
 */
export async function loadFile(path: string | URL, options?: LoadOptions): Promise<LoadedFile> {
  const checked = checkOptions(options, "loadFile");
  const access = await openFileAccess(path, "loadFile");
  try {
    if (access.size <= LOAD_TUNING.wholeFileBytes) {
      const bytes = new Uint8Array(access.size);
      access.readExactlyInto(bytes, 0, "tensorfile");
      // the bytes of a regular file keep its folder (for ONNX external data): a fact from the fstat of `access`
      const whole = access.regularFile
        ? markRegularFile(fromBytes(bytes, access.name), path)
        : fromBytes(bytes, access.name);
      return await loadAll(await readFromAny(withExternalData(whole, checked.externalData)), undefined, checked);
    }
    return await loadAll(await readFromAny(withExternalData(access.source(), checked.externalData)), access, checked);
  } finally {
    access.close();
  }
}

/**
 * The model file at `path` opened lazily: headers only (a readFromAny() result), tensors loaded one at a time with
 * `loadTensor(name or info)`. Call `close()` when done. Node and Deno.
 */
export async function openFile(path: string | URL, options?: OpenOptions): Promise<OpenedFile> {
  if (options !== undefined && (options === null || typeof options !== "object"))
    throw new TypeError("tensorfile: openFile() options must be an object like { externalData: folder }");
  const externalData = checkExternalDataOption(options?.externalData, "openFile");
  const access = await openFileAccess(path, "openFile");
  try {
    const source = withExternalData(access.source(), externalData);
    const opened = await readFromAny(source);
    return Object.assign(opened, { source, close: async () => access.close() });
  } catch (error) {
    access.close();
    throw error;
  }
}

/**
 * loadFile for a browser `File` or `Blob` (or Node's `fs.openAsBlob`): headers through small slices, then one
 * slice per tensor, decoded into its final array (a view of the slice where nothing needs converting).
 */
export async function loadBlob(blob: Blob, options?: LoadOptions): Promise<LoadedFile> {
  const checked = checkOptions(options, "loadBlob");
  if (typeof Blob === "undefined" || !(blob instanceof Blob)) {
    throw new TypeError(
      `tensorfile: loadBlob() takes a Blob or File; for a path use loadFile(path), for bytes readAny(bytes)`,
    );
  }
  return loadAll(await readFromAny(withExternalData(fromBlob(blob), checked.externalData)), undefined, checked);
}

/** loadFile over any ByteSource (fromUrl, a custom one): one source read per tensor. */
export async function loadSource(source: ByteSource, options?: LoadOptions): Promise<LoadedFile> {
  const checked = checkOptions(options, "loadSource");
  return loadAll(
    await readFromAny(withExternalData(asSource(source, "loadSource"), checked.externalData)),
    undefined,
    checked,
  );
}
