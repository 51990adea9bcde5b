import { deflateSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { detectFormat, readAny, readFromAny } from "../../bindings/any.js";
import { isFormatError } from "../../bindings/bytes/errors.js";
import { writeNpy } from "../../bindings/export/npy.js";
import { npyDescr } from "../../bindings/export/npy.js";
import * as npy from "../../bindings/formats/npy.js";
import * as npz from "../../bindings/formats/npz.js";
import { fromBytes } from "../../bindings/io/source.js";
import { type NamedTensor, isNarrowFloat, isStandardDType } from "../../bindings/tensor.js";
import { expectFormatError } from "../helpers/bytes.js";
import {
  bytesOf,
  crc32Bitwise,
  expectSameTensors,
  f32Bytes,
  i32Bytes,
  inputForms,
  npyFile,
  tensorSets,
  zipFile,
} from "../helpers/input-formats.js";
import { choppySource, countingSource } from "../helpers/sources.js";

/** What a tensor reads back as from an .npy member (types numpy has no name for: raw void bytes). */
function asReadBack(t: NamedTensor, name = t.name): NamedTensor {
  const dtype = npy.descrInfo(npyDescr(t.dtype))!.dtype;
  return { name, dtype, shape: t.shape, data: dtype === t.dtype ? t.data : bytesOf(t.data) } as NamedTensor;
}

const deflate = (b: Uint8Array) => deflateSync(b, { level: 6 });

async function expectLazyEqualsEager(bytes: Uint8Array, label: string): Promise<void> {
  const file = npz.read(bytes);
  const eager = npz.tensors(file);
  const lazy = await npz.readFrom(choppySource(bytes, 11));
  expect(npz.tensorInfos(lazy), label).toEqual(npz.tensorInfos(file));
  expect(npz.inspect(lazy), label).toEqual(npz.inspect(file));
  const loaded: NamedTensor[] = [];
  for (const info of npz.tensorInfos(lazy)) loaded.push(await npz.loadTensor(fromBytes(bytes), info));
  expectSameTensors(loaded, eager, `${label} (lazy)`);
}

describe("npz: round trips of every fixture's tensors, stored and deflated (fflate's zipSync)", () => {
  const sets = tensorSets();
  it.each(sets.map((s) => [s.label, s] as const))("%s", async (_label, set) => {
    const members = Object.fromEntries(set.tensors.map((t, i) => [`m${i}/${t.name}.npy`, writeNpy(t)]));
    const want = set.tensors.map((t, i) => asReadBack(t, `m${i}/${t.name}`));
    for (const level of [0, 6] as const) {
      const bytes = zipSync(members, { level });
      expect(detectFormat(bytes.subarray(0, 64))).toBe("npz");
      const file = npz.read(bytes);
      expectSameTensors(npz.tensors(file), want, `${set.label} level ${level}`);
      expect(file.members.every((m) => m.method === (level === 0 ? "stored" : "deflated"))).toBe(true);
      expect(npz.verify(file)).toEqual([]);
      expect(Buffer.from(npz.write(file)).equals(Buffer.from(bytes))).toBe(true);
      await expectLazyEqualsEager(bytes, `${set.label} level ${level}`);
      // dtype float32: every real-valued tensor as float32, the rest as stored
      const wide = readAny(bytes).tensors({ dtype: "float32" });
      expect(wide.map((t) => t.dtype)).toEqual(
        want.map((t) => (isStandardDType(t.dtype) || isNarrowFloat(t.dtype) ? "float32" : t.dtype)),
      );
    }
  });
});

describe("npz: archives written by hand", () => {
  const a = npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", f32Bytes([1, 2, 3, 4]));
  const b = npyFile(
    "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }",
    i32Bytes([0, 10, 1, 11, 2, 12], true),
  );

  it("stored and deflated members, big-endian Fortran data, zip64 extras and end record (as numpy's savez writes), a comment", async () => {
    for (const zip64 of [false, true]) {
      const bytes = zipFile(
        [
          { name: "a.npy", content: a, zip64 },
          { name: "sub/b.npy", content: b, method: 8, zip64 },
        ],
        { zip64End: zip64, comment: "made by hand", deflate },
      );
      const file = npz.read(bytes);
      expect(file.zip64).toBe(zip64);
      expect(file.comment).toBe("made by hand");
      const [ta, tb] = npz.tensors(file);
      expect(ta).toMatchObject({ name: "a", dtype: "float32", shape: [2, 2] });
      expect(Array.from(ta!.data as Float32Array)).toEqual([1, 2, 3, 4]);
      expect(tb).toMatchObject({ name: "sub/b", dtype: "int32", shape: [2, 3] });
      expect(Array.from(tb!.data as Int32Array)).toEqual([0, 1, 2, 10, 11, 12]);
      const info = npz.inspect(file);
      expect(info.meta).toMatchObject({ members: 2, zip64, comment: "made by hand" });
      expect((info.members as { method: string; crc32: string }[]).map((m) => [m.method, m.crc32])).toEqual([
        ["stored", crc32Bitwise(a).toString(16).padStart(8, "0")],
        ["deflated", crc32Bitwise(b).toString(16).padStart(8, "0")],
      ]);
      expect(npz.verify(file)).toEqual([]);
      await expectLazyEqualsEager(bytes, `zip64 ${zip64}`);
    }
  });

  it("an empty archive (np.savez with no arrays) and data descriptors (flag bit 3: the local header's sizes are 0)", () => {
    const empty = zipFile([], { deflate });
    expect(detectFormat(empty)).toBe("npz");
    expect(npz.tensors(npz.read(empty))).toEqual([]);
    // a data-descriptor member: its local header may carry zeros; the directory is what counts
    const bytes = zipFile([{ name: "a.npy", content: a, flags: 0x0008 }], { deflate });
    const zeroed = new Uint8Array(bytes);
    zeroed.fill(0, 14, 26);
    expect(npz.tensors(npz.read(zeroed))[0]!.name).toBe("a");
  });

  it("CRC-32 mismatches: deflated members are refused when inflated (read and loadTensor), stored ones reported by verify", async () => {
    const stored = zipFile([{ name: "a.npy", content: a, crc32: 0x12345678 }], { deflate });
    const warnings = npz.verify(npz.read(stored));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/a\.npy: CRC-32 mismatch \(0x12345678 stored/);
    const deflated = zipFile(
      [
        { name: "a.npy", content: a },
        { name: "b.npy", content: b, method: 8, crc32: 1 },
      ],
      { deflate },
    );
    const dataAt = npz.readFrom(fromBytes(deflated)).then((f) => f.members[1]!.dataOffset);
    expectFormatError(() => npz.read(deflated), "CORRUPT", {
      format: "npz",
      offset: await dataAt,
      field: 'members["b.npy"].data',
    });
    const lazy = await npz.readFrom(fromBytes(deflated));
    await expect(npz.loadTensor(fromBytes(deflated), npz.tensorInfos(lazy)[1]!)).rejects.toThrow(
      /CRC-32 mismatch: 0x00000001 declared/,
    );
  });

  it("loadFile reads deflated members through npz's loadTensor (their byteOffset is compressed data)", async () => {
    const { loadFile } = await import("../../bindings/load-file.js");
    const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const folder = mkdtempSync(join(tmpdir(), "tensorfile-npz-"));
    try {
      const path = join(folder, "m.npz");
      const bytes = zipFile(
        [
          { name: "a.npy", content: a },
          { name: "sub/b.npy", content: b, method: 8 },
          { name: "c.npy", content: a, method: 8 },
        ],
        { deflate },
      );
      writeFileSync(path, bytes);
      // read through the file and its arena even for this small file (as loadFile does above 1 MiB)
      const { LOAD_TUNING } = await import("../../bindings/load-file.js");
      const saved = { ...LOAD_TUNING };
      Object.assign(LOAD_TUNING, { wholeFileBytes: 0, arenaMinBytes: 0 });
      try {
        for (const options of [{}, { dtype: "float32" as const }]) {
          expectSameTensors((await loadFile(path, options)).tensors, readAny(bytes).tensors(options));
        }
      } finally {
        Object.assign(LOAD_TUNING, saved);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("every input form gives the same tensors; readFrom reads headers only, also of deflated members", async () => {
    const big = npyFile(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (262144,), }",
      f32Bytes(Array.from({ length: 262144 }, (_, i) => Math.sin(i))),
    );
    const bytes = zipFile(
      [
        { name: "x.npy", content: big, method: 8 },
        { name: "y.npy", content: big },
      ],
      { deflate },
    );
    const want = npz.tensors(npz.read(bytes));
    for (const [form, input] of inputForms(bytes))
      expectSameTensors(npz.tensors(npz.read(input as Uint8Array)), want, form);
    const source = countingSource(bytes);
    const file = await npz.readFrom(source);
    expect(source.bytesRead).toBeLessThan(200_000);
    expect(() => npz.tensors(file)).toThrow(/readFrom/);
    const opened = await readFromAny(fromBytes(bytes));
    expect(opened.format).toBe("npz");
    expectSameTensors([await opened.loadTensor("x"), await opened.loadTensor("y")], want);
  });
});

describe("npz: every rule is a FormatError with its code, offset and field", () => {
  const a = npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", f32Bytes([1, 2]));
  const good = () => zipFile([{ name: "a.npy", content: a }], { deflate });
  const cdAt = (bytes: Uint8Array) => Buffer.from(bytes).lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  const endAt = (bytes: Uint8Array) => Buffer.from(bytes).lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const patch = (bytes: Uint8Array, at: number, values: number[]) => {
    const out = new Uint8Array(bytes);
    out.set(values, at);
    return out;
  };
  const cases: [string, () => Uint8Array, string, (b: Uint8Array) => number, string | RegExp][] = [
    [
      "no end record",
      () => good().subarray(0, good().length - 1),
      "TRUNCATED",
      (b) => b.length,
      /end of central directory/,
    ],
    [
      "a member not named .npy",
      () => zipFile([{ name: "a.txt", content: a }], { deflate }),
      "CORRUPT",
      (b) => cdAt(b) + 46,
      "central_directory[0].name",
    ],
    [
      "two members of one name",
      () =>
        zipFile(
          [
            { name: "a.npy", content: a },
            { name: "a.npy", content: a },
          ],
          { deflate },
        ),
      "CORRUPT",
      (b) => cdAt(b) + 46,
      "central_directory[1].name",
    ],
    [
      "an encrypted member",
      () => zipFile([{ name: "a.npy", content: a, flags: 1 }], { deflate }),
      "UNSUPPORTED",
      (b) => cdAt(b) + 8,
      "central_directory[0].flags",
    ],
    [
      "compression method 12",
      () => zipFile([{ name: "a.npy", content: a, method: 12 as 0 }], { deflate }),
      "UNSUPPORTED",
      (b) => cdAt(b) + 10,
      "central_directory[0].method",
    ],
    [
      "multi-disk",
      () => {
        const b = good();
        return patch(b, endAt(b) + 4, [1, 0]);
      },
      "UNSUPPORTED",
      (b) => endAt(b) + 4,
      "end.disk",
    ],
    [
      "a central directory that does not end at the end record",
      () => {
        const b = good();
        return patch(b, endAt(b) + 16, [0, 0, 0, 0]);
      },
      "CORRUPT",
      (b) => endAt(b) + 16,
      "end.cd_offset",
    ],
    [
      "a bad central directory signature",
      () => {
        const b = good();
        return patch(b, cdAt(b), [0x50, 0x4b, 9, 9]);
      },
      "CORRUPT",
      (b) => Buffer.from(b).lastIndexOf(Buffer.from([0x50, 0x4b, 9, 9])),
      "central_directory[0].signature",
    ],
    [
      "a bad local header signature",
      () => patch(good(), 0, [0x50, 0x4b, 9, 9]),
      "CORRUPT",
      () => 0,
      'members["a.npy"].local_header.signature',
    ],
    [
      "a local header with another name",
      () => zipFile([{ name: "a.npy", content: a, localName: "b.npy" }], { deflate }),
      "CORRUPT",
      () => 30,
      'members["a.npy"].local_header.name',
    ],
    [
      "local sizes that differ from the directory's",
      () => patch(good(), 18, [1, 0, 0, 0]),
      "CORRUPT",
      () => 14,
      'members["a.npy"].local_header.crc32',
    ],
    [
      "a stored member whose sizes differ",
      () => zipFile([{ name: "a.npy", content: a, size: a.length + 1 }], { deflate }),
      "CORRUPT",
      (b) => cdAt(b) + 20,
      "central_directory[0].compressed_size",
    ],
    [
      "a member running into the directory",
      () => {
        const b = patch(good(), 18, [0xff, 0xff, 0, 0]);
        return patch(b, cdAt(b) + 20, [0xff, 0xff, 0, 0]);
      },
      "CORRUPT",
      (b) => cdAt(b) + 20,
      "central_directory[0].compressed_size",
    ],
    [
      "overlapping members",
      () => {
        const b = zipFile(
          [
            { name: "a.npy", content: a },
            { name: "b.npy", content: a },
          ],
          { deflate },
        );
        const second = Buffer.from(b).lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
        return patch(b, second + 42, [0, 0, 0, 0]);
      },
      "CORRUPT",
      (b) => Buffer.from(b).lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 42,
      /local_offset/,
    ],
    [
      "a deflated member that inflates past its size",
      () => zipFile([{ name: "a.npy", content: a, method: 8, size: a.length - 1 }], { deflate }),
      "CORRUPT",
      () => 35,
      'members["a.npy"].data',
    ],
    [
      "a deflated member that inflates short",
      () => zipFile([{ name: "a.npy", content: a, method: 8, size: a.length + 8 }], { deflate }),
      "CORRUPT",
      () => 35,
      'members["a.npy"].data',
    ],
    [
      "bad deflate data",
      () =>
        zipFile([{ name: "a.npy", content: a, method: 8, compressed: Uint8Array.of(0xff, 0xff, 0xff, 0xff) }], {
          deflate,
        }),
      "CORRUPT",
      () => 35,
      'members["a.npy"].data',
    ],
    [
      "an impossible inflated size (a bomb)",
      () => zipFile([{ name: "a.npy", content: a, method: 8, size: 2 ** 40 }], { deflate }),
      "CORRUPT",
      () => 35,
      'members["a.npy"].data',
    ],
    [
      "a stored member that is not a valid .npy",
      () => zipFile([{ name: "a.npy", content: patch(a, 6, [9]) }], { deflate }),
      "UNSUPPORTED_VERSION",
      () => 35 + 6,
      'members["a.npy"].version.major',
    ],
    [
      "a deflated member that is not a valid .npy",
      () => zipFile([{ name: "a.npy", content: patch(a, 6, [9]), method: 8 }], { deflate }),
      "UNSUPPORTED_VERSION",
      () => 35,
      'members["a.npy"].version.major',
    ],
  ];
  it.each(cases)("%s", (_what, make, code, offset, field) => {
    const bytes = make();
    const error = expectFormatError(() => npz.read(bytes), code as never, {
      format: "npz",
      offset: offset(bytes),
      field,
    });
    expect(error.message).toMatch(/^npz: /);
  });

  it("a deflated member's .npy error names the byte inside the inflated member", () => {
    const bytes = zipFile([{ name: "a.npy", content: patch(a, 6, [9]), method: 8 }], { deflate });
    expect(() => npz.read(bytes)).toThrow(/at byte 6 of the inflated member/);
  });

  it("a truncation at every prefix is a FormatError", () => {
    for (const bytes of [good(), zipFile([{ name: "a.npy", content: a, method: 8 }], { deflate })]) {
      for (let n = 0; n < bytes.length; n++) {
        let caught: unknown;
        try {
          npz.read(bytes.subarray(0, n));
        } catch (error) {
          caught = error;
        }
        expect(isFormatError(caught), `prefix ${n}: ${String(caught)}`).toBe(true);
      }
    }
  });

  it("detection: zips whose first member is an .npy, and empty zips", () => {
    expect(npz.detect(good())).toBe(true);
    expect(npz.detect(zipFile([{ name: "a.txt", content: a }], { deflate }))).toBe(false);
    expect(npz.detect(zipFile([], { deflate }))).toBe(true);
    expect(npz.detect(Uint8Array.of(0x50, 0x4b, 3, 4, 0))).toBe(true);
    expect(npz.detect(Uint8Array.of(0x50, 0x4b))).toBe(false);
  });
});
