/**
 * The format registry (bindings/formats/registry.ts) is the one list of formats: its two lists agree, what derives
 * from it (package.json's subpaths, typedoc.json's entry points, the CLI's format list) is up to date, and a format
 * added through the registry alone (a toy one, here) is detected, read, inspected by the CLI and patched.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  FORMATS,
  type FormatModules,
  detectFormat,
  formatModule,
  formatOfName,
  loadTensor,
  readAny,
  readFromAny,
} from "../../bindings/any.js";
import { decodeInChunks } from "../../bindings/export/stream.js";
import { runCli } from "../../bindings/cli/run.js";
import { CAPABILITIES, READINGS, capabilitiesOf, readingOf, registerFormat } from "../../bindings/formats/registry.js";
import type {
  FormatCapabilities,
  FormatId,
  FormatModule,
  FormatReading,
  InspectResult,
} from "../../bindings/formats/types.js";
import { fromBytes, type ByteSource, readExactly } from "../../bindings/io/source.js";
import { loadTensor as loadPlainTensor } from "../../bindings/io/lazy.js";
import { patch } from "../../bindings/patch.js";
import { rangePlan } from "../../bindings/patch/plan.js";
import { type DecodeOptions, type TensorInfo, decodeTensor } from "../../bindings/tensor.js";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";
import { TYPED_CHUNK_TUNING } from "../../bindings/formats/onnx/typed-chunks.js";
import { buildModel, le, writeTensor } from "../helpers/onnx-models.js";
// @ts-expect-error: a plain .mjs script without types
import { expectedFiles, registryIds } from "../../scripts/sync-registry.mjs";

const root = resolve(__dirname, "../..");

describe("the registry's lists", () => {
  it("name the same formats in the same order, FORMATS' and FormatId's", () => {
    const ids = READINGS.map((r) => r.id);
    expect(CAPABILITIES.map((c) => c.id)).toEqual(ids);
    expect(FORMATS.map((f) => f.id)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    CAPABILITIES.forEach((c, i) => {
      expect(c.module.id).toBe(ids[i]);
      expect(c.module.extensions).toEqual(READINGS[i]!.extensions);
      for (const key of ["detect", "read", "readFrom", "tensors", "tensorInfos", "loadTensor"] as const)
        expect(READINGS[i]![key], `${ids[i]}.${key}`).toBe(c.module[key]);
    });
    // every FormatId has a module, and every module's id is a FormatId (a compile-time check)
    const missing: Exclude<FormatId, keyof FormatModules> extends never ? true : false = true;
    const extra: Exclude<keyof FormatModules, FormatId> extends never ? true : false = true;
    expect([missing, extra]).toEqual([true, true]);
  });

  it("is what package.json's subpaths and typedoc.json's entry points say (node scripts/sync-registry.mjs rewrites them)", () => {
    const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    const typedocJson = JSON.parse(readFileSync(join(root, "typedoc.json"), "utf8"));
    const ids = READINGS.map((r) => r.id);
    expect(registryIds()).toEqual(ids);
    const wanted = expectedFiles(ids, packageJson, typedocJson);
    expect(packageJson).toEqual(wanted.packageJson);
    expect(Object.keys(packageJson.exports)).toEqual(Object.keys(wanted.packageJson.exports));
    expect(typedocJson.entryPoints).toEqual(wanted.typedocJson.entryPoints);
  });

  it("a stale package.json is caught: a format missing from its exports, or out of order", () => {
    const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    const typedocJson = JSON.parse(readFileSync(join(root, "typedoc.json"), "utf8"));
    const ids = READINGS.map((r) => r.id);
    const { "./npz": _npz, ...withoutNpz } = packageJson.exports;
    expect({ ...packageJson, exports: withoutNpz }).not.toEqual(
      expectedFiles(ids, { ...packageJson, exports: withoutNpz }, typedocJson).packageJson,
    );
    const swapped = [ids[1], ids[0], ...ids.slice(2)];
    expect(expectedFiles(swapped, packageJson, typedocJson).typedocJson.entryPoints).not.toEqual(
      typedocJson.entryPoints,
    );
  });

  it("every format is named in the CLI's usage, the input-only ones after 'read only'", async () => {
    let usage = "";
    await runCli(["--help"], {
      stdout: { write: (t: string) => ((usage += t), true) },
      stderr: { write: () => true },
    } as never);
    const formats = usage.slice(usage.indexOf("Formats:"));
    const readOnly = formats.slice(formats.indexOf("read only:"));
    for (const { module } of CAPABILITIES) {
      const named = new RegExp(`(^|[\\s,:])${module.id}([\\s,;.(]|$)`);
      expect(formats, module.id).toMatch(named);
      expect(named.test(readOnly), module.id).toBe(module.inputOnly === true);
    }
  });
});

// ------------------------------------------------------------------------------------------------------------------
// A toy format added through the registry alone: "TOY1", a u32 count n, then n little-endian float32 values, one
// tensor named "values".

interface ToyFile {
  count: number;
  /** The whole file (read()) or undefined (readFrom()). */
  bytes: Uint8Array | undefined;
}

