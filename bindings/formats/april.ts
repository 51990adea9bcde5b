/**
 * april-asr `.april` models (abb128/april-asr, model version 1). Little-endian, no alignment, no checksum.
 *
 *   offset 0   magic          "APRILMDL" (8 bytes)
 *          8   version        u32 (= 1)
 *         12   header_size    u64: header bytes AFTER this 20-byte prelude, through the network table
 *                             (libapril ignores it)
 *         20   language_tag   8 bytes, UTF-8, NUL-padded (all 8 may be used: then no terminator)
 *              name           u64 length + UTF-8 bytes
 *              description    u64 length + UTF-8 bytes
 *              model_type     u32 (1 = LSTM transducer, stateless)
 *              params         u64 offset, u64 size (absolute; size includes the 8-byte "PARAMS\0\0" magic)
 *              network_count  u64 (3)
 *              networks[3]    u64 offset, u64 size each (absolute): encoder, decoder, joiner (ONNX bytes)
 *   reference writer order: header | encoder | decoder | joiner | params, no gaps, nothing after params.
 *
 *   params block: "PARAMS\0\0", 13 × i32 (batch_size, segment_size, segment_step, mel_features, samplerate,
 *   frame_shift_ms, frame_length_ms, round_pow2, mel_low, mel_high, snip_edges, token_count, blank_token_id),
 *   then token_count × { i32 length, bytes } (sentencepiece pieces, "▁" written as a space).
 *
 * Unlike libapril (which reads params from the file position right after the joiner), we read params at
 * `params.offset`; verify() warns when libapril would not find them there. write() always emits the
 * reference layout, which is what libapril can load.
 */
import { assertEager } from "../io/lazy.js";
import { type ByteSink, writePiecesTo } from "../export/stream.js";
import { asBytes, asSource, bytesOrUndefined } from "../io/input.js";
import { CorruptDataError, TruncatedError, UnsupportedError } from "../errors.js";
import { type ByteRange, ByteReader } from "../io/byte-reader.js";
import { ByteWriter, utf8Bytes } from "../io/byte-writer.js";
import * as lazy from "../io/lazy.js";
import { type ByteSource, readExactly } from "../io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";
import type { EmbeddedBlob, InspectResult } from "./types.js";

export const id = "april" as const;
export const extensions: readonly string[] = [".april"];

const MAGIC = "APRILMDL";
const PARAMS_MAGIC = Uint8Array.of(0x50, 0x41, 0x52, 0x41, 0x4d, 0x53, 0, 0); // "PARAMS\0\0"
const PRELUDE_BYTES = 20;
const LANGUAGE_BYTES = 8;
const SUPPORTED_VERSIONS = [1] as const;
/** The only model type libapril defines (LSTM_TRANSDUCER_STATELESS). */
export const MODEL_TYPE_LSTM_TRANSDUCER_STATELESS = 1;
export const NETWORK_NAMES = ["encoder", "decoder", "joiner"] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];
/** libapril's MAX_NETWORKS: it refuses larger counts even before checking the model type. */
const LIBAPRIL_MAX_NETWORKS = 8;

/** The thirteen i32 fields of the params block, in file order (token_count is `tokenCount`). */
export interface AprilParams {
  batchSize: number;
  segmentSize: number;
  segmentStep: number;
  melFeatures: number;
  sampleRate: number;
  frameShiftMs: number;
  frameLengthMs: number;
  /** Used as a boolean (non-zero) by libapril; kept as the stored i32. */
  roundPow2: number;
  melLow: number;
  /** 0 means samplerate / 2. */
  melHigh: number;
  /** Ignored by libapril (it forces snip_edges on); kept as the stored i32. */
  snipEdges: number;
  /** Must equal tokens.length. */
  tokenCount: number;
  blankTokenId: number;
}

