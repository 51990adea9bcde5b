/** The npz parser: one synchronous pass over a ByteReader, shared by read() (eager) and readFrom() (lazy). */
import { CorruptDataError } from "../../bytes/errors.js";
import type { ByteReader } from "../../bytes/byte-reader.js";
import { MAX_HEADER_BYTES, parseNpy } from "../npy/parse.js";
import {
  type NpzMember,
  checkCrc,
  inflateMember,
  inflatePrefix,
  npyHeaderBytes,
  parseInflated,
  tensorName,
} from "./members.js";
import { type ZipEntry, checkOverlaps, readDirectory, readLocalHeader } from "./zip.js";

/** A whole `.npz`, as {@link read} gives it. */
export interface NpzFile {
  /** The members in central directory order. */
  members: NpzMember[];
  /** The archive comment (latin-1). */
  comment: string;
  /** True when the archive has a zip64 end record. */
  zip64: boolean;
  /** read() only: the file's bytes (a view of the input, or a copy), which write() gives back. */
  bytes?: Uint8Array | undefined;
}

export interface ParseOptions {
  /** Read and inflate member data (read()), or only the headers (readFrom()). */
  eager: boolean;
}

/** The first compressed bytes a lazy read inflates to find a deflated member's .npy header (then 4x more). */
const FIRST_PREFIX = 4096;

function parseMember(r: ByteReader, entry: ZipEntry, index: number, options: ParseOptions): NpzMember {
  const format = r.format;
  const field = `members[${JSON.stringify(entry.name)}]`;
  const base = {
    name: entry.name,
    tensor: tensorName(entry, index, format),
    method: entry.method === 0 ? ("stored" as const) : ("deflated" as const),
    crc32: entry.crc32,
    compressedSize: entry.compressedSize,
    size: entry.size,
    localHeaderOffset: entry.localHeaderOffset,
    dataOffset: entry.dataOffset,
  };
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.size) {
      throw new CorruptDataError(
        format,
        `a stored member's compressed size ${entry.compressedSize} differs from its size ${entry.size}`,
        entry.entryOffset + 20,
        `central_directory[${index}].compressed_size`,
      );
    }
    const array = parseNpy(
      r.slice(entry.dataOffset, entry.dataOffset + entry.size),
      { eager: options.eager, copy: false },
      field,
    );
    if (!options.eager) return { ...base, array };
    const content = r.slice(entry.dataOffset, entry.dataOffset + entry.size).bytesView(entry.size, `${field}.data`);
    return { ...base, array, content };
  }
  const compressedAt = r.slice(entry.dataOffset, entry.dataOffset + entry.compressedSize);
  if (options.eager) {
    const compressed = compressedAt.bytesView(entry.compressedSize, `${field}.data`);
    const content = inflateMember(compressed, entry.size, format, entry.dataOffset, `${field}.data`);
    const array = parseInflated(content, format, entry.dataOffset, field);
    checkCrc(content, entry.crc32, format, entry.dataOffset, `${field}.data`);
    return { ...base, array, content };
  }
  // lazy: inflate only as much as the .npy header needs
  const limit = Math.min(entry.size, 12 + MAX_HEADER_BYTES);
  for (let k = Math.min(entry.compressedSize, FIRST_PREFIX); ; k = Math.min(entry.compressedSize, k * 4)) {
    const prefix = r.slice(entry.dataOffset, entry.dataOffset + k).bytesView(k, `${field}.data`);
    const out = inflatePrefix(prefix, k === entry.compressedSize, limit, format, entry.dataOffset, `${field}.data`);
    const headerBytes = npyHeaderBytes(out);
    const enough = headerBytes !== undefined && out.length >= Math.min(headerBytes, limit);
    if (enough || k === entry.compressedSize || out.length >= limit) {
      const header = headerBytes === undefined ? out : out.subarray(0, Math.min(headerBytes, out.length));
      return { ...base, array: parseInflated(header, format, entry.dataOffset, field, entry.size) };
    }
  }
}

export function parseFile(r: ByteReader, options: ParseOptions): NpzFile {
  const format = r.format;
  const directory = readDirectory(r);
  const seen = new Map<string, number>();
  directory.entries.forEach((entry, i) => {
    const name = tensorName(entry, i, format);
    if (seen.has(name)) {
      throw new CorruptDataError(
        format,
        `two members are named ${JSON.stringify(entry.name)}`,
        entry.entryOffset + 46,
        `central_directory[${i}].name`,
      );
    }
    seen.set(name, i);
  });
  checkOverlaps(directory.entries, format, false);
  directory.entries.forEach((entry, i) => readLocalHeader(r, entry, i, directory.centralDirectoryOffset));
  checkOverlaps(directory.entries, format, true);
  const members = directory.entries.map((entry, i) => parseMember(r, entry, i, options));
  return { members, comment: directory.comment, zip64: directory.zip64 };
}
