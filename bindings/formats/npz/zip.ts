/**
 * The ZIP structure of an .npz (PKWARE APPNOTE 6.3): end of central directory (zip64 too), the central
 * directory, every member's local header. All integers little-endian.
 *
 *   local header  "PK\3\4" | version u16 | flags u16 | method u16 | time u16 | date u16 | crc32 u32 |
 *                 compressed u32 | size u32 | name_len u16 | extra_len u16 | name | extra | data
 *   central entry "PK\1\2" | made_by u16 | version u16 | flags u16 | method u16 | time u16 | date u16 |
 *                 crc32 u32 | compressed u32 | size u32 | name_len u16 | extra_len u16 | comment_len u16 |
 *                 disk u16 | internal u16 | external u32 | local_offset u32 | name | extra | comment
 *   zip64 extra   id 0x0001 | len u16 | size u64, compressed u64, local_offset u64 (each only where the 32-bit
 *                 field is 0xffffffff), disk u32
 *   zip64 end     "PK\6\6" | record_size u64 | made_by u16 | version u16 | disk u32 | cd_disk u32 |
 *                 entries_on_disk u64 | entries u64 | cd_size u64 | cd_offset u64 | (extensible data)
 *   zip64 locator "PK\6\7" | disk u32 | zip64_end_offset u64 | disks u32
 *   end           "PK\5\6" | disk u16 | cd_disk u16 | entries_on_disk u16 | entries u16 | cd_size u32 |
 *                 cd_offset u32 | comment_len u16 | comment   (the comment runs to the end of the file)
 */
import { CorruptDataError, TruncatedError, UnsupportedError } from "../../bytes/errors.js";
import type { ByteReader } from "../../bytes/byte-reader.js";

export const LOCAL_SIGNATURE = 0x04034b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const END_BYTES = 22;
const MAX_COMMENT = 0xffff;
const CENTRAL_BYTES = 46;
const LOCAL_BYTES = 30;

export interface ZipEntry {
  /** The name as stored (decoded: UTF-8 when flag bit 11 is set, else code page 437). */
  name: string;
  /** The name's bytes as stored (the local header must repeat them). */
  nameBytes: Uint8Array;
  flags: number;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  crc32: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
  /** Absolute offset of the member's (compressed) data. */
  dataOffset: number;
  /** True when the central directory entry needed a zip64 extra field. */
  zip64: boolean;
  /** Offset of the central directory entry (for errors). */
  entryOffset: number;
}

export interface ZipDirectory {
  entries: ZipEntry[];
  /** The archive comment (latin-1). */
  comment: string;
  /** True when the archive has a zip64 end record. */
  zip64: boolean;
  centralDirectoryOffset: number;
}

// IBM code page 437, bytes 0x80-0xff (zip names without the UTF-8 flag)
const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeName(bytes: Uint8Array, utf8Flag: boolean, format: string, offset: number, field: string): string {
  if (utf8Flag) {
    try {
      return utf8.decode(bytes);
    } catch (cause) {
      throw new CorruptDataError(format, "a name flagged UTF-8 is not valid UTF-8", offset, field, { cause });
    }
  }
  let name = "";
  for (const b of bytes) name += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80];
  return name;
}

/** Finds the end record: the last "PK\5\6" whose comment runs exactly to the end of the file. */
function findEnd(r: ByteReader): number {
  const size = r.fileSize;
  if (size < END_BYTES) throw new TruncatedError(r.format, size, "end of central directory", END_BYTES, size);
  const tailStart = Math.max(0, size - END_BYTES - MAX_COMMENT);
  r.seek(tailStart);
  const tail = r.bytesView(size - tailStart, "end of central directory");
  for (let i = tail.length - END_BYTES; i >= 0; i--) {
    if (tail[i] === 0x50 && tail[i + 1] === 0x4b && tail[i + 2] === 0x05 && tail[i + 3] === 0x06) {
      const commentLength = tail[i + 20]! | (tail[i + 21]! << 8);
      if (i + END_BYTES + commentLength === tail.length) return tailStart + i;
    }
  }
  // an npz cut short loses its end record first
  throw new TruncatedError(
    r.format,
    size,
    'end of central directory (no "PK\\5\\6" record ends the file: cut short, or not a zip)',
    END_BYTES,
    0,
  );
}