const PARAM_FIELDS: readonly [keyof AprilParams, string][] = [
  ["batchSize", "batch_size"],
  ["segmentSize", "segment_size"],
  ["segmentStep", "segment_step"],
  ["melFeatures", "mel_features"],
  ["sampleRate", "samplerate"],
  ["frameShiftMs", "frame_shift_ms"],
  ["frameLengthMs", "frame_length_ms"],
  ["roundPow2", "round_pow2"],
  ["melLow", "mel_low"],
  ["melHigh", "mel_high"],
  ["snipEdges", "snip_edges"],
  ["tokenCount", "token_count"],
  ["blankTokenId", "blank_token_id"],
];

/** The values extra/export-april.py writes (token_count and blank_token_id come from the tokens). */
export const REFERENCE_PARAMS: Readonly<Omit<AprilParams, "tokenCount" | "blankTokenId">> = Object.freeze({
  batchSize: 1,
  segmentSize: 9,
  segmentStep: 4,
  melFeatures: 80,
  sampleRate: 16000,
  frameShiftMs: 10,
  frameLengthMs: 25,
  roundPow2: 1,
  melLow: 20,
  melHigh: 0,
  snipEdges: 0,
});

/** An {offset, size} entry of the header (absolute offset). */
export interface AprilEntry {
  offset: number;
  size: number;
}

/** Where things are in the file that was read (or, for create(), where write() will put them). */
export interface AprilLayout {
  fileSize: number;
  /** Absolute offset just past the network table (the header as parsed). */
  headerEnd: number;
  params: AprilEntry;
  /** Bytes of the params block actually used by its fields and tokens (<= params.size). */
  paramsUsed: number;
  /** encoder, decoder, joiner. */
  networks: [AprilEntry, AprilEntry, AprilEntry];
}

/** The exact stored bytes of the text fields, so that text that is not valid UTF-8 still round-trips. */
export interface AprilRawText {
  /** All 8 bytes of the language tag, padding included. */
  language: Uint8Array;
  name: Uint8Array;
  description: Uint8Array;
  tokens: Uint8Array[];
}

export interface AprilNetworks<N = Uint8Array | ByteRange> {
  encoder: N;
  decoder: N;
  joiner: N;
}

export interface AprilFile {
  version: number;
  /** header_size as stored (write() stores the real size of the header it writes). */
  headerSize: number;
  /** The language tag up to its first NUL. */
  language: string;
  name: string;
  description: string;
  modelType: number;
  params: AprilParams;
  /** Decoded tokens (invalid UTF-8 becomes U+FFFD; the exact bytes are in raw.tokens). */
  tokens: string[];
  /** ONNX bytes: zero-copy views of the input after read(), ByteRanges after readFrom(). */
  networks: AprilNetworks;
  layout: AprilLayout;
  /**
   * The stored bytes of language, name, description and tokens. write() uses raw bytes whenever they still
   * decode to the current string (so edits win, and untouched invalid UTF-8 survives).
   */
  raw?: AprilRawText | undefined;
}

/** read() and readFrom() take no options today. */
export type AprilReadOptions = Record<string, never>;

export interface AprilCreateOptions {
  networks: AprilNetworks<Uint8Array>;
  /** Sentencepiece pieces in id order; "▁" becomes a space unless `keepSpaceMarker`. */
  tokens: readonly string[];
  /** Overrides of the exporter's values. `tokenCount` is always tokens.length. */
  params?: Partial<Omit<AprilParams, "tokenCount">> | undefined;
  /** Default "en-us" (the exporter's default); at most 8 UTF-8 bytes. */
  language?: string | undefined;
  /** Default "Untitled". */
  name?: string | undefined;
  /** Default "No description". */
  description?: string | undefined;
  /** Keep "▁" (U+2581) in tokens instead of writing a space as export-april.py does. */
  keepSpaceMarker?: boolean | undefined;
}

const decoder = new TextDecoder("utf-8");
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictDecoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function languageText(tag: Uint8Array): string {
  const nul = tag.indexOf(0);
  return decodeText(nul < 0 ? tag : tag.subarray(0, nul));
}

