/**
 * SeetaFace6 `.csta` containers: a TenniS module wrapped in an obfuscated "STA" tree. Layout:
 *
 *   marker   "fast" (u32 LE 0x74736166), not obfuscated
 *   payload  the rest of the file; its first (len - 4) - (len - 4) % 16 bytes are XOR-ed with the 8-byte key
 *            bf 97 df d5 cf 72 00 00 repeated (the decimal fold of "seetatech.com" as u64 LE); the remaining
 *            (len - 4) % 16 bytes ("tail") are stored as they are
 *   decoded  STA code u32 = 0x19910929 | one item (the root dict) | padding (real files: PKCS#7 to 16 bytes)
 *   item     type u8, then: 0 nil (1 pad byte) | 1 int32 | 2 float32 | 3 string (len u32 + bytes)
 *            | 4 binary (len u32 + bytes) | 5 list (n u32 + item × n)
 *            | 6 dict (n u32 + (key len u32 + key bytes + item) × n) | 7 bool (1 byte)
 *
 * The module is the binary at root["backbone"]["tsm"]. Offsets everywhere stay file offsets: the decoded view
 * is the file with the obfuscated region XOR-ed back, byte for byte.
 */
import { copyBytes } from "../../bytes/input.js";
import { BadMagicError, CorruptDataError, LimitError, UnsupportedError } from "../../bytes/errors.js";
import type { ByteBacking, ByteRange, ByteReader } from "../../bytes/byte-reader.js";
import { ByteWriter } from "../../bytes/byte-writer.js";
import { FORMAT, decodeText, isLoaded } from "./module.js";

/** "fast" as the first four bytes. */
export const CSTA_MARKER = Uint8Array.of(0x66, 0x61, 0x73, 0x74);
/** The code the decoded STA payload starts with. */
export const STA_CODE = 0x19910929;
/** bytes of u64 LE 126236971997119 = fold(k = 10k + byte) over "seetatech.com". */
export const CSTA_KEY = Uint8Array.of(0xbf, 0x97, 0xdf, 0xd5, 0xcf, 0x72, 0x00, 0x00);
/** The obfuscated region starts after the marker. */
export const CSTA_PAYLOAD_START = 4;
export const DEFAULT_MODULE_PATH: readonly string[] = ["backbone", "tsm"];
/** Nesting depth of the STA tree beyond which we refuse (real files nest 4 deep). */
export const MAX_STA_DEPTH = 64;

const STA_TYPES = ["nil", "int", "float", "string", "binary", "list", "dict", "bool"] as const;

/** One STA item, exactly as stored (so that it writes back byte for byte). */
export type StaValue =
  | {
      /** The item's type. */
      type: "nil";
      /** the byte after the type */
      pad: number;
    }
  | {
      /** The item's type. */
      type: "int";
      /** The stored i32. */
      value: number;
    }
  | {
      /** The item's type. */
      type: "float";
      /** The stored float32. */
      value: number;
      /** the stored bits of a NaN (whose payload a number may not keep) */
      bits?: number;
    }
  | {
      /** The item's type. */
      type: "string";
      /** The text. */
      value: string;
      /** exact bytes when not valid UTF-8 */
      raw?: Uint8Array;
    }
  | {
      /** The item's type. */
      type: "binary";
      /** the module's slot holds the module's range; it is written from `nodes` */
      bytes: Uint8Array | ByteRange;
    }
  | {
      /** The item's type. */
      type: "list";
      /** The list's items, in order. */
      items: StaValue[];
    }
  | {
      /** The item's type. */
      type: "dict";
      /** The dict's entries, in file order. */
      entries: StaEntry[];
    }
  | {
      /** The item's type. */
      type: "bool";
      /** the stored byte (0 or 1 in practice) */
      value: number;
    };

/** One entry of an STA dict, in file order. */
export interface StaEntry {
  /** The key. */
  key: string;
  /** exact key bytes when not valid UTF-8 */
  rawKey?: Uint8Array | undefined;
  /** The value. */
  value: StaValue;
}

/**
 * A SeetaFace6 `.csta` container around a TenniS module: the de-obfuscated STA tree, kept exactly so it writes back
 * byte for byte.
 */