const TOY = "toy" as FormatId;
const MAGIC = [0x54, 0x4f, 0x59, 0x31];

function toyBytes(values: number[]): Uint8Array {
  const out = new Uint8Array(8 + 4 * values.length);
  out.set(MAGIC);
  const view = new DataView(out.buffer);
  view.setUint32(4, values.length, true);
  values.forEach((v, i) => view.setFloat32(8 + 4 * i, v, true));
  return out;
}

function toyInfos(file: ToyFile): TensorInfo[] {
  return [
    {
      name: "values",
      dtype: "float32",
      shape: [file.count],
      byteOffset: 8,
      byteLength: 4 * file.count,
      byteOrder: "le",
      layout: "row-major",
      format: TOY,
    },
  ];
}

const toy = {
  id: TOY,
  extensions: [".toy"],
  detect: (head: Uint8Array) => MAGIC.every((b, i) => head[i] === b),
  read: (bytes: Uint8Array): ToyFile => ({
    count: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true),
    bytes,
  }),
  readFrom: async (source: ByteSource): Promise<ToyFile> => {
    const head = await readExactly(source, 0, 8, "toy", "header");
    return { count: new DataView(head.buffer, head.byteOffset, 8).getUint32(4, true), bytes: undefined };
  },
  write: (file: ToyFile) => file.bytes!,
  tensorInfos: toyInfos,
  tensors: (file: ToyFile, options?: DecodeOptions) => {
    const info = toyInfos(file)[0]!;
    return [decodeTensor(file.bytes!.subarray(8, 8 + info.byteLength), info, options)];
  },
  loadTensor: (source: ByteSource, info: TensorInfo, options?: DecodeOptions) =>
    loadPlainTensor(source, { ...info, format: undefined }, options),
  inspect: (file: ToyFile): InspectResult => ({
    format: TOY,
    version: 1,
    meta: { count: file.count },
    tensors: [{ name: "values", dtype: "float32", shape: [file.count], byteLength: 4 * file.count }],
  }),
  verify: () => [],
  blobs: () => [],
} satisfies FormatModule<ToyFile>;

const reading: FormatReading<ToyFile> = toy;
const capabilities: FormatCapabilities<FormatModule<unknown, never, never>, ToyFile> = {
  id: TOY,
  module: toy,
  planPatch: async (_file, infos, _source, size, incoming, options) => rangePlan("toy", size, infos, incoming, options),
};

/** Runs `body` with the toy format registered (before `before`), and unregisters it after. */
async function withToy<T>(body: () => Promise<T>, before?: FormatId): Promise<T> {
  const unregister = registerFormat(reading, capabilities, before);
  try {
    return await body();
  } finally {
    unregister();
  }
}

