/** npz members: each a .npy, stored or deflated. Parsing (eager and header-only lazy) and bounded inflating. */
import { Inflate } from "fflate";
import { CorruptDataError, FormatError, LimitError, TruncatedError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import { type ByteSource, readExactly } from "../../io/source.js";
import { type NpyArray, parseNpy } from "../npy/parse.js";
import { type ZipEntry, crc32 } from "./zip.js";

/** Deflate cannot expand 1 byte into more than 1032 (RFC 1951's longest match per bit pair): an upper bound. */
export const MAX_DEFLATE_RATIO = 1032;
/** Members inflate in slices of this many compressed bytes, so a bomb is caught as output grows. */
const SLICE = 64 * 1024;

/** One member of the archive: a `.npy`, stored or deflated. */
export interface NpzMember {
  /** The member's name as stored, e.g. "weight.npy". */
  name: string;
  /** The tensor name: the member name without ".npy". */
  tensor: string;
  /** How the member is stored. */
  method: "stored" | "deflated";
  /** The CRC-32 of the `.npy` the directory declares. */
  crc32: number;
  /** Bytes of the member's data in the file. */
  compressedSize: number;
  /** The .npy's size (uncompressed). */
  size: number;
  /** Absolute offset of the member's local header. */
  localHeaderOffset: number;
  /** Absolute offset of the member's data in the file (compressed for deflated members). */
  dataOffset: number;
  /**
   * The .npy inside. read(): data is a view of the input (stored) or of the inflated member; readFrom(): stored
   * members' data is its absolute range in the file, deflated members' data its range inside the inflated .npy.
   */
  array: NpyArray;
  /** read() only: the whole .npy (the inflated bytes for deflated members), which the CRC-32 covers. */
  content?: Uint8Array | undefined;
}

/** Where a member's tensor is, in what TensorInfo alone does not say (npz's loadTensor needs it). */
export interface NpzMemberRef {
  /** How the member is stored. */
  method: "stored" | "deflated";
  /** Absolute offset and length of the member's data in the file. */
  dataOffset: number;
  /** Bytes of the member's data in the file. */
  compressedSize: number;
  /** The `.npy`'s size (uncompressed). */
  size: number;
  /** Offset of the tensor data inside the (inflated) .npy. */
  arrayOffset: number;
  /** The CRC-32 the directory declares (checked when a deflated member is inflated). */
  crc32: number;
}

/**
 * The member an npz TensorInfo (from tensorInfos()) carries, or undefined for an info without one (built by hand,
 * or another format's): checked field by field, so that a caller never trusts a cast.
 */
export function memberOf(info: object): NpzMemberRef | undefined {
  const member: unknown = "member" in info ? info.member : undefined;
  return isMemberRef(member) ? member : undefined;
}

function isMemberRef(value: unknown): value is NpzMemberRef {
  return (
    typeof value === "object" &&
    value !== null &&
    "method" in value &&
    (value.method === "stored" || value.method === "deflated") &&
    ["dataOffset", "compressedSize", "size", "arrayOffset", "crc32"].every(
      (key) => typeof Reflect.get(value, key) === "number",
    )
  );
}

/** The member's name with its ".npy" cut off; CORRUPT for names that are not .npy files. */
export function tensorName(entry: ZipEntry, index: number, format: string): string {
  if (!entry.name.endsWith(".npy") || entry.name.length === 4) {
    throw new CorruptDataError(
      format,
      `member ${JSON.stringify(entry.name)} is not an .npy file (npz members are named <name>.npy)`,
      entry.entryOffset + 46,
      `central_directory[${index}].name`,
    );
  }
  return entry.name.slice(0, -4);
}

/** A deflate error from fflate (or ours) as a FormatError at the member's data. */
function inflateError(cause: unknown, format: string, offset: number, field: string): FormatError {
  if (cause instanceof FormatError) return cause;
  const code = (cause as { code?: number }).code;
  const detail =
    code === 0
      ? "the deflate stream ends before its last block"
      : `bad deflate data: ${(cause as Error)?.message ?? String(cause)}`;
  return new CorruptDataError(format, detail, offset, field, { cause });
}

/**
 * Inflates a whole member into exactly `size` bytes: CORRUPT when it inflates to more (stopped as soon as it
 * does) or fewer, or when `size` is impossible for the compressed length.
 */
export function inflateMember(
  compressed: Uint8Array,
  size: number,
  format: string,
  offset: number,
  field: string,
): Uint8Array {
  if (size > compressed.length * MAX_DEFLATE_RATIO + 1024) {
    throw new CorruptDataError(
      format,
      `a ${size}-byte member cannot be inflated from ${compressed.length} deflated bytes`,
      offset,
      field,
    );
  }
  let out: Uint8Array;
  try {
    out = new Uint8Array(size);
  } catch (cause) {
    throw new LimitError(
      format,
      `cannot allocate ${size} bytes for the inflated member (${(cause as Error).message})`,
      offset,
      field,
      size,
    );
  }
  let total = 0;
  const inflater = new Inflate((chunk) => {
    if (total + chunk.length > size)
      throw new CorruptDataError(
        format,
        `the member inflates to more than the ${size} bytes the directory says`,
        offset,
        field,
      );
    out.set(chunk, total);
    total += chunk.length;
  });
  try {
    if (compressed.length === 0)
      throw new CorruptDataError(format, "a deflated member needs at least one block (0 bytes)", offset, field);
    for (let p = 0; p < compressed.length; p += SLICE) {
      const end = Math.min(compressed.length, p + SLICE);
      inflater.push(compressed.subarray(p, end), end === compressed.length);
    }
  } catch (cause) {
    throw inflateError(cause, format, offset, field);
  }
  if (total !== size)
    throw new CorruptDataError(
      format,
      `the member inflates to ${total} bytes, the directory says ${size}`,
      offset,
      field,
    );
  return out;
}

/**
 * Inflates the start of a member (`compressed` may be a prefix of its data; `final` when it is all of it):
 * whatever output that gives, at most `limit` bytes.
 */
export function inflatePrefix(
  compressed: Uint8Array,
  final: boolean,
  limit: number,
  format: string,
  offset: number,
  field: string,
): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflater = new Inflate((chunk) => {
    chunks.push(chunk);
    total += chunk.length;
  });
  try {
    for (let p = 0; p < compressed.length && total < limit; p += SLICE) {
      const end = Math.min(compressed.length, p + SLICE);
      inflater.push(compressed.subarray(p, end), final && end === compressed.length);
    }
  } catch (cause) {
    throw inflateError(cause, format, offset, field);
  }
  const out = new Uint8Array(Math.min(total, limit));
  let at = 0;
  for (const c of chunks) {
    if (at >= out.length) break;
    out.set(c.subarray(0, out.length - at), at);
    at += c.length;
  }
  return out;
}