function isRange(value: Uint8Array | ByteRange): value is ByteRange {
  return !(value instanceof Uint8Array);
}

// ---------------------------------------------------------------------------------------------- detect

export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head || head.length < MAGIC.length) return false;
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC.charCodeAt(i)) return false;
  return true;
}

// ------------------------------------------------------------------------------------------------ read

interface RawEntry {
  offset: bigint;
  size: bigint;
  /** Where the entry's offset field is in the file. */
  at: number;
  field: string;
  /** The field with the network's role, for messages. */
  label: string;
}

function readEntry(r: ByteReader, field: string, label = field): RawEntry {
  const at = r.pos;
  const offset = r.u64(`${field}.offset`);
  const size = r.u64(`${field}.size`);
  return { offset, size, at, field, label };
}

/** TRUNCATED when the entry reaches past the end of the file (what a cut-off file looks like). */
function checkInsideFile(entry: RawEntry, fileSize: number): AprilEntry {
  const size = BigInt(fileSize);
  if (entry.offset > size || entry.size > size - entry.offset) {
    const offset = entry.offset > size ? fileSize : Number(entry.offset);
    const needed = entry.size > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(entry.size);
    throw new TruncatedError(id, offset, `${entry.field}.size`, needed, fileSize - offset);
  }
  return { offset: Number(entry.offset), size: Number(entry.size) };
}

