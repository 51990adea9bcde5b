/**
 * writeSafetensorsTo / writeNpyTo: the same bytes as writeSafetensors / writeNpy, into every kind of sink
 * (a function, a WritableStream, a Node Writable with backpressure), from arrays or from lazy files; failures
 * reject and leave nothing half-open.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { exampleFiles } from "../bindings/examples.js";
import { concat } from "./helpers/bytes.js";
import { haveFixtures, listFixtures, readFixture } from "./helpers/fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cases = [
  ...exampleFiles().map((e) => ({ label: `example ${e.name}`, bytes: e.bytes })),
  ...(haveFixtures()
    ? ["bw2l", "tennis", "primitiv", "spraak"].flatMap((folder) =>
        listFixtures(folder)
          .filter((f) => !/\.(json|md|txt)$/.test(f))
          .map((f) => ({ label: `fixture ${folder}/${f}`, bytes: readFixture(folder, f) })),
      )
    : []),
].filter((c) => {
  try {
    return lib.readAny(c.bytes).tensors().length > 0;
  } catch {
    return false;
  }
});

describe("writeSafetensorsTo", () => {
  it.each(cases.map((c) => [c.label, c.bytes] as const))(
    "%s: every sink and source gives writeSafetensors' bytes",
    async (label, bytes) => {
      const opened = lib.readAny(bytes);
      const metadata = { note: label };
      const want = lib.writeSafetensors(opened.tensors(), metadata);
      // a function sink, from the array
      const chunks: Uint8Array[] = [];
      expect(
        await lib.writeSafetensorsTo(
          (c) => {
            chunks.push(c.slice());
          },
          opened.tensors(),
          { metadata },
        ),
      ).toBe(want.length);
      expect(concat(...chunks)).toEqual(want);
      // a WritableStream, from a lazy file
      const webChunks: Uint8Array[] = [];
      const web = new WritableStream<Uint8Array>(
        {
          write: (c) => {
            webChunks.push(c.slice());
          },
        },
        { highWaterMark: 1 },
      );
      await lib.writeSafetensorsTo(web, await lib.readFromAny(lib.fromBytes(bytes)), { metadata });
      expect(concat(...webChunks)).toEqual(want);
      // a Node file stream, widened to float32, from a lazy file
      const path = join(dir, "out.safetensors");
      await lib.writeSafetensorsTo(createWriteStream(path), await lib.readFromAny(lib.fromBytes(bytes)), {
        decode: { dtype: "float32" },
      });
      expect(new Uint8Array(readFileSync(path))).toEqual(lib.writeSafetensors(opened.tensors({ dtype: "float32" })));
    },
  );

  it("waits for a slow Node Writable to drain and reports progress per tensor", async () => {
    const tensors = Array.from({ length: 5 }, (_, i) => ({
      name: `t${i}`,
      dtype: "float32" as const,
      shape: [4096],
      data: new Float32Array(4096).fill(i),
    }));
    let inFlight = 0;
    let maxInFlight = 0;
    const received: Uint8Array[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        received.push(new Uint8Array(chunk));
        setTimeout(() => {
          inFlight--;
          callback();
        }, 2);
      },
    });
    const progress: string[] = [];
    await lib.writeSafetensorsTo(slow, tensors, {
      onProgress: (written, total, name) => progress.push(`${name} ${written}/${total}`),
    });
    expect(concat(...received)).toEqual(lib.writeSafetensors(tensors));
    expect(maxInFlight).toBe(1);
    expect(progress).toHaveLength(5);
    expect(progress.at(-1)).toMatch(/^t\d (\d+)\/\1$/);
    expect(slow.writableEnded).toBe(true);
  });

  it("{ end: false } leaves a stream open; a failing sink rejects; bad arguments are TypeErrors", async () => {
    const pass = new PassThrough();
    const tensors = [{ name: "x", dtype: "int32" as const, shape: [2], data: new Int32Array([1, 2]) }];
    const collected: Buffer[] = [];
    pass.on("data", (c: Buffer) => collected.push(c));
    await lib.writeSafetensorsTo(pass, tensors, { end: false });
    expect(pass.writableEnded).toBe(false);
    pass.end();
    expect(new Uint8Array(Buffer.concat(collected))).toEqual(lib.writeSafetensors(tensors));

    await expect(
      lib.writeSafetensorsTo(() => {
        throw new Error("disk full");
      }, tensors),
    ).rejects.toThrow("disk full");
    const broken = new Writable({ write: (_c, _e, callback) => callback(new Error("EIO")) });
    await expect(lib.writeSafetensorsTo(broken, tensors)).rejects.toThrow("EIO");
    await expect(lib.writeSafetensorsTo("out.safetensors" as unknown as lib.ByteSink, tensors)).rejects.toThrow(
      /writes into a function/,
    );
    await expect(lib.writeSafetensorsTo(() => {}, "x" as unknown as [])).rejects.toThrow(
      /array of NamedTensors or a lazy file/,
    );
    const wrong = [{ name: "x", dtype: "float32" as const, shape: [3], data: new Float32Array(2) }];
    const nothing: Uint8Array[] = [];
    await expect(
      lib.writeSafetensorsTo((c) => {
        nothing.push(c);
      }, wrong),
    ).rejects.toThrow(RangeError);
    expect(nothing).toHaveLength(0);
  });
});

describe("writeNpyTo", () => {
  it.each(cases.map((c) => [c.label, c.bytes] as const))(
    "%s: the first tensor as writeNpy's bytes",
    async (_label, bytes) => {
      const tensor = lib.readAny(bytes).tensors()[0]!;
      const chunks: Uint8Array[] = [];
      await lib.writeNpyTo((c) => {
        chunks.push(c.slice());
      }, tensor);
      expect(concat(...chunks)).toEqual(lib.writeNpy(tensor));
    },
  );
});
