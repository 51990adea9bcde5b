/**
 * ONNX external data, read: a weight whose TensorProto says data_location EXTERNAL keeps its bytes in another
 * file, named by the `location` key relative to the model's folder, at `offset` (0 when absent) for `length`
 * bytes (the dims' bytes; onnx/onnx's external_data_helper writes `location`, `offset`, `length` and may write
 * `checksum`, a SHA-1 that is kept but not checked).
 *
 * Where the file is looked for (io/external-data.ts): in the folder of the model's path when the model was opened
 * from a path of a regular file; in the folder the caller named (`externalData: folder`, `--external-dir`); or
 * through the caller's resolver. Any other source (bytes, a Blob or File, a URL, standard input, a pipe) has no
 * folder: a SourceError naming the tensor and the location.
 *
 * In a folder, the location must stay inside it: the reader already refuses absolute locations and a `..` path
 * component (a name that merely starts with "..", as `..w.bin`, is a file of the folder); here the location is
 * resolved with every symlink followed (realpath) and must still be inside the folder's own real path, so a
 * symlink is followed only to a file of the same folder tree. Only a regular file is read: the file is opened
 * with O_NONBLOCK (a FIFO cannot block the open), then fstat of the opened descriptor must say "regular file"
 * (a FIFO, a device, a socket or a folder is a SourceError naming the tensor and the location).
 */
import { LimitError } from "../../bytes/errors.js";
import { openFileAccess } from "../../io/file-access.js";
import { type ExternalDataPlace, externalDataPlace } from "../../io/external-data.js";
import { asSource, bytesOrUndefined } from "../../bytes/input.js";
import {
  type ByteSource,
  MAX_BYTES_IN_ONE_ARRAY,
  SourceError,
  fromBytes,
  rangeChunks,
  readExactly,
} from "../../io/source.js";
import type { Incoming } from "../../patch/input.js";
import type { TensorInfo } from "../../tensor.js";
import { id } from "./model.js";

/** view.ts's OnnxTensorInfo as this module reads it (an external weight's info). */
type ExternalInfo = TensorInfo & { onnx?: { storage: string; location?: string | undefined } | undefined };

/** An external weight's file, opened: its bytes are `info`'s range of `source` (a plain row-major TensorInfo). */
export interface OpenedExternal {
  /** The external file. */
  source: ByteSource;
  /** The weight as a plainly stored tensor of `source` (no `onnx` part): byteOffset is the `offset` key. */
  info: TensorInfo;
  /** Closes what was opened here (a resolver's source is the resolver's to close). */
  close(): Promise<void>;
}

/** True when `info` is an ONNX weight in an external file. */
export function isExternal(info: TensorInfo): boolean {
  return (info as ExternalInfo).onnx?.storage === "external";
}

/** The location of the external file `info`'s bytes are stored in, or undefined for a weight stored in the model. */
export function externalFileOf(info: TensorInfo): string | undefined {
  return isExternal(info) ? (info as ExternalInfo).onnx?.location : undefined;
}

/** The text that names a weight and its location in every message here. */
function about(info: TensorInfo): string {
  return `onnx tensor "${info.name}" is stored in the external file ${JSON.stringify((info as ExternalInfo).onnx?.location)}`;
}

/** The SourceError for a source that has no folder and no resolver. */
export function noFolderError(source: ByteSource | undefined, info: TensorInfo, hint?: string): SourceError {
  const what = source?.name
    ? `${source.name} was not opened from a path of a regular file`
    : "the model was not opened from a path of a regular file";
  return new SourceError(
    `${about(info)}, and ${what} (bytes, a Blob or File, a URL, standard input or a pipe have no folder): ${hint ?? "name the folder with the externalData option (--external-dir DIR in the CLI)"}`,
  );
}

let nodeModules:
  | Promise<{
      fs: typeof import("node:fs/promises");
      constants: typeof import("node:fs").constants;
      path: typeof import("node:path");
      url: typeof import("node:url");
    }>
  | undefined;

