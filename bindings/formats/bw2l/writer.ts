/**
 * The BW2L writer: the exact inverse of the parser. Sizes are computed first so the output is allocated once.
 * Mistakes in a file object (a short string over 255 bytes, a payload that was never loaded, data of the wrong
 * typed array) are reported with a TypeError or RangeError naming the field; nothing is written silently wrong.
 */
import { ByteWriter, PASS_THROUGH_BYTES } from "../../bytes/byte-writer.js";
import { bytesOf } from "../../tensor.js";
import {
  type Bw2lArray,
  type Bw2lArrayData,
  type Bw2lFile,
  type Bw2lLayer,
  type Bw2lSection,
  type Bw2lVersion,
  DTYPES,
  isArraySection,
  isBw2lDType,
  isByteRange,
  peekPayload,
  peekRowMajor,
  isKeyvalSection,
  isLayersSection,
  isUtf8Section,
} from "./model.js";
import { encodeText } from "./text.js";

const MAX_SHORT_STRING = 255;

/** Encodes each distinct string once per write. */
class StringTable {
  private readonly cache = new Map<string, Uint8Array>();
  bytes(text: string): Uint8Array {
    let b = this.cache.get(text);
    if (!b) {
      b = encodeText(text);
      this.cache.set(text, b);
    }
    return b;
  }
  short(text: unknown, field: string): Uint8Array {
    if (typeof text !== "string") throw new TypeError(`bw2l: ${field} must be a string`);
    const b = this.bytes(text);
    if (b.length > MAX_SHORT_STRING) {
      throw new RangeError(
        `bw2l: ${field} is ${b.length} bytes of UTF-8; a short string holds at most ${MAX_SHORT_STRING}`,
      );
    }
    return b;
  }
  long(text: unknown, field: string): Uint8Array {
    if (typeof text !== "string") throw new TypeError(`bw2l: ${field} must be a string`);
    return this.bytes(text);
  }
}

/** The byte length of a payload: a typed array, or (when measuring a readFrom() result) a byte range. */
function payloadLength(data: unknown, field: string, allowRanges: boolean): number {
  if (allowRanges && isByteRange(data)) return data.byteLength;
  return payloadBytes(data, field).length;
}

function payloadBytes(data: unknown, field: string): Uint8Array {
  if (isByteRange(data)) {
    throw new TypeError(
      `bw2l: ${field} is a byte range from readFrom(); load the payload (or use read()) before writing`,
    );
  }
  if (!ArrayBuffer.isView(data)) throw new TypeError(`bw2l: ${field} must be a typed array`);
  return bytesOf(data);
}

function arrayPayloadLength(array: Bw2lArray, field: string, allowRanges: boolean): number {
  if (!isBw2lDType(array.dtype))
    throw new TypeError(
      `bw2l: ${field}.dtype ${JSON.stringify(array.dtype)} is not one of ${Object.keys(DTYPES).join(", ")}`,
    );
  const facts = DTYPES[array.dtype];
  const rowMajor = peekRowMajor(array);
  if (rowMajor) return rowMajor.rowMajor.byteLength; // create() checked its type
  const payload = peekPayload(array);
  if ("stored" in payload) return payload.stored.byteLength; // read() left it as stored: the right type by construction
  if (allowRanges && isByteRange(array.data)) return array.data.byteLength;
  const length = payloadBytes(array.data, `${field}.data`).length;
  if (!(array.data instanceof facts.ctor)) {
    throw new TypeError(
      `bw2l: ${field}.data must be a ${facts.ctor.name} for dtype ${array.dtype}, not a ${(array.data as Bw2lArrayData).constructor.name}`,
    );
  }
  return length;
}

function checkDims(dims: unknown, version: Bw2lVersion, field: string): number[] {
  if (dims === undefined) return [];
  if (version === 1) {
    throw new TypeError(`bw2l: ${field}.dims: version 1 arrays have no dims (delete them, or write version 2)`);
  }
  if (!Array.isArray(dims) || dims.length > 255)
    throw new RangeError(`bw2l: ${field}.dims must be an array of at most 255 dims`);
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d < 0)
      throw new RangeError(`bw2l: ${field}.dims holds ${String(d)}; dims are non-negative integers`);
  }
  return dims as number[];
}