function overlaps(a: AprilEntry, b: AprilEntry): boolean {
  return a.size > 0 && b.size > 0 && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

/** The first of libapril's params checks (src/params.c) that `p` breaks, or undefined. */
function paramsViolation(p: AprilParams): { key: keyof AprilParams; label: string; rule: string } | undefined {
  const rules: [keyof AprilParams, boolean, string][] = [
    ["batchSize", p.batchSize === 1, "batch_size == 1"],
    ["segmentSize", p.segmentSize > 0 && p.segmentSize < 100, "0 < segment_size < 100"],
    ["segmentStep", p.segmentStep > 0 && p.segmentStep < 100 && p.segmentStep <= p.segmentSize, "0 < segment_step < 100 and segment_step <= segment_size"],
    ["melFeatures", p.melFeatures > 0 && p.melFeatures < 256, "0 < mel_features < 256"],
    ["sampleRate", p.sampleRate > 0 && p.sampleRate < 144000, "0 < samplerate < 144000"],
    ["frameLengthMs", p.frameLengthMs > 0 && p.frameLengthMs <= 5000, "0 < frame_length_ms <= 5000"],
    ["frameShiftMs", p.frameShiftMs > 0 && p.frameShiftMs <= p.frameLengthMs, "0 < frame_shift_ms <= frame_length_ms"],
    ["melLow", p.melLow > 0 && p.melLow < p.sampleRate, "0 < mel_low < samplerate"],
    ["melHigh", p.melHigh === 0 || p.melHigh > p.melLow, "mel_high == 0 or mel_high > mel_low"],
    ["tokenCount", p.tokenCount > 0 && p.tokenCount < 16384, "0 < token_count < 16384"],
    ["blankTokenId", p.blankTokenId >= 0 && p.blankTokenId < p.tokenCount, "0 <= blank_token_id < token_count"],
  ];
  const broken = rules.find(([, ok]) => !ok);
  if (!broken) return undefined;
  const index = PARAM_FIELDS.findIndex(([key]) => key === broken[0]);
  return { key: broken[0], label: PARAM_FIELDS[index]![1], rule: broken[2] };
}

/** Byte offset of a params field inside a block that starts at `blockOffset`. */
function paramOffset(blockOffset: number, key: keyof AprilParams): number {
  return blockOffset + PARAMS_MAGIC.length + 4 * PARAM_FIELDS.findIndex(([k]) => k === key);
}

interface ParsedParams {
  params: AprilParams;
  tokens: string[];
  rawTokens: Uint8Array[];
  used: number;
}

function readParamsBlock(whole: ByteReader, entry: AprilEntry): ParsedParams {
  const r = whole.slice(entry.offset, entry.offset + entry.size);
  try {
    r.need(PARAMS_MAGIC.length, "params.magic");
    r.magic(PARAMS_MAGIC, "params.magic");
    const values = {} as AprilParams;
    for (const [key, label] of PARAM_FIELDS) values[key] = r.i32(`params.${label}`);
    const broken = paramsViolation(values);
    if (broken) {
      throw new CorruptDataError(
        id,
        `${broken.label} = ${values[broken.key]} breaks libapril's rule ${broken.rule}`,
        paramOffset(entry.offset, broken.key),
        `params.${broken.label}`,
      );
    }
    const count = r.count(values.tokenCount, 4, "params.tokens");
    const tokens: string[] = new Array<string>(count);
    const rawTokens: Uint8Array[] = new Array<Uint8Array>(count);
    for (let i = 0; i < count; i++) {
      const at = r.pos;
      const length = r.i32(`params.tokens[${i}].length`);
      if (length < 0) throw new CorruptDataError(id, `negative token length ${length}`, at, `params.tokens[${i}].length`);
      const bytes = r.bytesView(length, `params.tokens[${i}]`);
      rawTokens[i] = bytes;
      tokens[i] = decodeText(bytes);
    }
    return { params: values, tokens, rawTokens, used: r.pos - entry.offset };
  } catch (error) {
    // the entry is inside the file (checked before), so running out here means params.size is too small
    if (error instanceof TruncatedError) {
      throw new CorruptDataError(
        id,
        `params.size ${entry.size} ends the params block at ${entry.offset + entry.size}, before its fields end (${error.detail})`,
        error.offset,
        error.field,
        { cause: error },
      );
    }
    throw error;
  }
}

function parse(r: ByteReader, eager: boolean): AprilFile {
  r.magic(MAGIC); // BAD_MAGIC when the bytes differ, TRUNCATED when they match but stop early
  const versionAt = r.pos;
  const version = r.version(r.u32("version"), SUPPORTED_VERSIONS, versionAt);
  const headerSize = r.u64n("header_size");
  const languageBytes = r.bytesView(LANGUAGE_BYTES, "language_tag");
  const nameBytes = r.bytesView(r.count(r.u64("name.length"), 1, "name"), "name");
  const descriptionBytes = r.bytesView(r.count(r.u64("description.length"), 1, "description"), "description");
  const modelTypeAt = r.pos;
  const modelType = r.u32("model_type");
  if (modelType !== MODEL_TYPE_LSTM_TRANSDUCER_STATELESS) {
    throw new UnsupportedError(id, `model type ${modelType} (only 1, LSTM transducer stateless, exists)`, modelTypeAt, "model_type");
  }
  const paramsRaw = readEntry(r, "params");
  const countAt = r.pos;
  const networkCount = r.u64("network_count");
  if (networkCount !== 3n) {
    const why = networkCount > BigInt(LIBAPRIL_MAX_NETWORKS) ? `more than libapril's maximum of ${LIBAPRIL_MAX_NETWORKS}; ` : "";
    throw new CorruptDataError(id, `${networkCount} networks (${why}model type 1 has exactly 3: encoder, decoder, joiner)`, countAt, "network_count");
  }
  const networksRaw = NETWORK_NAMES.map((name, i) => readEntry(r, `networks[${i}]`, `networks[${i}] (${name})`));
  const headerEnd = r.pos;

  // every entry inside the file first (a cut-off file is TRUNCATED, whatever else is wrong) ...
  const paramsEntry = checkInsideFile(paramsRaw, r.fileSize);
  const networkEntries = networksRaw.map((e) => checkInsideFile(e, r.fileSize)) as [AprilEntry, AprilEntry, AprilEntry];
  // ... then after the header, and no two sharing bytes
  const all: [AprilEntry, RawEntry][] = [[paramsEntry, paramsRaw], ...networkEntries.map((e, i): [AprilEntry, RawEntry] => [e, networksRaw[i]!])];
  for (const [entry, raw] of all) {
    if (entry.offset < headerEnd) {
      throw new CorruptDataError(id, `${raw.label} starts at ${entry.offset}, inside the header (which ends at ${headerEnd})`, raw.at, `${raw.field}.offset`);
    }
  }
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const [a, rawA] = all[i]!;
      const [b, rawB] = all[j]!;
      if (overlaps(a, b)) {
        throw new CorruptDataError(
          id,
          `${rawB.label} [${b.offset}, ${b.offset + b.size}) overlaps ${rawA.label} [${a.offset}, ${a.offset + a.size})`,
          rawB.at,
          `${rawB.field}.offset`,
        );
      }
    }
  }

  const parsed = readParamsBlock(r, paramsEntry);
  const take = (entry: AprilEntry): Uint8Array | ByteRange => {
    const range = { byteOffset: entry.offset, byteLength: entry.size };
    return eager ? r.viewOf(range) : range;
  };
  return {
    version,
    headerSize,
    language: languageText(languageBytes),
    name: decodeText(nameBytes),
    description: decodeText(descriptionBytes),
    modelType,
    params: parsed.params,
    tokens: parsed.tokens,
    networks: { encoder: take(networkEntries[0]), decoder: take(networkEntries[1]), joiner: take(networkEntries[2]) },
    layout: { fileSize: r.fileSize, headerEnd, params: paramsEntry, paramsUsed: parsed.used, networks: networkEntries },
    raw: { language: languageBytes, name: nameBytes, description: descriptionBytes, tokens: parsed.rawTokens },
  };
}

