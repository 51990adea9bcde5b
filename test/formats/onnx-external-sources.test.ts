/**
 * ONNX external data: only a real path has a folder. A model read from bytes, a Blob or File (whatever its name
 * says), a URL or standard input has none: its external weights are a SourceError naming the tensor and the
 * location, unless the caller names a folder or a resolver (externalData, --external-dir). Only regular files are
 * read (a FIFO, a device or a folder named as location is a clear error, never a hang); a file whose name merely
 * starts with ".." is inside the folder; a weight no array holds is a LIMIT error. These all failed on main.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import * as onnx from "../../bindings/formats/onnx.js";
import { withExternalData } from "../../bindings/io/external-data.js";
import { SourceError, fromBlob, fromBytes, fromFile } from "../../bindings/io/source.js";
import { loadBlob, loadFile, loadSource, openFile } from "../../bindings/load-file.js";
import { BUILT_CLI, cli } from "../helpers/cli.js";
import { buildModel, le } from "../helpers/onnx-models.js";
import { parseNpy } from "../helpers/parsers.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-onnx-ext-src-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VALUES = Float32Array.from({ length: 6 }, (_, i) => i * 1.5 - 2);

function externalModel(location: string, dims: number[] = [2, 3], offset = 16): Uint8Array {
  return buildModel({ graph: { initializers: [{ name: "ext", dataType: 1, dims, external: { location, offset } }] } });
}

/** A folder holding `name` (the weight at offset 16) and model.onnx naming it. */
function modelFolder(label: string, name = "data.bin"): { folder: string; model: string; bytes: Uint8Array } {
  const folder = join(dir, label);
  mkdirSync(folder, { recursive: true });
  const data = new Uint8Array(16 + 24);
  data.set(le(VALUES), 16);
  writeFileSync(join(folder, name), data);
  const bytes = externalModel(name);
  const model = join(folder, "model.onnx");
  writeFileSync(model, bytes);
  return { folder, model, bytes };
}

function npyFloats(file: Uint8Array): number[] {
  const data = parseNpy(new Uint8Array(file)).data;
  return Array.from(new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)));
}

const values = (t: { data: ArrayBufferView }) => Array.from(t.data as Float32Array);
const NO_FOLDER = /"ext" is stored in the external file "data\.bin".*not opened from a path of a regular file/;

describe("a name is not a path", () => {
  it("a File named with a path in the model's folder has no folder (loadBlob)", async () => {
    const { folder, bytes } = modelFolder("blob");
    const file = new File([bytes as Uint8Array<ArrayBuffer>], join(folder, "model.onnx"));
    await expect(loadBlob(file)).rejects.toThrow(SourceError);
    await expect(loadBlob(file)).rejects.toThrow(NO_FOLDER);
  });

  it("fromBytes and fromBlob named with the model's path have no folder (readFrom + loadTensor)", async () => {
    const { model, bytes } = modelFolder("bytes");
    for (const source of [fromBytes(bytes, model), fromBlob(new Blob([bytes as Uint8Array<ArrayBuffer>]), model)]) {
      const file = await onnx.readFrom(source);
      await expect(onnx.loadTensor(source, onnx.tensorInfos(file)[0]!)).rejects.toThrow(NO_FOLDER);
    }
    await expect(loadSource(fromBytes(bytes, model))).rejects.toThrow(NO_FOLDER);
  });

  it("a path of a regular file has its folder: loadFile, openFile, fromFile", async () => {
    const { model } = modelFolder("path");
    expect(values((await loadFile(model)).tensors[0]!)).toEqual(Array.from(VALUES));
    const opened = await openFile(model);
    expect(values(await opened.loadTensor("ext"))).toEqual(Array.from(VALUES));
    await opened.close();
    const source = await fromFile(model);
    expect(values(await onnx.loadTensor(source, onnx.tensorInfos(await onnx.readFrom(source))[0]!))).toEqual(
      Array.from(VALUES),
    );
    await source.close();
    // a file: URL is a path too
    expect(values((await loadFile(pathToFileURL(model))).tensors[0]!)).toEqual(Array.from(VALUES));
    const byUrl = await fromFile(pathToFileURL(model) as unknown as string);
    expect(values(await onnx.loadTensor(byUrl, onnx.tensorInfos(await onnx.readFrom(byUrl))[0]!))).toEqual(
      Array.from(VALUES),
    );
    await byUrl.close();
  });
});

