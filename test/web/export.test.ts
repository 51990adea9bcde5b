// Exports: the streamed .safetensors of every example and fixture with tensors, concatenated and parsed by the
// independent test parser, holds exactly tensors() (dtype, shape, bytes); .npy of each tensor likewise.
import { describe, expect, it } from "vitest";
import {
  type EmbeddedBlob,
  type NamedTensor,
  formatModule,
  fromBytes,
  isFormatError,
  readAny,
  readFromAny,
} from "../../bindings/index.js";
import {
  copyBlobTo,
  exportNpy,
  exportSafetensors,
  replaceExtension,
  safetensorsSize,
  tensorFileName,
  withSource,
} from "../../web/src/model/export.js";
import { concat } from "../helpers/bytes.js";
import { parseNpy, parseSafetensors } from "../helpers/parsers.js";
import { readableFiles } from "./corpus.js";

const DTYPES: Record<string, string> = {
  float16: "F16",
  float32: "F32",
  float64: "F64",
  int8: "I8",
  uint8: "U8",
  int16: "I16",
  uint16: "U16",
  int32: "I32",
  uint32: "U32",
  int64: "I64",
  uint64: "U64",
  bool: "BOOL",
  complex64: "C64",
  bfloat16: "BF16",
  float8_e4m3: "F8_E4M3",
  float8_e5m2: "F8_E5M2",
};

function bytesOf(t: NamedTensor): Uint8Array {
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

describe("streamed .safetensors export", () => {
  for (const { label, bytes } of readableFiles()) {
    it(`${label}: parses and equals tensors()`, async () => {
      const lazy = await readFromAny(fromBytes(bytes));
      const want = readAny(bytes).tensors();
      const infos = lazy.tensorInfos();
      if (infos.length === 0) {
        expect(safetensorsSize(infos, lazy.format)).toBeUndefined();
        return;
      }
      const parts: Uint8Array[] = [];
      const progress: number[] = [];
      const written = await exportSafetensors(
        lazy,
        lazy.format,
        (part) => void parts.push(part.slice()),
        (done) => progress.push(done),
      );
      expect(parts.length).toBe(infos.length + 1);
      expect(progress.length).toBe(infos.length);
      expect(progress.at(-1)).toBe(written);
      const file = concat(...parts);
      expect(file.length).toBe(safetensorsSize(infos, lazy.format));
      const parsed = parseSafetensors(file);
      expect(parsed.header.__metadata__).toMatchObject({ format: "pt", "tensorfile.source": lazy.format });
      for (const t of want) {
        const entry = parsed.tensors.find((e) => e.name === t.name)!;
        expect(entry, t.name).toBeDefined();
        const known = DTYPES[t.dtype];
        expect(entry.dtype).toBe(known ?? "U8");
        expect(entry.shape).toEqual(
          known
            ? t.shape
            : [
                ...t.shape,
                bytesOf(t).length /
                  Math.max(
                    1,
                    t.shape.reduce((a, b) => a * b, 1),
                  ),
              ],
        );
        expect(Array.from(entry.bytes)).toEqual(Array.from(bytesOf(t)));
      }
      expect(parsed.tensors.length).toBe(want.length);
    });
  }
});

describe(".npy export and names", () => {
  it("every tensor of every file as .npy (written from the lazy file and its source) parses to its dtype, shape and bytes", async () => {
    for (const { label, bytes } of readableFiles()) {
      const source = fromBytes(bytes);
      const lazy = await readFromAny(source);
      const want = readAny(bytes).tensors();
      for (const [k, info] of lazy.tensorInfos().entries()) {
        const t = want[k]!;
        const parts: Uint8Array[] = [];
        const written = await exportNpy(withSource(lazy, source), info, (part) => void parts.push(part.slice()));
        const file = concat(...parts);
        expect(file.length, `${label} ${info.name}`).toBe(written);
        const parsed = parseNpy(file);
        expect(parsed.shape).toEqual(t.shape);
        expect(parsed.fortran).toBe("False");
        expect(Array.from(parsed.data), `${label} ${info.name}`).toEqual(Array.from(bytesOf(t)));
      }
    }
  });

  it("every embedded file, copied in small pieces from the source, equals its bytes", async () => {
    let ranges = 0;
    for (const { label, bytes } of readableFiles()) {
      const source = fromBytes(bytes);
      const lazy = await readFromAny(source);
      const module = formatModule(lazy.format) as unknown as { blobs?: (f: unknown) => EmbeddedBlob[] };
      let blobs: EmbeddedBlob[];
      try {
        blobs = module.blobs?.(lazy.file) ?? [];
      } catch (error) {
        if (isFormatError(error) && error.code === "UNSUPPORTED") continue; // listed from read() only (the page falls back)
        throw error;
      }
      for (const blob of blobs) {
        if (!(blob.bytes instanceof Uint8Array)) ranges++;
        const want =
          blob.bytes instanceof Uint8Array
            ? blob.bytes
            : bytes.subarray(blob.bytes.byteOffset, blob.bytes.byteOffset + blob.bytes.byteLength);
        const parts: Uint8Array[] = [];
        const n = await copyBlobTo(blob, source, (part) => void parts.push(part.slice()), 7);
        expect(n, `${label} ${blob.name}`).toBe(want.length);
        expect(Buffer.from(concat(...parts)).equals(Buffer.from(want)), `${label} ${blob.name}`).toBe(true);
      }
    }
    expect(ranges).toBeGreaterThan(0);
  });

  it("download names are safe", () => {
    expect(tensorFileName("layers.0.0")).toBe("layers.0.0.npy");
    expect(tensorFileName("a/b\\c:d")).toBe("a_b_c_d.npy");
    expect(tensorFileName("..")).toBe("_.npy");
    expect(tensorFileName("")).toBe("tensor.npy");
    expect(replaceExtension("model.b2l", ".safetensors")).toBe("model.safetensors");
    expect(replaceExtension("/files/0/x.tar.csta?x=1", ".safetensors")).toBe("x.tar.safetensors");
    expect(replaceExtension("noext", ".npy")).toBe("noext.npy");
  });
});