/** Reads a whole .april file. Networks are zero-copy views of `bytes`. Throws only FormatErrors. */
export function read(bytes: Uint8Array, _options?: AprilReadOptions): AprilFile {
  return parse(new ByteReader(asBytes(bytes, "april.read"), id), true);
}

/** Reads the header and the params block only; networks are left as ByteRanges (never fetched). */
export async function readFrom(source: ByteSource, _options?: AprilReadOptions): Promise<AprilFile> {
  return lazy.parseFrom(asSource(source, "april.readFrom"), id, (backing) => parse(new ByteReader(backing, id), false));
}

/** Fetches the networks of a readFrom() result: the same file with its networks as bytes. */
export async function loadNetworks(source: ByteSource, file: AprilFile): Promise<AprilFile & { networks: AprilNetworks<Uint8Array> }> {
  const load = async (name: NetworkName): Promise<Uint8Array> => {
    const n = file.networks[name];
    return isRange(n) ? readExactly(source, n.byteOffset, n.byteLength, id, name) : n;
  };
  const [encoder, decoder, joiner] = await Promise.all(NETWORK_NAMES.map(load)) as [Uint8Array, Uint8Array, Uint8Array];
  return { ...file, networks: { encoder, decoder, joiner } };
}

// ----------------------------------------------------------------------------------------------- write

function cannotWrite(field: string, detail: string): never {
  throw new CorruptDataError(id, `cannot write: ${detail}`, undefined, field);
}

/** The bytes write() stores for a text field: the raw bytes when they still decode to `text`. */
function textBytes(text: string, raw: Uint8Array | undefined): Uint8Array {
  return raw && decodeText(raw) === text ? raw : utf8Bytes(text);
}

function languageBytesFor(file: Pick<AprilFile, "language" | "raw">): Uint8Array {
  const raw = file.raw?.language;
  if (raw && raw.length === LANGUAGE_BYTES && languageText(raw) === file.language) return raw;
  const encoded = utf8Bytes(file.language);
  if (encoded.length > LANGUAGE_BYTES) cannotWrite("language_tag", `language ${JSON.stringify(file.language)} is ${encoded.length} bytes (at most 8)`);
  if (encoded.includes(0)) cannotWrite("language_tag", "language contains a NUL character");
  const tag = new Uint8Array(LANGUAGE_BYTES);
  tag.set(encoded);
  return tag;
}