function checkLayerQuantization(
  layer: Bw2lLayer,
  version: Bw2lVersion,
  field: string,
): { scale: number; offset: bigint } {
  const scale = layer.scale ?? 1;
  const offset = BigInt(layer.offset ?? 0n);
  if (typeof scale !== "number") throw new TypeError(`bw2l: ${field}.scale must be a number`);
  if (version === 2 && (!Object.is(scale, 1) || offset !== 0n)) {
    throw new TypeError(
      `bw2l: ${field} has scale ${scale} and offset ${offset}, which version 2 layers cannot hold (write version 1)`,
    );
  }
  return { scale, offset };
}

/** Sizes every part of a file (checking it can be written) with each string encoded once. */
class Plan {
  readonly strings = new StringTable();
  /**
   * writeTo: payloads create() left row-major, by the placeholder written in their place (a view of their row-major
   * bytes, of the payload's length), with the bands of their stored form that go to the sink instead.
   */
  readonly banded = new Map<Uint8Array, () => Iterable<Uint8Array>>();
  /** `allowRanges`: measure a readFrom() result (payload ranges count by their length). */
  constructor(
    readonly version: Bw2lVersion,
    readonly allowRanges = false,
  ) {}

  arraySize(array: Bw2lArray, field: string): number {
    const dtype = this.strings.short(array.dtype, `${field}.dtype`);
    const payload = arrayPayloadLength(array, field, this.allowRanges);
    const dims = checkDims(array.dims, this.version, field);
    return 1 + dtype.length + 8 + (this.version === 2 ? 1 + 8 * dims.length : 0) + payload;
  }

  sectionDataSize(section: Bw2lSection, field: string): number {
    if (isUtf8Section(section)) return this.strings.long(section.text, `${field}.text`).length;
    if (isKeyvalSection(section)) {
      let size = 0;
      section.entries.forEach((e, k) => {
        size += 1 + this.strings.short(e.key, `${field}.entries[${k}].key`).length;
        size += 8 + this.strings.long(e.value, `${field}.entries[${k}].value`).length;
      });
      return size;
    }
    if (isArraySection(section)) return this.arraySize(section.array, `${field}.array`);
    if (isLayersSection(section)) {
      let size = 8;
      section.layers.forEach((layer, i) => {
        const at = `${field}.layers[${i}]`;
        size += 8 + this.strings.long(layer.arch, `${at}.arch`).length;
        checkLayerQuantization(layer, this.version, at);
        if (this.version === 1) size += 4 + 8;
        size += 8;
        layer.params.forEach((p, j) => (size += this.arraySize(p, `${at}.params[${j}]`)));
      });
      return size;
    }
    if (section.type === "utf8" || section.type === "keyval" || section.type === "array" || section.type === "layers") {
      throw new TypeError(`bw2l: ${field} of type ${section.type} lacks its content field`);
    }
    return payloadLength((section as { data: unknown }).data, `${field}.data`, this.allowRanges);
  }

  /** Bytes of a section's header: name, type, desc, data_length. */
  sectionHeaderSize(section: Bw2lSection, field: string): number {
    return (
      1 +
      this.strings.short(section.name, `${field}.name`).length +
      1 +
      this.strings.short(section.type, `${field}.type`).length +
      8 +
      this.strings.long(section.desc, `${field}.desc`).length +
      8
    );
  }
}

function writeArray(w: ByteWriter, plan: Plan, array: Bw2lArray, passThrough: boolean): void {
  const dtype = plan.strings.bytes(array.dtype);
  const rowMajor = peekRowMajor(array);
  const peeked = rowMajor ? undefined : peekPayload(array);
  const payload = !peeked
    ? bytesOf(rowMajor!.rowMajor)
    : "stored" in peeked
      ? peeked.stored
      : bytesOf(array.data as Bw2lArrayData);
  w.u8(dtype.length).bytes(dtype);
  w.u64(payload.length / DTYPES[array.dtype].bytes);
  if (plan.version === 2) {
    const dims = array.dims ?? [];
    w.u8(dims.length);
    for (const d of dims) w.u64(d);
  }
  if (!rowMajor) {
    w.bytes(payload);
  } else if (passThrough && payload.length >= PASS_THROUGH_BYTES) {
    // writeTo: a placeholder of the payload's length, replaced by the bands in writePieces
    plan.banded.set(payload, rowMajor.bands);
    w.bytes(payload);
  } else {
    // write(): the column-major payload band by band, straight into the output
    for (const band of rowMajor.bands()) w.bytes(band);
  }
}

