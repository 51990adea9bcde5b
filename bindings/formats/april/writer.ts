/**
 * april writing: always the reference layout (header | encoder | decoder | joiner | params), networks passed
 * through (write) or streamed (writeTo), with the edits made to their ONNX models (file.onnx) stored.
 */

import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { CorruptDataError } from "../../bytes/errors.js";
import { ByteWriter, utf8Bytes } from "../../bytes/byte-writer.js";

import {
  type AprilEntry,
  type AprilFile,
  type AprilLayout,
  decodeText,
  id,
  LANGUAGE_BYTES,
  languageText,
  MAGIC,
  MODEL_TYPE_LSTM_TRANSDUCER_STATELESS,
  NETWORK_NAMES,
  PARAM_FIELDS,
  PARAMS_MAGIC,
  PRELUDE_BYTES,
} from "./model.js";
import { paramsViolation } from "./reader.js";
import { checkWriterInput } from "../../bytes/arguments.js";
import { modelBytes, writeModelPieces as writeOnnxPieces } from "../onnx/embed.js";

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
  if (encoded.length > LANGUAGE_BYTES)
    cannotWrite("language_tag", `language ${JSON.stringify(file.language)} is ${encoded.length} bytes (at most 8)`);
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

export function encodeFields(
  file: Pick<AprilFile, "language" | "name" | "description" | "tokens" | "params" | "raw" | "version" | "modelType">,
): Encoded {
  if (file.version !== 1) cannotWrite("version", `version ${file.version} (only 1 exists)`);
  if (file.modelType !== MODEL_TYPE_LSTM_TRANSDUCER_STATELESS)
    cannotWrite("model_type", `model type ${file.modelType} (only 1 exists)`);
  for (const [key, label] of PARAM_FIELDS) {
    const v = file.params[key];
    if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff)
      cannotWrite(`params.${label}`, `${label} = ${v} is not an i32`);
  }
  if (file.params.tokenCount !== file.tokens.length) {
    cannotWrite("params.token_count", `token_count ${file.params.tokenCount} but ${file.tokens.length} tokens`);
  }
  const broken = paramsViolation(file.params);
  if (broken)
    cannotWrite(
      `params.${broken.label}`,
      `${broken.label} = ${file.params[broken.key]} breaks libapril's rule ${broken.rule}`,
    );
  const rawTokens = file.raw?.tokens;
  const tokens = file.tokens.map((t, i) =>
    textBytes(t, rawTokens?.length === file.tokens.length ? rawTokens[i] : undefined),
  );
  const language = languageBytesFor(file);
  const name = textBytes(file.name, file.raw?.name);
  const description = textBytes(file.description, file.raw?.description);
  const headerSize = LANGUAGE_BYTES + 8 + name.length + 8 + description.length + 4 + 16 + 8 + 16 * NETWORK_NAMES.length;
  let paramsSize = PARAMS_MAGIC.length + 4 * PARAM_FIELDS.length;
  for (const t of tokens) paramsSize += 4 + t.length;
  return { language, name, description, tokens, headerSize, paramsSize };
}

export function referenceLayout(encoded: Encoded, networkSizes: readonly number[]): AprilLayout {
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

export function networkBytes(file: Pick<AprilFile, "networks">): Uint8Array[] {
  return NETWORK_NAMES.map((name) => {
    const n = file.networks[name];
    if (!(n instanceof Uint8Array)) {
      throw new TypeError(
        `april: networks.${name} is a byte range (a readFrom() result): fetch it first with april.loadNetworks(source, file)`,
      );
    }
    return n;
  });
}

/**
 * Each network as pieces: the ONNX model read from it with its edits stored (onnx edit-write.ts) while
 * `networks` still holds the bytes the model was read from, else the network's bytes as given.
 */
export function networkPieces(file: Pick<AprilFile, "networks" | "onnx">): Uint8Array[][] {
  const networks = networkBytes(file);
  return NETWORK_NAMES.map((name, i) => {
    const n = networks[i]!;
    const model = file.onnx?.[name];
    const bytes = model && modelBytes.get(model);
    const readFrom =
      bytes !== undefined &&
      n.buffer === bytes.buffer &&
      n.byteOffset === bytes.byteOffset + model!.span.byteOffset &&
      n.byteLength === model!.span.byteLength;
    return readFrom ? writeOnnxPieces(model!) : [n];
  });
}

function piecesSize(pieces: readonly Uint8Array[]): number {
  let size = 0;
  for (const p of pieces) size += p.length;
  return size;
}

/**
 * Writes the reference layout: header, encoder, decoder, joiner, params, no gaps, header_size = the header's
 * real size. A file read from another layout (params before the networks, gaps, extra header bytes) is
 * re-laid out, which is what libapril can load. Invalid content throws a CORRUPT FormatError naming the field.
 */
export function write(file: AprilFile, _options?: unknown): Uint8Array {
  checkWriterInput(file, "april.write", "an april file (from read() or create())", {
    arrays: ["tokens"],
    objects: ["params", "networks"],
  });
  const networks = networkPieces(file);
  const { header, params, layout } = encodeHeaderAndParams(file, networks.map(piecesSize));
  const w = new ByteWriter(layout.fileSize);
  w.bytes(header);
  for (const n of networks) for (const piece of n) w.bytes(piece);
  w.bytes(params);
  return w.finish();
}

/**
 * write() into a sink (a function, a WritableStream or a Node Writable): the header, the three networks as they
 * are (no copy), the params. Resolves to the byte count.
 */
export async function writeTo(
  file: AprilFile,
  sink: ByteSink,
  options: { end?: boolean | undefined } = {},
): Promise<number> {
  const networks = networkPieces(file);
  const { header, params } = encodeHeaderAndParams(file, networks.map(piecesSize));
  return writePiecesTo(sink, [header, ...networks.flat(), params], { end: options.end, caller: "april.writeTo" });
}

/**
 * What write() stores around the networks, for networks of these sizes (encoder, decoder, joiner): the header
 * through the network table, the params block, and where everything goes. Lets a patch stream the networks.
 */
export function encodeHeaderAndParams(
  file: AprilFile,
  networkSizes: readonly number[],
): {
  /** The header through the network table. */
  header: Uint8Array;
  /** The params block. */
  params: Uint8Array;
  /** Where everything goes. */
  layout: AprilLayout;
} {
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
