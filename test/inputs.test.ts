/**
 * What users really pass: Node Buffers (pooled, at odd offsets), views, ArrayBuffers, and wrong types. Every
 * entry point gives the same result for the same bytes, on both kernel backends, never writes into the
 * caller's bytes, and refuses other types with a TypeError that says what to pass.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { exampleFiles } from "../bindings/examples.js";
import { BACKENDS, withBackend } from "./helpers/backends.js";
import { haveFixtures, listFixtures, readFixture } from "./helpers/fixtures.js";

const FORMAT_MODULES = {
  bw2l: lib.bw2l,
  april: lib.april,
  tsm: lib.tsm,
  primitiv: lib.primitiv,
  spraak: lib.spraak,
  onnx: lib.onnx,
} as const;

const examples = exampleFiles().map((e) => ({ label: `example ${e.name}`, bytes: e.bytes }));
const fixtures = haveFixtures()
  ? ["bw2l", "april", "tennis", "primitiv", "spraak"].flatMap((folder) =>
      listFixtures(folder)
        .filter((f) => !/\.(json|md|txt)$/.test(f))
        .map((f) => ({ label: `fixture ${folder}/${f}`, bytes: readFixture(folder, f) })),
    )
  : [];
const readable = [...examples, ...fixtures].filter((c) => {
  try {
    lib.readAny(c.bytes);
    return true;
  } catch {
    return false;
  }
});

function hash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The same bytes in the forms users pass: a Buffer from the shared pool, Buffers and views at offsets 1-7. */
function inputForms(bytes: Uint8Array): { label: string; input: Uint8Array }[] {
  const forms: { label: string; input: Uint8Array }[] = [{ label: "Buffer.from", input: Buffer.from(bytes) }];
  for (let offset = 1; offset < 8; offset++) {
    const backing = Buffer.alloc(bytes.length + offset + 3, 0xa5);
    backing.set(bytes, offset);
    forms.push({ label: `Buffer at offset ${offset}`, input: backing.subarray(offset, offset + bytes.length) });
    const plain = new Uint8Array(bytes.length + offset);
    plain.set(bytes, offset);
    forms.push({ label: `view at offset ${offset}`, input: plain.subarray(offset) });
  }
  return forms;
}

function summary(tensors: lib.NamedTensor[]): string[] {
  return tensors.map((t) => {
    const raw = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    return `${t.name} ${t.dtype} [${t.shape.join(",")}] ${hash(raw)}`;
  });
}

describe.each(BACKENDS)("backend %s: every input form gives the same tensors and is left unchanged", (backend) => {
  it.each(readable)("$label", async ({ bytes }) => {
    const reference = withBackend(backend, () => ({
      raw: summary(lib.readAny(bytes).tensors()),
      float: summary(lib.readAny(bytes).tensors({ dtype: "float32" })),
    }));
    for (const { label, input } of inputForms(bytes)) {
      const before = hash(input);
      const got = withBackend(backend, () => {
        const opened = lib.readAny(input);
        const module = lib.formatModule(opened.format) as unknown as lib.FormatModule;
        module.verify(opened.file);
        module.write(opened.file);
        return { raw: summary(opened.tensors()), float: summary(opened.tensors({ dtype: "float32" })) };
      });
      expect(got, label).toEqual(reference);
      lib.kernels.setBackend(backend);
      try {
        const lazy = await lib.readFromAny(lib.fromBytes(input));
        const loaded: lib.NamedTensor[] = [];
        for (const info of lazy.tensorInfos()) loaded.push(await lazy.loadTensor(info));
        expect(summary(loaded), `${label} loadTensor`).toEqual(reference.raw);
      } finally {
        lib.kernels.setBackend("auto");
      }
      expect(hash(input), `${label} left unchanged`).toBe(before);
    }
  });
});

describe("ArrayBuffers are bytes too", () => {
  it.each(readable.slice(0, 12))("$label", ({ bytes }) => {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    expect(lib.detectFormat(buffer)).toBe(lib.detectFormat(bytes));
    const format = lib.readAny(buffer).format;
    expect(summary(lib.readAny(buffer).tensors())).toEqual(summary(lib.readAny(bytes).tensors()));
    const module = FORMAT_MODULES[format as keyof typeof FORMAT_MODULES];
    expect(module.detect(buffer as unknown as Uint8Array)).toBe(true);
    expect(summary(module.tensors(module.read(buffer as unknown as Uint8Array) as never))).toEqual(
      summary(lib.readAny(bytes).tensors()),
    );
  });
});

