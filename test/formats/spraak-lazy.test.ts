/**
 * spraak lazy reads (readFrom equals read, loadTensor equals tensors, a 1 GB virtual file reads its header
 * only) and seeded byte-flip fuzzing (only FormatErrors escape).
 */
import { describe, expect, it } from "vitest";
import { FormatError } from "../../bindings/bytes/errors.js";
import * as spraak from "../../bindings/formats/spraak.js";
import { fromBytes } from "../../bindings/io/source.js";
import { haveFixtures, readFixture } from "../helpers/fixtures.js";
import { rng } from "../helpers/rng.js";
import { choppySource, countingSource, sparseSource } from "../helpers/sources.js";
import {
  DOC_CORPUS,
  DOC_LEXICON,
  bytes,
  docMvgauss,
  grammarFile,
  keyHeaderFile,
  matrixVariants,
} from "../helpers/spraak-builders.js";

/** Valid files of every kind: name, bytes, read options. */
function corpus(): { name: string; bytes: Uint8Array; options?: spraak.SpraakReadOptions }[] {
  const out: { name: string; bytes: Uint8Array; options?: spraak.SpraakReadOptions }[] = [];
  if (haveFixtures())
    for (const name of ["si1027.trk", "sx313.trk"]) out.push({ name, bytes: readFixture("spraak", name) });
  out.push({ name: "grammar", bytes: grammarFile() });
  out.push({ name: "corpus", bytes: bytes(DOC_CORPUS) });
  out.push({ name: "lexicon", bytes: bytes(DOC_LEXICON) });
  out.push({ name: "mvgauss", bytes: docMvgauss(4, 2, 3).bytes });
  out.push({ name: "key", bytes: keyHeaderFile({ magic: true }, 5, 2, 4).bytes });
  out.push({
    name: "key no magic",
    bytes: keyHeaderFile({ magic: false, endian: "BIG" }, 3, 3, 5).bytes,
    options: { headerFormat: "key" },
  });
  const openEnded = spraak.write(
    spraak.matrix(
      new Int16Array(10).map((_, i) => i * 1000 - 3000),
      { cols: 2, openEnded: true },
    ),
  );
  out.push({ name: "open-ended + 1 byte", bytes: Uint8Array.from([...openEnded, 7]) });
  out.push({
    name: "header-less",
    bytes: new Uint8Array([1, 2, 3, 4]),
    options: { header: { FORMAT: "BIN10", TYPE: "I16" } },
  });
  for (const v of matrixVariants(4, 3, 300)) {
    if (v.type === "F32" || v.type === "I64" || v.type === "ALAW")
      out.push({ name: v.label, bytes: spraak.write(v.file) });
  }
  return out;
}

/** The read() result with binary payloads replaced by the ranges readFrom() leaves them as. */
function asLazy(file: spraak.SpraakFile): unknown {
  const data = file.data;
  const plain = !file.gzip && file.meta.compress === null;
  if (!plain) return file;
  if (data.layout === "MATRIX" && data.encoding === "binary") {
    const length = (data.bytes as Uint8Array).length;
    const trailing = data.trailing as Uint8Array | null;
    return {
      ...file,
      data: {
        ...data,
        bytes: { byteOffset: file.dataOffset, byteLength: length },
        trailing: trailing ? { byteOffset: file.dataOffset + length, byteLength: trailing.length } : null,
      },
    };
  }
  if (data.layout === "CUSTOM")
    return {
      ...file,
      data: { ...data, bytes: { byteOffset: file.dataOffset, byteLength: (data.bytes as Uint8Array).length } },
    };
  return file;
}

