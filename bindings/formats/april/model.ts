/**
 * The april-asr model: its constants (magic, params fields, the reference params), the file object read()
 * returns and write() takes, and text helpers shared by reading and writing.
 */

import { type ByteRange } from "../../bytes/byte-reader.js";
import type { OnnxModel } from "../onnx/embed.js";

/** The format's id. */
export const id = "april" as const;
export const MAGIC = "APRILMDL";
export const PARAMS_MAGIC = Uint8Array.of(0x50, 0x41, 0x52, 0x41, 0x4d, 0x53, 0, 0); // "PARAMS\0\0"
export const PRELUDE_BYTES = 20;
export const LANGUAGE_BYTES = 8;
export const SUPPORTED_VERSIONS = [1] as const;
/** The only model type libapril defines (LSTM_TRANSDUCER_STATELESS). */
export const MODEL_TYPE_LSTM_TRANSDUCER_STATELESS = 1;
/** The three ONNX networks of an april model, in file order. */
export const NETWORK_NAMES = ["encoder", "decoder", "joiner"] as const;
/** One of {@link NETWORK_NAMES}. */
export type NetworkName = (typeof NETWORK_NAMES)[number];
/** libapril's MAX_NETWORKS: it refuses larger counts even before checking the model type. */
export const LIBAPRIL_MAX_NETWORKS = 8;

/** The thirteen i32 fields of the params block, in file order (token_count is `tokenCount`). */
export interface AprilParams {
  /** batch_size. */
  batchSize: number;
  /** segment_size: frames per segment the encoder sees. */
  segmentSize: number;
  /** segment_step: frames between segments. */
  segmentStep: number;
  /** mel_features: mel bands per frame. */
  melFeatures: number;
  /** samplerate in Hz. */
  sampleRate: number;
  /** frame_shift_ms. */
  frameShiftMs: number;
  /** frame_length_ms. */
  frameLengthMs: number;
  /** Used as a boolean (non-zero) by libapril; kept as the stored i32. */
  roundPow2: number;
  /** mel_low: the lowest mel frequency in Hz. */
  melLow: number;
  /** 0 means samplerate / 2. */
  melHigh: number;
  /** Ignored by libapril (it forces snip_edges on); kept as the stored i32. */
  snipEdges: number;
  /** Must equal tokens.length. */
  tokenCount: number;
  /** blank_token_id: the index of the blank token. */
  blankTokenId: number;
}

export const PARAM_FIELDS: readonly [keyof AprilParams, string][] = [
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
  /** Absolute offset in the file. */
  offset: number;
  /** Size in bytes. */
  size: number;
}

/** Where things are in the file that was read (or, for create(), where write() will put them). */
export interface AprilLayout {
  /** The size of the whole file. */
  readonly fileSize: number;
  /** Absolute offset just past the network table (the header as parsed). */
  readonly headerEnd: number;
  /** Where the params block is. */
  readonly params: AprilEntry;
  /** Bytes of the params block actually used by its fields and tokens (<= params.size). */
  readonly paramsUsed: number;
  /** encoder, decoder, joiner. */
  readonly networks: [AprilEntry, AprilEntry, AprilEntry];
}

/** The exact stored bytes of the text fields, so that text that is not valid UTF-8 still round-trips. */
export interface AprilRawText {
  /** All 8 bytes of the language tag, padding included. */
  language: Uint8Array;
  /** The stored bytes of the name. */
  name: Uint8Array;
  /** The stored bytes of the description. */
  description: Uint8Array;
  /** The stored bytes of each token. */
  tokens: Uint8Array[];
}

/** The encoder, decoder and joiner ONNX networks (bytes, or byte ranges after `readFrom()`). */
export interface AprilNetworks<N = Uint8Array | ByteRange> {
  /** The encoder network. */
  encoder: N;
  /** The decoder network. */
  decoder: N;
  /** The joiner network. */
  joiner: N;
}

/** Each network's ONNX model (absent: the network is not a readable ONNX model, see AprilFile.onnxErrors). */
export type AprilNetworkModels = Partial<Record<NetworkName, OnnxModel>>;

/** A whole `.april` file, as {@link read} gives it and {@link write} takes it. */
export interface AprilFile {
  /** The format version (1). */
  version: number;
  /** header_size as stored (write() stores the real size of the header it writes). */
  readonly headerSize: number;
  /** The language tag up to its first NUL. */
  language: string;
  /** The model's name. */
  name: string;
  /** The model's description. */
  description: string;
  /** The model type (1: LSTM transducer, stateless). */
  modelType: number;
  /** The thirteen fields of the params block. */
  params: AprilParams;
  /** Decoded tokens (invalid UTF-8 becomes U+FFFD; the exact bytes are in raw.tokens). */
  tokens: string[];
  /** ONNX bytes: zero-copy views of the input after read(), ByteRanges after readFrom(). */
  networks: AprilNetworks;
  /** Where header, networks and params are in the file. */
  readonly layout: AprilLayout;
  /**
   * The stored bytes of language, name, description and tokens. write() uses raw bytes whenever they still
   * decode to the current string (so edits win, and untouched invalid UTF-8 survives).
   */
  readonly raw?: AprilRawText | undefined;
  /**
   * The networks read as ONNX models (graphs and weights; payloads are byte ranges of this file): the weights of
   * tensors()/tensorInfos(), named `encoder/<name>`, `decoder/<name>`, `joiner/<name>`. Edits made to a model
   * (onnx's edits: metadata, names, shapes, nodes, initializers) are written by write() while `networks` still
   * holds that network's bytes as read (a network replaced in `networks` is written as given).
   */
  onnx?: AprilNetworkModels | undefined;
  /** Why a network is not a readable ONNX model (its FormatError's message), by network. */
  readonly onnxErrors?: Partial<Record<NetworkName, string>> | undefined;
}

/** read() and readFrom() take no options today. */
export type AprilReadOptions = Record<string, never>;

/** What {@link create} packages into a model. */
export interface AprilCreateOptions {
  /** The three ONNX networks' bytes. */
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

export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictDecoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

export function languageText(tag: Uint8Array): string {
  const nul = tag.indexOf(0);
  return decodeText(nul < 0 ? tag : tag.subarray(0, nul));
}

export function isRange(value: Uint8Array | ByteRange): value is ByteRange {
  return !(value instanceof Uint8Array);
}
