// A usage example of the public API, compiled by test/package/run.mjs in a fresh project that installed the packed
// tarball, with `strict`, `exactOptionalPropertyTypes` and `skipLibCheck: false`, under several module resolutions.
import {
  type ByteSource,
  FormatError,
  type NamedTensor,
  april,
  bw2l,
  detectFormat,
  fromBlob,
  fromBytes,
  isFormatError,
  kernels,
  primitiv,
  readAny,
  readFromAny,
  spraak,
  tsm,
  writeNpy,
  writeSafetensors,
} from "tensorfile";

export async function tour(bytes: Uint8Array): Promise<number> {
  const format = detectFormat(bytes);
  const opened = readAny(bytes);
  let total = 0;
  for (const t of opened.tensors({ dtype: "float32" })) total += t.data.length;
  const lazy = await readFromAny(fromBytes(bytes));
  for (const info of lazy.tensorInfos()) {
    const loaded: NamedTensor = await lazy.loadTensor(info, { dtype: "float32" });
    total += loaded.shape.length;
  }
  const byName = lazy.tensorInfos()[0]?.name;
  if (byName !== undefined) await lazy.loadTensor(byName);
  const safetensors: Uint8Array = writeSafetensors(opened.tensors(), { note: "example" });
  const npy: Uint8Array | undefined = opened.tensors()[0] ? writeNpy(opened.tensors()[0]!) : undefined;
  return total + safetensors.length + (npy?.length ?? 0) + (format === undefined ? 0 : 1);
}

export function formats(bytes: Uint8Array): string[] {
  const out: string[] = [];
  if (bw2l.detect(bytes))
    out.push(String(bw2l.tensors(bw2l.read(bytes)).length), String(bw2l.write(bw2l.read(bytes)).length));
  if (april.detect(bytes)) out.push(String(april.blobs(april.read(bytes)).length));
  if (tsm.detect(bytes)) out.push(String(tsm.tensors(tsm.read(bytes)).length));
  if (primitiv.detect(bytes)) out.push(String(primitiv.tensors(primitiv.read(bytes)).length));
  if (spraak.detect(bytes)) out.push(String(spraak.tensors(spraak.read(bytes, { encoding: undefined })).length));
  return out;
}

/** The discriminated unions narrow with no cast. */
export function narrowing(bytes: Uint8Array): number {
  const opened = readAny(bytes);
  let count = 0;
  if (opened.format === "tsm") count += opened.file.nodes.length;
  if (opened.format === "april") count += april.blobs(opened.file).length;
  for (const t of opened.tensors()) {
    if (t.dtype === "float32") {
      const values: Float32Array = t.data;
      count += values.length;
    } else if (t.dtype === "float16") {
      const halves: Uint16Array = t.data;
      count += halves.length;
    }
  }
  return count;
}

export function halves(): Float32Array {
  return kernels.f16ToF32(new Uint16Array([0x3c00, 0x4000]));
}

export async function fromAFile(file: Blob): Promise<string | undefined> {
  const source: ByteSource = fromBlob(file);
  try {
    return (await readFromAny(source)).format;
  } catch (error) {
    if (isFormatError(error)) return `${error.code} at ${error.offset ?? "?"}`;
    if (error instanceof FormatError) return error.field;
    throw error;
  }
}
