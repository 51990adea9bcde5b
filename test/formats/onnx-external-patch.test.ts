/**
 * Patching ONNX models whose weights are in external files (refused on main): the external files rewritten beside
 * OUT (the model's bytes kept), or the weights stored in the model (inlineExternal); convert then patch gives the
 * model and its external file back byte for byte; OUT in MODEL's folder would overwrite MODEL's own external file
 * and is refused.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import onnxProto from "onnx-proto";
import { afterAll, describe, expect, it } from "vitest";
import * as onnx from "../../bindings/formats/onnx.js";
import { readFromAny } from "../../bindings/any.js";
import { fromBytes, fromFile } from "../../bindings/io/source.js";
import { loadBlob, loadFile, loadSource } from "../../bindings/load-file.js";
import { patchFrom, patchTo } from "../../bindings/patch.js";
import { cli } from "../helpers/cli.js";
import { buildModel, le } from "../helpers/onnx-models.js";

const { onnx: proto } = onnxProto;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-onnx-ext-patch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VALUES = Float32Array.from({ length: 6 }, (_, i) => i * 1.5 - 2);
const OTHER = Float32Array.from({ length: 4 }, (_, i) => 100 + i);
const NEW = Float32Array.of(9, 8, 7, 6, 5, 4);

/**
 * A folder with model.onnx (weights "ext" and "ext2" in data.bin at offsets 16 and 40, "inline" in raw_data) and
 * data.bin (its bytes around the weights are not zero, and must be kept).
 */
function modelFolder(label: string): { folder: string; model: string; data: string } {
  const folder = join(dir, label);
  mkdirSync(folder, { recursive: true });
  const bytes = new Uint8Array(16 + 24 + 16 + 7).map((_, i) => (i * 37 + 11) & 255);
  bytes.set(le(VALUES), 16);
  bytes.set(le(OTHER), 40);
  const data = join(folder, "data.bin");
  writeFileSync(data, bytes);
  const model = join(folder, "model.onnx");
  writeFileSync(
    model,
    buildModel({
      graph: {
        initializers: [
          { name: "ext", dataType: 1, dims: [2, 3], external: { location: "data.bin", offset: 16, length: 24 } },
          { name: "inline", dataType: 1, dims: [1], raw: le(Float32Array.of(7)) },
          { name: "ext2", dataType: 1, dims: [4], external: { location: "data.bin", offset: 40 } },
        ],
      },
    }),
  );
  return { folder, model, data };
}

const floats = (t: { data: ArrayBufferView }) => Array.from(t.data as Float32Array);

/** A sink collecting bytes, per location. */
function collector() {
  const files = new Map<string, Uint8Array[]>();
  const sink = (location: string) => {
    const parts: Uint8Array[] = [];
    files.set(location, parts);
    return (chunk: Uint8Array) => void parts.push(chunk.slice());
  };
  const bytes = (location: string) => Buffer.concat(files.get(location) ?? []);
  return { sink, bytes, files };
}