/** node:fs, node:path and node:url, imported at the call through variable specifiers (browser bundles stay clean). */
function node(info: TensorInfo): Promise<NonNullable<Awaited<typeof nodeModules>>> {
  nodeModules ??= (async () => {
    const load = async <T>(specifier: string) => (await import(/* @vite-ignore */ specifier)) as T;
    const [fs, fsSync, path, url] = await Promise.all([
      load<typeof import("node:fs/promises")>("node:fs/promises"),
      load<typeof import("node:fs")>("node:fs"),
      load<typeof import("node:path")>("node:path"),
      load<typeof import("node:url")>("node:url"),
    ]);
    return { fs, constants: fsSync.constants, path, url };
  })();
  return nodeModules.catch((cause: unknown) => {
    nodeModules = undefined;
    throw new SourceError(
      `${about(info)}, which needs a file system (Node or Deno) to be read from a folder; give a resolver as the externalData option`,
      { cause },
    );
  });
}

/** True when `relative` (path.relative's answer) leaves its folder: an absolute path or a first component "..". */
function leaves(relative: string, path: typeof import("node:path")): boolean {
  if (relative === "" || path.isAbsolute(relative)) return true;
  const first = relative.split(/[\\/]/)[0];
  return first === "..";
}

/** Opens the weight's file in `folder` (confined to it, a regular file only). */
async function openInFolder(folder: string, info: TensorInfo, location: string): Promise<OpenedExternal> {
  const { fs, constants, path } = await node(info);
  let realFolder: string;
  let target: string;
  try {
    realFolder = await fs.realpath(folder);
  } catch (cause) {
    throw new SourceError(`${about(info)}; its folder ${folder} cannot be read: ${(cause as Error).message}`, {
      cause,
    });
  }
  try {
    target = await fs.realpath(path.resolve(realFolder, location));
  } catch (cause) {
    throw new SourceError(`${about(info)}, which cannot be opened in ${realFolder}: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (leaves(path.relative(realFolder, target), path)) {
    throw new SourceError(`${about(info)}, which resolves to ${target}, outside the model's folder ${realFolder}`);
  }
  // O_NONBLOCK: opening a FIFO does not wait for a writer; O_NOFOLLOW: the real path's last component is no symlink
  // (one swapped in since realpath is refused). Both are 0 where the platform has no such flag.
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);
  let access: Awaited<ReturnType<typeof openFileAccess>>;
  try {
    access = await openFileAccess(target, "onnx external data", flags);
  } catch (cause) {
    const reason = (cause as Error).message.replace(/^tensorfile: /, "");
    throw new SourceError(`${about(info)}: ${reason}`, { cause });
  }
  if (!access.regularFile) {
    access.close();
    throw new SourceError(
      `${about(info)}: ${target} is not a regular file (a FIFO, a device or a socket), which is never read as external data`,
    );
  }
  return { source: access.source(), info: plainInfo(info), close: async () => access.close() };
}

/** The weight as a plainly stored tensor of its external file. */
function plainInfo(info: TensorInfo): TensorInfo {
  const plain: TensorInfo = { ...info };
  delete (plain as ExternalInfo).onnx;
  return plain;
}

/** The folder of a model opened from a path (a file: URL too). */
async function modelFolder(
  place: Extract<ExternalDataPlace, { kind: "model-path" }>,
  info: TensorInfo,
): Promise<string> {
  const { path, url } = await node(info);
  const file =
    place.path instanceof URL || /^file:/i.test(String(place.path)) ? url.fileURLToPath(place.path) : place.path;
  return path.dirname(path.resolve(file));
}

/**
 * Opens the file of external weight `info` of the model read through `source`, where the source says to look
 * (see the module comment), and checks that the weight's bytes are all in it. Close it when done.
 */