function writeSectionData(w: ByteWriter, plan: Plan, section: Bw2lSection, passThrough: boolean): void {
  const { strings } = plan;
  if (isUtf8Section(section)) {
    w.bytes(strings.bytes(section.text));
  } else if (isKeyvalSection(section)) {
    for (const e of section.entries) {
      const key = strings.bytes(e.key);
      const value = strings.bytes(e.value);
      w.u8(key.length).bytes(key).u64(value.length).bytes(value);
    }
  } else if (isArraySection(section)) {
    writeArray(w, plan, section.array, passThrough);
  } else if (isLayersSection(section)) {
    w.u64(section.layers.length);
    for (const layer of section.layers) {
      const arch = strings.bytes(layer.arch);
      w.u64(arch.length).bytes(arch);
      if (plan.version === 1) w.f32(layer.scale ?? 1).i64(BigInt(layer.offset ?? 0n));
      w.u64(layer.params.length);
      for (const p of layer.params) writeArray(w, plan, p, passThrough);
    }
  } else {
    w.bytes(section.data as Uint8Array);
  }
}

/** The data_length each section of `file` has (or will have) on disk; works for readFrom() results too. */
export function sectionDataSizes(file: Bw2lFile): number[] {
  const plan = new Plan(file.version, true);
  return file.sections.map((s, i) => plan.sectionDataSize(s, `sections[${i}]`));
}

/** The bytes of `file`, exactly as a reference writer lays them out. */
export function writeFile(file: Bw2lFile): Uint8Array {
  return encodeFile(file, false).writer.finish();
}

/**
 * The same bytes as pieces, payloads passed through uncopied (for writeTo); a payload create() left row-major is
 * an iterable of its column-major bands, made as the sink takes them.
 */
export function writePieces(file: Bw2lFile): (Uint8Array | Iterable<Uint8Array>)[] {
  const { writer, plan } = encodeFile(file, true);
  return writer.segments().map((piece) => plan.banded.get(piece)?.() ?? piece);
}

function encodeFile(file: Bw2lFile, passThrough: boolean): { writer: ByteWriter; plan: Plan } {
  const version = file.version;
  if (version !== 1 && version !== 2) throw new RangeError(`bw2l: version must be 1 or 2, not ${String(version)}`);
  const plan = new Plan(version);
  const name = plan.strings.short(file.name, "name");
  const dataSizes = file.sections.map((s, i) => plan.sectionDataSize(s, `sections[${i}]`));
  let total = 4 + 1 + 1 + name.length + 8;
  file.sections.forEach((s, i) => (total += plan.sectionHeaderSize(s, `sections[${i}]`) + dataSizes[i]!));
  const trailing = file.trailing === undefined ? undefined : payloadBytes(file.trailing, "trailing");
  total += trailing?.length ?? 0;

  const w = new ByteWriter(total, true, { passThrough });
  w.bytes(Uint8Array.of(0x42, 0x57, 0x32, 0x4c)).u8(version);
  w.u8(name.length).bytes(name);
  w.u64(file.sections.length);
  file.sections.forEach((section, i) => {
    const sectionName = plan.strings.bytes(section.name);
    const type = plan.strings.bytes(section.type);
    const desc = plan.strings.bytes(section.desc);
    w.u8(sectionName.length).bytes(sectionName);
    w.u8(type.length).bytes(type);
    w.u64(desc.length).bytes(desc);
    w.u64(dataSizes[i]!);
    writeSectionData(w, plan, section, passThrough);
  });
  if (trailing) w.bytes(trailing);
  if (w.length !== total) throw new Error(`bw2l: internal error: wrote ${w.length} bytes, planned ${total}`);
  return { writer: w, plan };
}
