/**
 * NumPy .npz: an input format. A ZIP archive (np.savez: stored; np.savez_compressed: deflated) of .npy members,
 * one tensor each, named after the member without ".npy". Layout: see npz/zip.ts (zip64 read too).
 *
 * Checked: the end record (comment to the end of the file, one disk), the central directory exactly filling its
 * extent, every local header against its directory entry (name, method, CRC and sizes unless a data descriptor
 * follows), members inside the file, before the directory, not overlapping, named <name>.npy and unique,
 * methods stored or deflate, no encryption; each member a valid .npy (as npy.read checks it) of exactly the
 * declared size. Deflated members inflate bounded by the declared size (CORRUPT past it, never a bigger
 * allocation) and are checked against their CRC-32 whenever inflated; stored members' CRC-32s by verify().
 * readFrom() reads the directory, the local headers and each
 * member's .npy header (inflating only the start of deflated members); loadTensor reads one member.
 */
import { CorruptDataError } from "../bytes/errors.js";
import { ByteReader } from "../bytes/byte-reader.js";
import { asBytes, asSource, bytesOrUndefined, copyBytes } from "../bytes/input.js";
import * as lazy from "../io/lazy.js";
import { type ByteSource, readExactly } from "../io/source.js";
import { type DecodeOptions, type NamedTensor, type TensorInfo, decodeTensor } from "../tensor.js";
import type { EmbeddedBlob, InspectResult } from "./types.js";
import { encodeHeader } from "./npy/parse.js";
import { arrayInfo, arrayWarnings, headerMeta, inspectRow } from "./npy/view.js";
import { type NpzMember, type NpzMemberRef, checkCrc, hex8, inflateMember, memberOf } from "./npz/members.js";
import { type NpzFile, parseFile } from "./npz/reader.js";
import { crc32 } from "./npz/zip.js";
import { checkWriterInput } from "../bytes/arguments.js";

/** The format's id. */
export const id = "npz" as const;
/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".npz"];
/** An input format: read, converted, inspected, never written as a re-encode target. */
export const inputOnly = true;

export type { NpzFile } from "./npz/reader.js";
export type { NpzMember, NpzMemberRef } from "./npz/members.js";
export { crc32 } from "./npz/zip.js";

/** An npz tensor's info: where its member is, beyond what TensorInfo says (deflated members need it). */
export interface NpzTensorInfo extends TensorInfo {
  /** Which member the tensor is in, and how it is stored. */
  member: NpzMemberRef;
}

/** Options of {@link read}. */
export interface ReadOptions {
  /** read() only: copy stored members' bytes instead of returning views of the input. Default false. */
  copy?: boolean | undefined;
}

/**
 * True for a zip whose first member is named *.npy (when the head shows its name) or an empty zip (an end
 * record, or a zip64 end record, with no entries, as np.savez() with no arrays writes). Never throws.
 */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head || head.length < 4 || head[0] !== 0x50 || head[1] !== 0x4b) return false;
  if (head[2] === 0x05 && head[3] === 0x06)
    return head.length >= 12 && head[8] === 0 && head[9] === 0 && head[10] === 0 && head[11] === 0;
  // an empty archive with a zip64 end record first (entries u64 at 32)
  if (head[2] === 0x06 && head[3] === 0x06) return head.length >= 40 && head.subarray(32, 40).every((b) => b === 0);
  if (head[2] !== 0x03 || head[3] !== 0x04) return false;
  if (head.length < 30) return true;
  const nameLength = head[26]! | (head[27]! << 8);
  // only a name inside the first 64 bytes counts, however many bytes the caller passes (detectFormat's head)
  if (30 + nameLength > Math.min(head.length, 64)) return true;
  const name = head.subarray(30 + nameLength - 4, 30 + nameLength);
  return nameLength > 4 && name[0] === 0x2e && name[1] === 0x6e && name[2] === 0x70 && name[3] === 0x79;
}

/** The whole archive: every check, every member inflated and parsed. Throws only FormatErrors. */
export function read(bytes: Uint8Array, options: ReadOptions = {}): NpzFile {
  const input = asBytes(bytes, "npz.read");
  const source = options.copy ? copyBytes(input) : input;
  const file = parseFile(new ByteReader(source, id), { eager: true });
  file.bytes = source;
  return file;
}

/** The same object as read() without member data: the directory, local headers and .npy headers only. */
export async function readFrom(source: ByteSource, _options: ReadOptions = {}): Promise<NpzFile> {
  return lazy.parseFrom(asSource(source, "npz.readFrom"), id, (backing) =>
    parseFile(new ByteReader(backing, id), { eager: false }),
  );
}

/** The bytes read() was given (npz is an input format: to write tensors use writeSafetensors or writeNpy). */
export function write(file: NpzFile): Uint8Array {
  checkWriterInput(file, "npz.write", "an npz file (from read())");
  if (!file.bytes)
    throw new TypeError(
      "npz: write() gives back the bytes of a read() result; this file has none (readFrom() or built by hand)",
    );
  return copyBytes(file.bytes);
}

function npyHeaderLength(member: NpzMember): number {
  const length = member.array.data instanceof Uint8Array ? member.array.data.byteLength : member.array.data.byteLength;
  return member.size - length;
}

