/**
 * spraak data: every TYPE x FORMAT x compression our writer makes, DIM1 -1, NCHAN, G.711, header-less data,
 * gzip (whole file and COMPRESS) including gzip made by another tool, and every prefix of our own files.
 */
import { gzipSync as zlibGzip } from "node:zlib";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { FormatError } from "../../bindings/bytes/errors.js";
import * as spraak from "../../bindings/formats/spraak.js";
import type { TypedArray } from "../../bindings/tensor.js";
import { ALL_TYPES, bytes, concatBytes, matrixVariants, randomValues, text } from "../helpers/spraak-builders.js";
import { caughtFormatError, sameBytes } from "../helpers/bytes.js";

/** The bytes of a typed array, so NaN payloads, -0 and bigints compare exactly. */
function rawBytes(a: TypedArray): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
}

describe("spraak: every TYPE x FORMAT x compression", () => {
  const variants = matrixVariants(5, 3, 100);

  it("builder -> write -> read keeps every value, bit for bit (NaN, -0, extremes)", () => {
    expect(variants).toHaveLength(ALL_TYPES.length * 3 * 3);
    for (const v of variants) {
      const again = spraak.read(spraak.write(v.file));
      const [tensor] = spraak.tensors(again);
      expect(tensor!.shape, v.label).toEqual([5, 3]);
      expect(sameBytes(rawBytes(tensor!.data), rawBytes(v.values)), v.label).toBe(true);
      expect(again.meta.format, v.label).toBe(v.format);
      expect(again.meta.type, v.label).toBe(v.type);
      expect(again.header.DATA).toBe("TRACK");
      expect(again.meta.sampleFreq).toBe(16000);
    }
  });

  it("write(read(x)) is byte-identical for every variant", () => {
    for (const v of variants) {
      const written = spraak.write(v.file);
      expect(sameBytes(spraak.write(spraak.read(written)), written), v.label).toBe(true);
    }
  });

  it("BIN10 is big-endian on disk and says so in its TensorInfo", () => {
    const file = spraak.matrix(new Float32Array([1, -2]), { cols: 2, format: "BIN10" });
    const out = spraak.write(file);
    expect(Array.from(out.subarray(file.dataOffset))).toEqual([0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0]);
    expect(spraak.tensorInfos(file)[0]).toMatchObject({
      byteOrder: "be",
      byteOffset: file.dataOffset,
      byteLength: 8,
      dtype: "float32",
      shape: [1, 2],
    });
    const little = spraak.matrix(new Uint16Array([0x0102]), { format: "BIN01" });
    expect(Array.from(spraak.write(little).subarray(little.dataOffset))).toEqual([0x02, 0x01]);
  });

  it("builder binary matrices start their data at a multiple of 64 (a padding line), so tensors() is a view", () => {
    for (const cols of [1, 3, 7, 24]) {
      const file = spraak.matrix(new Float64Array(cols * 2).fill(1.5), {
        cols,
        data: "TRACK",
        header: { utterance_id: "x".repeat(cols) },
      });
      expect(file.dataOffset % 64).toBe(0);
      const input = spraak.write(file);
      const tensor = spraak.tensors(spraak.read(input))[0]!;
      expect(tensor.data.buffer).toBe(input.buffer);
      expect(Array.from(tensor.data as Float64Array)).toEqual(new Array(cols * 2).fill(1.5));
    }
    const unpadded = spraak.matrix(new Float64Array(3), { align: 0 });
    expect(unpadded.lines.every((l) => l.key !== "")).toBe(true);
  });

  it("converts between BIN01, BIN10 and ASCII keeping every value of every type", () => {
    for (const type of ALL_TYPES) {
      const values = randomValues(type, 12, 7);
      let file = spraak.matrix(values, { cols: 4, type });
      for (const format of ["BIN10", "ASCII", "BIN01", "ASCII", "BIN10", "BIN01"] as const) {
        file = spraak.convert(file, format);
        expect(file.meta.format).toBe(format);
        expect(sameBytes(rawBytes(spraak.tensors(file)[0]!.data), rawBytes(values)), `${type} ${format}`).toBe(true);
      }
    }
  });

  it("ASCII floats are the shortest text that reads back (one row a line)", () => {
    const file = spraak.matrix(new Float32Array([0.1, -0, 1e-45, 3.4028234663852886e38, NaN, -Infinity]), {
      cols: 3,
      format: "ASCII",
    });
    expect(text(spraak.write(file)).split("#\n")[1]).toBe("0.1 -0 1e-45\n3.4028235e+38 nan -inf\n");
    const f64 = spraak.matrix(new Float64Array([0.1, 5e-324]), { cols: 2, format: "ASCII" });
    expect(text(spraak.write(f64)).split("#\n")[1]).toBe("0.1 5e-324\n");
  });
});