describe("wrong types are a TypeError that says what to pass", () => {
  const wrong: [string, unknown][] = [
    ["a path", "model.b2l"],
    ["a number", 42],
    ["undefined", undefined],
    ["null", null],
    ["a plain array", [66, 87, 50, 76]],
    ["a Float32Array", new Float32Array(4)],
    ["a Blob", new Blob([new Uint8Array(8)])],
  ];

  it.each(wrong)("read, readAny and detectFormat refuse %s", (_label, value) => {
    for (const [name, module] of Object.entries(FORMAT_MODULES)) {
      expect(() => module.read(value as Uint8Array), name).toThrow(TypeError);
      expect(() => module.read(value as Uint8Array), name).toThrow(/takes bytes \(a Uint8Array or an ArrayBuffer\)/);
      expect(module.detect(value as Uint8Array), `${name}.detect never throws`).toBe(false);
    }
    expect(() => lib.readAny(value as Uint8Array)).toThrow(/readAny\(\) takes bytes/);
    expect(() => lib.detectFormat(value as Uint8Array)).toThrow(TypeError);
  });

  it("a path gets the hint to use fromFile() and readFrom()", () => {
    expect(() => lib.tsm.read("x.tsm" as unknown as Uint8Array)).toThrow(
      /for a path use fromFile\(\) and readFrom\(\)/,
    );
  });

  it("readFromAny and readFrom of bytes point to fromBytes", async () => {
    const bytes = examples[0]!.bytes;
    await expect(lib.readFromAny(bytes as unknown as lib.ByteSource)).rejects.toThrow(
      /readFromAny\(fromBytes\(bytes\)\)/,
    );
    for (const [name, module] of Object.entries(FORMAT_MODULES)) {
      await expect(module.readFrom(bytes as unknown as lib.ByteSource), name).rejects.toThrow(TypeError);
    }
    await expect(lib.readFromAny("model.b2l" as unknown as lib.ByteSource)).rejects.toThrow(/fromFile\(path\)/);
  });

  it("fromFile refuses a directory at open and a non-path with a TypeError", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tf-inputs-"));
    try {
      await expect(lib.fromFile(dir)).rejects.toThrow(lib.SourceError);
      await expect(lib.fromFile(dir)).rejects.toThrow(/is a directory/);
      await expect(lib.fromFile(new Uint8Array(4) as unknown as string)).rejects.toThrow(TypeError);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe("readFrom() results", () => {
  it.each(examples)("tensors() of $label says to use loadTensor, at the call", async ({ bytes }) => {
    const lazy = await lib.readFromAny(lib.fromBytes(bytes));
    const module = lib.formatModule(lazy.format) as unknown as lib.FormatModule;
    expect(() => module.tensors(lazy.file)).toThrow(/opened with readFrom\(\).*loadTensor/);
  });

  it("loadTensor takes a name as well as an info; an unknown name lists the closest", async () => {
    const withTensors = examples.find((e) => lib.readAny(e.bytes).tensors().length > 1)!;
    const lazy = await lib.readFromAny(lib.fromBytes(withTensors.bytes));
    const [first] = lazy.tensorInfos();
    const byName = await lazy.loadTensor(first!.name);
    const byInfo = await lazy.loadTensor(first!);
    expect(summary([byName])).toEqual(summary([byInfo]));
    await expect(lazy.loadTensor(`${first!.name}x`)).rejects.toThrow(
      new RegExp(`no tensor named .*closest: ${first!.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
  });

  it("a file on disk read with fs.readFileSync (a pooled Buffer) reads like its bytes", () => {
    const dir = mkdtempSync(join(tmpdir(), "tf-inputs-"));
    try {
      for (const { bytes } of readable) {
        const path = join(dir, "f");
        writeFileSync(path, bytes);
        const buffer = readFileSync(path);
        expect(summary(lib.readAny(buffer).tensors())).toEqual(summary(lib.readAny(bytes).tensors()));
      }
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