function signature(r: ByteReader, expected: number, what: string, field: string): void {
  const at = r.pos;
  const got = r.u32(field);
  if (got !== expected) {
    throw new CorruptDataError(
      r.format,
      `expected a ${what} signature 0x${expected.toString(16).padStart(8, "0")}, found 0x${got.toString(16).padStart(8, "0")}`,
      at,
      field,
    );
  }
}

/** The zip64 extra field's values for the 32-bit fields that are saturated. */
function zip64Extra(
  r: ByteReader,
  extraEnd: number,
  field: string,
  wanted: { size: boolean; compressed: boolean; offset: boolean; disk: boolean },
): { size?: number; compressed?: number; offset?: number } | undefined {
  const format = r.format;
  let found: { size?: number; compressed?: number; offset?: number } | undefined;
  while (r.pos < extraEnd) {
    if (extraEnd - r.pos < 4)
      throw new CorruptDataError(
        format,
        `${extraEnd - r.pos} stray bytes at the end of the extra field`,
        r.pos,
        `${field}.extra`,
      );
    const id = r.u16(`${field}.extra.id`);
    const lengthAt = r.pos;
    const length = r.u16(`${field}.extra.length`);
    const end = r.pos + length;
    if (end > extraEnd)
      throw new CorruptDataError(
        format,
        `an extra field of ${length} bytes runs past the ${extraEnd - lengthAt - 2} bytes left`,
        lengthAt,
        `${field}.extra.length`,
      );
    if (id === 0x0001 && !found) {
      found = {};
      const read = (name: "size" | "compressed" | "offset") => {
        if (r.pos + 8 > end)
          throw new CorruptDataError(format, `the zip64 extra field has no ${name}`, r.pos, `${field}.zip64.${name}`);
        found![name] = r.u64n(`${field}.zip64.${name}`);
      };
      if (wanted.size) read("size");
      if (wanted.compressed) read("compressed");
      if (wanted.offset) read("offset");
    }
    r.seek(end);
  }
  return found;
}