function infoOf(member: NpzMember): NpzTensorInfo {
  const arrayOffset = npyHeaderLength(member);
  const byteOffset = member.method === "stored" ? member.dataOffset + arrayOffset : member.dataOffset;
  const ref: NpzMemberRef = {
    method: member.method,
    dataOffset: member.dataOffset,
    compressedSize: member.compressedSize,
    size: member.size,
    arrayOffset,
    crc32: member.crc32,
  };
  return { ...arrayInfo(member.array, member.tensor, byteOffset, id), member: ref };
}

/** Each member's tensor, in directory order. Deflated members' byteOffset is where their compressed data starts. */
export function tensorInfos(file: NpzFile): NpzTensorInfo[] {
  return file.members.map(infoOf);
}

/** Every member's tensor, row-major little-endian (big-endian swapped, Fortran order transposed). Needs read(). */
export function tensors(file: NpzFile, options: DecodeOptions = {}): NamedTensor[] {
  lazy.assertEager(file, id);
  return file.members.map((member) => {
    if (!(member.array.data instanceof Uint8Array))
      throw new TypeError(`npz: member ${member.name} is not loaded (a readFrom() result); use loadTensor`);
    return decodeTensor(member.array.data, infoOf(member), options, id);
  });
}

/** Reads one member of a readFrom() result (a range read; deflated members: read and inflate the member). */
export async function loadTensor(
  source: ByteSource,
  info: TensorInfo,
  options: DecodeOptions = {},
): Promise<NamedTensor> {
  const member = memberOf(info);
  if (!member || member.method === "stored") return lazy.loadTensor(source, info, { ...options, format: id });
  const field = `members[${JSON.stringify(`${info.name}.npy`)}].data`;
  const compressed = await readExactly(source, member.dataOffset, member.compressedSize, id, field);
  const content = inflateMember(compressed, member.size, id, member.dataOffset, field);
  checkCrc(content, member.crc32, id, member.dataOffset, field);
  const data = content.subarray(member.arrayOffset, member.arrayOffset + info.byteLength);
  if (data.byteLength !== info.byteLength) {
    throw new CorruptDataError(
      id,
      `the inflated member holds ${data.byteLength} bytes of data, the header says ${info.byteLength}`,
      member.dataOffset,
      field,
    );
  }
  return decodeTensor(data, info, options, id);
}

/** What `tensorfile inspect --json` prints. */
export function inspect(file: NpzFile): InspectResult {
  const meta: Record<string, unknown> = { members: file.members.length, zip64: file.zip64 };
  if (file.comment !== "") meta.comment = file.comment;
  return {
    format: id,
    version: null,
    meta,
    tensors: file.members.map((m) => inspectRow(m.array, m.tensor)),
    members: file.members.map((m) => ({
      name: m.name,
      method: m.method,
      size: m.size,
      compressedSize: m.compressedSize,
      offset: m.dataOffset,
      crc32: m.crc32.toString(16).padStart(8, "0"),
      ...headerMeta(m.array),
      npyVersion: m.array.version,
    })),
  };
}

/**
 * Warnings: CRC-32 mismatches of stored members (numpy refuses such members; deflated members are checked when
 * inflated, so read() refuses them), and each member's .npy warnings.
 */
export function verify(file: NpzFile): string[] {
  const warnings: string[] = [];
  for (const m of file.members) {
    if (m.content) {
      const crc = crc32(m.content);
      if (crc !== m.crc32) {
        warnings.push(
          `member ${m.name}: CRC-32 mismatch (0x${hex8(m.crc32)} stored, 0x${hex8(crc)} computed): the member is corrupt and numpy refuses it`,
        );
      }
    }
    const headerBytes = (m.array.version === "1.0" ? 10 : 12) + encodeHeader(m.array.header, m.array.version).length;
    for (const w of arrayWarnings(m.array, headerBytes, `member ${m.name}: `)) warnings.push(w);
  }
  return warnings;
}

/** Bytes read at a time by verifyFrom() when it checks a stored member's CRC-32. */
const CRC_READ_BYTES = 16 * 1024 * 1024;

/**
 * verify() for a readFrom() result: the same warnings as verify(read(bytes)), the CRC-32 of stored members
 * computed by reading each member 16 MiB at a time (bounded memory, whatever the archive's size). Deflated
 * members are checked when they are inflated (loadTensor, or streamed by the CLI's verify and convert).
 */
export async function verifyFrom(source: ByteSource, file: NpzFile): Promise<string[]> {
  const warnings: string[] = [];
  for (const m of file.members) {
    if (m.method === "stored" && !m.content) {
      let crc = 0;
      for (let done = 0; done < m.size;) {
        const length = Math.min(CRC_READ_BYTES, m.size - done);
        crc = crc32(
          await readExactly(source, m.dataOffset + done, length, id, `members[${JSON.stringify(m.name)}].data`),
          crc,
        );
        done += length;
      }
      if (crc !== m.crc32) {
        warnings.push(
          `member ${m.name}: CRC-32 mismatch (0x${hex8(m.crc32)} stored, 0x${hex8(crc)} computed): the member is corrupt and numpy refuses it`,
        );
      }
    }
    for (const w of verify({ ...file, members: [m] })) warnings.push(w);
  }
  return warnings;
}

/** None: every member of an `.npz` is a tensor. */
export function blobs(_file: NpzFile): EmbeddedBlob[] {
  return [];
}
