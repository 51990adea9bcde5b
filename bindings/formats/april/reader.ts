/**
 * april reading: the prelude, header, params block and network table (every offset checked against the file),
 * for read() (networks as views), readFrom() (byte ranges) and loadNetworks(); then each network's ONNX model
 * (weights.ts) for the weights.
 */

import { asBytes, asSource } from "../../bytes/input.js";
import { CorruptDataError, TruncatedError, UnsupportedError } from "../../bytes/errors.js";
import { type ByteRange, ByteReader } from "../../bytes/byte-reader.js";
import * as lazy from "../../io/lazy.js";
import { attachModels, attachModelsFrom } from "./weights.js";
import { type ByteSource, readExactly } from "../../io/source.js";

import {
  type AprilEntry,
  type AprilFile,
  type AprilNetworks,
  type AprilParams,
  type AprilReadOptions,
  type NetworkName,
  decodeText,
  id,
  isRange,
  LANGUAGE_BYTES,
  languageText,
  LIBAPRIL_MAX_NETWORKS,
  MAGIC,
  MODEL_TYPE_LSTM_TRANSDUCER_STATELESS,
  NETWORK_NAMES,
  PARAM_FIELDS,
  PARAMS_MAGIC,
  SUPPORTED_VERSIONS,
} from "./model.js";

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
export function paramsViolation(p: AprilParams): { key: keyof AprilParams; label: string; rule: string } | undefined {
  const rules: [keyof AprilParams, boolean, string][] = [
    ["batchSize", p.batchSize === 1, "batch_size == 1"],
    ["segmentSize", p.segmentSize > 0 && p.segmentSize < 100, "0 < segment_size < 100"],
    [
      "segmentStep",
      p.segmentStep > 0 && p.segmentStep < 100 && p.segmentStep <= p.segmentSize,
      "0 < segment_step < 100 and segment_step <= segment_size",
    ],
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
      if (length < 0)
        throw new CorruptDataError(id, `negative token length ${length}`, at, `params.tokens[${i}].length`);
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
    throw new UnsupportedError(
      id,
      `model type ${modelType} (only 1, LSTM transducer stateless, exists)`,
      modelTypeAt,
      "model_type",
    );
  }
  const paramsRaw = readEntry(r, "params");
  const countAt = r.pos;
  const networkCount = r.u64("network_count");
  if (networkCount !== 3n) {
    const why =
      networkCount > BigInt(LIBAPRIL_MAX_NETWORKS) ? `more than libapril's maximum of ${LIBAPRIL_MAX_NETWORKS}; ` : "";
    throw new CorruptDataError(
      id,
      `${networkCount} networks (${why}model type 1 has exactly 3: encoder, decoder, joiner)`,
      countAt,
      "network_count",
    );
  }
  const networksRaw = NETWORK_NAMES.map((name, i) => readEntry(r, `networks[${i}]`, `networks[${i}] (${name})`));
  const headerEnd = r.pos;

  // every entry inside the file first (a cut-off file is TRUNCATED, whatever else is wrong) ...
  const paramsEntry = checkInsideFile(paramsRaw, r.fileSize);
  const networkEntries = networksRaw.map((e) => checkInsideFile(e, r.fileSize)) as [AprilEntry, AprilEntry, AprilEntry];
  // ... then after the header, and no two sharing bytes
  const all: [AprilEntry, RawEntry][] = [
    [paramsEntry, paramsRaw],
    ...networkEntries.map((e, i): [AprilEntry, RawEntry] => [e, networksRaw[i]!]),
  ];
  for (const [entry, raw] of all) {
    if (entry.offset < headerEnd) {
      throw new CorruptDataError(
        id,
        `${raw.label} starts at ${entry.offset}, inside the header (which ends at ${headerEnd})`,
        raw.at,
        `${raw.field}.offset`,
      );
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
  const input = asBytes(bytes, "april.read");
  return attachModels(parse(new ByteReader(input, id), true), input);
}

/** Reads the header and the params block only; networks are left as ByteRanges (never fetched). */
export async function readFrom(source: ByteSource, _options?: AprilReadOptions): Promise<AprilFile> {
  const input = asSource(source, "april.readFrom");
  const file = await lazy.parseFrom(input, id, (backing) => parse(new ByteReader(backing, id), false));
  return lazy.markLazy(await attachModelsFrom(file, input));
}

/** Fetches the networks of a readFrom() result: the same file with its networks as bytes. */
export async function loadNetworks(
  source: ByteSource,
  file: AprilFile,
): Promise<
  AprilFile & {
    /** The three networks' bytes, loaded. */
    networks: AprilNetworks<Uint8Array>;
  }
> {
  const load = async (name: NetworkName): Promise<Uint8Array> => {
    const n = file.networks[name];
    return isRange(n) ? readExactly(source, n.byteOffset, n.byteLength, id, name) : n;
  };
  const [encoder, decoder, joiner] = (await Promise.all(NETWORK_NAMES.map(load))) as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
  ];
  return { ...file, networks: { encoder, decoder, joiner } };
}
