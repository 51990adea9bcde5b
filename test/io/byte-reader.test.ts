import { describe, expect, it } from "vitest";
import {
  BadMagicError,
  FormatError,
  LimitError,
  TruncatedError,
  UnsupportedVersionError,
} from "../../bindings/bytes/errors.js";
import { ByteReader, NeedBytes } from "../../bindings/bytes/byte-reader.js";
import { ByteWriter } from "../../bindings/bytes/byte-writer.js";
import { ChunkCache } from "../../bindings/io/lazy.js";
import { fromBytes } from "../../bindings/io/source.js";

function sample(): Uint8Array {
  const w = new ByteWriter(8);
  w.u8(0xfe)
    .i8(-2)
    .u16(0xbeef)
    .i16(-1234)
    .u32(0xdeadbeef)
    .i32(-5)
    .u64(2n ** 63n + 5n)
    .i64(-7n)
    .f32(1.5)
    .f64(-2.25);
  w.bytes(new TextEncoder().encode("héllo"));
  return w.finish().slice();
}

describe("ByteReader and ByteWriter", () => {
  it("read back every type written, little and big endian", () => {
    for (const littleEndian of [true, false]) {
      const w = new ByteWriter(4, littleEndian);
      w.u8(0xfe)
        .i8(-2)
        .u16(0xbeef)
        .i16(-1234)
        .u32(0xdeadbeef)
        .i32(-5)
        .u64(2n ** 63n + 5n)
        .i64(-7n)
        .f32(1.5)
        .f64(-2.25);
      const n = w.utf8("héllo");
      const bytes = w.finish();
      const r = new ByteReader(bytes, "test", { littleEndian });
      expect([r.u8(), r.i8(), r.u16(), r.i16(), r.u32(), r.i32()]).toEqual([0xfe, -2, 0xbeef, -1234, 0xdeadbeef, -5]);
      expect([r.u64(), r.i64(), r.f32(), r.f64()]).toEqual([2n ** 63n + 5n, -7n, 1.5, -2.25]);
      expect(r.utf8(n)).toBe("héllo");
      expect(r.remaining).toBe(0);
    }
  });

  it("reports truncation with offset, sizes and field", () => {
    const bytes = sample();
    const r = new ByteReader(bytes.subarray(0, 7), "tsm");
    r.u8("a");
    r.i8("b");
    r.u16("c");
    try {
      r.u32("node[3].inputs.count");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TruncatedError);
      const t = e as TruncatedError;
      expect([t.code, t.offset, t.field, t.needed, t.available]).toEqual([
        "TRUNCATED",
        4,
        "node[3].inputs.count",
        4,
        3,
      ]);
      expect(t.message).toBe("tsm: truncated: need 4 bytes, 3 available at offset 4 (0x4) [node[3].inputs.count]");
    }
  });

  it("checks declared counts before allocating: 2^62 elements is TRUNCATED at once", () => {
    const r = new ByteReader(new Uint8Array(100), "bw2l");
    expect(() => r.count(2n ** 62n, 4, "array.len")).toThrow(TruncatedError);
    expect(r.count(25, 4, "ok")).toBe(25);
    expect(() => r.count(26, 4, "x")).toThrow(/need 104 bytes, 100 available/);
  });

  it("u64n refuses values above 2^53 - 1 with LIMIT", () => {
    const w = new ByteWriter();
    w.u64(2n ** 53n);
    const error = (() => {
      try {
        new ByteReader(w.finish(), "april").u64n("header_size");
      } catch (e) {
        return e as LimitError;
      }
    })();
    expect(error).toBeInstanceOf(LimitError);
    expect(error!.code).toBe("LIMIT");
    expect(error!.field).toBe("header_size");
  });

  it("magic and version errors carry what was expected and found", () => {
    const r = new ByteReader(new TextEncoder().encode("APRILMDX\x02\0\0\0"), "april");
    expect(() => r.magic("APRILMDL")).toThrow(BadMagicError);
    expect(() => r.magic("APRILMDL")).toThrow(
      'april: bad magic: expected "APRILMDL", got "APRILMDX" at offset 0 (0x0) [magic]',
    );
    r.skip(8);
    const at = r.pos;
    expect(() => r.version(r.u32("version"), [1], at)).toThrow(UnsupportedVersionError);
    expect(() => new ByteReader(new Uint8Array(2), "x").magic("ABCD")).toThrow(BadMagicError);
  });

  it("sub readers are bounded and absolute", () => {
    const bytes = sample();
    const r = new ByteReader(bytes, "t");
    r.skip(2);
    const s = r.sub(4, "section");
    expect(r.pos).toBe(6);
    expect(s.pos).toBe(2);
    expect(s.u16()).toBe(0xbeef);
    s.i16();
    expect(() => s.u8("past")).toThrow(TruncatedError);
    expect(() => r.sub(1000, "big")).toThrow(FormatError);
  });

  it("range() skips payloads without reading them; a partial backing asks for missing bytes", async () => {
    const bytes = sample();
    const cache = new ChunkCache(fromBytes(bytes), bytes.length, "t");
    const r = new ByteReader(cache, "t");
    expect(() => r.u8()).toThrow(NeedBytes);
    await cache.load(0, 2);
    const r2 = new ByteReader(cache, "t");
    expect(r2.range(30, "payload")).toEqual({ byteOffset: 0, byteLength: 30 });
    expect(() => r2.range(1000)).toThrow(TruncatedError);
  });
});

describe("ByteReader edge cases", () => {
  it("a file cut inside a correct magic is TRUNCATED, a wrong one BAD_MAGIC", () => {
    expect(() => new ByteReader(new TextEncoder().encode("BW2"), "bw2l").magic("BW2L")).toThrow(TruncatedError);
    expect(() => new ByteReader(new TextEncoder().encode("BX2"), "bw2l").magic("BW2L")).toThrow(BadMagicError);
    expect(() => new ByteReader(new Uint8Array(0), "bw2l").magic("BW2L")).toThrow(TruncatedError);
  });

  it("UTF-8 text keeps a leading byte-order mark", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x41]);
    expect(new ByteReader(bytes, "t").utf8(4)).toBe("\ufeffA");
    expect(new ByteReader(bytes, "t").utf8Strict(4)).toBe("\ufeffA");
    expect(() => new ByteReader(new Uint8Array([0xff]), "t").utf8Strict(1)).toThrow(FormatError);
  });
});

describe("latin1", () => {
  it("maps every byte to the code point of the same value", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const text = new ByteReader(all, "t").latin1(256);
    expect(Array.from(text, (c) => c.charCodeAt(0))).toEqual(Array.from(all));
  });
});
