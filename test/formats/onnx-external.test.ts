/**
 * ONNX external data (data_location EXTERNAL: location, offset, length): read from beside the model for path
 * sources (loadFile, openFile, fromFile, the CLI), confined to the model's folder (symlinks included); elsewhere a
 * SourceError naming the file. Also: loadFile equals tensors() for .onnx and .april, sparse initializers in
 * inspect, Node Buffers at odd offsets.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { fromBytes, fromFile, SourceError } from "../../bindings/io/source.js";
import { loadFile, openFile } from "../../bindings/load-file.js";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";
import { cli } from "../helpers/cli.js";
import { VAD_MODELS, addBiasModel, buildModel, le } from "../helpers/onnx-models.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-onnx-ext-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VALUES = Float32Array.from({ length: 6 }, (_, i) => i * 1.5 - 2);

function externalModel(location: string, offset = 16): Uint8Array {
  return buildModel({
    graph: {
      initializers: [
        { name: "ext", dataType: 1, dims: [2, 3], external: { location, offset, length: 24 } },
        { name: "inline", dataType: 1, dims: [1], floats: [7] },
      ],
    },
  });
}

function writeData(folder: string, name: string): void {
  const data = new Uint8Array(16 + 24);
  data.set(le(VALUES), 16);
  mkdirSync(join(folder, ...name.split("/").slice(0, -1)), { recursive: true });
  writeFileSync(join(folder, name), data);
}

describe("onnx external data", () => {
  it("loadFile, openFile and fromFile read it from beside the model; the CLI too", async () => {
    const folder = join(dir, "ok");
    mkdirSync(folder);
    writeData(folder, "weights/data.bin");
    const path = join(folder, "model.onnx");
    writeFileSync(path, externalModel("weights/data.bin"));
    const loaded = await loadFile(path);
    expect(loaded.format).toBe("onnx");
    expect(Array.from(loaded.tensors[0]!.data as Float32Array)).toEqual(Array.from(VALUES));
    expect(loaded.tensors[0]!.shape).toEqual([2, 3]);
    const opened = await openFile(path);
    expect(Array.from((await opened.loadTensor("ext")).data as Float32Array)).toEqual(Array.from(VALUES));
    await opened.close();
    const source = await fromFile(path);
    const model = await onnx.readFrom(source);
    expect(Array.from((await onnx.loadTensor(source, onnx.tensorInfos(model)[0]!)).data as Float32Array)).toEqual(
      Array.from(VALUES),
    );
    await source.close();
    expect(onnx.inspect(model).externalData).toEqual([
      { name: "ext", location: "weights/data.bin", offset: 16, length: 24, checksum: undefined },
    ]);
    const weights = join(dir, "ext.safetensors");
    expect((await cli("convert", path, weights)).code).toBe(0);
  });

  it("bytes without a path: a SourceError naming the file it needs", async () => {
    const bytes = externalModel("data.bin");
    expect(() => onnx.tensors(onnx.read(bytes))).toThrow(SourceError);
    expect(() => onnx.tensors(onnx.read(bytes))).toThrow(/data\.bin/);
    const model = await onnx.readFrom(fromBytes(bytes));
    await expect(onnx.loadTensor(fromBytes(bytes), onnx.tensorInfos(model)[0]!)).rejects.toThrow(/data\.bin/);
  });

  it("a missing file and a symlink out of the folder are SourceErrors; a '..' location is a FormatError", async () => {
    const folder = join(dir, "escape");
    mkdirSync(folder);
    writeData(dir, "outside.bin");
    symlinkSync(join(dir, "outside.bin"), join(folder, "link.bin"));
    writeFileSync(join(folder, "link.onnx"), externalModel("link.bin"));
    await expect(loadFile(join(folder, "link.onnx"))).rejects.toThrow(/outside the model's folder/);
    writeFileSync(join(folder, "missing.onnx"), externalModel("nothing-here.bin"));
    await expect(loadFile(join(folder, "missing.onnx"))).rejects.toThrow(SourceError);
    writeFileSync(join(folder, "dotdot.onnx"), externalModel("../outside.bin"));
    await expect(loadFile(join(folder, "dotdot.onnx"))).rejects.toMatchObject({
      code: "CORRUPT",
      field: "model.graph.initializer[0].external_data.location",
    });
    // a data file shorter than offset + length
    writeFileSync(join(folder, "short.bin"), new Uint8Array(20));
    writeFileSync(join(folder, "short.onnx"), externalModel("short.bin"));
    await expect(loadFile(join(folder, "short.onnx"))).rejects.toThrow(/ends before/);
  });

  it("patching an external weight is refused", async () => {
    const model = onnx.read(externalModel("data.bin"));
    expect(() =>
      onnx.replaceTensors(model, { ext: { name: "ext", dtype: "float32", shape: [2, 3], data: VALUES } }),
    ).toThrow(/external/);
  });
});

describe("loadFile on .onnx and .april equals tensors()", () => {
  it.skipIf(VAD_MODELS.length === 0)("the Silero models, and an .april holding them", async () => {
    for (const path of VAD_MODELS) {
      const bytes = new Uint8Array(readFileSync(path));
      const loaded = await loadFile(path);
      const eager = onnx.tensors(onnx.read(bytes));
      expect(loaded.tensors.map((t) => t.name)).toEqual(eager.map((t) => t.name));
      loaded.tensors.forEach((t, i) => expect(t.data).toEqual(eager[i]!.data));
      const widened = await loadFile(path, { dtype: "float32" });
      expect(widened.tensors.every((t) => t.dtype === "float32")).toBe(true);
    }
    const [encoder, decoder] = VAD_MODELS.map((p) => new Uint8Array(readFileSync(p)));
    const aprilPath = join(dir, "vad.april");
    writeFileSync(
      aprilPath,
      april.write(
        april.create({
          networks: {
            encoder: encoder!,
            decoder: decoder ?? encoder!,
            joiner: addBiasModel(Float32Array.of(1, 2), "floats"),
          },
          tokens: ["<blk>", "x"],
        }),
      ),
    );
    const loaded = await loadFile(aprilPath);
    const eager = april.tensors(april.read(new Uint8Array(readFileSync(aprilPath))));
    expect(loaded.tensors.map((t) => t.name)).toEqual(eager.map((t) => t.name));
    expect(loaded.tensors[0]!.name.startsWith("encoder/")).toBe(true);
    expect(loaded.tensors.at(-1)!.name).toBe("joiner/bias");
    loaded.tensors.forEach((t, i) => expect(t.data).toEqual(eager[i]!.data));
  });

  it("a Node Buffer at an odd offset reads the same as a fresh array", () => {
    const bytes = addBiasModel(Float32Array.of(1, 2, 3), "raw");
    const backing = Buffer.alloc(bytes.length + 3);
    backing.set(bytes, 3);
    const odd = backing.subarray(3);
    expect(onnx.detect(odd)).toBe(true);
    const t = onnx.tensors(onnx.read(odd))[0]!;
    expect(Array.from(t.data as Float32Array)).toEqual([1, 2, 3]);
    expect(Buffer.from(onnx.write(onnx.read(odd))).equals(Buffer.from(bytes))).toBe(true);
  });
});

describe("sparse initializers", () => {
  it("are shown by inspect (values and indices), not as tensors", () => {
    const w = new ProtoWriter().uintField(1, 8);
    w.messageField(7, (g) => {
      g.stringField(2, "g");
      g.messageField(15, (s) => {
        s.messageField(1, (v) =>
          v
            .uintField(1, 2)
            .uintField(2, 1)
            .stringField(8, "sparse")
            .bytesField(9, le(Float32Array.of(5, 6))),
        );
        s.messageField(2, (i) =>
          i
            .uintField(1, 2)
            .uintField(2, 7)
            .stringField(8, "sparse_indices")
            .bytesField(9, le(BigInt64Array.of(1n, 7n))),
        );
        s.uintField(3, 3).uintField(3, 4);
      });
    });
    w.messageField(8, (op) => op.uintField(2, 13));
    const model = onnx.read(w.finish());
    expect(onnx.tensors(model)).toEqual([]);
    expect(onnx.inspect(model).sparseInitializers).toEqual([
      { name: "sparse", dims: [3, 4], values: { dtype: "float32", count: 2 }, indices: { dtype: "int64", shape: [2] } },
    ]);
  });
});