export interface CstaContainer {
  /** u32 at the start of the decoded payload: 0x19910929. */
  staCode: number;
  /** The STA tree; the module's slot (at `modulePath`) is a binary whose bytes are the module's range. */
  root: StaValue;
  /** Dict keys leading to the module binary: ["backbone", "tsm"]. */
  modulePath: string[];
  /** Decoded bytes after the tree, inside the obfuscated region (PKCS#7 padding in real files); undefined: PKCS#7. */
  padding?: Uint8Array | undefined;
  /** The (len - 4) % 16 bytes after the obfuscated region, as stored (none in real files). */
  tail: Uint8Array;
}

/** End (exclusive, absolute) of the obfuscated region of a .csta file of `size` bytes. */
export function obfuscatedEnd(size: number): number {
  const payload = Math.max(0, size - CSTA_PAYLOAD_START);
  return CSTA_PAYLOAD_START + payload - (payload % 16);
}

/** XORs `bytes` (which sit at absolute file offset `at`) with the key where they overlap [4, end). In place. */
export function xorObfuscation(bytes: Uint8Array, at: number, end: number): void {
  const from = Math.max(0, CSTA_PAYLOAD_START - at);
  const to = Math.min(bytes.length, end - at);
  for (let i = from; i < to; i++) bytes[i]! ^= CSTA_KEY[(at + i - CSTA_PAYLOAD_START) & 7]!;
}

/** True when `head` starts with "fast" and its first payload word decodes to the STA code. */
export function isCstaHead(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  for (let i = 0; i < 4; i++) if (head[i] !== CSTA_MARKER[i]) return false;
  const code = [0, 1, 2, 3].map((i) => head[4 + i]! ^ CSTA_KEY[i]!);
  return (code[0]! | (code[1]! << 8) | (code[2]! << 16) | (code[3]! << 24)) >>> 0 === STA_CODE;
}

/** The whole file with its obfuscated region decoded (a copy; same offsets). */
export function decodeCsta(bytes: Uint8Array): Uint8Array {
  const out = copyBytes(bytes);
  xorObfuscation(out, 0, obfuscatedEnd(bytes.length));
  return out;
}

/** A ByteBacking that shows a partially loaded .csta file decoded (each loaded chunk is decoded once). */
export class DecodedCstaBacking implements ByteBacking {
  readonly size: number;
  private readonly end: number;
  private readonly decoded = new WeakMap<Uint8Array, Uint8Array>();

  constructor(private readonly inner: ByteBacking) {
    this.size = inner.size;
    this.end = obfuscatedEnd(inner.size);
  }

  window(offset: number, length: number): { bytes: Uint8Array; start: number } {
    const w = this.inner.window(offset, length);
    let bytes = this.decoded.get(w.bytes);
    if (!bytes) {
      bytes = copyBytes(w.bytes);
      xorObfuscation(bytes, w.start, this.end);
      this.decoded.set(w.bytes, bytes);
    }
    return { bytes, start: w.start };
  }
}

function labelOf(path: readonly (string | number)[]): string {
  return `csta${path.map((k) => `[${JSON.stringify(k)}]`).join("")}`;
}

const MIN_ITEM_BYTES = 2; // a type byte and at least one more (nil and bool); int/float/containers need more

