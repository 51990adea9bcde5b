/**
 * Shared by the safetensors / npy / npz tests: every tensor tensorfile can read from the fixtures and the
 * examples (to round-trip through our writers), and hand builders for files made without our writers.
 */
import { readdirSync, statSync } from "node:fs";
import { expect } from "vitest";
import { readAny } from "../../bindings/any.js";
import { exampleFiles } from "../../bindings/examples.js";
import { isFormatError } from "../../bindings/bytes/errors.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { fixturePath, haveFixtures, readFixture } from "./fixtures.js";

export interface TensorSet {
  label: string;
  tensors: NamedTensor[];
}

const FOLDERS = ["bw2l", "april", "tennis", "primitiv", "spraak"];

/** Every fixture and example that reads and holds tensors, with its tensors (as stored, not widened). */
export function tensorSets(): TensorSet[] {
  const sets: TensorSet[] = exampleFiles().map((e) => ({
    label: `example ${e.name}`,
    tensors: readAny(e.bytes).tensors(),
  }));
  if (haveFixtures()) {
    for (const folder of FOLDERS) {
      for (const sub of ["", "synthetic"]) {
        let names: string[];
        try {
          names = readdirSync(fixturePath(folder, sub));
        } catch {
          continue;
        }
        for (const name of names) {
          if (!statSync(fixturePath(folder, sub, name)).isFile() || /\.(md|json|bin|onnx)$/.test(name)) continue;
          try {
            sets.push({
              label: `${folder}/${sub ? `${sub}/` : ""}${name}`,
              tensors: readAny(readFixture(folder, sub, name)).tensors(),
            });
          } catch (error) {
            if (!isFormatError(error)) throw error;
          }
        }
      }
    }
  }
  return sets.filter((s) => s.tensors.length > 0);
}

export function bytesOf(data: ArrayBufferView): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** Same names, dtypes, shapes and bytes. */
export function expectSameTensors(got: readonly NamedTensor[], want: readonly NamedTensor[], label = ""): void {
  expect(
    got.map((t) => [t.name, t.dtype, t.shape]),
    label,
  ).toEqual(want.map((t) => [t.name, t.dtype, t.shape]));
  for (let i = 0; i < want.length; i++) {
    expect(got[i]!.data.constructor, `${label} ${want[i]!.name}`).toBe(
      want[i]!.data.constructor === Buffer ? Uint8Array : want[i]!.data.constructor,
    );
    expect(
      Buffer.from(bytesOf(got[i]!.data)).equals(Buffer.from(bytesOf(want[i]!.data))),
      `${label} ${want[i]!.name}: bytes`,
    ).toBe(true);
  }
}

/** A safetensors file from a header (an object, or JSON text as it should be stored) and the data section. */
export function safetensorsFile(
  header: string | Uint8Array | Record<string, unknown>,
  data: Uint8Array = new Uint8Array(0),
  headerSize?: number,
): Uint8Array {
  const text =
    header instanceof Uint8Array
      ? header
      : new TextEncoder().encode(typeof header === "string" ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerSize ?? text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

/**
 * An .npy from its parts: the dict text (as stored, without padding), the data, and the version; the header is
 * padded with spaces and "\n" to `align` (64 as numpy >= 1.14, 16 as older numpy).
 */
export function npyFile(
  dict: string,
  data: Uint8Array,
  options: { version?: 1 | 2 | 3; align?: number; latin1?: boolean } = {},
): Uint8Array {
  const version = options.version ?? 1;
  const align = options.align ?? 64;
  const prefix = version === 1 ? 10 : 12;
  const text = options.latin1 ? Uint8Array.from(dict, (c) => c.charCodeAt(0)) : new TextEncoder().encode(dict);
  const total = Math.ceil((prefix + text.length + 1) / align) * align;
  const out = new Uint8Array(total + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, total - prefix, true);
  else view.setUint32(8, total - prefix, true);
  out.set(text, prefix);
  out.fill(0x20, prefix + text.length, total - 1);
  out[total - 1] = 0x0a;
  out.set(data, total);
  return out;
}

/** Little-endian bytes of numbers as float32 / float64 / int32, big-endian when asked. */
export function f32Bytes(values: readonly number[], bigEndian = false): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setFloat32(i * 4, v, !bigEndian));
  return out;
}

export function f64Bytes(values: readonly number[], bigEndian = false): Uint8Array {
  const out = new Uint8Array(values.length * 8);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setFloat64(i * 8, v, !bigEndian));
  return out;
}

export function i32Bytes(values: readonly number[], bigEndian = false): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setInt32(i * 4, v, !bigEndian));
  return out;
}