describe("the externalData option", () => {
  it("a folder for bytes and Blobs; it overrides the folder of a path", async () => {
    const { folder, model, bytes } = modelFolder("named");
    expect(
      values(
        (await loadBlob(new File([bytes as Uint8Array<ArrayBuffer>], "m.onnx"), { externalData: folder })).tensors[0]!,
      ),
    ).toEqual(Array.from(VALUES));
    expect(values((await loadSource(fromBytes(bytes), { externalData: folder })).tensors[0]!)).toEqual(
      Array.from(VALUES),
    );
    const file = await onnx.readFrom(withExternalData(fromBytes(bytes), folder));
    expect(file).toBeDefined();
    // another folder, holding other values under the same name, wins over the model's own
    const other = join(dir, "other");
    mkdirSync(other);
    const data = new Uint8Array(40);
    data.set(le(Float32Array.of(9, 8, 7, 6, 5, 4)), 16);
    writeFileSync(join(other, "data.bin"), data);
    expect(values((await loadFile(model, { externalData: other })).tensors[0]!)).toEqual([9, 8, 7, 6, 5, 4]);
    const opened = await openFile(model, { externalData: other });
    expect(values(await opened.loadTensor("ext"))).toEqual([9, 8, 7, 6, 5, 4]);
    await opened.close();
  });

  it("a resolver is asked for the location with the tensor, offset and length; bytes or a ByteSource", async () => {
    const { bytes } = modelFolder("resolver");
    const asked: unknown[] = [];
    const data = new Uint8Array(40);
    data.set(le(VALUES), 16);
    const loaded = await loadSource(fromBytes(bytes), {
      externalData: (location, request) => {
        asked.push({ location, ...request });
        return asked.length === 1 ? data : fromBytes(data);
      },
    });
    expect(values(loaded.tensors[0]!)).toEqual(Array.from(VALUES));
    expect(asked).toEqual([{ location: "data.bin", tensor: "ext", offset: 16, length: 24 }]);
    const again = await loadSource(fromBytes(bytes), { externalData: async () => fromBytes(data) });
    expect(values(again.tensors[0]!)).toEqual(Array.from(VALUES));
    // a resolver that refuses: a SourceError naming the tensor and the location
    await expect(
      loadSource(fromBytes(bytes), {
        externalData: () => {
          throw new Error("not here");
        },
      }),
    ).rejects.toThrow(/"ext" is stored in the external file "data\.bin".*not here/);
    await expect(loadSource(fromBytes(bytes), { externalData: () => 42 as never })).rejects.toThrow(SourceError);
    // a resolver whose file is too short
    await expect(loadSource(fromBytes(bytes), { externalData: () => new Uint8Array(20) })).rejects.toThrow(
      /ends before bytes 16\.\.40/,
    );
  });

  it("an option that is neither a folder nor a function is a TypeError", async () => {
    const { bytes, model } = modelFolder("bad-option");
    await expect(loadSource(fromBytes(bytes), { externalData: 3 as never })).rejects.toThrow(TypeError);
    await expect(openFile(model, { externalData: "" })).rejects.toThrow(TypeError);
  });
});

describe("what is read as external data", () => {
  it("a file whose name starts with '..' is a file of the folder", async () => {
    const { model } = modelFolder("dotdot-name", "..w.bin");
    expect(values((await loadFile(model)).tensors[0]!)).toEqual(Array.from(VALUES));
  });

  it("a FIFO named as location is refused at once (never a hang), naming the tensor and the location", async () => {
    const folder = join(dir, "fifo");
    mkdirSync(folder);
    const made = spawnSync("mkfifo", [join(folder, "data.bin")]);
    if (made.status !== 0) return; // no mkfifo here
    writeFileSync(join(folder, "model.onnx"), externalModel("data.bin"));
    await expect(loadFile(join(folder, "model.onnx"))).rejects.toThrow(
      /"ext" is stored in the external file "data\.bin".*not a regular file/,
    );
  }, 20_000);

  it("a folder or a device named as location is refused, naming the tensor and the location", async () => {
    const folder = join(dir, "folder-location");
    mkdirSync(join(folder, "data.bin"), { recursive: true });
    writeFileSync(join(folder, "model.onnx"), externalModel("data.bin"));
    await expect(loadFile(join(folder, "model.onnx"))).rejects.toThrow(
      /"ext" is stored in the external file "data\.bin".*director/,
    );
    if (!existsSync("/dev/zero")) return;
    await expect(loadSource(fromBytes(externalModel("zero")), { externalData: "/dev" })).rejects.toThrow(
      /"zero".*not a regular file/,
    );
  });

  it("a weight more bytes than one array holds is a LIMIT error when loaded whole", async () => {
    const folder = join(dir, "huge");
    mkdirSync(folder);
    writeFileSync(join(folder, "data.bin"), new Uint8Array(8));
    writeFileSync(join(folder, "model.onnx"), externalModel("data.bin", [2 ** 31], 0)); // 8 GiB of float32
    await expect(loadFile(join(folder, "model.onnx"))).rejects.toMatchObject({ code: "LIMIT", field: "ext" });
    const opened = await openFile(join(folder, "model.onnx"));
    await expect(opened.loadTensor("ext")).rejects.toMatchObject({ code: "LIMIT" });
    await opened.close();
  });
});

