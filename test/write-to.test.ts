/**
 * writeTo(file, sink) in every format: the same bytes as write(file), into a function, a WritableStream or a Node
 * Writable, with large payloads passed through as the file's own memory (no second copy of the file).
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { exampleFiles } from "../bindings/examples.js";
import { concat } from "./helpers/bytes.js";
import { haveFixtures, listFixtures, readFixture } from "./helpers/fixtures.js";

type Writer = {
  read(b: Uint8Array): unknown;
  write(f: unknown): Uint8Array;
  writeTo(f: unknown, sink: lib.ByteSink, o?: { end?: boolean }): Promise<number>;
};
const MODULES: Record<string, Writer> = {
  bw2l: lib.bw2l,
  april: lib.april,
  tsm: lib.tsm,
  primitiv: lib.primitiv,
  spraak: lib.spraak,
} as unknown as Record<string, Writer>;

const cases = [
  ...exampleFiles().map((e) => ({ label: `example ${e.name}`, bytes: e.bytes })),
  ...(haveFixtures()
    ? ["bw2l", "april", "tennis", "primitiv", "spraak"].flatMap((folder) =>
        listFixtures(folder)
          .filter((f) => !/\\.(json|md|txt)$/.test(f))
          .map((f) => ({ label: `fixture ${folder}/${f}`, bytes: readFixture(folder, f) })),
      )
    : []),
].flatMap((c) => {
  const format = lib.detectFormat(c.bytes);
  if (!format || !(format in MODULES)) return [];
  try {
    MODULES[format]!.read(c.bytes);
    return [{ ...c, format }];
  } catch {
    return [];
  }
});

describe("writeTo gives write()'s bytes", () => {
  it.each(cases.map((c) => [c.label, c] as const))("%s", async (_label, c) => {
    const module = MODULES[c.format]!;
    const file = module.read(c.bytes);
    const want = module.write(file);
    const chunks: Uint8Array[] = [];
    expect(
      await module.writeTo(file, (chunk) => {
        chunks.push(chunk.slice());
      }),
    ).toBe(want.length);
    expect(concat(...chunks)).toEqual(want);
    const nodeChunks: Buffer[] = [];
    const node = new Writable({
      write: (chunk: Buffer, _e, callback) => {
        nodeChunks.push(chunk);
        callback();
      },
    });
    await module.writeTo(file, node);
    expect(new Uint8Array(Buffer.concat(nodeChunks))).toEqual(want);
    expect(node.writableFinished).toBe(true);
  });
});

describe("large payloads are passed through, not copied", () => {
  const big = new Float32Array(1 << 16).map((_, i) => i);
  type Anything = any;
  it.each([
    [
      "bw2l",
      () => lib.bw2l.create({ layers: [{ arch: "L", params: [{ dims: [1 << 16], data: big }] }] }),
      (f: Anything) => f.sections.find((s: Anything) => s.type === "layers").layers[0].params[0].data,
    ],
    [
      "primitiv",
      () => lib.primitiv.makeModel({ w: lib.primitiv.makeParameter(lib.primitiv.makeTensor([1 << 16], big)) }),
      (f: Anything) => f.parameters[0].parameter.value.data,
    ],
    [
      "tsm",
      () =>
        lib.tsm.create({
          nodes: [{ op: "<const>", name: "w", value: { dtype: "float32", shape: [1 << 16], data: big } }],
          inputs: [],
          outputs: [0],
        }),
      (f: Anything) => f.nodes[0].params.find((p: Anything) => p.key === "value").fields[0].data,
    ],
    ["spraak", () => lib.spraak.matrix(big, { cols: 16, format: "BIN01" }), (f: Anything) => f.data.bytes],
    [
      "april",
      () =>
        lib.april.create({
          networks: {
            encoder: new Uint8Array(1 << 18),
            decoder: new Uint8Array(1 << 17),
            joiner: new Uint8Array(1 << 16),
          },
          tokens: ["a"],
        }),
      (f: Anything) => f.networks.encoder,
    ],
  ] as const)("%s", async (format, build, payloadOf) => {
    const module = MODULES[format]!;
    const file = build();
    const chunks: Uint8Array[] = [];
    await module.writeTo(file, (chunk) => {
      chunks.push(chunk);
    });
    expect(concat(...chunks)).toEqual(module.write(file));
    const payload = payloadOf(file) as ArrayBufferView;
    // one of the pieces is the payload's own memory: the same ArrayBuffer, not a copy
    expect(chunks.some((c) => c.buffer === payload.buffer && c.byteLength === payload.byteLength)).toBe(true);
  });

  it("a bad sink is a TypeError", async () => {
    await expect(
      lib.bw2l.writeTo(lib.bw2l.read(exampleFiles()[0]!.bytes), 42 as unknown as lib.ByteSink),
    ).rejects.toThrow(/writes into a function/);
  });
});
