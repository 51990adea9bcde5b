import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as april from "../../bindings/formats/april.js";
import type { ByteRange } from "../../bindings/bytes/byte-reader.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import { FIXTURE_TOKENS, buildApril, sampleNetworks, virtualApril } from "../helpers/april-builders.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { choppySource, countingSource, sparseSource } from "../helpers/sources.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** read()'s object with every network replaced by its byte range: what readFrom() must return. */
function asLazy(file: april.AprilFile): april.AprilFile {
  const range = (i: number): ByteRange => ({
    byteOffset: file.layout.networks[i]!.offset,
    byteLength: file.layout.networks[i]!.size,
  });
  return { ...file, networks: { encoder: range(0), decoder: range(1), joiner: range(2) } };
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; field?: string; offset?: number } | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (!isFormatError(error)) throw error;
    return { code: error.code, field: error.field, offset: error.offset };
  }
}

function syncFailure(fn: () => unknown): { code: string; field?: string; offset?: number } | "ok" {
  try {
    fn();
    return "ok";
  } catch (error) {
    if (!isFormatError(error)) throw error;
    return { code: error.code, field: error.field, offset: error.offset };
  }
}

async function checkSameAsRead(bytes: Uint8Array, sources: ByteSource[]): Promise<void> {
  const eager = april.read(bytes);
  for (const source of sources) {
    const file = await april.readFrom(source);
    expect(file).toEqual(asLazy(eager));
    for (const name of april.NETWORK_NAMES) expect(file.networks[name]).not.toBeInstanceOf(Uint8Array);
    expect(april.tensorInfos(file)).toEqual(april.tensorInfos(eager));
    for (const info of april.tensorInfos(file)) {
      const t = await april.loadTensor(source, info);
      expect(t).toEqual(april.tensors(eager).find((e) => e.name === info.name));
    }
    expect(april.inspect(file)).toEqual(april.inspect(eager));
    expect(april.verify(file)).toEqual(april.verify(eager));
    const loaded = await april.loadNetworks(source, file);
    for (const name of april.NETWORK_NAMES)
      expect(hex(loaded.networks[name])).toBe(hex(eager.networks[name] as Uint8Array));
    expect(hex(april.write(loaded))).toBe(hex(april.write(eager)));
  }
}

describe.skipIf(!haveFixtures())("april readFrom: reference fixtures", () => {
  const valid = ["tiny_en-us.april", "tiny_pl.april"].map((name) => ({ name, bytes: readFixture("april", name) }));
  const invalid = listFixtures("april/invalid").map((name) => ({ name, bytes: readFixture("april", "invalid", name) }));

  for (const { name, bytes } of [...valid, ...invalid.filter((f) => f.name.startsWith("quirk_"))]) {
    it(`${name}: readFrom() equals read() with networks as ranges (fromBytes, choppy sources)`, async () => {
      await checkSameAsRead(bytes, [
        fromBytes(bytes),
        choppySource(bytes, 1),
        choppySource(bytes, 2),
        choppySource(bytes, 3),
      ]);
    });
  }

  for (const { name, bytes } of invalid.filter((f) => !f.name.startsWith("quirk_"))) {
    it(`${name}: readFrom() fails like read()`, async () => {
      const expected = syncFailure(() => april.read(bytes));
      expect(expected).not.toBe("ok");
      expect(await failure(april.readFrom(choppySource(bytes, 9)))).toEqual(expected);
    });
  }

  it("every prefix of tiny_en-us.april is TRUNCATED through readFrom() too", async () => {
    const bytes = valid[0]!.bytes;
    for (let n = 0; n < bytes.length; n += 1) {
      const result = await failure(april.readFrom(fromBytes(bytes.subarray(0, n))));
      if (result === "ok" || result.code !== "TRUNCATED") throw new Error(`prefix ${n}: ${JSON.stringify(result)}`);
    }
  });
});

describe("april readFrom: builder files", () => {
  it("builder files in every layout read the same lazily", async () => {
    const specs = [
      {},
      { order: "params-first" as const },
      { gapBeforeParams: 7, headerExtra: 5, trailing: 3 },
      { tokens: FIXTURE_TOKENS.concat(["x", "y"]) },
    ];
    for (const [i, spec] of specs.entries()) {
      const { bytes } = buildApril(spec);
      await checkSameAsRead(bytes, [fromBytes(bytes), choppySource(bytes, 100 + i)]);
    }
  });

  it("never fetches the networks of a 3 MB model", async () => {
    const networks = sampleNetworks(5, [1 << 20, 1 << 20, 1 << 20]);
    const { bytes } = buildApril({ networks });
    const source = countingSource(bytes);
    const file = await april.readFrom(source);
    expect(file.tokens).toEqual(FIXTURE_TOKENS);
    // the first 64 KB chunk (header and the start of the encoder) plus one chunk at the params
    expect(source.bytesRead).toBeLessThan(256 * 1024);
  });

  it("opens a ~1 GB virtual model reading under 1 MB", async () => {
    const third = 340 * 1024 * 1024 + 17;
    const v = virtualApril([third, third, third], {
      name: "virtual",
      tokens: Array.from({ length: 5000 }, (_, i) => ` tok${i}`),
    });
    expect(v.size).toBeGreaterThan(1e9);
    const source = sparseSource(v.size, [
      { offset: 0, bytes: v.header },
      { offset: v.paramsOffset, bytes: v.params },
    ]);
    const file = await april.readFrom(source);
    expect(file.name).toBe("virtual");
    expect(file.tokens).toHaveLength(5000);
    expect(file.tokens[4999]).toBe(" tok4999");
    expect(file.networks.joiner).toEqual({ byteOffset: v.networks[2]!.offset, byteLength: third });
    expect(file.layout.params).toEqual({ offset: v.paramsOffset, size: v.params.length });
    // the networks of this virtual file are zeros, not ONNX: no weights, and inspect says why
    expect(april.tensorInfos(file)).toEqual([]);
    expect(Object.keys(file.onnxErrors ?? {})).toEqual(["encoder", "decoder", "joiner"]);
    expect(april.verify(file)).toEqual([]);
    expect(source.bytesRead).toBeLessThan(1024 * 1024 + v.header.length + v.params.length);
    const blobs = april.blobs(file);
    expect(blobs[1]).toEqual({ name: "decoder.onnx", bytes: { byteOffset: v.networks[1]!.offset, byteLength: third } });
  });
});
