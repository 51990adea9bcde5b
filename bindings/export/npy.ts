/**
 * NumPy .npy writer (format version 1.0, or 2.0 when the header would not fit a u16 length):
 *   magic "\x93NUMPY" | major u8 | minor u8 | header_len u16 LE (v1) / u32 LE (v2) |
 *   header: Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces
 *           and ended by "\n" so that magic + lengths + header is a multiple of 64 bytes |
 *   data: row-major, little-endian.
 */
import type { DType, NamedTensor } from "../tensor.js";
import { dtypeBytes } from "../tensor.js";
import { checkEntry, checkTensor } from "./check.js";

const NPY_DESCR: Partial<Record<DType, string>> = {
  float16: "<f2",
  float32: "<f4",
  float64: "<f8",
  int8: "|i1",
  uint8: "|u1",
  int16: "<i2",
  uint16: "<u2",
  int32: "<i4",
  uint32: "<u4",
  int64: "<i8",
  uint64: "<u8",
  bool: "|b1",
  complex64: "<c8",
  complex128: "<c16",
  char8: "|S1",
};

/** The numpy dtype string for `dtype` (format-specific types without a numpy twin become raw void '|V<n>'). */
export function npyDescr(dtype: DType): string {
  return NPY_DESCR[dtype] ?? `|V${Math.max(1, dtypeBytes(dtype))}`;
}

function shapeLiteral(shape: readonly number[]): string {
  if (shape.length === 0) return "()";
  if (shape.length === 1) return `(${shape[0]},)`;
  return `(${shape.join(", ")})`;
}

/** The .npy header (magic through the newline) for a tensor of `dtype` and `shape`. */
export function npyHeader(dtype: DType, shape: readonly number[]): Uint8Array {
  checkEntry({ name: "npy", dtype, shape }, "npyHeader()");
  const dict = `{'descr': '${npyDescr(dtype)}', 'fortran_order': False, 'shape': ${shapeLiteral(shape)}, }`;
  const text = new TextEncoder().encode(dict);
  for (const [version, prefix] of [
    [1, 10],
    [2, 12],
  ] as const) {
    const total = Math.ceil((prefix + text.length + 1) / 64) * 64;
    const headerLength = total - prefix;
    if (version === 1 && headerLength > 0xffff) continue;
    const out = new Uint8Array(total);
    out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
    const view = new DataView(out.buffer);
    if (version === 1) view.setUint16(8, headerLength, true);
    else view.setUint32(8, headerLength, true);
    out.set(text, prefix);
    out.fill(0x20, prefix + text.length, total - 1);
    out[total - 1] = 0x0a;
    return out;
  }
  throw new RangeError("npy header too large");
}

/** A whole .npy file for one tensor. */
export function writeNpy(tensor: NamedTensor): Uint8Array {
  checkTensor(tensor, "writeNpy()");
  const header = npyHeader(tensor.dtype, tensor.shape);
  const data = new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  const out = new Uint8Array(header.length + data.length);
  out.set(header);
  out.set(data, header.length);
  return out;
}