/** Reads the end record(s) and the central directory. */
export function readDirectory(r: ByteReader): ZipDirectory {
  const format = r.format;
  const endAt = findEnd(r);
  r.seek(endAt + 4);
  const disk = r.u16("end.disk");
  const cdDisk = r.u16("end.cd_disk");
  const entriesOnDisk = r.u16("end.entries_on_disk");
  let entries = r.u16("end.entries");
  let cdSize = r.u32("end.cd_size");
  let cdOffset = r.u32("end.cd_offset");
  const commentLength = r.u16("end.comment_length");
  const comment = r.latin1(commentLength, "end.comment");
  let directoryEnd = endAt;
  let zip64 = false;

  // a zip64 locator right before the end record points to the zip64 end record, which has the real values
  if (endAt >= 20) {
    r.seek(endAt - 20);
    if (r.u32("zip64_locator") === ZIP64_LOCATOR_SIGNATURE) {
      zip64 = true;
      const locatorAt = endAt - 20;
      const locatorDisk = r.u32("zip64_locator.disk");
      const endOffsetAt = r.pos;
      const end64At = r.u64n("zip64_locator.end_offset");
      const disks = r.u32("zip64_locator.disks");
      if (locatorDisk !== 0 || disks > 1)
        throw new UnsupportedError(format, "multi-disk (split) archives are not read", locatorAt, "zip64_locator.disk");
      if (end64At + 56 > locatorAt)
        throw new CorruptDataError(
          format,
          `the zip64 end record at ${end64At} does not fit before its locator at ${locatorAt}`,
          endOffsetAt,
          "zip64_locator.end_offset",
        );
      r.seek(end64At);
      signature(r, ZIP64_END_SIGNATURE, "zip64 end of central directory", "zip64_end");
      const recordSize = r.u64n("zip64_end.size");
      if (end64At + 12 + recordSize !== locatorAt) {
        throw new CorruptDataError(
          format,
          `the zip64 end record's size ${recordSize} does not reach its locator`,
          end64At + 4,
          "zip64_end.size",
        );
      }
      r.skip(4, "zip64_end.versions");
      const disk64 = r.u32("zip64_end.disk");
      const cdDisk64 = r.u32("zip64_end.cd_disk");
      if (disk64 !== 0 || cdDisk64 !== 0)
        throw new UnsupportedError(format, "multi-disk (split) archives are not read", end64At + 16, "zip64_end.disk");
      const onDiskAt = r.pos;
      const onDisk64 = r.u64n("zip64_end.entries_on_disk");
      entries = r.u64n("zip64_end.entries");
      if (onDisk64 !== entries)
        throw new CorruptDataError(
          format,
          `${onDisk64} entries on this disk but ${entries} in all (one disk)`,
          onDiskAt,
          "zip64_end.entries",
        );
      cdSize = r.u64n("zip64_end.cd_size");
      cdOffset = r.u64n("zip64_end.cd_offset");
      directoryEnd = end64At;
    }
  }
  if (!zip64) {
    if (disk !== 0 || cdDisk !== 0)
      throw new UnsupportedError(format, "multi-disk (split) archives are not read", endAt + 4, "end.disk");
    if (entriesOnDisk !== entries)
      throw new CorruptDataError(
        format,
        `${entriesOnDisk} entries on this disk but ${entries} in all (one disk)`,
        endAt + 8,
        "end.entries",
      );
  }
  if (cdOffset + cdSize !== directoryEnd) {
    throw new CorruptDataError(
      format,
      `the central directory (${cdSize} bytes at ${cdOffset}) must end where its end record starts (${directoryEnd})`,
      zip64 ? directoryEnd + 48 : endAt + 16,
      zip64 ? "zip64_end.cd_offset" : "end.cd_offset",
    );
  }
  if (entries * CENTRAL_BYTES > cdSize) {
    throw new CorruptDataError(
      format,
      `${entries} entries cannot fit in a ${cdSize}-byte central directory`,
      zip64 ? directoryEnd + 32 : endAt + 10,
      zip64 ? "zip64_end.entries" : "end.entries",
    );
  }

  r.seek(cdOffset);
  const list: ZipEntry[] = [];
  for (let i = 0; i < entries; i++) list.push(readCentralEntry(r, i, directoryEnd));
  if (r.pos !== directoryEnd) {
    throw new CorruptDataError(
      format,
      `${directoryEnd - r.pos} bytes after the ${entries} central directory entries`,
      r.pos,
      "central_directory",
    );
  }
  return { entries: list, comment, zip64, centralDirectoryOffset: cdOffset };
}