describe("a format added through the registry alone", () => {
  const bytes = toyBytes([1.5, -2, 3.25]);

  it("is unknown before it is registered and after it is removed", async () => {
    expect(detectFormat(bytes)).toBeUndefined();
    expect(() => readAny(bytes)).toThrow(/unknown format/);
    await withToy(async () => expect(detectFormat(bytes)).toBe(TOY));
    expect(detectFormat(bytes)).toBeUndefined();
    expect(readingOf(TOY)).toBeUndefined();
    expect(capabilitiesOf(TOY)).toBeUndefined();
  });

  it("is detected, read whole and lazily, found by formatModule, and loads by info", () =>
    withToy(async () => {
      expect(detectFormat(bytes)).toBe(TOY);
      const whole = readAny(bytes);
      expect(whole.format).toBe(TOY);
      expect(Array.from(whole.tensors()[0]!.data as Float32Array)).toEqual([1.5, -2, 3.25]);
      const lazy = await readFromAny(fromBytes(bytes));
      expect(lazy.format).toBe(TOY);
      expect(Array.from((await lazy.loadTensor("values")).data as Float32Array)).toEqual([1.5, -2, 3.25]);
      expect(Array.from((await loadTensor(fromBytes(bytes), lazy.tensorInfos()[0]!)).data as Float32Array)).toEqual([
        1.5, -2, 3.25,
      ]);
      expect((formatModule(TOY as never) as unknown as typeof toy).inspect).toBe(toy.inspect);
      // (no chosenByName: its extension picks no parser for bytes it does not recognise)
      expect(formatOfName("x.toy")).toBeUndefined();
    }));

  it("is listed among the formats tried when nothing matches", () =>
    withToy(async () => {
      expect(() => readAny(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).toThrow(/toy/);
    }));

  it("is patched through its planPatch capability", () =>
    withToy(async () => {
      const result = await patch(bytes, {
        values: { name: "values", dtype: "float32", shape: [3], data: new Float32Array([7, 8, 9]) },
      });
      expect(result.format).toBe(TOY);
      expect(result.replaced).toEqual(["values"]);
      expect(result.bytes).toEqual(toyBytes([7, 8, 9]));
      // the hostile case: a shape the file does not hold is refused before a byte is written
      await expect(
        patch(bytes, { values: { name: "values", dtype: "float32", shape: [2], data: new Float32Array([7, 8]) } }),
      ).rejects.toThrow(RangeError);
    }));

  it("without planPatch it holds weights but is not a model to patch (UNSUPPORTED, as safetensors)", async () => {
    const unregister = registerFormat(reading, { id: TOY, module: toy });
    try {
      await expect(
        patch(bytes, { values: { name: "values", dtype: "float32", shape: [3], data: new Float32Array([7, 8, 9]) } }),
      ).rejects.toThrow(/not a model format that can be patched/);
    } finally {
      unregister();
    }
  });

  it("is inspected by the CLI (runCli, in process)", () =>
    withToy(async () => {
      const dir = mkdtempSync(join(tmpdir(), "tensorfile-toy-"));
      try {
        const path = join(dir, "model.toy");
        writeFileSync(path, bytes);
        let out = "";
        let err = "";
        const io = {
          stdout: { write: (t: string) => ((out += t), true) },
          stderr: { write: (t: string) => ((err += t), true) },
        } as never;
        expect(await runCli(["inspect", "--json", path], io), err).toBe(0);
        const shown = JSON.parse(out);
        expect(shown.format).toBe("toy");
        expect(shown.meta).toEqual({ count: 3 });
        expect(shown.tensors).toEqual([{ name: "values", dtype: "float32", shape: [3], byteLength: 12 }]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }));

  it("detection order is the registry's: registered before bw2l, a detector that claims everything wins", async () => {
    const greedy = { ...reading, detect: () => true };
    const unregister = registerFormat(greedy, capabilities, "bw2l");
    try {
      expect(detectFormat(new Uint8Array([0x42, 0x57, 0x32, 0x4c]))).toBe(TOY);
    } finally {
      unregister();
    }
    expect(READINGS.map((r) => r.id)).not.toContain(TOY);
  });

  it("refuses an id that is taken and a reading and capabilities of different formats", () => {
    expect(() => registerFormat({ ...reading, id: "bw2l" }, { ...capabilities, id: "bw2l" })).toThrow(TypeError);
    expect(() => registerFormat(reading, { ...capabilities, id: "tsm" })).toThrow(TypeError);
    expect(READINGS.map((r) => r.id)).not.toContain(TOY);
  });

  it("a detector that throws is 'not this format', never an error", () =>
    withToy(async () => {
      const unregister = registerFormat(
        {
          ...reading,
          id: "thrower" as FormatId,
          detect: () => {
            throw new Error("boom");
          },
        },
        { ...capabilities, id: "thrower" as FormatId },
      );
      try {
        expect(detectFormat(bytes)).toBe(TOY);
      } finally {
        unregister();
      }
    }));
});

// ------------------------------------------------------------------------------------------------------------------
// `convert IN OUT` in IN's own format asks the format's capabilities (reencode, containers), never
// its id: the toy format declares each and the CLI (in process) follows it.

/** Runs the CLI in process; resolves to its exit status and what it printed on standard error. */
async function runQuietly(args: string[]): Promise<{ status: number; err: string }> {
  let err = "";
  const io = {
    stdout: { write: () => true },
    stderr: { write: (t: string) => ((err += t), true) },
  } as never;
  const status = await runCli(args, io);
  return { status, err };
}

/** Runs `body` with a temporary folder holding model.toy (the values 1.5, -2, 3.25). */
async function inToyFolder<T>(body: (dir: string, model: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "tensorfile-toy-convert-"));
  try {
    const model = join(dir, "model.toy");
    writeFileSync(model, toyBytes([1.5, -2, 3.25]));
    return await body(dir, model);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("convert in the input's own format, through the format's capabilities", () => {
  const reencoding: FormatCapabilities<FormatModule<unknown, never, never>, ToyFile> = {
    ...capabilities,
    reencode: {
      dtypes: ["float32"],
      quantize: ["fp16"],
      read: (bytes) => toy.read(bytes),
      refusal: (file, quantize) => (file.count > 2 && quantize === "fp16" ? undefined : "toy: cannot quantize this"),
      // a re-encode the test can tell from write(): the values halved
      write: (file) => toyBytes([0.75, -1, 1.625].slice(0, file.count)),
    },
  };

  it("--quantize and --dtype go to the format's reencode capability", () =>
    inToyFolder(async (dir, model) => {
      const unregister = registerFormat(reading, reencoding);
      try {
        const out = join(dir, "half.toy");
        const { status, err } = await runQuietly(["convert", model, out, "--quantize", "fp16"]);
        expect(status, err).toBe(0);
        expect(new Uint8Array(readFileSync(out))).toEqual(toyBytes([0.75, -1, 1.625]));
        expect(err).toContain(`wrote ${out} (toy, 20 bytes)`);
        // the hostile cases: a mode the format does not take, and one its refusal turns down for this file
        const i8 = await runQuietly(["convert", model, join(dir, "i8.toy"), "--quantize", "i8"]);
        expect(i8.status).toBe(2);
        expect(i8.err).toMatch(/--quantize applies to bw2l re-encodes .*; toy files are written as they are stored/);
      } finally {
        unregister();
      }
      const refusing = {
        ...reencoding,
        reencode: { ...reencoding.reencode!, refusal: () => "toy: cannot quantize this" },
      };
      const unregisterRefusing = registerFormat(reading, refusing);
      try {
        const refused = await runQuietly(["convert", model, join(dir, "refused.toy"), "--quantize", "fp16"]);
        expect(refused.status).toBe(2);
        expect(refused.err).toContain("toy: cannot quantize this");
      } finally {
        unregisterRefusing();
      }
    }));

  it("a format without the reencode capability refuses --dtype (exit 2)", () =>
    inToyFolder(async (dir, model) => {
      await withToy(async () => {
        const { status, err } = await runQuietly(["convert", model, join(dir, "wide.toy"), "--dtype", "float32"]);
        expect(status).toBe(2);
        expect(err).toMatch(/--dtype applies to bw2l re-encodes .*; toy files are written as they are stored/);
      });
    }));

  it("an extension of its containers capability re-wraps the file; its own wrapping is written as it is", () =>
    inToyFolder(async (dir, model) => {
      const wrapped = { ...toy, extensions: [".toy", ".toyc"] };
      const unregister = registerFormat(
        { ...reading, extensions: wrapped.extensions },
        {
          ...capabilities,
          module: wrapped,
          containers: {
            extensions: [".toy", ".toyc"],
            wrappingOf: () => ".toy",
            names: { ".toyc": "toy container" },
            rewrap: (bytes) => new Uint8Array([...bytes, 0xff]),
          },
        },
      );
      try {
        const out = join(dir, "model.toyc");
        const { status, err } = await runQuietly(["convert", model, out]);
        expect(status, err).toBe(0);
        expect(new Uint8Array(readFileSync(out))).toEqual(new Uint8Array([...toyBytes([1.5, -2, 3.25]), 0xff]));
        expect(err).toContain(`wrote ${out} (toy container, 21 bytes)`);
        const same = join(dir, "same.toy");
        expect((await runQuietly(["convert", model, same])).status).toBe(0);
        expect(new Uint8Array(readFileSync(same))).toEqual(toyBytes([1.5, -2, 3.25]));
      } finally {
        unregister();
      }
    }));
});

describe("convert in the input's own format streams through the format's rewritePieces capability", () => {
  it("the pieces it gives are OUT's bytes; a rejection leaves no OUT; without it, write(read(IN)) is written", () =>
    inToyFolder(async (dir, model) => {
      // pieces the test can tell from write(): a first piece, then chunks read from the source as they are consumed
      const rewriting: FormatCapabilities<FormatModule<unknown, never, never>, ToyFile> = {
        ...capabilities,
        rewritePieces: async (source) => {
          const chunks = async function* (): AsyncGenerator<Uint8Array> {
            yield await readExactly(source, 0, 4, "toy");
            yield await readExactly(source, 4, toyBytes([1.5, -2, 3.25]).length - 4, "toy");
          };
          return [new Uint8Array([0xee]), chunks()];
        },
      };
      const unregister = registerFormat(reading, rewriting);
      try {
        const out = join(dir, "streamed.toy");
        const { status, err } = await runQuietly(["convert", model, out]);
        expect(status, err).toBe(0);
        expect(new Uint8Array(readFileSync(out))).toEqual(new Uint8Array([0xee, ...toyBytes([1.5, -2, 3.25])]));
        expect(err).toContain(`wrote ${out} (toy, 21 bytes)`);
      } finally {
        unregister();
      }
      // the hostile case: the capability rejects (read()'s checks failed): its error, and OUT is never created
      const unregisterRejecting = registerFormat(reading, {
        ...capabilities,
        rewritePieces: () => Promise.reject(new RangeError("toy: the checks of read() failed")),
      });
      const refused = join(dir, "refused.toy");
      try {
        const { status, err } = await runQuietly(["convert", model, refused]);
        expect(status).not.toBe(0);
        expect(err).toContain("toy: the checks of read() failed");
        expect(() => readFileSync(refused)).toThrow();
      } finally {
        unregisterRejecting();
      }
      // without the capability: write(read(IN)), the file as it is
      await withToy(async () => {
        const plain = join(dir, "plain.toy");
        expect((await runQuietly(["convert", model, plain])).status).toBe(0);
        expect(new Uint8Array(readFileSync(plain))).toEqual(toyBytes([1.5, -2, 3.25]));
      });
    }));

  it("onnx and april declare it, and no other built-in format", () => {
    const streamed = CAPABILITIES.filter((format) => format.rewritePieces !== undefined).map((format) => format.id);
    expect(streamed.sort()).toEqual(["april", "onnx"]);
  });
});

describe("export streams a format's own stored form through its tensorChunks capability", () => {
  it("decodeInChunks asks the format of the info, and loads whole when it declines", async () => {
    const bytes = toyBytes([1.5, -2, 3.25]);
    const asked: number[] = [];
    const unregister = registerFormat(reading, {
      ...capabilities,
      tensorChunks: (_source, info, _decode, pieceElements) => {
        asked.push(pieceElements);
        if (info.name !== "values") return undefined;
        return (async function* () {
          yield new Uint8Array([1, 2]);
          yield new Uint8Array([3]);
        })();
      },
    });
    try {
      const source = fromBytes(bytes);
      const lazy = await readFromAny(source);
      const info = lazy.tensorInfos()[0]!;
      const pieces: number[][] = [];
      for await (const piece of decodeInChunks({ ...lazy, source }, info, undefined)) pieces.push([...piece]);
      expect(pieces).toEqual([[1, 2], [3]]);
      expect(asked.length).toBeGreaterThan(0);
      // declined (another name): the tensor is loaded whole, as one piece of its decoded bytes
      const whole: Uint8Array[] = [];
      for await (const piece of decodeInChunks({ ...lazy, source }, { ...info, name: "other" }, undefined))
        whole.push(piece);
      expect(whole).toHaveLength(1);
      expect(Array.from(new Float32Array(whole[0]!.slice().buffer))).toEqual([1.5, -2, 3.25]);
    } finally {
      unregister();
    }
  });
});

describe("export asks the capabilities only: ONNX's external and typed-field weights are its tensorChunks", () => {
  it("no module of bindings/export imports a format's folder (only the registry and the types)", () => {
    const folder = join(root, "bindings/export");
    for (const name of readdirSync(folder).filter((file) => file.endsWith(".ts"))) {
      const text = readFileSync(join(folder, name), "utf8");
      const imports = [...text.matchAll(/from "(\.\.\/formats\/[^"]+)"/g)].map((match) => match[1]);
      expect(
        imports.filter((path) => !/^\.\.\/formats\/(registry|types)\.js$/.test(path ?? "")),
        name,
      ).toEqual([]);
    }
  });

  it("onnx and onnx-tensor stream a large typed-field weight, decline a raw_data one; the bytes are loadTensor's", async () => {
    const n = 5000;
    const values = Array.from({ length: n }, (_, i) => i * 3 - 7000);
    const bytes = buildModel({
      graph: {
        initializers: [
          { name: "typed", dataType: 6, dims: [n], int32s: values },
          { name: "raw", dataType: 6, dims: [n], raw: le(Int32Array.from(values)) },
        ],
      },
    });
    const proto = new ProtoWriter();
    writeTensor(proto, { name: "typed", dataType: 6, dims: [n], int32s: values });
    const tensorBytes = proto.finish();
    const saved = { ...TYPED_CHUNK_TUNING };
    Object.assign(TYPED_CHUNK_TUNING, { windowBytes: 1024, pieceBytes: 4096, minBytes: 1024 });
    try {
      for (const [format, file] of [
        ["onnx", bytes],
        ["onnx-tensor", tensorBytes],
      ] as const) {
        const chunks = capabilitiesOf(format)?.tensorChunks;
        expect(chunks, format).toBeDefined();
        const source = fromBytes(file);
        const formatReading = readingOf(format)!;
        const opened = await formatReading.readFrom(source);
        for (const info of formatReading.tensorInfos(opened)) {
          expect(info.format).toBe(format);
          const pieces = chunks!(source, info, { dtype: "float32" }, 1000);
          if (info.name === "raw") {
            expect(pieces, "a raw_data weight is read plainly by export").toBeUndefined();
            continue;
          }
          expect(pieces, `${format} ${info.name}`).toBeDefined();
          const streamed: number[] = [];
          let count = 0;
          for await (const piece of pieces!) {
            streamed.push(...new Float32Array(piece.slice().buffer));
            count++;
          }
          expect(count).toBeGreaterThan(1);
          const whole = await formatReading.loadTensor(source, info, { dtype: "float32" });
          expect(streamed).toEqual([...(whole.data as Float32Array)]);
          expect(streamed.slice(0, 3)).toEqual([-7000, -6997, -6994]);
        }
      }
    } finally {
      Object.assign(TYPED_CHUNK_TUNING, saved);
    }
  });
});

describe("patch copies stored bytes through for a format that declares rawReadable", () => {
  it("the weights' loadTensor is never called when their format is rawReadable, and is without it", async () => {
    let loads = 0;
    const counting = {
      ...reading,
      loadTensor: (source: ByteSource, info: TensorInfo, options?: DecodeOptions) => {
        loads++;
        return reading.loadTensor(source, info, options);
      },
    };
    for (const rawReadable of [true, false]) {
      loads = 0;
      const unregister = registerFormat(counting, { ...capabilities, rawReadable });
      try {
        const result = await patch(toyBytes([1.5, -2, 3.25]), fromBytes(toyBytes([7, 8, 9])));
        expect(result.bytes).toEqual(toyBytes([7, 8, 9]));
        expect(loads, `rawReadable ${rawReadable}`).toBe(rawReadable ? 0 : 1);
      } finally {
        unregister();
      }
    }
  });
});
