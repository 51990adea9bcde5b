/**
 * BW2L: binary wav2letter models (talonvoice/wav2letter `b2l.h`, version 1; talonvoice/libw2l, version 2).
 * Little-endian, no alignment, no padding, no checksum. short string = u8 len + bytes; long string = u64 len + bytes.
 *
 *   file     magic "BW2L" | u8 version (1|2) | short name | u64 section_count | section × count | (nothing)
 *   section  short name | short type | long desc | u64 data_length | data[data_length]
 *   data     utf8:   the text (no terminator)
 *            keyval: { short key | long value } … until data_length is used up (file order; dups and "" kept)
 *            data:   raw bytes (any unknown type is kept raw too)
 *            array:  array
 *            layers: u64 layer_count | { long arch | v1: f32 scale, i64 offset | u64 param_count | array × count } …
 *   array    short dtype (fp64 fp32 fp16 i64 i32 i16 i8) | u64 len | v2: u8 ndim, u64 dims[ndim] | len × size bytes
 *
 * Array data is ArrayFire column-major; v2 dims are usually 4-D with trailing 1s. tensors() gives row-major data
 * for the stored dims. Quantization (config `quantization`: fp16 / i8) is our own convention: see bw2l/quantize.ts.
 */
import { asBytes, asSource, bytesOrUndefined } from "../bytes/input.js";
import { ByteReader } from "../bytes/byte-reader.js";
import * as lazy from "../io/lazy.js";
import type { ByteSource } from "../io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";
import type { Bw2lFile } from "./bw2l/model.js";
import { type QuantizeMode, dequantizeFile, quantizeFile } from "./bw2l/quantize.js";
import { parseFile } from "./bw2l/reader.js";
import { decodableInfo } from "./bw2l/view.js";
import { writeFile, writePieces } from "./bw2l/writer.js";
import { type ByteSink, writePiecesTo } from "../io/sink.js";
import { checkWriterInput } from "../bytes/arguments.js";

/** The format's id. */
export const id = "bw2l" as const;
/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".b2l", ".bw2l"];

export type {
  Bw2lArray,
  Bw2lArrayData,
  Bw2lArraySection,
  Bw2lDType,
  Bw2lEntry,
  Bw2lFile,
  Bw2lKeyvalSection,
  Bw2lLayer,
  Bw2lLayersSection,
  Bw2lRawSection,
  Bw2lSection,
  Bw2lUtf8Section,
  Bw2lVersion,
} from "./bw2l/model.js";
export { isArraySection, isKeyvalSection, isLayersSection, isRawSection, isUtf8Section } from "./bw2l/model.js";
export type { KeyvalInput, LayerInput, ModelInput, ParamInput } from "./bw2l/builder.js";
export { create } from "./bw2l/builder.js";
export type { QuantizeMode } from "./bw2l/quantize.js";
export { chooseI8Params } from "./bw2l/quantize.js";
export {
  archLines,
  blobs,
  config,
  flags,
  inspect,
  keyvalMap,
  tensorInfos,
  tensors,
  tokens,
  verify,
} from "./bw2l/view.js";

/** Options of {@link read}. */
export interface ReadOptions {
  /**
   * read() only: widen every fp16 array to fp32 and turn every int8 param of a v1 layer into fp32 with its layer's
   * scale and offset ((q - offset) * scale; the layer's scale and offset become 1 and 0). Default false.
   */
  dequantize?: boolean | undefined;
  /** read() only: copy payloads instead of returning views of the input where alignment allows. Default false. */
  copy?: boolean | undefined;
}

/** Options of {@link write} and {@link writeTo}. */
export interface WriteOptions {
  /** Store float32 layer params as fp16, or as int8 with per-layer scale/offset (version 1 only). */
  quantize?: QuantizeMode | undefined;
}

/** True when `head` starts with the BW2L magic (whatever the version: read() then names an unsupported one). */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  return (
    head !== undefined &&
    head.length >= 4 &&
    head[0] === 0x42 &&
    head[1] === 0x57 &&
    head[2] === 0x32 &&
    head[3] === 0x4c
  );
}

/** The whole file. Throws only FormatErrors: every length is checked against the bytes before it is used. */
export function read(bytes: Uint8Array, options: ReadOptions = {}): Bw2lFile {
  const file = parseFile(new ByteReader(asBytes(bytes, "bw2l.read"), id), { eager: true, copy: options.copy ?? false });
  return options.dequantize ? dequantizeFile(file) : file;
}

/** The same object as read(), with array, layer-param, data-section and trailing payloads left as byte ranges. */
export async function readFrom(source: ByteSource, _options: ReadOptions = {}): Promise<Bw2lFile> {
  return lazy.parseFrom(asSource(source, "bw2l.readFrom"), id, (backing) =>
    parseFile(new ByteReader(backing, id), { eager: false, copy: false }),
  );
}

/** The bytes of `file` (byte-identical to the input for anything read()); `quantize` converts float32 params first. */
export function write(file: Bw2lFile, options: WriteOptions = {}): Uint8Array {
  checkWriterInput(file, "bw2l.write", "a bw2l file (from read() or create())", { arrays: ["sections"] });
  return writeFile(options.quantize ? quantizeFile(file, options.quantize) : file);
}

/**
 * write() into a sink (a function, a WritableStream or a Node Writable) piece by piece: the payloads go out as
 * they are, with no second copy of the file in memory. Resolves to the byte count.
 */
export async function writeTo(
  file: Bw2lFile,
  sink: ByteSink,
  options: WriteOptions & { end?: boolean | undefined } = {},
): Promise<number> {
  checkWriterInput(file, "bw2l.writeTo", "a bw2l file (from read() or create())", { arrays: ["sections"] });
  return writePiecesTo(sink, writePieces(options.quantize ? quantizeFile(file, options.quantize) : file), {
    end: options.end,
    caller: "bw2l.writeTo",
  });
}

/** Reads and decodes one tensor of a readFrom() result. */
export async function loadTensor(
  source: ByteSource,
  info: TensorInfo,
  options: DecodeOptions = {},
): Promise<NamedTensor> {
  const tensor = await lazy.loadTensor(source, decodableInfo(info), { ...options, format: id });
  tensor.shape = info.shape.slice();
  return tensor;
}
// issue 15: replace tensors by name (patch)
export { replaceTensors } from "./bw2l/patch.js";