function readCentralEntry(r: ByteReader, index: number, directoryEnd: number): ZipEntry {
  const format = r.format;
  const field = `central_directory[${index}]`;
  const entryOffset = r.pos;
  signature(r, CENTRAL_SIGNATURE, "central directory entry", `${field}.signature`);
  r.skip(4, `${field}.versions`);
  const flagsAt = r.pos;
  const flags = r.u16(`${field}.flags`);
  const methodAt = r.pos;
  const method = r.u16(`${field}.method`);
  r.skip(4, `${field}.time`);
  const crc32 = r.u32(`${field}.crc32`);
  let compressedSize = r.u32(`${field}.compressed_size`);
  let size = r.u32(`${field}.size`);
  const nameLength = r.u16(`${field}.name_length`);
  const extraLength = r.u16(`${field}.extra_length`);
  const commentLength = r.u16(`${field}.comment_length`);
  const diskStart = r.u16(`${field}.disk`);
  r.skip(6, `${field}.attributes`);
  let localHeaderOffset = r.u32(`${field}.local_offset`);
  if (r.pos + nameLength + extraLength + commentLength > directoryEnd) {
    throw new CorruptDataError(
      format,
      `name, extra field and comment (${nameLength + extraLength + commentLength} bytes) run past the central directory`,
      entryOffset + 28,
      `${field}.name_length`,
    );
  }
  const nameAt = r.pos;
  const nameBytes = r.bytesView(nameLength, `${field}.name`);
  const name = decodeName(nameBytes, (flags & 0x0800) !== 0, format, nameAt, `${field}.name`);
  const wanted = {
    size: size === 0xffffffff,
    compressed: compressedSize === 0xffffffff,
    offset: localHeaderOffset === 0xffffffff,
    disk: diskStart === 0xffff,
  };
  const extraAt = r.pos;
  const extra = zip64Extra(r, r.pos + extraLength, `${field}`, wanted);
  r.skip(commentLength, `${field}.comment`);
  const zip64 = wanted.size || wanted.compressed || wanted.offset;
  if (zip64 && !extra)
    throw new CorruptDataError(
      format,
      "a size or offset is 0xffffffff but there is no zip64 extra field",
      extraAt,
      `${field}.extra`,
    );
  if (extra?.size !== undefined) size = extra.size;
  if (extra?.compressed !== undefined) compressedSize = extra.compressed;
  if (extra?.offset !== undefined) localHeaderOffset = extra.offset;
  if (diskStart !== 0 && diskStart !== 0xffff)
    throw new UnsupportedError(format, "multi-disk (split) archives are not read", entryOffset + 34, `${field}.disk`);
  if (flags & 0x0041)
    throw new UnsupportedError(format, `member ${JSON.stringify(name)} is encrypted`, flagsAt, `${field}.flags`);
  if (method !== 0 && method !== 8) {
    throw new UnsupportedError(
      format,
      `member ${JSON.stringify(name)} uses compression method ${method} (read: 0 stored, 8 deflate)`,
      methodAt,
      `${field}.method`,
    );
  }
  return {
    name,
    nameBytes,
    flags,
    method,
    crc32,
    compressedSize,
    size,
    localHeaderOffset,
    dataOffset: 0,
    zip64,
    entryOffset,
  };
}

