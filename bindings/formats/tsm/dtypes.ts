/**
 * TenniS DTYPE codes (include/core/dtype.h) and their tensorfile DType names. The code is one byte per field;
 * bytes per element follow the C++ `type_bytes` (FLOAT64 is 8, PTR is 8 as on every 64-bit host).
 */
import type { DType } from "../../tensor.js";

/** DType name of each TenniS code, indexed by code (0..32). */
export const TSM_DTYPES: readonly DType[] = [
  "void",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "float16",
  "float32",
  "float64",
  "ptr",
  "char8",
  "char16",
  "char32",
  "unknown8",
  "unknown16",
  "unknown32",
  "unknown64",
  "unknown128",
  "bool",
  "complex32",
  "complex64",
  "complex128",
  "sink8q0",
  "sink8q1",
  "sink8q2",
  "sink8q3",
  "sink8q4",
  "sink8q5",
  "sink8q6",
  "sink8q7",
];

const CODE_OF = new Map<DType, number>(TSM_DTYPES.map((name, code) => [name, code]));

/** The TenniS code of a DType, or undefined for one TenniS does not have. */
export function tsmDTypeCode(dtype: DType): number | undefined {
  return CODE_OF.get(dtype);
}

/** The DType of a TenniS code, or undefined for an unknown code. */
export function tsmDTypeName(code: number): DType | undefined {
  return TSM_DTYPES[code];
}
