// The subpaths, compiled by test/package/run.mjs like usage.ts (strict, skipLibCheck false) under the module
// resolutions that read package.json "exports" (node16, nodenext, bundler): each format's namespace under its own
// names, the kernels by name, and the same types as the main entry's namespaces.
import { type FormatError, spraak as spraakOfMain } from "tensorfile";
import { f16ToF32, stats } from "tensorfile/kernels";
import * as april from "tensorfile/april";
import { read as readBw2l, tensors as bw2lTensors } from "tensorfile/bw2l";
import * as npy from "tensorfile/npy";
import * as npz from "tensorfile/npz";
import * as onnx from "tensorfile/onnx";
import * as primitiv from "tensorfile/primitiv";
import * as safetensors from "tensorfile/safetensors";
import * as spraak from "tensorfile/spraak";
import * as tsm from "tensorfile/tsm";

export function subpaths(bytes: Uint8Array): number {
  const same: typeof spraakOfMain.read = spraak.read;
  let count = 0;
  if (spraak.detect(bytes)) count += spraak.tensors(same(bytes), { dtype: "float32" }).length;
  if (tsm.detect(bytes)) count += tsm.read(bytes).nodes.length;
  if (april.detect(bytes)) count += april.blobs(april.read(bytes)).length;
  if (onnx.detect(bytes)) {
    const model: onnx.OnnxModel = onnx.read(bytes);
    count += onnx.tensorInfos(model).length + (model.graph?.nodes.length ?? 0);
  }
  if (primitiv.detect(bytes)) count += primitiv.tensorInfos(primitiv.read(bytes)).length;
  if (safetensors.detect(bytes) || npy.detect(bytes) || npz.detect(bytes)) count += 1;
  for (const t of bw2lTensors(readBw2l(bytes))) if (t.dtype === "float32") count += stats(t.data).count;
  const half: Float32Array = f16ToF32(new Uint16Array([0x3c00]));
  return count + half.length;
}

export function isOurs(error: unknown): error is FormatError {
  return error instanceof Error && "code" in error;
}