describe("CLI: standard input and pipes have no folder; --external-dir names one", () => {
  it.skipIf(!existsSync(BUILT_CLI))(
    "convert - with external data is a SourceError (exit 1), nothing taken from the current folder",
    () => {
      const { folder, model } = modelFolder("cli-stdin");
      const out = join(folder, "out.npy");
      // the built CLI in a child process, its standard input a pipe, run in the folder that holds data.bin
      const r = spawnSync("sh", ["-c", `cat "${model}" | "${process.execPath}" "${BUILT_CLI}" convert - "${out}"`], {
        cwd: folder,
      });
      expect(r.status, r.stderr.toString()).toBe(1);
      expect(r.stderr.toString()).toMatch(/"ext" is stored in the external file "data\.bin"/);
      expect(r.stderr.toString()).not.toMatch(/internal error/);
      expect(existsSync(out)).toBe(false);
      const named = spawnSync("sh", [
        "-c",
        `cat "${model}" | "${process.execPath}" "${BUILT_CLI}" convert - "${out}" --external-dir "${folder}"`,
      ]);
      expect(named.status, named.stderr.toString()).toBe(0);
      expect(npyFloats(readFileSync(out))).toEqual(Array.from(VALUES));
    },
  );

  it("--external-dir on every command that reads a model; not a folder: exit 2", async () => {
    const { folder, model } = modelFolder("cli-dir");
    const other = join(dir, "cli-dir-other");
    mkdirSync(other);
    const data = new Uint8Array(40);
    data.set(le(Float32Array.of(9, 8, 7, 6, 5, 4)), 16);
    writeFileSync(join(other, "data.bin"), data);
    const stats = await cli("stats", model, "--external-dir", other, "--json");
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/"max": 9/);
    for (const args of [
      ["inspect", model],
      ["verify", model],
      ["diff", model, model],
      ["stats", model],
      ["show", model, "ext"],
    ]) {
      const r = await cli(...args, "--external-dir", other);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    const extracted = join(folder, "extracted");
    expect((await cli("extract", model, extracted, "--external-dir", other)).code).toBe(0);
    expect(npyFloats(readFileSync(join(extracted, "ext.npy")))).toEqual([9, 8, 7, 6, 5, 4]);
    const shown = await cli("show", model, "ext", "--external-dir", other);
    expect(shown.stdout).toMatch(/9\.?.*8\.?.*7\.?/s);
    const bad = await cli("stats", model, "--external-dir", join(folder, "data.bin"));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--external-dir takes a folder/);
  });

  it("--external-dir for inputs that cannot have external data is a usage error naming the input", async () => {
    const { folder, model } = modelFolder("cli-no-ext");
    const npy = join(folder, "w.npy");
    expect((await cli("convert", model, npy, "--external-dir", folder)).code).toBe(0);
    const safetensors = join(folder, "w.safetensors");
    expect((await cli("convert", model, safetensors, "--external-dir", folder)).code).toBe(0);
    for (const args of [
      ["inspect", safetensors],
      ["verify", npy],
      ["stats", npy, safetensors],
      ["diff", npy, safetensors],
      ["show", npy],
      ["extract", safetensors, join(folder, "never")],
      ["convert", safetensors, join(folder, "never.npy")],
      ["patch", safetensors, npy, join(folder, "never.safetensors")],
    ]) {
      const r = await cli(...args, "--external-dir", folder);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(
        /--external-dir is where an ONNX model's external data is read from, and .*w\.(npy|safetensors) is a (npy|safetensors) file/,
      );
    }
    expect(existsSync(join(folder, "never"))).toBe(false);
    // one ONNX model among the inputs is enough for it to apply
    const mixed = await cli("stats", npy, model, "--external-dir", folder, "--json");
    expect(mixed.code, mixed.stderr).toBe(0);
    const batch = await cli(
      "convert",
      "--out-dir",
      join(folder, "batch"),
      "--to",
      "npy",
      npy,
      model,
      "--external-dir",
      folder,
    );
    expect(batch.stderr).not.toMatch(/--external-dir is where/);
    const diffed = await cli("diff", npy, model, "--external-dir", folder);
    expect(diffed.stderr).not.toMatch(/--external-dir is where/);
  });
});