/** How many bytes the .npy's magic, lengths and header take, once its first 12 bytes are known (else undefined). */
export function npyHeaderBytes(prefix: Uint8Array): number | undefined {
  if (prefix.length < 10) return undefined;
  const major = prefix[6];
  if (major === 1) return 10 + (prefix[8]! | (prefix[9]! << 8));
  if (prefix.length < 12) return undefined;
  return 12 + ((prefix[8]! | (prefix[9]! << 8) | (prefix[10]! << 16)) + prefix[11]! * 2 ** 24);
}

/**
 * Parses an .npy held in `bytes` that are not at a file offset of their own (an inflated member): errors are
 * re-thrown at the member's data offset, naming the byte inside the inflated member.
 */
export function parseInflated(
  bytes: Uint8Array,
  format: string,
  dataOffset: number,
  field: string,
  declaredSize?: number,
): NpyArray {
  try {
    return parseNpy(
      new ByteReader(bytes, format),
      { eager: declaredSize === undefined, copy: false, declaredSize },
      field,
    );
  } catch (error) {
    if (!(error instanceof FormatError) || error.offset === undefined) throw error;
    const detail = `${error.detail} (at byte ${error.offset} of the inflated member)`;
    if (error instanceof TruncatedError) {
      throw new CorruptDataError(format, `the inflated member is too short: ${detail}`, dataOffset, error.field, {
        cause: error,
      });
    }
    throw new FormatError(error.code, format, detail, dataOffset, error.field, { cause: error });
  }
}

