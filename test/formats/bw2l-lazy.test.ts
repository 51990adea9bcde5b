/** bw2l readFrom(): headers only, payloads as byte ranges, on generated files (fixtures are covered in bw2l.test.ts). */
import { describe, expect, it } from "vitest";
import * as bw2l from "../../bindings/formats/bw2l.js";
import { fromBytes } from "../../bindings/io/source.js";
import { bytesOf } from "../../bindings/tensor.js";
import { randomModel, sparseModel, tinyModel } from "../helpers/bw2l-builders.js";
import { choppySource, countingSource, sparseSource } from "../helpers/sources.js";

describe("bw2l readFrom", () => {
  it("opens a ~1 GB virtual model reading < 1 MB plus its metadata; loadTensor reads one tensor", async () => {
    const model = sparseModel(1024 * 1024 * 1024);
    expect(model.size).toBeGreaterThan(1024 * 1024 * 1024);
    const source = sparseSource(model.size, model.pieces);
    const file = await bw2l.readFrom(source);
    expect(source.bytesRead).toBeLessThan(1024 * 1024 + model.metadataBytes);
    expect(bw2l.tokens(file)).toEqual(["a", "b", "#"]);
    const infos = bw2l.tensorInfos(file);
    expect(infos.map((i) => [i.name, i.shape])).toEqual([
      ["layers.0.0", [model.bigLength, 1, 1, 1]],
      ["layers.0.1", [4, 1, 1, 1]],
      ["layers.2.0", [model.bigLength, 1, 1, 1]],
      ["layers.2.1", [6, 1, 1, 1]],
      ["transitions", [2, 2, 1, 1]],
    ]);
    expect(infos[0]!.byteLength).toBe(model.bigLength * 4);
    expect(infos[2]!.byteOffset - infos[0]!.byteOffset).toBeGreaterThan(model.bigLength * 4);
    const before = source.bytesRead;
    const bias = await bw2l.loadTensor(source, infos[3]!);
    expect(Array.from(bias.data as ArrayLike<unknown>)).toEqual([0.5, 1.5, 2.5, 3.5, 4.5, 5.5]);
    expect(source.bytesRead - before).toBe(24);
    const transitions = await bw2l.loadTensor(source, infos[4]!);
    expect(Array.from(transitions.data as ArrayLike<unknown>)).toEqual([1, 3, 2, 4]); // column-major [2, 2] as row-major
    expect(bw2l.inspect(file).sections).toContainEqual(
      expect.objectContaining({ name: "layers", size: expect.any(Number) }),
    );
    expect(bw2l.verify(file)).toEqual([]);
  });

  it.each([1, 2] as const)(
    "v%i: a multi-MB model opens with a small read and loads every tensor like tensors()",
    async (version) => {
      const bytes = bw2l.write(randomModel(version, 4 * 1024 * 1024, 2, 3));
      const source = countingSource(bytes);
      const file = await bw2l.readFrom(source);
      expect(source.bytesRead).toBeLessThan(bytes.length / 8);
      const eager = bw2l.tensors(bw2l.read(bytes));
      const infos = bw2l.tensorInfos(file);
      expect(infos.map((i) => i.name)).toEqual(eager.map((t) => t.name));
      for (const [k, info] of infos.entries()) {
        const t = await bw2l.loadTensor(choppySource(bytes, k), info);
        expect(t.shape).toEqual(eager[k]!.shape);
        expect(t.dtype).toBe(eager[k]!.dtype);
        expect(Buffer.from(bytesOf(t.data)).equals(Buffer.from(bytesOf(eager[k]!.data)))).toBe(true);
      }
    },
  );

  it("payloads of a readFrom() result are ranges: tensors() and write() say what to do instead", async () => {
    const bytes = bw2l.write(tinyModel(2));
    const file = await bw2l.readFrom(fromBytes(bytes));
    const spm = file.sections.find((s) => s.name === "spm")!;
    expect(bw2l.isRawSection(spm) && spm.data).toEqual({ byteOffset: bytes.length - 40, byteLength: 40 });
    expect(bw2l.blobs(file)).toEqual([{ name: "spm.bin", bytes: { byteOffset: bytes.length - 40, byteLength: 40 } }]);
    expect(() => bw2l.tensors(file)).toThrow(/use loadTensor/);
    expect(() => bw2l.write(file)).toThrow(/byte range from readFrom/);
    expect(() => bw2l.tensorInfos(tinyModel(2))).toThrow(/not read from a file/);
  });
});