/** Checks a member's local header against its central directory entry and sets its data offset. */
export function readLocalHeader(r: ByteReader, entry: ZipEntry, index: number, directoryStart: number): void {
  const format = r.format;
  const field = `members[${JSON.stringify(entry.name)}].local_header`;
  if (entry.localHeaderOffset + LOCAL_BYTES > directoryStart) {
    throw new CorruptDataError(
      format,
      `member ${JSON.stringify(entry.name)}'s local header at ${entry.localHeaderOffset} is not before the central directory`,
      entry.entryOffset + 42,
      `central_directory[${index}].local_offset`,
    );
  }
  r.seek(entry.localHeaderOffset);
  signature(r, LOCAL_SIGNATURE, "local file header", `${field}.signature`);
  r.skip(2, `${field}.version`);
  const flags = r.u16(`${field}.flags`);
  const methodAt = r.pos;
  const method = r.u16(`${field}.method`);
  r.skip(4, `${field}.time`);
  const crcAt = r.pos;
  const crc32 = r.u32(`${field}.crc32`);
  const compressedSize = r.u32(`${field}.compressed_size`);
  const size = r.u32(`${field}.size`);
  const nameLength = r.u16(`${field}.name_length`);
  const extraLength = r.u16(`${field}.extra_length`);
  const nameAt = r.pos;
  const nameBytes = r.bytesView(nameLength, `${field}.name`);
  if (nameBytes.length !== entry.nameBytes.length || nameBytes.some((b, i) => b !== entry.nameBytes[i])) {
    throw new CorruptDataError(
      format,
      "the local header's name differs from the central directory's",
      nameAt,
      `${field}.name`,
    );
  }
  if (method !== entry.method) {
    throw new CorruptDataError(
      format,
      `the local header says method ${method}, the central directory ${entry.method}`,
      methodAt,
      `${field}.method`,
    );
  }
  // without a data descriptor (flag bit 3) the local header repeats CRC and sizes (0xffffffff: see its zip64 extra)
  if ((flags & 0x0008) === 0) {
    const same = (local: number, central: number) => local === 0xffffffff || local === central;
    if (!same(crc32, entry.crc32) || !same(compressedSize, entry.compressedSize) || !same(size, entry.size)) {
      throw new CorruptDataError(
        format,
        "the local header's CRC-32 or sizes differ from the central directory's",
        crcAt,
        `${field}.crc32`,
      );
    }
  }
  r.skip(extraLength, `${field}.extra`);
  entry.dataOffset = r.pos;
  if (entry.dataOffset + entry.compressedSize > directoryStart) {
    throw new CorruptDataError(
      format,
      `member ${JSON.stringify(entry.name)}'s ${entry.compressedSize} bytes at ${entry.dataOffset} run into the central directory at ${directoryStart}`,
      entry.entryOffset + 20,
      `central_directory[${index}].compressed_size`,
    );
  }
}

/**
 * Members may not overlap: each local header starts after the previous member's data. Before the local headers
 * are read (`dataKnown` false) their data is taken to start right after header and name (extra fields unknown).
 */
export function checkOverlaps(entries: readonly ZipEntry[], format: string, dataKnown: boolean): void {
  const sorted = entries.map((e, i) => ({ e, i })).sort((a, b) => a.e.localHeaderOffset - b.e.localHeaderOffset);
  const end = (e: ZipEntry) =>
    (dataKnown ? e.dataOffset : e.localHeaderOffset + LOCAL_BYTES + e.nameBytes.length) + e.compressedSize;
  for (let k = 1; k < sorted.length; k++) {
    const previous = sorted[k - 1]!.e;
    const { e, i } = sorted[k]!;
    if (e.localHeaderOffset < end(previous)) {
      throw new CorruptDataError(
        format,
        `member ${JSON.stringify(e.name)} starts at ${e.localHeaderOffset}, inside member ${JSON.stringify(previous.name)}`,
        e.entryOffset + 42,
        `central_directory[${i}].local_offset`,
      );
    }
  }
}

/** CRC-32 tables for slicing by 8: table k maps a byte to its CRC contribution k bytes ahead (int32 values). */
const CRC_TABLE = (() => {
  const table = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    for (let t = 1; t < 8; t++)
      table[t * 256 + n] = (table[(t - 1) * 256 + n]! >>> 8) ^ table[table[(t - 1) * 256 + n]! & 0xff]!;
  }
  return table;
})();

/** CRC-32 (ISO-HDLC, as zip uses), eight bytes a step in int32 arithmetic; `crc` continues a previous value. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  const t = CRC_TABLE;
  let c = ~crc | 0;
  let i = 0;
  const n = bytes.length;
  const end8 = n - (n & 7);
  for (; i < end8; i += 8) {
    const lo = c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    const hi = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    c =
      t[1792 + (lo & 0xff)]! ^
      t[1536 + ((lo >>> 8) & 0xff)]! ^
      t[1280 + ((lo >>> 16) & 0xff)]! ^
      t[1024 + (lo >>> 24)]! ^
      t[768 + (hi & 0xff)]! ^
      t[512 + ((hi >>> 8) & 0xff)]! ^
      t[256 + ((hi >>> 16) & 0xff)]! ^
      t[hi >>> 24]!;
  }
  for (; i < n; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