/**
 * Checks an inflated member against its declared CRC-32 (CORRUPT on a mismatch, as numpy refuses such members).
 * Deflated members are checked whenever they are inflated (the CRC costs a fraction of the inflate); stored
 * members only by verify(), so that reading them stays a plain range read.
 */
export function checkCrc(content: Uint8Array, declared: number, format: string, offset: number, field: string): void {
  const computed = crc32(content);
  if (computed !== declared) {
    throw new CorruptDataError(
      format,
      `CRC-32 mismatch: 0x${hex8(declared)} declared, 0x${hex8(computed)} computed from the inflated member`,
      offset,
      field,
    );
  }
}

export function hex8(value: number): string {
  return value.toString(16).padStart(8, "0");
}

/** Compressed bytes read (and inflated) per step when a member streams: at most ~1032x this comes out at once. */
export const STREAM_SLICE_BYTES = 16 * 1024;
/** Compressed bytes read from the source at a time when a member streams. */
const STREAM_READ_BYTES = 1024 * 1024;

/**
 * Inflates a deflated member from `source` a slice at a time and yields its content (the whole .npy, header
 * included) in pieces of at most ~17 MB, never holding the member whole: a 2 GiB member of a 2 MB file streams
 * in bounded memory. The size and the CRC-32 are checked at the end (CORRUPT), and the output is stopped as soon
 * as it passes the declared size.
 */
export async function* inflateMemberPieces(
  source: ByteSource,
  ref: NpzMemberRef,
  format: string,
  field: string,
): AsyncGenerator<Uint8Array> {
  const offset = ref.dataOffset;
  if (ref.size > ref.compressedSize * MAX_DEFLATE_RATIO + 1024) {
    throw new CorruptDataError(
      format,
      `a ${ref.size}-byte member cannot be inflated from ${ref.compressedSize} deflated bytes`,
      offset,
      field,
    );
  }
  if (ref.compressedSize === 0)
    throw new CorruptDataError(format, "a deflated member needs at least one block (0 bytes)", offset, field);
  let total = 0;
  let crc = 0;
  let pending: Uint8Array[] = [];
  const inflater = new Inflate((chunk) => {
    if (total + chunk.length > ref.size)
      throw new CorruptDataError(
        format,
        `the member inflates to more than the ${ref.size} bytes the directory says`,
        offset,
        field,
      );
    total += chunk.length;
    crc = crc32(chunk, crc);
    pending.push(chunk);
  });
  for (let read = 0; read < ref.compressedSize;) {
    const length = Math.min(STREAM_READ_BYTES, ref.compressedSize - read);
    const compressed = await readExactly(source, offset + read, length, format, field);
    read += length;
    for (let p = 0; p < compressed.length; p += STREAM_SLICE_BYTES) {
      const end = Math.min(compressed.length, p + STREAM_SLICE_BYTES);
      try {
        inflater.push(compressed.subarray(p, end), read === ref.compressedSize && end === compressed.length);
      } catch (cause) {
        throw inflateError(cause, format, offset, field);
      }
      const out = pending;
      pending = [];
      for (const chunk of out) yield chunk;
    }
  }
  if (total !== ref.size)
    throw new CorruptDataError(
      format,
      `the member inflates to ${total} bytes, the directory says ${ref.size}`,
      offset,
      field,
    );
  if (crc !== ref.crc32) {
    throw new CorruptDataError(
      format,
      `CRC-32 mismatch: 0x${hex8(ref.crc32)} declared, 0x${hex8(crc)} computed from the inflated member`,
      offset,
      field,
    );
  }
}