describe("spraak: shapes, channels, G.711", () => {
  it("DIM1 -1 takes as many rows as there are and keeps a remainder", () => {
    const rows = spraak.matrix(new Int16Array([1, 2, 3, 4, 5, 6]), { cols: 2, openEnded: true });
    expect(rows.header.DIM1).toBe("-1");
    expect(spraak.tensors(rows)[0]!.shape).toEqual([3, 2]);
    const withTail = concatBytes(spraak.write(rows), new Uint8Array([9, 9, 9, 9]));
    const file = spraak.read(withTail);
    expect(spraak.tensors(file)[0]!.shape).toEqual([4, 2]);
    const cut = concatBytes(spraak.write(rows), new Uint8Array([9]));
    const partial = spraak.read(cut);
    expect(spraak.tensors(partial)[0]!.shape).toEqual([3, 2]);
    expect(spraak.verify(partial)).toContain("1 bytes after the last whole row (DIM1 -1)");
    expect(sameBytes(spraak.write(partial), cut)).toBe(true);
    const ascii = spraak.read(bytes(".spr\nFORMAT\tASCII\nTYPE\tI32\nDIM1\t-1\nDIM2\t-1\n#\n1 2 3\n4 5 6\n"));
    expect(spraak.tensors(ascii)[0]!.shape).toEqual([2, 3]);
  });

  it("NCHAN interleaved samples split into channels (DIM2 = NCHAN, or DIM2 1)", () => {
    const left = [1, 2, 3, 4];
    const right = [-1, -2, -3, -4];
    const interleaved = new Int16Array(left.flatMap((l, i) => [l, right[i]!]));
    const file = spraak.matrix(interleaved, { cols: 2, data: "SAMPLE", header: { NCHAN: "2", SAMPLEFREQ: "16000" } });
    const split = spraak.channels(file);
    expect(split.sampleFreq).toBe(16000);
    expect(split.channels.map((c) => Array.from(c as Int16Array))).toEqual([left, right]);
    const column = spraak.matrix(interleaved, { cols: 1, data: "SAMPLE", header: { NCHAN: "2" } });
    expect(spraak.channels(column).channels.map((c) => Array.from(c as Int16Array))).toEqual([left, right]);
    const odd = spraak.matrix(new Int16Array(3), { cols: 1, header: { NCHAN: "2" } });
    expect(spraak.verify(odd)).toContain("NCHAN 2 does not divide 3 samples");
    expect(caughtFormatError(() => spraak.channels(odd)).code).toBe("CORRUPT");
    const defaults = spraak.matrix(new Int16Array(2));
    expect(defaults.meta).toMatchObject({ nchan: 1, sampleFreq: 8000, fshift: 0.01, timebase: "DISCRETE" });
  });

  it("decodes G.711 to float (known code points) and tensors({ dtype: float32 }) uses it", () => {
    const codes = new Uint8Array([0xff, 0x7f, 0x00, 0x80, 0xd5, 0x55, 0xaa, 0x2a]);
    const mu = spraak.decodeG711(codes.subarray(0, 4), "ULAW");
    expect(Array.from(mu, (v) => v * 32768)).toEqual([0, 0, -32124, 32124]);
    const a = spraak.decodeG711(codes.subarray(4), "ALAW");
    expect(Array.from(a, (v) => v * 32768)).toEqual([8, -8, 32256, -32256]);
    for (const law of ["ALAW", "ULAW"] as const) {
      const all = Uint8Array.from({ length: 256 }, (_, i) => i);
      const decoded = spraak.decodeG711(all, law);
      expect(Array.from(spraak.decodeG711(spraak.encodeG711(decoded, law), law))).toEqual(Array.from(decoded));
      const file = spraak.matrix(all, { type: law, data: "SAMPLE" });
      expect(spraak.tensors(file)[0]!.dtype).toBe("uint8");
      const widened = spraak.tensors(file, { dtype: "float32" })[0]!;
      expect(widened.dtype).toBe("float32");
      expect(Array.from(widened.data as Float32Array)).toEqual(Array.from(decoded));
    }
  });
});