describe("spraak: readFrom", () => {
  const files = corpus();

  it("equals read() through fromBytes and choppy sources; loadTensor equals tensors()", async () => {
    let seed = 1;
    for (const f of files) {
      const eager = spraak.read(f.bytes, f.options);
      const expected = asLazy(eager);
      const want = spraak.tensors(eager);
      for (const source of [fromBytes(f.bytes), choppySource(f.bytes, seed++)]) {
        const lazyFile = await spraak.readFrom(source, f.options);
        expect(lazyFile, f.name).toEqual(expected);
        const infos = spraak.tensorInfos(lazyFile);
        expect(
          infos.map((i) => ({ name: i.name, dtype: i.dtype, shape: i.shape })),
          f.name,
        ).toEqual(want.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape })));
        expect(spraak.tensorInfos(eager), f.name).toEqual(infos);
        for (const [i, info] of infos.entries()) {
          const got = await spraak.loadTensor(source, info);
          expect(got.shape).toEqual(want[i]!.shape);
          expect(
            Buffer.from(got.data.buffer, got.data.byteOffset, got.data.byteLength).equals(
              Buffer.from(want[i]!.data.buffer, want[i]!.data.byteOffset, want[i]!.data.byteLength),
            ),
            f.name,
          ).toBe(true);
          if (info.dtype === "uint8" && (info as spraak.SpraakTensorInfo).g711) {
            const widened = await spraak.loadTensor(source, info, { dtype: "float32" });
            expect(Array.from(widened.data as Float32Array)).toEqual(
              Array.from(spraak.tensors(eager, { dtype: "float32" })[0]!.data as Float32Array),
            );
          }
        }
      }
      expect(spraak.inspect(await spraak.readFrom(fromBytes(f.bytes), f.options)), f.name).toEqual(
        spraak.inspect(eager),
      );
    }
  });

  it("binary data stays on disk: a ~1 GB BIN10 track opens reading < 1 MB", async () => {
    const rows = Math.floor(1_000_000_000 / (24 * 4));
    const header = bytes(
      `.spr\nDATA\t\t\tTRACK\nFORMAT\t\t\tBIN10\nTYPE\t\t\tF32\nLAYOUT\t\t\tMATRIX\nDIM1\t\t\t${rows}\nDIM2\t\t\t24\nFSHIFT\t\t\t0.01\n#\n`,
    );
    const last = new Uint8Array([0x3f, 0x80, 0, 0]); // 1.0f big-endian, the last element
    const size = header.length + rows * 24 * 4;
    const source = sparseSource(size, [
      { offset: 0, bytes: header },
      { offset: size - 4, bytes: last },
    ]);
    const file = await spraak.readFrom(source);
    expect(source.bytesRead).toBeLessThan(1024 * 1024);
    expect(source.bytesRead).toBeLessThanOrEqual(64 * 1024); // one first-chunk fetch holds the whole header
    expect(source.reads).toBe(1);
    expect(file.meta.dim1).toBe(rows);
    const [info] = spraak.tensorInfos(file);
    expect(info).toMatchObject({
      name: "data",
      dtype: "float32",
      shape: [rows, 24],
      byteOffset: header.length,
      byteLength: rows * 96,
      byteOrder: "be",
    });
    expect(() => spraak.tensors(file)).toThrow(FormatError);
    expect(() => spraak.write(file)).toThrow(/not loaded/);
    // one row from the end, through loadTensor's own range read
    const tail = await spraak.loadTensor(source, { ...info!, shape: [1, 24], byteOffset: size - 96, byteLength: 96 });
    expect((tail.data as Float32Array)[23]).toBe(1);
  });

  it("ASCII, LIST and gzip files are read whole (they must be scanned or inflated)", async () => {
    for (const f of files.filter((x) => /ASCII|compress|gzip|corpus|mvgauss/.test(x.name))) {
      const source = countingSource(f.bytes);
      await spraak.readFrom(source, f.options);
      expect(source.bytesRead, f.name).toBeGreaterThanOrEqual(f.bytes.length);
    }
  });
});

describe("spraak: seeded byte-flip fuzzing", () => {
  const files = corpus();

  it("only FormatErrors escape read(); whatever reads also inspects, verifies, decodes and writes", () => {
    const next = rng(20240611);
    let failures = 0;
    let successes = 0;
    for (const f of files) {
      for (let round = 0; round < 300; round++) {
        const damaged = f.bytes.slice();
        const flips = 1 + Math.floor(next() * 4);
        const headerEnd = Math.min(damaged.length, 600);
        for (let k = 0; k < flips; k++) {
          // half the flips in the header region, where the parser makes its decisions
          const at = next() < 0.5 ? Math.floor(next() * headerEnd) : Math.floor(next() * damaged.length);
          damaged[at] = next() < 0.5 ? damaged[at]! ^ (1 << Math.floor(next() * 8)) : Math.floor(next() * 256);
        }
        let file: spraak.SpraakFile;
        try {
          file = spraak.read(damaged, f.options);
        } catch (error) {
          if (!(error instanceof FormatError)) throw new Error(`${f.name} round ${round}: ${String(error)}`);
          failures++;
          continue;
        }
        successes++;
        try {
          spraak.tensors(file);
          spraak.tensors(file, { dtype: "float32" });
          JSON.stringify(spraak.inspect(file));
          spraak.verify(file);
          spraak.blobs(file);
          spraak.write(file);
        } catch (error) {
          if (!(error instanceof FormatError)) throw new Error(`${f.name} round ${round} after read: ${String(error)}`);
        }
      }
    }
    expect(failures).toBeGreaterThan(0);
    expect(successes).toBeGreaterThan(0);
  });
});
