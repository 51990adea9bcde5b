/** The uniform view of an .npy array (shared by npy and npz members): its TensorInfo and decoded tensor. */
import { type DecodeOptions, type NamedTensor, type TensorInfo, decodeTensor, dtypeBytes } from "../../tensor.js";
import type { InspectTensor } from "../types.js";
import { type NpyArray, descrInfo } from "./parse.js";

/** The TensorInfo of an array whose data starts at absolute `byteOffset`. */
export function arrayInfo(array: NpyArray, name: string, byteOffset: number, format: string): TensorInfo {
  const info = descrInfo(array.descr)!; // parseNpy accepted the descr
  const count = array.shape.reduce((a, d) => a * d, 1);
  return {
    name,
    dtype: info.dtype,
    shape: array.shape.slice(),
    byteOffset,
    byteLength: count * dtypeBytes(info.dtype),
    byteOrder: info.byteOrder,
    layout: array.fortranOrder ? "column-major" : "row-major",
    format,
  };
}

/** Decodes loaded bytes: byte swap for big-endian, transpose for Fortran order, widening on request. */
export function decodeArray(bytes: Uint8Array, info: TensorInfo, options: DecodeOptions, format: string): NamedTensor {
  return decodeTensor(bytes, info, options, format);
}

export function inspectRow(array: NpyArray, name: string): InspectTensor {
  const info = descrInfo(array.descr)!;
  const count = array.shape.reduce((a, d) => a * d, 1);
  return { name, dtype: info.dtype, shape: array.shape.slice(), byteLength: count * dtypeBytes(info.dtype) };
}

/** The header keys as numpy names them, for inspect. */
export function headerMeta(array: NpyArray): Record<string, unknown> {
  return { descr: array.descr, fortran_order: array.fortranOrder, shape: array.shape.slice() };
}

/** Warnings about one array (prefix: "" or the npz member). */
export function arrayWarnings(array: NpyArray, headerBytes: number, prefix: string): string[] {
  const warnings: string[] = [];
  const info = descrInfo(array.descr)!;
  if (headerBytes % 64 !== 0)
    warnings.push(
      `${prefix}the data starts at byte ${headerBytes} of the .npy, a multiple of 16 but not of 64 (numpy pads to 64 since 1.14)`,
    );
  if (info.nativeOrder)
    warnings.push(`${prefix}descr '${array.descr}' names no byte order (numpy's native order); read as little-endian`);
  if (info.dtype.startsWith("unknown"))
    warnings.push(`${prefix}descr '${array.descr}' is raw void data: read as ${info.dtype} bytes`);
  return warnings;
}