function readItem(r: ByteReader, label: string, depth: number, lazy: boolean, moduleLabel: string): StaValue {
  if (depth > MAX_STA_DEPTH)
    throw new LimitError(FORMAT, `STA tree nested deeper than ${MAX_STA_DEPTH}`, r.pos, label, depth, MAX_STA_DEPTH);
  const at = r.pos;
  const type = r.u8(`${label}.type`);
  switch (STA_TYPES[type]) {
    case "nil":
      return { type: "nil", pad: r.u8(label) };
    case "int":
      return { type: "int", value: r.i32(label) };
    case "float": {
      const value = r.f32(label);
      if (!Number.isNaN(value)) return { type: "float", value };
      r.pos -= 4;
      return { type: "float", value, bits: r.u32(label) };
    }
    case "string": {
      const length = r.count(r.u32(`${label}.length`), 1, `${label}.length`);
      const { text, raw } = decodeText(r.bytesView(length, label));
      return raw ? { type: "string", value: text, raw } : { type: "string", value: text };
    }
    case "binary": {
      const length = r.count(r.u32(`${label}.length`), 1, `${label}.length`);
      const isModule = label === moduleLabel;
      const bytes = isModule || lazy ? r.range(length, label) : copyBytes(r.bytesView(length, label));
      return { type: "binary", bytes };
    }
    case "list": {
      const n = r.count(r.u32(`${label}.count`), MIN_ITEM_BYTES, `${label}.count`);
      const items = new Array<StaValue>(n);
      for (let i = 0; i < n; i++) items[i] = readItem(r, `${label}[${i}]`, depth + 1, lazy, moduleLabel);
      return { type: "list", items };
    }
    case "dict": {
      const n = r.count(r.u32(`${label}.count`), 4 + MIN_ITEM_BYTES, `${label}.count`);
      const entries = new Array<StaEntry>(n);
      for (let i = 0; i < n; i++) {
        const keyLength = r.count(r.u32(`${label}.key[${i}]`), 1, `${label}.key[${i}]`);
        const { text: key, raw } = decodeText(r.bytesView(keyLength, `${label}.key[${i}]`));
        const value = readItem(r, `${label}[${JSON.stringify(key)}]`, depth + 1, lazy, moduleLabel);
        entries[i] = raw ? { key, rawKey: raw, value } : { key, value };
      }
      return { type: "dict", entries };
    }
    case "bool":
      return { type: "bool", value: r.u8(label) };
    default:
      throw new CorruptDataError(FORMAT, `unknown STA item type ${type}`, at, `${label}.type`);
  }
}

/** The value at a dict path, or undefined. */
export function staLookup(root: StaValue, path: readonly string[]): StaValue | undefined {
  let value: StaValue | undefined = root;
  for (const key of path) {
    if (value?.type !== "dict") return undefined;
    value = value.entries.find((e) => e.key === key)?.value;
  }
  return value;
}

/**
 * Reads the container from a reader over the decoded view (file offsets). Returns the container and the
 * module's byte range; the caller parses the module.
 */
export function readCstaContainer(decoded: ByteReader, lazy: boolean): { container: CstaContainer; module: ByteRange } {
  const end = obfuscatedEnd(decoded.fileSize);
  const r = decoded.slice(0, end);
  r.magic(CSTA_MARKER, "csta.marker");
  const codeAt = r.pos;
  const staCode = r.u32("csta.code");
  if (staCode !== STA_CODE) throw new BadMagicError(FORMAT, codeAt, "csta.code", STA_CODE, staCode);
  const modulePath = [...DEFAULT_MODULE_PATH];
  const moduleLabel = labelOf(modulePath);
  const root = readItem(r, "csta", 0, lazy, moduleLabel);
  const slot = staLookup(root, modulePath);
  if (slot?.type !== "binary" || isLoaded(slot.bytes)) {
    throw new CorruptDataError(
      FORMAT,
      "the container has no TenniS module (a binary at backbone.tsm)",
      CSTA_PAYLOAD_START + 4,
      moduleLabel,
    );
  }
  if (!lazy) loadOtherBinaries(root, slot, r);
  const padding = copyBytes(r.bytesView(r.remaining, "csta.padding"));
  const tail = copyBytes(decoded.slice(end, decoded.fileSize).bytesView(decoded.fileSize - end, "csta.tail"));
  return { container: { staCode, root, modulePath, padding, tail }, module: slot.bytes };
}

/**
 * A tree may repeat the module's path (two "backbone" or two "tsm" keys): readItem leaves every binary at that
 * path a range, but only `slot` (the one staLookup picks) is the module. The others are ordinary binaries.
 */
function loadOtherBinaries(value: StaValue, slot: StaValue, r: ByteReader): void {
  if (value.type === "binary" && value !== slot && !isLoaded(value.bytes)) {
    const { byteOffset, byteLength } = value.bytes;
    value.bytes = copyBytes(r.slice(byteOffset, byteOffset + byteLength).bytesView(byteLength, "csta.binary"));
  } else if (value.type === "list") {
    for (const item of value.items) loadOtherBinaries(item, slot, r);
  } else if (value.type === "dict") {
    for (const entry of value.entries) loadOtherBinaries(entry.value, slot, r);
  }
}