export async function openExternal(source: ByteSource, info: TensorInfo): Promise<OpenedExternal> {
  const location = (info as ExternalInfo).onnx?.location;
  if (location === undefined) throw new SourceError(`onnx tensor "${info.name}" is external but names no location`);
  const place = externalDataPlace(source);
  let opened: OpenedExternal;
  if (place === undefined) throw noFolderError(source, info);
  if (place.kind === "resolver") {
    let given: unknown;
    try {
      given = await place.resolve(location, { tensor: info.name, offset: info.byteOffset, length: info.byteLength });
    } catch (cause) {
      if (cause instanceof SourceError) throw cause;
      throw new SourceError(
        `${about(info)}, which the externalData resolver refused: ${(cause as Error)?.message ?? String(cause)}`,
        { cause },
      );
    }
    const bytes = bytesOrUndefined(given);
    let resolved: ByteSource;
    try {
      resolved = bytes ? fromBytes(bytes, location) : asSource(given as ByteSource, "the externalData resolver");
    } catch (cause) {
      throw new SourceError(
        `${about(info)}; the externalData resolver must give a ByteSource or a Uint8Array: ${(cause as Error).message.replace(/^tensorfile: /, "")}`,
        { cause },
      );
    }
    opened = { source: resolved, info: plainInfo(info), close: async () => {} };
  } else {
    opened = await openInFolder(
      place.kind === "folder" ? place.folder : await modelFolder(place, info),
      info,
      location,
    );
  }
  const size = opened.source.size;
  if (size !== undefined && info.byteOffset + info.byteLength > size) {
    await opened.close();
    throw new SourceError(
      `${about(info)}, which ends before bytes ${info.byteOffset}..${info.byteOffset + info.byteLength} (it holds ${size} bytes)`,
    );
  }
  return opened;
}

/**
 * An external weight's stored bytes, whole (loadTensor): a LIMIT FormatError when they are more than one array
 * holds (read it in pieces: convert, extract, stats stream it), a SourceError when the file ends first.
 */
export async function readExternalBytes(source: ByteSource, info: TensorInfo): Promise<Uint8Array> {
  if (!(info.byteLength <= MAX_BYTES_IN_ONE_ARRAY)) {
    // before anything is opened: a weight no array holds fails the same with or without its file
    throw new LimitError(
      id,
      `external weight "${info.name}" takes ${info.byteLength} bytes, more than one array holds (${MAX_BYTES_IN_ONE_ARRAY}); convert, extract and stats read it in pieces`,
      info.byteOffset,
      info.name,
      info.byteLength,
      MAX_BYTES_IN_ONE_ARRAY,
    );
  }
  const opened = await openExternal(source, info);
  try {
    return await readExactly(opened.source, info.byteOffset, info.byteLength, id, info.name);
  } catch (error) {
    if ((error as { code?: string }).code === "TRUNCATED") {
      throw new SourceError(
        `${about(info)}, which ends before bytes ${info.byteOffset}..${info.byteOffset + info.byteLength}`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    await opened.close();
  }
}

/** Bytes per read when a patch copies an external weight's stored bytes through. */
const RAW_CHUNK = 8 << 20;

/**
 * An ONNX weight in an external file, for a patch: its stored bytes are a plain range of that file, copied through
 * in chunks (undefined for a weight stored in the model itself).
 */
export function externalStoredBytes(source: ByteSource, info: TensorInfo): Incoming["raw"] {
  if (!isExternal(info)) return undefined;
  const plain: TensorInfo = { ...info };
  delete (plain as { onnx?: unknown }).onnx;
  return {
    info: plain,
    async *chunks() {
      const opened = await openExternal(source, info);
      try {
        yield* rangeChunks(
          opened.source,
          info.byteOffset,
          info.byteOffset + info.byteLength,
          RAW_CHUNK,
          info.format ?? "onnx",
          info.name,
        );
      } finally {
        await opened.close();
      }
    },
  };
}
