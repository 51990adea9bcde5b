/**
 * A large deflated npz member (generated here: 64 MiB of .npy data deflated to ~0.1 MB, an honest declaration)
 * inflates streamed: the sink of convert sees it in pieces of at most 16 MiB, never whole, and verify checks its
 * CRC-32 as it inflates. Memory is asserted through structure (the piece sizes), not RSS.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { readFromAny } from "../../bindings/any.js";
import { decodeInChunks, writeSafetensorsTo } from "../../bindings/export/stream.js";
import { writeNpy } from "../../bindings/export/npy.js";
import { fromBytes } from "../../bindings/io/source.js";
import { cli } from "../helpers/cli.js";

const ELEMENTS = 16 * 1024 * 1024; // float32: 64 MiB
const PIECE = 16 * 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-npz-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function values(): Float32Array {
  const data = new Float32Array(ELEMENTS);
  for (let i = 0; i < ELEMENTS; i++) data[i] = i % 1000;
  return data;
}

function archive(data: Float32Array): Uint8Array {
  const npy = writeNpy({ name: "w", dtype: "float32", shape: [ELEMENTS], data });
  return zipSync({
    "w.npy": [npy, { level: 1 }],
    "small.npy": [
      writeNpy({ name: "small", dtype: "int32", shape: [3], data: new Int32Array([1, 2, 3]) }),
      { level: 0 },
    ],
  });
}

describe("npz: a large deflated member streams", () => {
  const data = values();
  const bytes = archive(data);

  it("decodes in pieces of at most 16 MiB, with the right values, and writes safetensors piece by piece", async () => {
    expect(bytes.length).toBeLessThan(ELEMENTS); // a compressed member
    const source = fromBytes(bytes);
    const opened = { ...(await readFromAny(source)), source }; // (as openFile() gives it: with its source)
    const info = opened.tensorInfos().find((i) => i.name === "w")!;
    const sizes: number[] = [];
    let at = 0;
    let same = true;
    for await (const piece of decodeInChunks(opened, info, {})) {
      sizes.push(piece.length);
      const got = new Float32Array(piece.buffer.slice(piece.byteOffset, piece.byteOffset + piece.byteLength));
      for (let k = 0; k < got.length; k += 4099) if (got[k] !== data[at + k]) same = false;
      at += got.length;
    }
    expect(same).toBe(true);
    expect(at).toBe(ELEMENTS);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PIECE);
    expect(sizes.length).toBeGreaterThanOrEqual(4);

    const seen: number[] = [];
    const total = await writeSafetensorsTo((chunk) => void seen.push(chunk.length), opened);
    expect(seen.reduce((a, b) => a + b, 0)).toBe(total);
    expect(Math.max(...seen)).toBeLessThanOrEqual(PIECE);
  });

  it("verify and convert go through it; a corrupt CRC-32 is still caught", async () => {
    const path = join(dir, "big.npz");
    writeFileSync(path, bytes);
    const verify = await cli("verify", path);
    expect(verify.stderr).toBe("");
    expect(verify.code).toBe(0);
    const convert = await cli("convert", path, join(dir, "big.safetensors"));
    expect(convert.code).toBe(0);
    // the CRC-32 in the local header and the directory entry of w.npy (first member: local header at 0)
    const bad = bytes.slice();
    const view = new DataView(bad.buffer);
    const directory = view.getUint32(bad.length - 6, true);
    view.setUint32(14, view.getUint32(14, true) ^ 1, true);
    view.setUint32(directory + 16, view.getUint32(directory + 16, true) ^ 1, true);
    writeFileSync(join(dir, "bad.npz"), bad);
    const failed = await cli("verify", join(dir, "bad.npz"));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/CRC-32 mismatch/);
    expect(failed.stderr).not.toMatch(/internal error/);
  });
});
