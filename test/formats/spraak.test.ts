/**
 * spraak: the two real SPRAAK-written TRACK files (shared fixtures, expected values from PROVENANCE.md), the
 * damaged copy, the documentation's example headers, header grammar, key headers and errors.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FormatError, isFormatError } from "../../bindings/bytes/errors.js";
import * as spraak from "../../bindings/formats/spraak.js";
import { FIXTURES, haveFixtures, readFixture } from "../helpers/fixtures.js";
import {
  DOCKER_CORPUS,
  DOC_CD_UNITS,
  DOC_CI_UNITS,
  DOC_CORPUS,
  DOC_LEXICON,
  DOC_SEG,
  GRAMMAR_VALUES,
  bytes,
  concatBytes,
  docMvgauss,
  grammarFile,
  keyHeaderFile,
  text,
} from "../helpers/spraak-builders.js";
import { caughtFormatError, sameBytes } from "../helpers/bytes.js";

const REAL = [
  {
    name: "si1027.trk",
    size: 30112,
    utterance: "cjf0_si1027",
    dim1: 309,
    firstBytes: [0xce, 0xeb, 0x85, 0xc1],
    at: {
      "0,0": -16.74013900756836,
      "0,1": -20.095279693603516,
      "0,23": -14.686124801635742,
      "1,0": -17.131086349487305,
      "308,0": -14.58145523071289,
      "308,23": -13.38858413696289,
    },
    row100: [-5.600135, -11.884702, -10.394124],
    min: -38.9273681640625,
    max: 39.90046310424805,
    sum: 667.151864,
  },
  {
    name: "sx313.trk",
    size: 31264,
    utterance: "aks0_si1573",
    dim1: 321,
    firstBytes: [0x57, 0x4d, 0xc9, 0xc1],
    at: {
      "0,0": -25.162763595581055,
      "0,1": -23.977466583251953,
      "0,23": -9.652379989624023,
      "1,0": -25.403602600097656,
      "320,0": -22.679073333740234,
      "320,23": -9.010835647583008,
    },
    row100: [-7.354595, -11.641079, -11.172475],
    min: -39.83516311645508,
    max: 42.801177978515625,
    sum: 349.684037,
  },
] as const;

const HEADER_KEYS = [
  "database_id",
  "database_version",
  "utterance_id",
  "NCHAN",
  "TRACKTYPE",
  "SAMPLEFREQ",
  "FORMAT",
  "DATA",
  "TYPE",
  "LAYOUT",
  "DIM1",
  "DIM2",
  "FSHIFT",
  "FLENGTH",
  "WINDOWTYPE",
  "SPECTYPE",
  "FREQSCALE",
  "FILTERSHAPE",
];

describe.skipIf(!haveFixtures())("spraak: real SPRAAK TRACK files", () => {
  for (const fx of REAL) {
    describe(fx.name, () => {
      const input = readFixture("spraak", fx.name);

      it("has the header PROVENANCE.md lists, in order, with the padding line kept", () => {
        expect(input.length).toBe(fx.size);
        const file = spraak.read(input);
        expect(file.kind).toBe("spr");
        expect(Object.keys(file.header)).toEqual(HEADER_KEYS);
        expect(file.header).toMatchObject({
          database_id: "TIMIT",
          database_version: "1.0",
          utterance_id: fx.utterance,
          NCHAN: "1",
          TRACKTYPE: "SPECTRUM",
          SAMPLEFREQ: "16000",
          FORMAT: "BIN01",
          DATA: "TRACK",
          TYPE: "F32",
          LAYOUT: "MATRIX",
          DIM1: String(fx.dim1),
          DIM2: "24",
          FSHIFT: "0.01",
          FLENGTH: "0.025",
          WINDOWTYPE: "HAMMING",
          SPECTYPE: "LOGPOW",
          FREQSCALE: "MELDM",
          FILTERSHAPE: "TRI",
        });
        const padding = file.lines.filter((l) => l.key === "");
        expect(padding).toHaveLength(1);
        expect(padding[0]!.raw).toBe(" ".repeat(149));
        expect(file.lines.find((l) => l.key === "NCHAN")!.raw).toBe("NCHAN\t\t\t1");
        expect(file.dataOffset).toBe(448);
        expect(file.meta).toMatchObject({
          format: "BIN01",
          layout: "MATRIX",
          type: "F32",
          data: "TRACK",
          dim1: fx.dim1,
          dim2: 24,
          nchan: 1,
          sampleFreq: 16000,
          fshift: 0.01,
          flength: 0.025,
          timebase: "DISCRETE",
          compress: null,
        });
        expect(file.meta.defaults).toContain("TIMEBASE");
        expect(file.meta.defaults).not.toContain("FORMAT");
      });

      it("gives the data as `data` [DIM1, 24] float32 with the listed values", () => {
        const file = spraak.read(input);
        expect(Array.from(input.subarray(448, 452))).toEqual(fx.firstBytes);
        const [tensor] = spraak.tensors(file);
        expect(tensor!.name).toBe("data");
        expect(tensor!.dtype).toBe("float32");
        expect(tensor!.shape).toEqual([fx.dim1, 24]);
        const data = tensor!.data as Float32Array;
        for (const [ij, value] of Object.entries(fx.at)) {
          const [i, j] = ij.split(",").map(Number) as [number, number];
          expect(data[i * 24 + j]).toBe(value);
        }
        fx.row100.forEach((v, j) => expect(data[100 * 24 + j]).toBeCloseTo(v, 5));
        let min = Infinity,
          max = -Infinity,
          sum = 0;
        for (const v of data) {
          min = Math.min(min, v);
          max = Math.max(max, v);
          sum += v;
        }
        expect(min).toBe(fx.min);
        expect(max).toBe(fx.max);
        expect(sum).toBeCloseTo(fx.sum, 4);
      });

      it("writes back byte for byte", () => {
        expect(sameBytes(spraak.write(spraak.read(input)), input)).toBe(true);
      });

      it("gives TRUNCATED for every prefix", () => {
        for (let n = 0; n < input.length; n++) {
          const error = caughtFormatError(() => spraak.read(input.subarray(0, n)));
          if (error.code !== "TRUNCATED") throw new Error(`prefix ${n}: ${error.message}`);
        }
      });

      it("keeps every value through BIN10 and ASCII and back", () => {
        const file = spraak.read(input);
        const original = spraak.tensors(file)[0]!.data as Float32Array;
        const big = spraak.convert(file, "BIN10");
        const bigBytes = spraak.write(big);
        const view = new DataView(bigBytes.buffer, bigBytes.byteOffset);
        expect(view.getFloat32(big.dataOffset, false)).toBe(original[0]);
        expect(spraak.tensorInfos(big)[0]!.byteOrder).toBe("be");
        const ascii = spraak.convert(big, "ASCII");
        expect(ascii.data.layout === "MATRIX" && ascii.data.encoding).toBe("ascii");
        const back = spraak.convert(ascii, "BIN01");
        expect(sameBytes(spraak.write(back), input)).toBe(true);
        for (const f of [big, ascii])
          expect(Array.from(spraak.tensors(f)[0]!.data as Float32Array)).toEqual(Array.from(original));
      });
    });
  }

  it("sx313.trk keeps its 0D 0A pair (no CRLF translation)", () => {
    const input = readFixture("spraak", "sx313.trk");
    expect([input[5941], input[5942]]).toEqual([0x0d, 0x0a]);
    const data = spraak.tensors(spraak.read(input))[0]!.data as Float32Array;
    const index = Math.floor((5941 - 448) / 4);
    expect(data[index]).toBe(new DataView(input.buffer, input.byteOffset).getFloat32(448 + index * 4, true));
  });

  it("the CRLF-damaged copy is TRUNCATED: one byte short of DIM1 x DIM2 x 4", () => {
    const error = caughtFormatError(() => spraak.read(readFixture("spraak", "sx313.crlf-damaged.trk")));
    expect(error.code).toBe("TRUNCATED");
    expect(error.offset).toBe(448);
    expect(error.field).toBe("data");
    expect(error.message).toContain("1 byte short");
    expect(error.message).toContain("30816");
    expect(error.message).toContain("30815 available");
  });

  it("detect() is true for its own fixtures and false for every other format's", () => {
    const others: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else others.push(path);
      }
    };
    for (const folder of readdirSync(FIXTURES)) if (folder !== "spraak") walk(join(FIXTURES, folder));
    expect(others.length).toBeGreaterThan(0);
    for (const path of others) {
      const head = readFixture(path.slice(FIXTURES.length + 1)).subarray(0, 64);
      if (spraak.detect(head)) throw new Error(`detect() claimed ${path}`);
    }
    for (const name of ["si1027.trk", "sx313.trk", "sx313.crlf-damaged.trk"]) {
      expect(spraak.detect(readFixture("spraak", name).subarray(0, 64))).toBe(true);
    }
  });
});

describe("spraak: header grammar", () => {
  it("reads keys, trimmed values, quotes, escapes, continuations, key-only and CR lines", () => {
    const file = spraak.read(grammarFile());
    expect(file.header).toEqual(GRAMMAR_VALUES);
    expect(Object.keys(file.header)).toEqual(Object.keys(GRAMMAR_VALUES));
    expect(file.lines.filter((l) => l.key === "").map((l) => l.raw)).toEqual(["", "        "]);
    expect(Array.from(spraak.tensors(file)[0]!.data as Int16Array)).toEqual([1, 2, 3, -4, -5, 32767]);
  });

  it("writes an unchanged header back byte for byte", () => {
    const input = grammarFile();
    expect(sameBytes(spraak.write(spraak.read(input)), input)).toBe(true);
  });

  it("re-renders edited values in their line's style, quoting only where SPRAAK requires it", () => {
    const file = spraak.read(grammarFile());
    file.header.INDENTED = "plain";
    file.header.MID_QUOTE = " leading space";
    file.header.QUOTED = "no longer needs quotes";
    file.header.CONTINUED = "ends in backslash\\";
    file.header.ADDED = "new value";
    file.header.EMPTY_NEW = "";
    delete file.header.KEY_ONLY;
    const out = text(spraak.write(file));
    expect(out).toContain("\n  INDENTED   plain\n");
    expect(out).toContain('\nMID_QUOTE\t" leading space"\n');
    expect(out).toContain("\nQUOTED\tno longer needs quotes\n");
    expect(out).toContain('\nCONTINUED\t"ends in backslash\\\\"\n');
    expect(out).not.toContain("KEY_ONLY");
    // new keys: after the last key line, before the padding line; the file's own separator (one TAB)
    expect(out).toContain('\nDIM2\t3\nADDED\tnew value\nEMPTY_NEW\t""\n        \n#\n');
    const again = spraak.read(bytes(out));
    const expected = {
      ...GRAMMAR_VALUES,
      INDENTED: "plain",
      MID_QUOTE: " leading space",
      QUOTED: "no longer needs quotes",
      CONTINUED: "ends in backslash\\",
      ADDED: "new value",
      EMPTY_NEW: "",
    };
    delete (expected as Record<string, string>).KEY_ONLY;
    expect(again.header).toEqual(expected);
  });

  it("aligns new keys with TABs to column 24 in SPRAAK-style headers", () => {
    const file = spraak.matrix(new Float32Array([1, 2]), { cols: 2, header: { utterance_id: "x" } });
    const out = text(spraak.write(file));
    expect(out).toContain("utterance_id\t\tx\n");
    expect(out).toContain("FORMAT\t\t\tBIN01\n");
    expect(out).toContain("DIM1\t\t\t1\n");
    file.header.A_VERY_LONG_KEY_NAME_OVER_24 = "v";
    file.header.database_version = "1.0";
    const edited = text(spraak.write(file));
    expect(edited).toContain("A_VERY_LONG_KEY_NAME_OVER_24\tv\n");
    expect(edited).toContain("database_version\t1.0\n");
  });

  it("quoted values with control characters and latin1 bytes survive a round trip", () => {
    const file = spraak.matrix(new Int8Array([1]), { header: { WEIRD: 'a\x01b\x7f"c" \u00e9\\', TABBED: "x\ty" } });
    const again = spraak.read(spraak.write(file));
    expect(again.header.WEIRD).toBe('a\x01b\x7f"c" \u00e9\\');
    expect(again.header.TABBED).toBe("x\ty");
    expect(sameBytes(spraak.write(again), spraak.write(file))).toBe(true);
  });

  it("the last of duplicate keys wins; both lines are kept", () => {
    const input = concatBytes(
      bytes(".spr\nFORMAT\tBIN01\nTYPE\tU8\nDIM2\t1\nDIM1\t9\nDIM1\t2\n#\n"),
      new Uint8Array([7, 8]),
    );
    const file = spraak.read(input);
    expect(file.meta.dim1).toBe(2);
    expect(file.lines.filter((l) => l.key === "DIM1")).toHaveLength(2);
    expect(spraak.verify(file).some((w) => w.includes("DIM1 appears more than once"))).toBe(true);
    expect(sameBytes(spraak.write(file), input)).toBe(true);
  });

  it("refuses keys and values it cannot write", () => {
    const file = spraak.matrix(new Uint8Array([1]));
    file.header["BAD KEY"] = "x";
    expect(() => spraak.write(file)).toThrow(FormatError);
    delete file.header["BAD KEY"];
    file.header.WIDE = "\u4e2d";
    expect(() => spraak.write(file)).toThrow(/latin1/);
    const utf = spraak.matrix(new Uint8Array([1]), { header: { WIDE: "\u4e2d\u6587" }, encoding: "utf-8" });
    expect(spraak.read(spraak.write(utf), { encoding: "utf-8" }).header.WIDE).toBe("\u4e2d\u6587");
  });
});

describe("spraak: the documentation's example files", () => {
  it("corpus: DATA CORPUS, 5 entries, '-' = the previous file, both time helpers", () => {
    const file = spraak.read(bytes(DOC_CORPUS));
    expect(file.header).toEqual({ DATA: "CORPUS", DIM1: "5" });
    expect(file.meta).toMatchObject({ layout: "LIST", type: "STRING", format: "ASCII", dim1: 5 });
    expect(file.data.layout === "LIST" && file.data.entries).toHaveLength(5);
    const entries = spraak.corpusEntries(file);
    expect(entries[3]).toEqual({
      file: "-",
      resolvedFile: "tst",
      transcription: "is",
      f1: "25",
      f2: "39",
      extra: ["M"],
    });
    expect(entries[0]!.f2).toBe("-1");
    expect(spraak.asStartLength(entries[3]!, 0.01)).toEqual({
      startFrame: 25,
      frames: 39,
      begin: 0.25,
      end: 25 * 0.01 + 39 * 0.01,
    });
    expect(spraak.asBeginEnd(entries[3]!)).toEqual({ begin: 25, end: 39 });
    expect(spraak.asStartLength(entries[0]!).end).toBeNull();
    expect(spraak.entryTimes(file, entries[2]!)).toEqual({ begin: 0, end: 0.24 });
    expect(spraak.tensors(file)).toEqual([]);
    expect(spraak.inspect(file).entries).toEqual(file.data.layout === "LIST" ? file.data.entries : null);
    expect(sameBytes(spraak.write(file), bytes(DOC_CORPUS))).toBe(true);
  });

  it("segmentation: '#' inside labels is data; DIM1 counts lines (warned when elided)", () => {
    const file = spraak.read(bytes(DOC_SEG));
    expect(file.meta).toMatchObject({
      layout: "LIST",
      data: "SEG",
      dim1: 1773201,
      dim2: 7239,
      timebase: "DISCRETE",
      fshift: 0.01,
    });
    const entries = spraak.corpusEntries(file);
    expect(entries.map((e) => e.transcription)).toEqual(["##0", "##1", "##2", "D#0", "##0"]);
    expect(entries[2]!.resolvedFile).toBe("wsj0/si_tr_s/011/011c0201");
    expect(entries[4]!.resolvedFile).toBe("wsj0/si_tr_s/011/011c0202");
    // start + length: 1 + 35 = 36
    expect(spraak.asStartLength(entries[1]!).startFrame + (spraak.asStartLength(entries[1]!).frames ?? 0)).toBe(36);
    expect(spraak.verify(file)).toContain("DIM1 1773201 but the list has 5 entries");
    expect(sameBytes(spraak.write(file), bytes(DOC_SEG))).toBe(true);
  });

  it("lexicon: trailing spaces stripped, inner spaces kept, '#' and '###' are entries", () => {
    const file = spraak.read(bytes(DOC_LEXICON));
    expect(file.header.DATA).toBe("DICTIONARY");
    expect(file.header.UNIT_TYPE).toBe("PHONEME, YAPA SET");
    expect(file.data.layout === "LIST" && file.data.entries.length).toBe(10);
    expect(spraak.listFields((file.data as spraak.SpraakList).entries[0]!)).toEqual(["<sil>", "#"]);
    expect(spraak.listFields((file.data as spraak.SpraakList).entries[2]!)).toEqual(["</s>", "###"]);
    expect(spraak.verify(file)).toEqual([
      "no FORMAT key: assumed ASCII (provisional default)",
      "no LAYOUT key: assumed LIST (provisional default)",
    ]);
    expect(sameBytes(spraak.write(file), bytes(DOC_LEXICON))).toBe(true);
  });

  it("unit lists: the last CI unit is '#'; CD units with DIM1 before DATA", () => {
    const ci = spraak.read(bytes(DOC_CI_UNITS));
    expect(ci.data.layout === "LIST" && ci.data.entries).toEqual(["i", "I", "d+Z", "#"]);
    const cd = spraak.read(bytes(DOC_CD_UNITS));
    expect(Object.keys(cd.header)).toEqual(["DIM1", "DATA"]);
    expect(spraak.listFields((cd.data as spraak.SpraakList).entries[0]!)).toEqual([
      "@0",
      "[d]-@-[sz]",
      "3",
      "0",
      "118",
      "198",
    ]);
    const docker = spraak.read(bytes(DOCKER_CORPUS));
    expect(spraak.corpusEntries(docker).map((e) => e.transcription)).toEqual(["#", "#"]);
    for (const t of [DOC_CI_UNITS, DOC_CD_UNITS, DOCKER_CORPUS])
      expect(sameBytes(spraak.write(spraak.read(bytes(t))), bytes(t))).toBe(true);
  });

  it("MVGAUSS: no FORMAT key means ASCII; rows of COUNT + means + sigmas", () => {
    const { bytes: input, values } = docMvgauss(5, 3, 11);
    const file = spraak.read(input);
    expect(file.meta).toMatchObject({ format: "ASCII", layout: "MATRIX", type: "F32", dim1: 5, dim2: 7 });
    expect(file.meta.defaults).toContain("FORMAT");
    expect(Array.from(spraak.tensors(file)[0]!.data as Float32Array)).toEqual(Array.from(values));
    expect(spraak.verify(file)).toContain("no FORMAT key: assumed ASCII (provisional default)");
    expect(sameBytes(spraak.write(file), input)).toBe(true);
    // an edited value is re-formatted: shortest float32 text
    (file.data as spraak.SpraakAsciiMatrix).values[0] = 0.1;
    const edited = spraak.read(spraak.write(file));
    expect((spraak.tensors(edited)[0]!.data as Float32Array)[0]).toBe(Math.fround(0.1));
    expect(text(spraak.write(edited)).split("#\n")[1]!.startsWith("0.1 ")).toBe(true);
  });
});

describe("spraak: key headers", () => {
  it("maps old keys (DATATYPE -> DATA, …), keeps the originals, round-trips byte for byte", () => {
    const { bytes: input, values } = keyHeaderFile({ magic: true }, 4, 3, 5);
    const file = spraak.read(input);
    expect(file.kind).toBe("key");
    expect(file.endLine).toBe("###");
    expect(Object.keys(file.header)).toEqual([
      "DATATYPE",
      "DATAFORMAT",
      "NFR",
      "NPARAM",
      "FSHIFT",
      "SAMPLEFREQ",
      "NCHAN",
      "COMMENT",
    ]);
    expect(file.keys.DATA).toBe("TRACK");
    expect(file.keys.COMMENT).toBe("free text kept");
    expect(file.meta).toMatchObject({ data: "TRACK", nchan: 1, sampleFreq: 16000, fshift: 0.01 });
    // the provisional rows: DATAFORMAT FLOAT -> F32, NFR -> DIM1, NPARAM -> DIM2, little-endian by default
    expect(spraak.tensors(file)[0]!.shape).toEqual([4, 3]);
    expect(Array.from(spraak.tensors(file)[0]!.data as Float32Array)).toEqual(Array.from(values));
    expect(spraak.verify(file).some((w) => w.includes("NFR -> DIM1"))).toBe(true);
    expect(sameBytes(spraak.write(file), input)).toBe(true);
    expect(spraak.detect(input.subarray(0, 64))).toBe(true);
  });

  it("without magic: detect() says false, read() needs headerFormat 'key'; '#' end line; ENDIAN BIG", () => {
    const { bytes: input, values } = keyHeaderFile({ magic: false, endLine: "#", endian: "BIG" }, 3, 2, 6);
    expect(spraak.detect(input.subarray(0, 64))).toBe(false);
    expect(caughtFormatError(() => spraak.read(input)).code).toBe("BAD_MAGIC");
    const file = spraak.read(input, { headerFormat: "key" });
    expect(file.magicLine).toBeNull();
    expect(file.meta.format).toBe("BIN10");
    expect(Array.from(spraak.tensors(file)[0]!.data as Float32Array)).toEqual(Array.from(values));
    expect(sameBytes(spraak.write(file), input)).toBe(true);
  });

  it("a builder file with kind 'key' writes old key names and reads back", () => {
    const values = new Int16Array([1, -2, 3, -4, 5, -6]);
    const file = spraak.matrix(values, {
      cols: 3,
      kind: "key",
      data: "SAMPLE",
      header: { NCHAN: "3", SAMPLEFREQ: "8000" },
    });
    const out = text(spraak.write(file));
    expect(out.startsWith(".key\n")).toBe(true);
    expect(out).toContain("DATAFORMAT\tSHORT");
    expect(out).toContain("NFR\t2");
    expect(out).toContain("NPARAM\t3");
    expect(out).toContain("DATATYPE\tSAMPLE");
    expect(Array.from(spraak.tensors(file)[0]!.data as Int16Array)).toEqual(Array.from(values));
    const lists = spraak.list(["a b", "c d"], { kind: "key", data: "DICTIONARY" });
    expect(text(spraak.write(lists))).toContain("NENTRY\t2");
    expect(lists.data.layout === "LIST" && lists.data.entries).toEqual(["a b", "c d"]);
  });
});

describe("spraak: errors", () => {
  const header = (lines: string): Uint8Array => bytes(`.spr\n${lines}#\n`);

  it("a header without its end line is TRUNCATED; '#\\r' says CRLF", () => {
    expect(caughtFormatError(() => spraak.read(bytes(".spr\nFORMAT\tBIN01\n"))).code).toBe("TRUNCATED");
    expect(caughtFormatError(() => spraak.read(bytes(".spr\nFORMAT\tBIN01\n#"))).code).toBe("TRUNCATED");
    expect(caughtFormatError(() => spraak.read(bytes(".spr\nFORMAT\tBIN01\\\n#\n"))).code).toBe("TRUNCATED"); // "#" continues a line
    const crlf = caughtFormatError(() => spraak.read(bytes(".spr\r\nFORMAT\tBIN01\r\n#\r\n")));
    expect(crlf.code).toBe("CORRUPT");
    expect(crlf.message).toContain("CRLF");
    expect(crlf.offset).toBe(20);
  });

  it("unknown FORMAT / TYPE / LAYOUT / COMPRESS are UNSUPPORTED and name the line", () => {
    const cases: [string, string, number][] = [
      ["FORMAT\tBIN11\n", "header.FORMAT", 5],
      ["FORMAT\tBIN01\nTYPE\tF16\n", "header.TYPE", 18],
      ["FORMAT\tBIN01\nLAYOUT\tCUBE\n", "header.LAYOUT", 18],
      ["FORMAT\tBIN01\nCOMPRESS\tbzip2\n", "header.COMPRESS", 18],
    ];
    for (const [lines, field, offset] of cases) {
      const error = caughtFormatError(() => spraak.read(header(lines)));
      expect(error.code).toBe("UNSUPPORTED");
      expect(error.field).toBe(field);
      expect(error.offset).toBe(offset);
    }
  });

  it("bad counts, bad quoting and bad keys are CORRUPT; extra data bytes too", () => {
    expect(caughtFormatError(() => spraak.read(header("DIM1\t1.5\n"))).field).toBe("header.DIM1");
    expect(caughtFormatError(() => spraak.read(header("DIM1\t-2\n"))).code).toBe("CORRUPT");
    expect(caughtFormatError(() => spraak.read(header('NAME\t"open\n'))).code).toBe("CORRUPT");
    expect(caughtFormatError(() => spraak.read(header('NAME\t"a" b\n'))).code).toBe("CORRUPT");
    expect(caughtFormatError(() => spraak.read(header('NAME\t"bad \\q escape"\n'))).code).toBe("CORRUPT");
    expect(caughtFormatError(() => spraak.read(header("K\u00e9Y\tv\n"))).code).toBe("CORRUPT");
    const extra = caughtFormatError(() =>
      spraak.read(concatBytes(header("FORMAT\tBIN01\nTYPE\tU8\nDIM1\t2\nDIM2\t1\n"), new Uint8Array(3))),
    );
    expect(extra.code).toBe("CORRUPT");
    expect(extra.message).toContain("1 bytes after the data");
    const huge = caughtFormatError(() =>
      spraak.read(header("FORMAT\tBIN01\nTYPE\tF64\nDIM1\t99999999999999\nDIM2\t99999999\n")),
    );
    expect(huge.code).toBe("TRUNCATED");
    expect(caughtFormatError(() => spraak.read(header("FORMAT\tBIN01\nDIM1\t99999999999999999999\n"))).code).toBe(
      "CORRUPT",
    );
  });

  it("ASCII data: too few values TRUNCATED, too many / not numbers / out of range CORRUPT", () => {
    const ascii = (type: string, body: string): Uint8Array =>
      bytes(`.spr\nFORMAT\tASCII\nTYPE\t${type}\nDIM1\t2\nDIM2\t2\n#\n${body}`);
    expect(caughtFormatError(() => spraak.read(ascii("F32", "1 2\n3\n"))).code).toBe("TRUNCATED");
    const tooMany = caughtFormatError(() => spraak.read(ascii("F32", "1 2\n3 4\n5\n")));
    expect(tooMany.code).toBe("CORRUPT");
    expect(tooMany.offset).toBe(ascii("F32", "").length + 8);
    const notNumber = caughtFormatError(() => spraak.read(ascii("F32", "1 2\n3 x4\n")));
    expect([notNumber.code, notNumber.field]).toEqual(["CORRUPT", "data[3]"]);
    expect(caughtFormatError(() => spraak.read(ascii("U8", "1 2\n3 256\n"))).code).toBe("CORRUPT");
    expect(caughtFormatError(() => spraak.read(ascii("I16", "1 2\n3 4.5\n"))).code).toBe("CORRUPT");
    const ok = spraak.read(ascii("F64", "nan -inf\n1e308 -0\n"));
    const data = spraak.tensors(ok)[0]!.data as Float64Array;
    expect([Number.isNaN(data[0]), data[1], data[2], Object.is(data[3], -0)]).toEqual([true, -Infinity, 1e308, true]);
  });

  it("BAD_MAGIC for other bytes; TRUNCATED for a prefix of the magic; only FormatErrors", () => {
    expect(caughtFormatError(() => spraak.read(bytes("RIFF....WAVE"))).code).toBe("BAD_MAGIC");
    expect(caughtFormatError(() => spraak.read(bytes(".sp"))).code).toBe("TRUNCATED");
    expect(caughtFormatError(() => spraak.read(new Uint8Array(0))).code).toBe("TRUNCATED");
    expect(
      isFormatError(caughtFormatError(() => spraak.read(bytes(".spr\nDIM1\t-1\nDIM2\t-1\nFORMAT\tBIN01\n#\n")))),
    ).toBe(true);
  });
});
