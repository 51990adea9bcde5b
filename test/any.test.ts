import { readdirSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  DETECT_BYTES,
  FORMATS,
  detectFormat,
  formatModule,
  loadTensor,
  readAny,
  readFromAny,
} from "../bindings/any.js";
import { FormatError } from "../bindings/bytes/errors.js";
import { exampleFiles } from "../bindings/examples.js";
import type { FormatId } from "../bindings/formats/types.js";
import { fromBytes } from "../bindings/io/source.js";
import { fixturePath, haveFixtures, readFixture } from "./helpers/fixtures.js";
import { randomBytes } from "./helpers/rng.js";
import { choppySource } from "./helpers/sources.js";

const FOLDERS: [string, FormatId][] = [
  ["bw2l", "bw2l"],
  ["april", "april"],
  ["tennis", "tsm"],
  ["primitiv", "primitiv"],
  ["spraak", "spraak"],
];

function validFixtures(): { path: string; format: FormatId; bytes: Uint8Array }[] {
  if (!haveFixtures()) return [];
  return FOLDERS.flatMap(([folder, format]) =>
    ["", "synthetic"].flatMap((sub) => {
      const dir = fixturePath(folder, sub);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return [];
      }
      return names
        .filter(
          (n) =>
            statSync(fixturePath(folder, sub, n)).isFile() &&
            !/\.(md|json|bin|onnx)$/.test(n) &&
            !n.includes("damaged"),
        )
        .map((n) => ({ path: `${folder}/${sub ? `${sub}/` : ""}${n}`, format, bytes: readFixture(folder, sub, n) }));
    }),
  );
}

function sameData(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

describe("detectFormat, readAny, readFromAny", () => {
  const files = [
    ...exampleFiles().map((e) => ({ path: `example ${e.name}`, format: e.format, bytes: e.bytes })),
    ...validFixtures(),
  ];

  it.each(files.map((f) => [f.path, f] as const))("%s is its own format and no other's", async (_path, f) => {
    const head = f.bytes.subarray(0, DETECT_BYTES);
    expect(detectFormat(head)).toBe(f.format);
    for (const module of FORMATS) expect(module.detect(head), module.id).toBe(module.id === f.format);
    const any = readAny(f.bytes);
    expect(any.format).toBe(f.format);
    const tensors = any.tensors();
    const lazy = await readFromAny(choppySource(f.bytes, f.bytes.length));
    expect(lazy.format).toBe(f.format);
    const infos = lazy.tensorInfos();
    expect(infos.map((i) => i.name)).toEqual(tensors.map((t) => t.name));
    // the top-level loadTensor decodes every info like the format's own (.csta, batched primitiv included)
    const source = fromBytes(f.bytes);
    for (const [i, info] of infos.entries()) {
      const t = await loadTensor(source, info);
      expect(t.shape).toEqual(tensors[i]!.shape);
      expect(sameData(t.data, tensors[i]!.data), info.name).toBe(true);
    }
  });

  it("the top-level loadTensor decodes what only a format can (SPRAAK ASCII, gzip, G.711) like that format", async () => {
    const { spraak } = await import("../bindings/index.js");
    const values = Float32Array.from({ length: 60 }, (_, i) => Math.sin(i) * 100);
    const codes = Uint8Array.from({ length: 60 }, (_, i) => (i * 37) & 255);
    const files = [
      spraak.matrix(values, { cols: 6, format: "ASCII" }),
      spraak.matrix(values, { cols: 6, compress: "gzip" }),
      spraak.matrix(values, { cols: 6, gzip: true }),
      spraak.matrix(codes, { cols: 6, type: "ULAW" }),
    ];
    for (const file of files) {
      const bytes = spraak.write(file);
      const read = spraak.read(bytes);
      for (const options of [{}, { dtype: "float32" as const }]) {
        const want = spraak.tensors(read, options)[0]!;
        const source = fromBytes(bytes);
        const lazy = await spraak.readFrom(source);
        const [info] = spraak.tensorInfos(lazy);
        expect(info!.format).toBe("spraak");
        const got = await loadTensor(source, info!, options);
        expect(got.dtype).toBe(want.dtype);
        expect(sameData(got.data, want.data)).toBe(true);
      }
    }
  });

  it("an unknown file is BAD_MAGIC naming every format tried; detect never throws", async () => {
    for (const bytes of [new Uint8Array(0), new TextEncoder().encode("GGUF...."), randomBytes(7, 100)]) {
      expect(detectFormat(bytes)).toBeUndefined();
      let error: unknown;
      try {
        readAny(bytes);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FormatError);
      expect((error as FormatError).code).toBe("BAD_MAGIC");
      expect((error as FormatError).message).toContain("bw2l, april, tsm, primitiv, spraak");
      await expect(readFromAny(fromBytes(bytes))).rejects.toThrow(FormatError);
    }
    for (let seed = 0; seed < 300; seed++) {
      const bytes = randomBytes(seed, seed % 70);
      for (const module of FORMATS) expect(() => module.detect(bytes)).not.toThrow();
    }
    expect(formatModule("tsm").id).toBe("tsm");
  });
});