/** Writes one item; the binary that is `moduleSlot` (by identity, not by path) gets `module`'s bytes. */
function writeItem(
  w: ByteWriter,
  value: StaValue,
  path: (string | number)[],
  moduleSlot: StaValue,
  module: Uint8Array,
): void {
  const type = STA_TYPES.indexOf(value.type);
  if (type < 0)
    throw new CorruptDataError(
      FORMAT,
      `unknown STA item type ${String((value as { type: unknown }).type)}`,
      undefined,
      labelOf(path),
    );
  w.u8(type);
  switch (value.type) {
    case "nil":
      w.u8(value.pad);
      return;
    case "int":
      w.i32(value.value);
      return;
    case "float":
      if (value.bits !== undefined) w.u32(value.bits);
      else w.f32(value.value);
      return;
    case "string": {
      const bytes = value.raw ?? new TextEncoder().encode(value.value);
      w.u32(bytes.length).bytes(bytes);
      return;
    }
    case "binary": {
      const bytes = value === moduleSlot ? module : value.bytes;
      if (!isLoaded(bytes)) {
        throw new UnsupportedError(FORMAT, "binary was not loaded (a readFrom() result)", undefined, labelOf(path));
      }
      w.u32(bytes.length).bytes(bytes);
      return;
    }
    case "list":
      w.u32(value.items.length);
      value.items.forEach((item, i) => writeItem(w, item, [...path, i], moduleSlot, module));
      return;
    case "dict":
      w.u32(value.entries.length);
      for (const entry of value.entries) {
        const key = entry.rawKey ?? new TextEncoder().encode(entry.key);
        w.u32(key.length).bytes(key);
        writeItem(w, entry.value, [...path, entry.key], moduleSlot, module);
      }
      return;
    case "bool":
      w.u8(value.value);
      return;
  }
}

/** PKCS#7 padding that brings `length` to a multiple of 16 (1..16 bytes). */
export function pkcs7Padding(length: number): Uint8Array {
  const n = 16 - (length % 16);
  return new Uint8Array(n).fill(n);
}

/** A minimal tree for a module that came without one: { backbone: { tsm: <module> } }. */
export function defaultContainer(): CstaContainer {
  const slot: StaValue = { type: "binary", bytes: { byteOffset: 0, byteLength: 0 } };
  return {
    staCode: STA_CODE,
    root: {
      type: "dict",
      entries: [{ key: "backbone", value: { type: "dict", entries: [{ key: "tsm", value: slot }] } }],
    },
    modulePath: [...DEFAULT_MODULE_PATH],
    tail: new Uint8Array(0),
  };
}

/**
 * The .csta bytes: marker, obfuscated STA tree with `module` in its slot, padding (the container's, or
 * PKCS#7 when it has none), tail.
 */
export function writeCstaBytes(container: CstaContainer, module: Uint8Array): Uint8Array {
  const moduleSlot = staLookup(container.root, container.modulePath);
  if (moduleSlot?.type !== "binary") {
    throw new CorruptDataError(
      FORMAT,
      `the tree has no binary at ${container.modulePath.join(".")} for the module`,
      undefined,
      labelOf(container.modulePath),
    );
  }
  const w = new ByteWriter(module.length + 4096);
  w.bytes(CSTA_MARKER).u32(container.staCode);
  writeItem(w, container.root, [], moduleSlot, module);
  const treeEnd = w.length - CSTA_PAYLOAD_START;
  w.bytes(container.padding ?? pkcs7Padding(treeEnd));
  w.bytes(container.tail);
  const out = w.finish();
  xorObfuscation(out, 0, obfuscatedEnd(out.length));
  return out;
}

/** The tree as plain JSON-able values (dict → object, list → array, binary → { binary: byteLength }). */
export function staToPlain(value: StaValue): unknown {
  switch (value.type) {
    case "nil":
      return null;
    case "int":
    case "float":
      return value.value;
    case "string":
      return value.value;
    case "binary":
      return { binary: value.bytes.byteLength };
    case "list":
      return value.items.map(staToPlain);
    case "dict":
      return Object.fromEntries(value.entries.map((e) => [e.key, staToPlain(e.value)]));
    case "bool":
      return value.value !== 0;
  }
}