interface Encoded {
  language: Uint8Array;
  name: Uint8Array;
  description: Uint8Array;
  tokens: Uint8Array[];
  headerSize: number;
  paramsSize: number;
}

function encodeFields(file: Pick<AprilFile, "language" | "name" | "description" | "tokens" | "params" | "raw" | "version" | "modelType">): Encoded {
  if (file.version !== 1) cannotWrite("version", `version ${file.version} (only 1 exists)`);
  if (file.modelType !== MODEL_TYPE_LSTM_TRANSDUCER_STATELESS) cannotWrite("model_type", `model type ${file.modelType} (only 1 exists)`);
  for (const [key, label] of PARAM_FIELDS) {
    const v = file.params[key];
    if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) cannotWrite(`params.${label}`, `${label} = ${v} is not an i32`);
  }
  if (file.params.tokenCount !== file.tokens.length) {
    cannotWrite("params.token_count", `token_count ${file.params.tokenCount} but ${file.tokens.length} tokens`);
  }
  const broken = paramsViolation(file.params);
  if (broken) cannotWrite(`params.${broken.label}`, `${broken.label} = ${file.params[broken.key]} breaks libapril's rule ${broken.rule}`);
  const rawTokens = file.raw?.tokens;
  const tokens = file.tokens.map((t, i) => textBytes(t, rawTokens?.length === file.tokens.length ? rawTokens[i] : undefined));
  const language = languageBytesFor(file);
  const name = textBytes(file.name, file.raw?.name);
  const description = textBytes(file.description, file.raw?.description);
  const headerSize = LANGUAGE_BYTES + 8 + name.length + 8 + description.length + 4 + 16 + 8 + 16 * NETWORK_NAMES.length;
  let paramsSize = PARAMS_MAGIC.length + 4 * PARAM_FIELDS.length;
  for (const t of tokens) paramsSize += 4 + t.length;
  return { language, name, description, tokens, headerSize, paramsSize };
}

function referenceLayout(encoded: Encoded, networkSizes: readonly number[]): AprilLayout {
  const headerEnd = PRELUDE_BYTES + encoded.headerSize;
  let at = headerEnd;
  const networks = networkSizes.map((size) => {
    const entry = { offset: at, size };
    at += size;
    return entry;
  }) as [AprilEntry, AprilEntry, AprilEntry];
  const params = { offset: at, size: encoded.paramsSize };
  return { fileSize: at + encoded.paramsSize, headerEnd, params, paramsUsed: encoded.paramsSize, networks };
}

function networkBytes(file: Pick<AprilFile, "networks">): Uint8Array[] {
  return NETWORK_NAMES.map((name) => {
    const n = file.networks[name];
    if (!(n instanceof Uint8Array)) {
      throw new TypeError(`april: networks.${name} is a byte range (a readFrom() result): fetch it first with april.loadNetworks(source, file)`);
    }
    return n;
  });
}

/**
 * Writes the reference layout: header, encoder, decoder, joiner, params, no gaps, header_size = the header's
 * real size. A file read from another layout (params before the networks, gaps, extra header bytes) is
 * re-laid out, which is what libapril can load. Invalid content throws a CORRUPT FormatError naming the field.
 */
export function write(file: AprilFile, _options?: unknown): Uint8Array {
  const networks = networkBytes(file);
  const { header, params, layout } = encodeHeaderAndParams(file, networks.map((n) => n.length));
  const w = new ByteWriter(layout.fileSize);
  w.bytes(header);
  for (const n of networks) w.bytes(n);
  w.bytes(params);
  return w.finish();
}

/**
 * write() into a sink (a function, a WritableStream or a Node Writable): the header, the three networks as they
 * are (no copy), the params. Resolves to the byte count.
 */