describe("patch API, external weights", () => {
  it("without an option, replacing an external weight is refused, saying what to do", async () => {
    const { model } = modelFolder("refused");
    const source = await fromFile(model);
    await expect(
      patchFrom(source, { ext: { name: "ext", dtype: "float32", shape: [2, 3], data: NEW } }),
    ).rejects.toThrow(/externalSink.*inlineExternal/);
    await source.close();
  });

  it("externalSink: the model's bytes are kept, the external file rewritten with the new range only", async () => {
    const { model, data } = modelFolder("sink");
    const source = await fromFile(model);
    const out = collector();
    const chunks: Uint8Array[] = [];
    const result = await patchTo(
      source,
      { ext: { name: "ext", dtype: "float32", shape: [2, 3], data: NEW } },
      (c) => void chunks.push(c.slice()),
      { externalSink: out.sink },
    );
    await source.close();
    expect(result.replaced).toEqual(["ext"]);
    expect(Buffer.concat(chunks).equals(readFileSync(model))).toBe(true);
    expect([...out.files.keys()]).toEqual(["data.bin"]);
    const expected = new Uint8Array(readFileSync(data));
    expected.set(le(NEW), 16);
    expect(out.bytes("data.bin").equals(expected)).toBe(true);
  });

  it("two spellings of one location (data.bin, ./data.bin) are one file, with both weights' edits", async () => {
    const { folder, data } = modelFolder("two-spellings");
    const model = join(folder, "spellings.onnx");
    writeFileSync(
      model,
      buildModel({
        graph: {
          initializers: [
            { name: "ext", dataType: 1, dims: [2, 3], external: { location: "data.bin", offset: 16 } },
            { name: "ext2", dataType: 1, dims: [4], external: { location: "./data.bin", offset: 40 } },
          ],
        },
      }),
    );
    const source = await fromFile(model);
    const out = collector();
    await patchTo(
      source,
      {
        ext: { name: "ext", dtype: "float32", shape: [2, 3], data: NEW },
        ext2: { name: "ext2", dtype: "float32", shape: [4], data: Float32Array.of(1, 2, 3, 4) },
      },
      () => undefined,
      { externalSink: out.sink },
    );
    await source.close();
    expect([...out.files.keys()]).toEqual(["data.bin"]);
    const expected = new Uint8Array(readFileSync(data));
    expected.set(le(NEW), 16);
    expected.set(le(Float32Array.of(1, 2, 3, 4)), 40);
    expect(out.bytes("data.bin").equals(expected)).toBe(true);
  });

  it("weights from an ONNX model with external weights are copied through from its external file", async () => {
    const { model, data } = modelFolder("weights-external");
    const weightsFolder = join(dir, "weights-external-w");
    mkdirSync(weightsFolder);
    const stored = new Uint8Array(8 + 24);
    stored.set(le(NEW), 8);
    writeFileSync(join(weightsFolder, "w.bin"), stored);
    const weightsModel = join(weightsFolder, "w.onnx");
    writeFileSync(
      weightsModel,
      buildModel({
        graph: {
          initializers: [{ name: "ext", dataType: 1, dims: [2, 3], external: { location: "w.bin", offset: 8 } }],
        },
      }),
    );
    const weightsSource = await fromFile(weightsModel);
    const source = await fromFile(model);
    const out = collector();
    const result = await patchTo(
      source,
      { ...(await readFromAny(weightsSource)), source: weightsSource },
      () => undefined,
      { externalSink: out.sink },
    );
    await Promise.all([source.close(), weightsSource.close()]);
    expect(result.replaced).toEqual(["ext"]);
    const expected = new Uint8Array(readFileSync(data));
    expected.set(le(NEW), 16);
    expect(out.bytes("data.bin").equals(expected)).toBe(true);
  });

  it("inlineExternal: every external weight goes into raw_data; the model needs no other file", async () => {
    const { model } = modelFolder("inline");
    const source = await fromFile(model);
    const patched = await patchFrom(
      source,
      { ext: { name: "ext", dtype: "float32", shape: [2, 3], data: NEW } },
      { inlineExternal: true },
    );
    await source.close();
    const read = onnx.read(patched.bytes);
    expect(onnx.weights(read).map((w) => w.tensor.storage)).toEqual(["raw_data", "raw_data", "raw_data"]);
    // no folder, no resolver: it still loads (nothing external is left)
    const loaded = await loadSource(fromBytes(patched.bytes));
    expect(loaded.tensors.map((t) => [t.name, floats(t)])).toEqual([
      ["ext", Array.from(NEW)],
      ["inline", [7]],
      ["ext2", Array.from(OTHER)],
    ]);
    // the other fields of the TensorProto are kept (name, dims, data type)
    expect(onnx.tensorInfos(read).map((i) => [i.name, i.dtype, i.shape])).toEqual([
      ["ext", "float32", [2, 3]],
      ["inline", "float32", [1]],
      ["ext2", "float32", [4]],
    ]);
    // an independent decoder (onnx-proto) reads the same: raw_data, no external_data, data_location DEFAULT
    const decoded = proto.ModelProto.decode(patched.bytes).graph!.initializer!;
    expect(
      decoded.map((t) => [
        t.name,
        (t.dims ?? []).map(Number),
        t.dataType,
        t.externalData?.length ?? 0,
        t.dataLocation ?? 0,
      ]),
    ).toEqual([
      ["ext", [2, 3], 1, 0, 0],
      ["inline", [1], 1, 0, 0],
      ["ext2", [4], 1, 0, 0],
    ]);
    const raw = (k: number) => Array.from(new Float32Array(new Uint8Array(decoded[k]!.rawData!).slice().buffer));
    expect([raw(0), raw(1), raw(2)]).toEqual([Array.from(NEW), [7], Array.from(OTHER)]);
  });
});

