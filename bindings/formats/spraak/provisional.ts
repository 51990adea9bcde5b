/**
 * SPRAAK choices the public documentation leaves open (documented in docs/formats/spraak.md).
 * Everything provisional lives here, in one place, so that a future look at the SPRAAK source (or a real key
 * file) changes data, not code. Each entry says where the guess comes from.
 */

/** The old "key" header (ESAT HMM package) mapped onto SPRAAK keys. Confidence per row: notes §6. */
export interface KeyHeaderRule {
  /** The key as spelled in a key header. */
  readonly key: string;
  /** The SPRAAK key it becomes. */
  readonly to: string;
  /** Value translations (upper-cased lookup); values not listed pass through unchanged. */
  readonly values?: Readonly<Record<string, string>> | undefined;
  /** How sure the mapping is; `verify` warns about every low-confidence rule a file used. */
  readonly confidence: "high" | "medium" | "low";
}

export const KEY_HEADER_RULES: readonly KeyHeaderRule[] = [
  { key: "DATATYPE", to: "DATA", confidence: "high" },
  {
    key: "DATAFORMAT",
    to: "TYPE",
    values: {
      FLOAT: "F32",
      DOUBLE: "F64",
      INT: "I32",
      SHORT: "I16",
      BYTE: "U8",
      ALAW: "ALAW",
      MULAW: "ULAW",
      STRING: "STRING",
    },
    confidence: "medium", // BYTE -> U8 is a low-confidence guess (I8 is as likely)
  },
  { key: "NFR", to: "DIM1", confidence: "medium" },
  { key: "NENTRY", to: "DIM1", confidence: "medium" }, // DIM2 (number of files) when NSEG is present, see below
  { key: "NSEG", to: "DIM1", confidence: "low" },
  { key: "NPARAM", to: "DIM2", confidence: "medium" },
  { key: "NCHAN", to: "NCHAN", confidence: "high" },
  { key: "CHANLEN", to: "CHANLEN", confidence: "high" },
  { key: "FSHIFT", to: "FSHIFT", confidence: "high" },
  { key: "SAMPLEFREQ", to: "SAMPLEFREQ", confidence: "high" },
  { key: "CORPUS", to: "CORPUS", confidence: "low" },
  { key: "DICTIONARY", to: "DICTIONARY", confidence: "low" },
  // Key headers predate FORMAT; the one public key tool writes ENDIAN LITTLE|BIG (notes §6).
  { key: "ENDIAN", to: "FORMAT", values: { LITTLE: "BIN01", BIG: "BIN10" }, confidence: "low" },
];

/** Defaults and conventions used when a header is silent. */
export const PROVISIONAL = {
  /** FORMAT when a `.spr` header has none: the MVGAUSS doc example has no FORMAT and shows ASCII data. */
  defaultFormat: "ASCII",
  /** FORMAT when a key header has neither FORMAT nor ENDIAN: key files held binary features (little-endian). */
  keyHeaderFormat: "BIN01",
  /** DATA kinds whose LAYOUT defaults to LIST (and TYPE to STRING); everything else defaults to MATRIX. */
  listData: ["CORPUS", "DICTIONARY", "SEG", "UNIT"],
  /** TYPE of a MATRIX whose header has none. */
  defaultMatrixType: "F32",
  /** TYPE spellings accepted on read as aliases (never written): scikit-speech reads TYPE INT as int32. */
  typeAliases: { INT: "I32" } as Readonly<Record<string, string>>,
  /** DIM1 when absent: -1 ("till the end of file"); DIM2 when absent: 1 (a vector per row). */
  defaultDim1: -1,
  /** DIM2 when absent: 1. */
  defaultDim2: 1,
  /** Documented defaults: FSHIFT 0.01 s (spr_copy -l, falling back to FLENGTH first), SAMPLEFREQ 8000 Hz. */
  defaultFshift: 0.01,
  /** SAMPLEFREQ when absent, in Hz. */
  defaultSampleFreq: 8000,
  /** TIMEBASE when absent: F1 F2 of corpus entries are frames. */
  defaultTimebase: "DISCRETE",
  /** COMPRESS values we decode (the docs name gzip as the example; no other codec name is public). */
  compressCodecs: ["gzip"],
  /** A `\` + LF at the end of a header line is removed (C line splicing); the next line is kept verbatim. */
  continuation: "splice",
  /** Escapes in quoted values ("cf. C-strings"): \\ \" \' \? \a \b \f \n \r \t \v \ooo \xHH. */
  escapes: "C",
  /** NCHAN > 1 sample data: DIM1 = samples per channel, DIM2 = NCHAN (interleaved rows); DIM2 1 also read. */
  sampleLayout: "DIM2=NCHAN",
  /** Header text: latin1 (byte-exact); utf-8 on request. */
  encoding: "latin1",
  /** A writer aligns new values with TABs to this column (tab stops every 8), as the real files do. */
  valueColumn: 24,
} as const;