export async function writeTo(file: AprilFile, sink: ByteSink, options: { end?: boolean | undefined } = {}): Promise<number> {
  const networks = networkBytes(file);
  const { header, params } = encodeHeaderAndParams(file, networks.map((n) => n.length));
  return writePiecesTo(sink, [header, ...networks, params], { end: options.end, caller: "april.writeTo" });
}

/**
 * What write() stores around the networks, for networks of these sizes (encoder, decoder, joiner): the header
 * through the network table, the params block, and where everything goes. Lets a patch stream the networks.
 */
export function encodeHeaderAndParams(file: AprilFile, networkSizes: readonly number[]): { header: Uint8Array; params: Uint8Array; layout: AprilLayout } {
  const encoded = encodeFields(file);
  const layout = referenceLayout(encoded, networkSizes);
  const w = new ByteWriter(layout.headerEnd);
  for (let i = 0; i < MAGIC.length; i++) w.u8(MAGIC.charCodeAt(i));
  w.u32(file.version).u64(encoded.headerSize);
  w.bytes(encoded.language);
  w.u64(encoded.name.length).bytes(encoded.name);
  w.u64(encoded.description.length).bytes(encoded.description);
  w.u32(file.modelType);
  w.u64(layout.params.offset).u64(layout.params.size);
  w.u64(NETWORK_NAMES.length);
  for (const entry of layout.networks) w.u64(entry.offset).u64(entry.size);
  const p = new ByteWriter(encoded.paramsSize);
  p.bytes(PARAMS_MAGIC);
  for (const [key] of PARAM_FIELDS) p.i32(file.params[key]);
  for (const t of encoded.tokens) p.i32(t.length).bytes(t);
  return { header: w.finish(), params: p.finish(), layout };
}

/**
 * A new model from your own ONNX networks and sentencepiece pieces, with export-april.py's defaults
 * (REFERENCE_PARAMS, name "Untitled", description "No description", language "en-us", blank = the id of
 * "<blk>", or 0 when there is none). `write(create(...))` gives the bytes.
 */
export function create(options: AprilCreateOptions): AprilFile & { networks: AprilNetworks<Uint8Array> } {
  const tokens = options.tokens.map((t) => (options.keepSpaceMarker ? t : t.replaceAll("\u2581", " ")));
  const blank = options.tokens.indexOf("<blk>");
  const params: AprilParams = {
    ...REFERENCE_PARAMS,
    blankTokenId: blank >= 0 ? blank : 0,
    ...options.params,
    tokenCount: tokens.length,
  };
  const networks = { encoder: options.networks.encoder, decoder: options.networks.decoder, joiner: options.networks.joiner };
  const file = {
    version: 1,
    headerSize: 0,
    language: options.language ?? "en-us",
    name: options.name ?? "Untitled",
    description: options.description ?? "No description",
    modelType: MODEL_TYPE_LSTM_TRANSDUCER_STATELESS,
    params,
    tokens,
    networks,
  };
  const bytes = networkBytes(file);
  const encoded = encodeFields(file);
  return { ...file, headerSize: encoded.headerSize, layout: referenceLayout(encoded, bytes.map((n) => n.length)) };
}

// ------------------------------------------------------------------------------------ uniform views

/** None: an april model's networks are ONNX blobs (see blobs()). */
export function tensors(file: AprilFile, _options?: DecodeOptions): NamedTensor[] {
  assertEager(file, id);
  return [];
}

export function tensorInfos(_file: AprilFile): TensorInfo[] {
  return [];
}

export async function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  return lazy.loadRowMajorTensor(source, info, { ...options, format: id });
}

function paramsJson(params: AprilParams): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key] of PARAM_FIELDS) out[key] = params[key];
  return out;
}