describe("spraak: header-less data with an external header", () => {
  const external = { FORMAT: "BIN10", TYPE: "I16", DIM2: "2", NCHAN: "2", SAMPLEFREQ: "22050", DATA: "SAMPLE" };
  const raw = new Uint8Array([0, 1, 0xff, 0xfe, 0x7f, 0xff, 0x80, 0x00]);

  it("reads raw bytes described by { header } and writes back only the data", () => {
    const file = spraak.read(raw, { header: external });
    expect(file.kind).toBe("none");
    expect(file.dataOffset).toBe(0);
    expect(file.meta).toMatchObject({ format: "BIN10", type: "I16", dim1: -1, dim2: 2, nchan: 2, sampleFreq: 22050 });
    expect(Array.from(spraak.tensors(file)[0]!.data as Int16Array)).toEqual([1, -2, 32767, -32768]);
    expect(sameBytes(spraak.write(file), raw)).toBe(true);
    expect(spraak.inspect(file).version).toBeNull();
  });

  it("external keys fill in what a file's own header lacks; the file wins", () => {
    const own = bytes(".spr\nTYPE\tU8\nDIM2\t2\n#\n");
    const file = spraak.read(concatBytes(own, new Uint8Array([1, 2, 3, 4])), {
      header: { FORMAT: "BIN01", TYPE: "F64", SAMPLEFREQ: "11025" },
    });
    expect(file.meta).toMatchObject({ format: "BIN01", type: "U8", sampleFreq: 11025 });
    expect(Array.from(spraak.tensors(file)[0]!.data as Uint8Array)).toEqual([1, 2, 3, 4]);
  });

  it("the builder writes header-less files too", () => {
    const file = spraak.matrix(new Float32Array([1.5, 2.5]), { kind: "none", format: "BIN10" });
    expect(spraak.write(file)).toHaveLength(8);
    expect(file.external).toMatchObject({ FORMAT: "BIN10", TYPE: "F32" });
  });
});

