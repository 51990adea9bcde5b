/**
 * Synthetic SPRAAK files for the tests: the documentation's example headers (format notes §8, typed in as
 * text), hand-written headers that exercise the grammar, and matrices made with our own writer.
 */
import * as spraak from "../../bindings/formats/spraak.js";
import type { SpraakFile, SpraakFormat, SpraakType } from "../../bindings/formats/spraak.js";
import type { TypedArray } from "../../bindings/tensor.js";
import { rng } from "./rng.js";
import { concat as concatBytes } from "./bytes.js";

export { concatBytes };

/** Latin-1 bytes of a string (each char one byte). */
export function bytes(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

export function text(b: Uint8Array): string {
  return String.fromCharCode(...b);
}

/** §8.1 corpus example (TAB separated). */
export const DOC_CORPUS =
  ".spr\nDATA\tCORPUS\nDIM1\t5\n#\n" +
  "1\tone\t0 -1 C\n347\tthree_four_seven 0 -1 F\ntst\tThis\t0  24 M\n-\tis\t25 39 M\n-\ta_test\t40 70 M\n";

/** §8.2 segmentation example (the elided lines left out). */
export const DOC_SEG =
  ".spr\nDATA\t\tSEG\nDIM1\t\t1773201\nDIM2\t\t7239\nSEGTYPE\t\tVITERBI\nMODEL_FILE\tmod_wsj_init/acmod.hmm\n" +
  "TIMEBASE\tDISCRETE\nFSHIFT\t\t0.01\n#\n" +
  "wsj0/si_tr_s/011/011c0201\t\t##0\t0\t1\n-\t\t##1\t1\t35\n-\t\t##2\t36\t23\n-\t\tD#0\t59\t2\n" +
  "wsj0/si_tr_s/011/011c0202\t\t##0\t0\t1\n";

/** §8.3 lexicon example, with the trailing spaces after DICTIONARY the rendered page shows. */
export const DOC_LEXICON =
  ".spr\nDATA\t\tDICTIONARY   \nTYPE\t\tSTRING\nUNIT_TYPE\tPHONEME, YAPA SET\nLANGUAGE\tDUTCH\nDIM1\t\t10\n#\n" +
  "<sil>\t\t#\n<gbg>\t\t***\n</s>\t\t###\nhij\t\t[i/I/hE+[j/]]\nmoet\t\tmut\ngoed\t\tGut\n" +
  "uitkijken\t@+[jtkE+jk@[n/]/tkE+k@]\nvoor\t\tvor\nmistbanken\tmI[st/z]bANk@[n/]\nmistbanken1\t[mIstbANk@n/mIzbANk@n/mIstbANk@]\n";

/** §8.4 CI unit list: the last entry is the silence phone "#". */
export const DOC_CI_UNITS = ".spr\nDATA\tUNIT\nDIM1\t4\nUNIT_TYPE\tCI phonemes\nLANGUAGE\tEnglish\n#\ni\nI\nd+Z\n#\n";

/** §8.5 CD units: DIM1 before DATA. */
export const DOC_CD_UNITS = ".spr\nDIM1\t2\nDATA\tUNIT\n#\n@0\t[d]-@-[sz]\t\t3\t0 118 198\n2130\t-*- 1 575\n";

/** §8.7 corpus header written by the SPRAAK-docker script ('#' as the transcription). */
export const DOCKER_CORPUS =
  ".spr\nDIM1\t2\nDATA\tCORPUS\nTYPE\tSTRING\nFORMAT\tASCII\n#\nspk1/utt1\t#\t0 -1\nspk1/utt2\t#\t0 -1\n";

/** §8.6 MVGAUSS header (no FORMAT: ASCII by default) with `rows` rows of 1 + 2 * vlen values. */
export function docMvgauss(rows: number, vlen: number, seed: number): { bytes: Uint8Array; values: Float32Array } {
  const next = rng(seed);
  const cols = 1 + 2 * vlen;
  const values = new Float32Array(rows * cols);
  let body = "";
  for (let i = 0; i < rows; i++) {
    const row: string[] = [];
    for (let j = 0; j < cols; j++) {
      // %g-like six significant digits, as the documentation prints
      const v = Number(((next() - 0.5) * 400).toPrecision(6));
      values[i * cols + j] = v;
      row.push(String(v));
    }
    body += row.join(" ") + "\n";
  }
  const header = `.spr\nDATA\t\tMVGAUSS\nTYPE\t\tF32\nLAYOUT\t\tMATRIX\nDIM1\t\t${rows}\nDIM2\t\t${cols}\nVLEN\t\t${vlen}\nNMVG\t\t${rows}\nEXTENDED\tPARAMSET\n#\n`;
  return { bytes: bytes(header + body), values };
}

/** A header exercising the grammar: quotes, escapes, continuation, blank/padding lines, indentation, CR. */
export const GRAMMAR_HEADER =
  ".spr\n" +
  "FORMAT\tBIN01\n" +
  "\n" +
  "  INDENTED   value with  inner  spaces   \n" +
  'QUOTED\t"  starts with spaces"\n' +
  'ESCAPES\t"tab\\there \\"q\\" back\\\\ nl\\n oct\\101"\n' +
  'BACKSLASH_END\t"ends with \\\\"\n' +
  "CONTINUED\tfirst part \\\n  second part\n" +
  "KEY_ONLY\n" +
  'MID_QUOTE\tsay "hi" now\n' +
  "WITH_CR\tvalue\r\n" +
  "TYPE\tI16\nLAYOUT\tMATRIX\nDIM1\t2\nDIM2\t3\n" +
  "        \n" +
  "#\n";

export const GRAMMAR_VALUES: Record<string, string> = {
  FORMAT: "BIN01",
  INDENTED: "value with  inner  spaces",
  QUOTED: "  starts with spaces",
  ESCAPES: 'tab\there "q" back\\ nl\n octA',
  BACKSLASH_END: "ends with \\",
  CONTINUED: "first part   second part",
  KEY_ONLY: "",
  MID_QUOTE: 'say "hi" now',
  WITH_CR: "value",
  TYPE: "I16",
  LAYOUT: "MATRIX",
  DIM1: "2",
  DIM2: "3",
};

/** The grammar header followed by 2 x 3 I16 little-endian values 1..6. */
export function grammarFile(): Uint8Array {
  const data = new Uint8Array(new Int16Array([1, 2, 3, -4, -5, 32767]).buffer);
  return concatBytes(bytes(GRAMMAR_HEADER), data);
}

/** A key header file: `.key` magic (optional), old key names, end line of `###`, F32 little-endian frames. */
export function keyHeaderFile(
  options: { magic: boolean; endLine?: string; endian?: "BIG" | "LITTLE" },
  frames: number,
  params: number,
  seed: number,
): { bytes: Uint8Array; values: Float32Array } {
  const values = randomValues("F32", frames * params, seed) as Float32Array;
  const header =
    (options.magic ? ".key\n" : "") +
    "DATATYPE\tTRACK\nDATAFORMAT\tFLOAT\n" +
    (options.endian ? `ENDIAN\t${options.endian}\n` : "") +
    `NFR\t${frames}\nNPARAM\t${params}\nFSHIFT\t0.01\nSAMPLEFREQ\t16000\nNCHAN\t1\nCOMMENT\tfree text kept\n` +
    `${options.endLine ?? "###"}\n`;
  const data = new Uint8Array(values.slice().buffer);
  if (options.endian === "BIG") {
    const view = new DataView(data.buffer);
    for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i]!, false);
  }
  return { bytes: concatBytes(bytes(header), data), values };
}