export function inspect(file: AprilFile): InspectResult {
  return {
    format: id,
    version: file.version,
    meta: {
      language: file.language,
      name: file.name,
      description: file.description,
      modelType: file.modelType,
      modelTypeName: file.modelType === MODEL_TYPE_LSTM_TRANSDUCER_STATELESS ? "LSTM_TRANSDUCER_STATELESS" : "unknown",
      headerSize: file.headerSize,
    },
    tensors: [],
    params: paramsJson(file.params),
    paramsBlock: { offset: file.layout.params.offset, size: file.layout.params.size },
    tokens: [...file.tokens],
    networks: NETWORK_NAMES.map((name, i) => ({ name, offset: file.layout.networks[i]!.offset, size: file.layout.networks[i]!.size })),
  };
}

/** Warnings about what libapril would refuse or misread, and about what write() would not keep. */
export function verify(file: AprilFile): string[] {
  const warnings: string[] = [];
  const { layout } = file;
  const joiner = layout.networks[2];
  const afterJoiner = joiner.offset + joiner.size;
  if (layout.params.offset !== afterJoiner) {
    warnings.push(
      `params start at ${layout.params.offset}, not right after the joiner (${afterJoiner}): libapril reads params from ` +
        "the file position after the joiner and would fail to load this model (write() re-lays it out)",
    );
  }
  const parsedHeader = layout.headerEnd - PRELUDE_BYTES;
  if (file.headerSize !== parsedHeader) {
    warnings.push(
      `header_size is ${file.headerSize} but the header is ${parsedHeader} bytes: libapril ignores header_size, other ` +
        `readers use it to bound the header (write() stores ${parsedHeader})`,
    );
  }
  const lastEnd = Math.max(afterJoiner, layout.params.offset + layout.params.size, ...layout.networks.map((n) => n.offset + n.size));
  if (layout.fileSize > lastEnd) warnings.push(`${layout.fileSize - lastEnd} bytes after the last section (from ${lastEnd}) are not used (write() drops them)`);
  if (layout.params.size > layout.paramsUsed) {
    warnings.push(`params.size is ${layout.params.size} but the params use ${layout.paramsUsed} bytes (write() drops the rest)`);
  }
  NETWORK_NAMES.forEach((name, i) => {
    if (layout.networks[i]!.size === 0) warnings.push(`the ${name} network is empty: libapril cannot load it`);
  });
  const raw = file.raw;
  const languageEnd = raw ? raw.language.indexOf(0) : -1;
  if (raw && !isValidUtf8(languageEnd < 0 ? raw.language : raw.language.subarray(0, languageEnd))) warnings.push("language_tag is not valid UTF-8");
  if (raw && !isValidUtf8(raw.name)) warnings.push("name is not valid UTF-8");
  if (raw && !isValidUtf8(raw.description)) warnings.push("description is not valid UTF-8");
  file.tokens.forEach((token, i) => {
    const bytes = raw?.tokens[i];
    if (bytes && !isValidUtf8(bytes)) warnings.push(`token ${i} is not valid UTF-8`);
    if (token.includes("\0")) warnings.push(`token ${i} contains a NUL byte: libapril cuts it there`);
    if (token.length === 0 && i !== file.params.blankTokenId) warnings.push(`token ${i} is empty`);
  });
  const nyquist = file.params.sampleRate / 2;
  if (file.params.melHigh > nyquist) warnings.push(`mel_high ${file.params.melHigh} is above samplerate / 2 (${nyquist})`);
  return warnings;
}

/** encoder.onnx, decoder.onnx, joiner.onnx, params.json (the 13 fields) and tokens.json (a string array). */
export function blobs(file: AprilFile): EmbeddedBlob[] {
  const json = (value: unknown) => utf8Bytes(`${JSON.stringify(value, null, 2)}\n`);
  return [
    ...NETWORK_NAMES.map((name) => ({ name: `${name}.onnx`, bytes: file.networks[name] })),
    { name: "params.json", bytes: json(paramsJson(file.params)) },
    { name: "tokens.json", bytes: json(file.tokens) },
  ];
}
// issue 15: replace tensors by name (patch)
export { replaceTensors } from "./april/patch.js";
