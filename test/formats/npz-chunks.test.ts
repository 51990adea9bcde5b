/**
 * npz's tensorChunks capability (formats/npz/chunks.ts), which export/stream.ts finds through the registry: a
 * deflated member streams in pieces decoded as they come; an info whose member is missing or malformed (built by
 * hand, or a cast gone wrong) is not streamed by npz and never trusted.
 */
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { readFromAny } from "../../bindings/any.js";
import { writeNpy } from "../../bindings/export/npy.js";
import { decodeInChunks } from "../../bindings/export/stream.js";
import { tensorChunks } from "../../bindings/formats/npz/chunks.js";
import { memberOf } from "../../bindings/formats/npz/members.js";
import { capabilitiesOf } from "../../bindings/formats/registry.js";
import { fromBytes } from "../../bindings/io/source.js";

const COUNT = 1000;
const data = Float32Array.from({ length: COUNT }, (_, i) => i / 4);
const archive = zipSync({
  "w.npy": [writeNpy({ name: "w", dtype: "float32", shape: [COUNT], data }), { level: 6 }],
});

async function collect(pieces: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const piece of pieces) out.push(piece.slice());
  return out;
}

describe("npz tensorChunks", () => {
  it("is the capability npz declares, found by id", () => {
    expect(capabilitiesOf("npz")?.tensorChunks).toBe(tensorChunks);
    expect(capabilitiesOf("npy")?.tensorChunks).toBeUndefined();
  });

  it("streams a deflated member in pieces of the asked size that join to the tensor", async () => {
    const source = fromBytes(archive);
    const lazy = await readFromAny(source);
    const info = lazy.tensorInfos()[0]!;
    // 1000 float32 (4000 bytes) is more than four pieces of 100 elements: streamed, 10 pieces of 400 bytes
    const pieces = await collect(tensorChunks(source, info, undefined, 100)!);
    expect(pieces.map((p) => p.length)).toEqual(Array<number>(10).fill(400));
    const joined = new Uint8Array(4000);
    pieces.forEach((p, i) => joined.set(p, i * 400));
    expect(new Float32Array(joined.buffer)).toEqual(data);
    // too small for the piece size: not streamed (export loads it whole)
    expect(tensorChunks(source, info, undefined, 1000)).toBeUndefined();
  });

  it("an info without a well-formed member is not streamed, whatever else it says", async () => {
    const source = fromBytes(archive);
    const info = (await readFromAny(source)).tensorInfos()[0]!;
    const member = memberOf(info)!;
    expect(member.method).toBe("deflated");
    const hostile = [
      { ...info, member: undefined },
      { ...info, member: null },
      { ...info, member: "deflated" },
      { ...info, member: { ...member, method: "zstd" } },
      { ...info, member: { ...member, dataOffset: String(member.dataOffset) } },
      { ...info, member: { ...member, crc32: undefined } },
    ];
    for (const bad of hostile) {
      expect(memberOf(bad), JSON.stringify(bad.member)).toBeUndefined();
      expect(tensorChunks(source, bad, undefined, 100)).toBeUndefined();
    }
  });

  it("decodeInChunks (export) gives the same bytes through the capability as a whole load", async () => {
    const source = fromBytes(archive);
    const lazy = await readFromAny(source);
    const info = lazy.tensorInfos()[0]!;
    const pieces = await collect(decodeInChunks({ ...lazy, source }, info, { dtype: "float32" }));
    const total = pieces.reduce((n, p) => n + p.length, 0);
    expect(total).toBe(4000);
    const joined = new Uint8Array(total);
    let at = 0;
    for (const p of pieces) {
      joined.set(p, at);
      at += p.length;
    }
    expect(new Float32Array(joined.buffer)).toEqual(data);
  });
});