const HAVE_PYTHON = (() => {
  try {
    execFileSync("python3", ["-c", "import gzip"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe("spraak: gzip", () => {
  const base = spraak.matrix(randomValues("F32", 60, 3) as Float32Array, { cols: 6, data: "TRACK" });
  const plain = spraak.write(base);

  it("a gzip-wrapped file (made by zlib, not us) reads and writes back byte for byte, still wrapped", () => {
    const wrapped = new Uint8Array(zlibGzip(plain, { level: 9 }));
    const file = spraak.read(wrapped);
    expect(file.gzip).toBe(true);
    expect(sameBytes(spraak.write(file), wrapped)).toBe(true);
    expect(sameBytes(rawBytes(spraak.tensors(file)[0]!.data), rawBytes(spraak.tensors(base)[0]!.data))).toBe(true);
    expect(spraak.inspect(file).compression).toEqual({ file: "gzip", data: null });
    file.header.NOTE = "edited";
    const edited = spraak.write(file);
    expect([edited[0], edited[1]]).toEqual([0x1f, 0x8b]);
    expect(spraak.read(edited).header.NOTE).toBe("edited");
    expect(spraak.detect(wrapped.subarray(0, 64))).toBe(false);
  });

  it("COMPRESS gzip: the header stays text, the data part is gzip; other tools' gzip round-trips", () => {
    const header = text(plain.subarray(0, base.dataOffset)).replace("#\n", "COMPRESS\tgzip\n#\n");
    const input = concatBytes(bytes(header), new Uint8Array(zlibGzip(plain.subarray(base.dataOffset), { level: 1 })));
    const file = spraak.read(input);
    expect(file.meta.compress).toBe("gzip");
    expect(sameBytes(spraak.write(file), input)).toBe(true);
    expect(sameBytes(rawBytes(spraak.tensors(file)[0]!.data), rawBytes(spraak.tensors(base)[0]!.data))).toBe(true);
  });

  it("damaged gzip: CRC, ISIZE, header and maxInflatedBytes give clear errors", () => {
    const wrapped = new Uint8Array(zlibGzip(plain));
    const crc = wrapped.slice();
    crc[crc.length - 8]! ^= 1;
    expect(caughtFormatError(() => spraak.read(crc)).field).toBe("gzip.crc32");
    const isize = wrapped.slice();
    isize[isize.length - 4]! ^= 1;
    expect(caughtFormatError(() => spraak.read(isize)).field).toBe("gzip.isize");
    const method = wrapped.slice();
    method[2] = 7;
    expect(caughtFormatError(() => spraak.read(method)).code).toBe("UNSUPPORTED");
    expect(caughtFormatError(() => spraak.read(wrapped, { maxInflatedBytes: 100 })).code).toBe("LIMIT");
    for (let n = 0; n < wrapped.length; n++) {
      const error = caughtFormatError(() => spraak.read(wrapped.subarray(0, n)));
      if (error.code !== "TRUNCATED") throw new Error(`gzip prefix ${n}: ${error.message}`);
    }
  });

  it("multi-member gzip (RFC 1952; gzip and Python read them concatenated): every member is read and checked", () => {
    const data = plain.subarray(base.dataOffset);
    const cut = [0, 17, 100, data.length];
    const members = cut.slice(1).map((end, i) => new Uint8Array(zlibGzip(data.subarray(cut[i]!, end))));
    const header = text(plain.subarray(0, base.dataOffset)).replace("#\n", "COMPRESS\tgzip\n#\n");
    const compressed = spraak.read(concatBytes(bytes(header), ...members));
    expect(sameBytes(rawBytes(spraak.tensors(compressed)[0]!.data), rawBytes(spraak.tensors(base)[0]!.data))).toBe(
      true,
    );
    // the whole-file wrapper too
    const wrapped = spraak.read(
      concatBytes(new Uint8Array(zlibGzip(plain.subarray(0, 40))), new Uint8Array(zlibGzip(plain.subarray(40)))),
    );
    expect(sameBytes(rawBytes(spraak.tensors(wrapped)[0]!.data), rawBytes(spraak.tensors(base)[0]!.data))).toBe(true);
    // a damaged later member is named
    const damaged = concatBytes(bytes(header), ...members.map((m) => m.slice()));
    damaged[damaged.length - 8]! ^= 1;
    expect(caughtFormatError(() => spraak.read(damaged)).field).toBe("data.gzip.member2.crc32");
  });

  it.skipIf(!HAVE_PYTHON)("multi-member gzip written by Python's gzip module reads as Python reads it", () => {
    const script =
      "import gzip,sys\nparts=[bytes(range(256))*40, b'', bytes(7)*1000, b'tail']\nblob=b''.join(gzip.compress(p, mtime=0) for p in parts)\nsys.stdout.buffer.write(len(blob).to_bytes(4,'little')+blob+gzip.decompress(blob))";
    const out = new Uint8Array(execFileSync("python3", ["-c", script]));
    const length = new DataView(out.buffer, out.byteOffset).getUint32(0, true);
    const stream = out.subarray(4, 4 + length);
    const expected = out.subarray(4 + length);
    const header = bytes(".spr\nFORMAT\tBIN01\nTYPE\tU8\nCOMPRESS\tgzip\n#\n");
    const file = spraak.read(concatBytes(header, stream));
    expect(sameBytes(rawBytes(spraak.tensors(file)[0]!.data), expected)).toBe(true);
  });

  it("members that each fit but together pass maxInflatedBytes are LIMIT (not the first member alone)", () => {
    const header = bytes(".spr\nFORMAT\tBIN01\nTYPE\tU8\nCOMPRESS\tgzip\n#\n");
    const member = new Uint8Array(zlibGzip(new Uint8Array(300_000)));
    const five = concatBytes(header, member, member, member, member, member);
    expect(caughtFormatError(() => spraak.read(five, { maxInflatedBytes: 1_000_000 })).code).toBe("LIMIT");
    const file = spraak.read(five, { maxInflatedBytes: 2_000_000 });
    expect(spraak.tensors(file)[0]!.data.byteLength).toBe(1_500_000);
  });

  it("a small gzip bomb stops at the deflate ratio bound, not in memory", () => {
    const bomb = new Uint8Array(
      zlibGzip(concatBytes(bytes(".spr\nFORMAT\tBIN01\nTYPE\tU8\n#\n"), new Uint8Array(20_000_000))),
    );
    expect(caughtFormatError(() => spraak.read(bomb, { maxInflatedBytes: 1_000_000 })).code).toBe("LIMIT");
  });
});

describe("spraak: prefixes of our own files", () => {
  it("binary files with a fixed DIM1 (plain, COMPRESS, wrapped, key header): every prefix is TRUNCATED", () => {
    const files = matrixVariants(3, 2, 900).filter(
      (v) => v.format !== "ASCII" && (v.type === "F64" || v.type === "I16" || v.type === "ULAW"),
    );
    files.push({ ...files[0]!, label: "key", file: spraak.matrix(new Float32Array(6), { cols: 2, kind: "key" }) });
    for (const v of files) {
      const written = spraak.write(v.file);
      for (let n = 0; n < written.length; n++) {
        const error = caughtFormatError(() => spraak.read(written.subarray(0, n)));
        if (error.code !== "TRUNCATED") throw new Error(`${v.label} prefix ${n}: ${error.message}`);
      }
    }
  });

  it("ASCII and LIST files: a prefix is TRUNCATED, or (cut inside the last line) reads with that line cut", () => {
    const ascii = spraak.write(spraak.matrix(new Int32Array([10, 20, 30, 40]), { cols: 2, format: "ASCII" }));
    const list = spraak.write(spraak.list(["a 1", "b 2"], { data: "CORPUS" }));
    for (const [written, label] of [
      [ascii, "ascii"],
      [list, "list"],
    ] as const) {
      const end = written.length;
      const lastValue = written.lastIndexOf(0x20) + 1; // where "40" starts
      for (let n = 0; n < end; n++) {
        const prefix = written.subarray(0, n);
        let result: spraak.SpraakFile | FormatError;
        try {
          result = spraak.read(prefix);
        } catch (error) {
          result = error as FormatError;
        }
        if (label === "ascii") {
          if (n > lastValue) {
            // "…30 4": the last value is cut, the count is complete: readable, and verify() notes the missing line break
            expect(result, `prefix ${n}`).not.toBeInstanceOf(FormatError);
            expect(spraak.verify(result as spraak.SpraakFile)).toContain(
              "the ASCII data does not end with a line break",
            );
          } else {
            expect((result as FormatError).code, `prefix ${n}`).toBe("TRUNCATED");
          }
        } else if (n < written.indexOf(bytes("#\n")[0]!, 5) + 2) {
          expect((result as FormatError).code, `prefix ${n}`).toBe("TRUNCATED");
        } else {
          // a LIST stops at EOF: fewer entries than DIM1 is a warning, not an error
          expect(result, `prefix ${n}`).not.toBeInstanceOf(FormatError);
          const entries = (result as spraak.SpraakFile).data as spraak.SpraakList;
          expect(entries.entries.length).toBeLessThanOrEqual(2);
          if (entries.entries.length < 2)
            expect(spraak.verify(result as spraak.SpraakFile).some((w) => w.startsWith("DIM1 2 but"))).toBe(true);
        }
      }
    }
  });
});
