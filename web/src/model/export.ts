/**
 * Exports as streams of byte parts, so the page builds a download Blob tensor by tensor (Chromium keeps Blob
 * parts in its blob store, spilling to disk) and never holds a whole converted file in JS memory:
 * - the whole file as .safetensors (writeSafetensorsTo: header first, then each tensor),
 * - one tensor as .npy (npyHeader + the data),
 * - every blobs() entry (april networks as .onnx, bw2l data sections…) as its bytes.
 */
import {
  type ByteSource, type EmbeddedBlob, type LazyTensors, type NamedTensor, type TensorInfo, npyHeader, planSafetensors, writeSafetensorsTo,
} from "../../../bindings/index.js";

export type Loader = LazyTensors;

function bytesOfTensor(tensor: NamedTensor): Uint8Array {
  return new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
}

/**
 * Writes the whole file as .safetensors (dtypes as stored: float16 stays F16) into `sink` through the library's
 * streaming writer: the header, then one tensor at a time. The page's sink appends each chunk to a Blob.
 */
export function exportSafetensors(
  file: Loader, source: string, sink: (chunk: Uint8Array) => void | Promise<void>,
  onProgress?: (written: number, total: number, name: string) => void,
): Promise<number> {
  return writeSafetensorsTo(sink, file, { metadata: { "tensorfile.source": source }, onProgress });
}

/** The planned size of the .safetensors export (for the button's label), or undefined with no tensors. */
export function safetensorsSize(infos: readonly TensorInfo[], source: string): number | undefined {
  if (infos.length === 0) return undefined;
  return planSafetensors(infos.map((i) => ({ name: i.name, dtype: i.dtype, shape: i.shape })), { "tensorfile.source": source }).size;
}

/** The parts of a .npy file for one decoded tensor. */
export function npyParts(tensor: NamedTensor): Uint8Array[] {
  return [npyHeader(tensor.dtype, tensor.shape), bytesOfTensor(tensor)];
}

/** A download file name for a tensor: path separators and odd characters made safe, ".npy" added. */
export function tensorFileName(name: string, extension = ".npy"): string {
  const safe = name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, "_").replace(/^\.+/, "_").slice(0, 180);
  return `${safe || "tensor"}${extension}`;
}

/** The file name of an export of `fileName` with a new extension ("model.b2l" -> "model.safetensors"). */
export function replaceExtension(fileName: string, extension: string): string {
  const base = fileName.replace(/^.*[\\/]/, "").replace(/\?.*$/, "");
  const dot = base.lastIndexOf(".");
  return `${dot > 0 ? base.slice(0, dot) : base || "file"}${extension}`;
}

/** A blobs() entry's bytes: in memory already, or a byte range of the source. */
export async function blobBytes(blob: EmbeddedBlob, source: ByteSource): Promise<Uint8Array> {
  if (blob.bytes instanceof Uint8Array) return blob.bytes;
  const { byteOffset, byteLength } = blob.bytes;
  const out = new Uint8Array(byteLength);
  let done = 0;
  while (done < byteLength) {
    const part = await source.read(byteOffset + done, byteLength - done);
    if (part.length === 0) throw new RangeError(`the file ends inside ${blob.name}`);
    out.set(part.subarray(0, byteLength - done), done);
    done += part.length;
  }
  return out;
}

/** The size of a blobs() entry. */
export function blobSize(blob: EmbeddedBlob): number {
  return blob.bytes instanceof Uint8Array ? blob.bytes.length : blob.bytes.byteLength;
}
