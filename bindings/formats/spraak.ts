/**
 * SPRAAK (KU Leuven / UGent speech toolkit) data files: `.spr` headers and the older key headers.
 *
 *   [gzip wrapper: 1F 8B … around everything below, header included]
 *   ".spr\n"                         magic (key header: optional ".key\n")
 *   KEY<ws>VALUE\n …                 header lines (see spraak/header.ts: quoting, continuation, padding)
 *   "#\n"                            end line (key header: "#…#\n")
 *   data                             [COMPRESS gzip: a gzip stream of what follows]
 *     LAYOUT MATRIX, FORMAT BIN01    DIM1 rows x DIM2 columns of TYPE, row-major, little-endian, no padding
 *     LAYOUT MATRIX, FORMAT BIN10    the same, big-endian
 *     LAYOUT MATRIX, FORMAT ASCII    decimal numbers separated by white space (one row a line when written)
 *     LAYOUT LIST                    text, one entry a line ('#' lines are data here)
 *     LAYOUT CUSTOM                  opaque bytes
 *   DIM1 -1 = as many rows as there are; NCHAN > 1 sample data is interleaved (DIM2 = NCHAN).
 *
 * Choices the public documentation leaves open are in spraak/provisional.ts (PROVISIONAL, KEY_HEADER_RULES).
 * The code: spraak/reader.ts (detect, read, readFrom), writer.ts, view.ts (tensors, inspect, verify, channels),
 * builder.ts (matrix, list, convert), corpus.ts (LIST entries), patch.ts; model.ts holds the types.
 */
export { KEY_HEADER_RULES, PROVISIONAL } from "./spraak/provisional.js";
export { decodeG711, encodeG711 } from "./spraak/codecs.js";
export { id, mapKeyHeader, toKeyHeader } from "./spraak/model.js";
export type { KeyHeaderRule } from "./spraak/provisional.js";
export type { HeaderLine } from "./spraak/header.js";
export type {
  SpraakAsciiMatrix,
  SpraakBinaryMatrix,
  SpraakCustom,
  SpraakData,
  SpraakFile,
  SpraakFileParts,
  SpraakFormat,
  SpraakHeaderKind,
  SpraakLayout,
  SpraakList,
  SpraakMeta,
  SpraakReadOptions,
  SpraakTensorInfo,
  SpraakType,
} from "./spraak/model.js";
export type { TextEncoding } from "./spraak/text.js";

/** .spr (generic), .trk (tracks), .sam (samples), .cor, .seg, .lex/.dic, .ci/.cd, .mvg/.hmm, .key. */
export const extensions: readonly string[] = [
  ".spr",
  ".trk",
  ".sam",
  ".cor",
  ".seg",
  ".lex",
  ".dic",
  ".ci",
  ".cd",
  ".mvg",
  ".hmm",
  ".key",
];

export { detect, read, readFrom } from "./spraak/reader.js";
export { write, writeTo } from "./spraak/writer.js";
export { blobs, channels, inspect, loadTensor, tensorInfos, tensors, verify } from "./spraak/view.js";
export { type BuildOptions, type MatrixOptions, convert, list, matrix } from "./spraak/builder.js";
export {
  type CorpusEntry,
  asBeginEnd,
  asStartLength,
  corpusEntries,
  corpusEntry,
  entryTimes,
  listFields,
} from "./spraak/corpus.js";
export { replaceTensors } from "./spraak/patch.js";