export const ALL_TYPES: readonly SpraakType[] = [
  "I8",
  "U8",
  "I16",
  "U16",
  "I32",
  "U32",
  "I64",
  "U64",
  "F32",
  "F64",
  "ALAW",
  "ULAW",
];
export const ALL_FORMATS: readonly SpraakFormat[] = ["BIN01", "BIN10", "ASCII"];

/** Seeded values of a type, with the type's extremes and (floats) NaN, ±0, ±Infinity and subnormals mixed in. */
export function randomValues(type: SpraakType, n: number, seed: number): TypedArray {
  const next = rng(seed);
  const specials: Partial<Record<SpraakType, (number | bigint)[]>> = {
    I8: [-128, 127, 0],
    U8: [0, 255],
    I16: [-32768, 32767],
    U16: [0, 65535],
    I32: [-2147483648, 2147483647],
    U32: [0, 4294967295],
    I64: [-(2n ** 63n), 2n ** 63n - 1n, 0n],
    U64: [0n, 2n ** 64n - 1n],
    F32: [NaN, -0, Infinity, -Infinity, 1e-45, 3.4028234663852886e38, 0.1],
    F64: [NaN, -0, Infinity, -Infinity, 5e-324, 1.7976931348623157e308, 0.1],
    ALAW: [0x55, 0xd5, 0x2a, 0xaa],
    ULAW: [0x00, 0x7f, 0x80, 0xff],
  };
  const make = (): number | bigint => {
    switch (type) {
      case "I8":
        return Math.floor(next() * 256) - 128;
      case "U8":
      case "ALAW":
      case "ULAW":
        return Math.floor(next() * 256);
      case "I16":
        return Math.floor(next() * 65536) - 32768;
      case "U16":
        return Math.floor(next() * 65536);
      case "I32":
        return Math.floor(next() * 4294967296) - 2147483648;
      case "U32":
        return Math.floor(next() * 4294967296);
      case "I64":
        return BigInt.asIntN(64, (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32)));
      case "U64":
        return BigInt.asUintN(64, (BigInt(Math.floor(next() * 2 ** 32)) << 32n) | BigInt(Math.floor(next() * 2 ** 32)));
      case "F32":
        return Math.fround((next() - 0.5) * 10 ** Math.floor(next() * 12 - 6));
      case "F64":
        return (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
    }
  };
  const ctors = {
    I8: Int8Array,
    U8: Uint8Array,
    I16: Int16Array,
    U16: Uint16Array,
    I32: Int32Array,
    U32: Uint32Array,
    I64: BigInt64Array,
    U64: BigUint64Array,
    F32: Float32Array,
    F64: Float64Array,
    ALAW: Uint8Array,
    ULAW: Uint8Array,
  } as const;
  const out = new ctors[type](n) as unknown as (number | bigint)[] & TypedArray;
  const extra = specials[type] ?? [];
  for (let i = 0; i < n; i++) out[i] = i < extra.length ? extra[i]! : make();
  return out;
}

/** Every format x type x compression combination, built with our writer: [label, file]. */
export function matrixVariants(
  rows: number,
  cols: number,
  seed: number,
): { label: string; type: SpraakType; format: SpraakFormat; values: TypedArray; file: SpraakFile }[] {
  const out: { label: string; type: SpraakType; format: SpraakFormat; values: TypedArray; file: SpraakFile }[] = [];
  let s = seed;
  for (const type of ALL_TYPES) {
    for (const format of ALL_FORMATS) {
      for (const packing of ["plain", "compress", "gzip"] as const) {
        const values = randomValues(type, rows * cols, s++);
        const file = spraak.matrix(values, {
          cols,
          type,
          format,
          data: "TRACK",
          header: { SAMPLEFREQ: "16000", FSHIFT: "0.01" },
          compress: packing === "compress" ? "gzip" : undefined,
          gzip: packing === "gzip",
        });
        out.push({ label: `${type} ${format} ${packing}`, type, format, values, file });
      }
    }
  }
  return out;
}
