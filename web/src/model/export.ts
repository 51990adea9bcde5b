/**
 * Exports as streams of byte parts, so the page builds a download Blob tensor by tensor (Chromium keeps Blob
 * parts in its blob store, spilling to disk) and never holds a whole converted file in JS memory:
 * - the whole file as .safetensors (writeSafetensorsTo: header first, then each tensor),
 * - one tensor as .npy (writeNpyTo: header, then the data; a large plainly stored tensor in 16 MiB chunks),
 * - every blobs() entry (april networks as .onnx, bw2l data sections…) as its bytes, 16 MiB at a time.
 * Given the file's source (withSource), the library streams large plain tensors in chunks instead of loading them.
 */
import {
  type ByteSource,
  type EmbeddedBlob,
  type LazyTensors,
  type TensorInfo,
  planSafetensors,
  writeNpyTo,
  writeSafetensorsTo,
} from "../../../bindings/index.js";

export type Loader = LazyTensors;

/** Blob parts and reads of embedded files: 16 MiB at a time. */
export const EXPORT_CHUNK_BYTES = 16 * 1024 * 1024;

/** A lazy file with its source, so the streaming writers read large plain tensors in chunks from it. */
export function withSource(file: Pick<LazyTensors, "tensorInfos" | "loadTensor">, source: ByteSource): LazyTensors {
  return {
    tensorInfos: () => file.tensorInfos(),
    loadTensor: (info, options) => file.loadTensor(info, options),
    source,
  };
}

/**
 * Writes the whole file as .safetensors (dtypes as stored: float16 stays F16) into `sink` through the library's
 * streaming writer: the header, then one tensor at a time. The page's sink appends each chunk to a Blob.
 */
export function exportSafetensors(
  file: Loader,
  source: string,
  sink: (chunk: Uint8Array) => void | Promise<void>,
  onProgress?: (written: number, total: number, name: string) => void,
): Promise<number> {
  return writeSafetensorsTo(sink, file, { metadata: { "tensorfile.source": source }, onProgress });
}

/**
 * Why the whole file cannot go into one .safetensors (a tensor with an empty name, or named "__metadata__": the
 * header's key for its metadata), or undefined when it can.
 */
export function safetensorsNameProblem(infos: readonly TensorInfo[]): string | undefined {
  const bad = infos.find((i) => i.name === "" || i.name === "__metadata__");
  if (bad === undefined) return undefined;
  const what =
    bad.name === "" ? "a tensor has an empty name" : 'a tensor is named "__metadata__" (the header\'s metadata key)';
  return `${what}, which a .safetensors file cannot hold; download tensors as .npy instead`;
}

/** The planned size of the .safetensors export (for the button's label), or undefined with no tensors or names it cannot hold. */
export function safetensorsSize(infos: readonly TensorInfo[], source: string): number | undefined {
  if (infos.length === 0 || safetensorsNameProblem(infos) !== undefined) return undefined;
  return planSafetensors(
    infos.map((i) => ({ name: i.name, dtype: i.dtype, shape: i.shape })),
    { "tensorfile.source": source },
  ).size;
}

/** Writes one tensor of `file` as .npy into `sink` (streamed from the file's source when large and plainly stored). */
export function exportNpy(
  file: Loader,
  info: TensorInfo,
  sink: (chunk: Uint8Array) => void | Promise<void>,
): Promise<number> {
  // a .npy holds no name: a tensor whose name is empty is written too (writeNpyTo wants a name on what it loads)
  const named: Loader = {
    ...file,
    loadTensor: async (i, options) => {
      const tensor = await file.loadTensor(i, options);
      return tensor.name === "" ? { ...tensor, name: "(unnamed)" } : tensor;
    },
  };
  return writeNpyTo(sink, { file: named, info });
}

/** A download file name for a tensor: path separators and odd characters made safe, ".npy" added. */
export function tensorFileName(name: string, extension = ".npy"): string {
  const safe = name
    .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 180);
  return `${safe || "tensor"}${extension}`;
}

/** The file name of an export of `fileName` with a new extension ("model.b2l" -> "model.safetensors"). */
export function replaceExtension(fileName: string, extension: string): string {
  const base = fileName.replace(/^.*[\\/]/, "").replace(/\?.*$/, "");
  const dot = base.lastIndexOf(".");
  return `${dot > 0 ? base.slice(0, dot) : base || "file"}${extension}`;
}

/** Writes a blobs() entry into `sink`: its bytes in memory, or its byte range of the source 16 MiB at a time. */
export async function copyBlobTo(
  blob: EmbeddedBlob,
  source: Pick<ByteSource, "read">,
  sink: (chunk: Uint8Array) => void | Promise<void>,
  chunkBytes = EXPORT_CHUNK_BYTES,
): Promise<number> {
  if (blob.bytes instanceof Uint8Array) {
    await sink(blob.bytes);
    return blob.bytes.length;
  }
  const { byteOffset, byteLength } = blob.bytes;
  let done = 0;
  while (done < byteLength) {
    const part = await source.read(byteOffset + done, Math.min(chunkBytes, byteLength - done));
    if (part.length === 0) throw new RangeError(`the file ends inside ${blob.name}`);
    const piece = part.subarray(0, byteLength - done);
    await sink(piece);
    done += piece.length;
  }
  return done;
}

/** The size of a blobs() entry. */
export function blobSize(blob: EmbeddedBlob): number {
  return blob.bytes instanceof Uint8Array ? blob.bytes.length : blob.bytes.byteLength;
}