describe("tensorfile patch, external weights", () => {
  it("convert then patch into another folder gives the model and its external file back byte for byte", async () => {
    const { folder, model, data } = modelFolder("round-trip");
    const weights = join(folder, "w.safetensors");
    expect((await cli("convert", model, weights)).code).toBe(0);
    const outFolder = join(dir, "round-trip-out");
    const out = join(outFolder, "patched.onnx");
    const r = await cli("patch", model, weights, out);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out).equals(readFileSync(model))).toBe(true);
    expect(readFileSync(join(outFolder, "data.bin")).equals(readFileSync(data))).toBe(true);
    // and with a changed weight: only its range of the external file differs
    const changed = join(folder, "changed.safetensors");
    const original = await loadFile(model);
    const { writeSafetensors } = await import("../../bindings/export/safetensors.js");
    writeFileSync(
      changed,
      writeSafetensors(original.tensors.map((t) => (t.name === "ext" ? ({ ...t, data: NEW } as typeof t) : t))),
    );
    const out2 = join(dir, "round-trip-out2", "patched.onnx");
    expect((await cli("patch", model, changed, out2)).code).toBe(0);
    expect(floats((await loadFile(out2)).tensors[0]!)).toEqual(Array.from(NEW));
    expect(readFileSync(out2).equals(readFileSync(model))).toBe(true);
  });

  it("OUT in MODEL's folder would overwrite MODEL's external file: refused (exit 2), even with --force", async () => {
    const { folder, model, data } = modelFolder("same-folder");
    const before = readFileSync(data);
    const weights = join(folder, "w.safetensors");
    expect((await cli("convert", model, weights)).code).toBe(0);
    for (const force of [[], ["--force"]]) {
      const r = await cli("patch", model, weights, join(folder, "out.onnx"), ...force);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/MODEL's own external file "data\.bin".*--inline-external/);
    }
    expect(existsSync(join(folder, "out.onnx"))).toBe(false);
    expect(readFileSync(data).equals(before)).toBe(true);
  });

  it("an existing external file beside OUT needs --force", async () => {
    const { folder, model } = modelFolder("exists");
    const weights = join(folder, "w.safetensors");
    expect((await cli("convert", model, weights)).code).toBe(0);
    const outFolder = join(dir, "exists-out");
    mkdirSync(outFolder);
    writeFileSync(join(outFolder, "data.bin"), "precious");
    const refused = await cli("patch", model, weights, join(outFolder, "out.onnx"));
    expect(refused.code).toBe(2);
    expect(readFileSync(join(outFolder, "data.bin"), "utf8")).toBe("precious");
    expect(existsSync(join(outFolder, "out.onnx"))).toBe(false);
    expect((await cli("patch", model, weights, join(outFolder, "out.onnx"), "--force")).code).toBe(0);
    expect(readFileSync(join(outFolder, "data.bin")).equals(readFileSync(join(folder, "data.bin")))).toBe(true);
  });

  it("--inline-external writes one self-contained OUT, even in MODEL's folder", async () => {
    const { folder, model } = modelFolder("inline-cli");
    const weights = join(folder, "w.safetensors");
    expect((await cli("convert", model, weights)).code).toBe(0);
    const out = join(folder, "inlined.onnx");
    const r = await cli("patch", model, weights, out, "--inline-external");
    expect(r.code, r.stderr).toBe(0);
    const bytes = new Uint8Array(readFileSync(out));
    // a Blob has no folder: it loads only because nothing is external any more
    const loaded = await loadBlob(new Blob([bytes as Uint8Array<ArrayBuffer>]));
    expect(loaded.tensors.map((t) => floats(t))).toEqual([Array.from(VALUES), [7], Array.from(OTHER)]);
    const plain = buildModel({
      graph: { initializers: [{ name: "x", dataType: 1, dims: [1], raw: le(Float32Array.of(1)) }] },
    });
    const plainPath = join(folder, "plain.onnx");
    writeFileSync(plainPath, plain);
    expect(
      (await cli("patch", plainPath, weights, join(folder, "p2.onnx"), "--inline-external", "--partial")).code,
    ).toBe(2);
  });
});