/** The forms users pass bytes in: a fresh Uint8Array, a Node Buffer at an odd offset, an ArrayBuffer. */
export function inputForms(bytes: Uint8Array): [string, Uint8Array | ArrayBuffer][] {
  const backing = Buffer.alloc(bytes.length + 3);
  backing.set(bytes, 1);
  return [
    ["Uint8Array", new Uint8Array(bytes)],
    ["Buffer at offset 1", backing.subarray(1, 1 + bytes.length)],
    ["ArrayBuffer", new Uint8Array(bytes).buffer],
  ];
}

export interface ZipMemberSpec {
  name: string;
  /** The member's uncompressed bytes. */
  content: Uint8Array;
  method?: 0 | 8 | undefined;
  /** Overrides for what the directory says (to build broken archives). */
  crc32?: number | undefined;
  size?: number | undefined;
  /** Replace the compressed bytes. */
  compressed?: Uint8Array | undefined;
  /** Write sizes as 0xffffffff with zip64 extra fields (local and central), as numpy's savez does. */
  zip64?: boolean | undefined;
  flags?: number | undefined;
  /** A different name in the local header. */
  localName?: string | undefined;
}

/** CRC-32 written from the definition (bitwise), independent of the library's table version. */
export function crc32Bitwise(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * A ZIP archive written from APPNOTE by hand (not with fflate's zip writer): stored or deflated members, zip64
 * extras and a zip64 end record when asked, an archive comment.
 */
export function zipFile(
  members: readonly ZipMemberSpec[],
  options: { zip64End?: boolean; comment?: string; deflate: (b: Uint8Array) => Uint8Array },
): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const u16 = (v: number) => Uint8Array.of(v & 0xff, (v >>> 8) & 0xff);
  const u32 = (v: number) => Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  const u64 = (v: number) => concatBytes(u32(v % 2 ** 32), u32(Math.floor(v / 2 ** 32)));
  for (const m of members) {
    const method = m.method ?? 0;
    const compressed = m.compressed ?? (method === 8 ? options.deflate(m.content) : m.content);
    const crc = m.crc32 ?? crc32Bitwise(m.content);
    const size = m.size ?? m.content.length;
    const name = new TextEncoder().encode(m.name);
    const localName = new TextEncoder().encode(m.localName ?? m.name);
    const flags = (m.flags ?? 0) | 0x0800;
    const localExtra = m.zip64 ? concatBytes(u16(1), u16(16), u64(size), u64(compressed.length)) : new Uint8Array(0);
    const local = concatBytes(
      u32(0x04034b50),
      u16(m.zip64 ? 45 : 20),
      u16(flags),
      u16(method),
      u16(0),
      u16(0x21),
      u32(crc),
      u32(m.zip64 ? 0xffffffff : compressed.length),
      u32(m.zip64 ? 0xffffffff : size),
      u16(localName.length),
      u16(localExtra.length),
      localName,
      localExtra,
    );
    const centralExtra = m.zip64
      ? concatBytes(u16(1), u16(24), u64(size), u64(compressed.length), u64(offset))
      : new Uint8Array(0);
    central.push(
      concatBytes(
        u32(0x02014b50),
        u16(0x031e),
        u16(m.zip64 ? 45 : 20),
        u16(flags),
        u16(method),
        u16(0),
        u16(0x21),
        u32(crc),
        u32(m.zip64 ? 0xffffffff : compressed.length),
        u32(m.zip64 ? 0xffffffff : size),
        u16(name.length),
        u16(centralExtra.length),
        u16(0),
        u16(0),
        u16(0),
        u32(0),
        u32(m.zip64 ? 0xffffffff : offset),
        name,
        centralExtra,
      ),
    );
    parts.push(local, compressed);
    offset += local.length + compressed.length;
  }
  const cd = concatBytes(...central);
  const comment = new TextEncoder().encode(options.comment ?? "");
  const tail: Uint8Array[] = [cd];
  const cdOffset = offset;
  if (options.zip64End) {
    const end64At = cdOffset + cd.length;
    tail.push(
      concatBytes(
        u32(0x06064b50),
        u64(44),
        u16(45),
        u16(45),
        u32(0),
        u32(0),
        u64(members.length),
        u64(members.length),
        u64(cd.length),
        u64(cdOffset),
      ),
    );
    tail.push(concatBytes(u32(0x07064b50), u32(0), u64(end64At), u32(1)));
    tail.push(
      concatBytes(
        u32(0x06054b50),
        u16(0),
        u16(0),
        u16(0xffff),
        u16(0xffff),
        u32(0xffffffff),
        u32(0xffffffff),
        u16(comment.length),
        comment,
      ),
    );
  } else {
    tail.push(
      concatBytes(
        u32(0x06054b50),
        u16(0),
        u16(0),
        u16(members.length),
        u16(members.length),
        u32(cd.length),
        u32(cdOffset),
        u16(comment.length),
        comment,
      ),
    );
  }
  return concatBytes(...parts, ...tail);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
