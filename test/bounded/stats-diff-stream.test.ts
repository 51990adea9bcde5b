/**
 * stats and diff read large tensors in pieces (as convert and verify do), not whole: every read the CLI makes of
 * the file is recorded (the file-access module is wrapped), and the largest must stay far below the tensor's size.
 * The results must equal those computed over the whole tensor in memory.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import * as bw2l from "../../bindings/formats/bw2l.js";
import * as kernels from "../../bindings/kernels/index.js";
import { cli } from "../helpers/cli.js";

const reads: number[] = [];
vi.mock("../../bindings/io/file-access.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../bindings/io/file-access.js")>();
  return {
    ...real,
    openFileAccess: async (...args: Parameters<typeof real.openFileAccess>) => {
      const access = await real.openFileAccess(...args);
      return {
        ...access,
        source: () => {
          const source = access.source();
          return {
            ...source,
            read: async (offset: number, length: number) => (reads.push(length), source.read(offset, length)),
            readSync: (offset: number, length: number) => (reads.push(length), source.readSync!(offset, length)),
            readInto: async (target: Uint8Array, offset: number) => (
              reads.push(target.length),
              source.readInto!(target, offset)
            ),
          };
        },
      };
    },
  };
});

const ROWS = 2560;
const COLS = 4096; // 40 MiB of float32, column-major in the file (bw2l)
const TENSOR_BYTES = ROWS * COLS * 4;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function model(seed: number): { path: string; data: Float32Array } {
  const data = new Float32Array(ROWS * COLS);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 7919 + seed) % 10007) / 1000 - 5;
  const path = join(dir, `m${seed}.b2l`);
  writeFileSync(path, bw2l.write(bw2l.create({ layers: [{ arch: "L", params: [{ dims: [ROWS, COLS], data }] }] })));
  return { path, data };
}

describe("stats and diff stream large tensors", () => {
  const a = model(1);
  const b = model(1);
  const c = model(2);

  it("stats: no read near the tensor's size, and the statistics of the whole tensor", async () => {
    reads.length = 0;
    const result = await cli("stats", a.path, "--json");
    expect(result.code, result.stderr).toBe(0);
    expect(reads.length).toBeGreaterThan(0);
    expect(Math.max(...reads)).toBeLessThan(TENSOR_BYTES / 2);
    const [row] = JSON.parse(result.stdout).tensors;
    const whole = kernels.stats(a.data);
    expect(row.count).toBe(ROWS * COLS);
    expect(row.min).toBe(whole.min);
    expect(row.max).toBe(whole.max);
    expect(row.zeros).toBe(whole.zeros);
    expect(row.mean).toBeCloseTo(whole.mean, 9);
    expect(row.std).toBeCloseTo(whole.std, 9);
  });

  it("diff: no read near the tensor's size; equal files are equal, different ones differ", async () => {
    reads.length = 0;
    const same = await cli("diff", a.path, b.path);
    expect(same.code, same.stderr).toBe(0);
    expect(Math.max(...reads)).toBeLessThan(TENSOR_BYTES / 2);
    reads.length = 0;
    const other = await cli("diff", a.path, c.path, "--json");
    expect(other.code).toBe(1);
    expect(Math.max(...reads)).toBeLessThan(TENSOR_BYTES / 2);
    const [t] = JSON.parse(other.stdout).tensors;
    let differing = 0;
    for (let i = 0; i < a.data.length; i++) if (a.data[i] !== c.data[i]) differing++;
    expect(t.differing).toBe(differing);
  });
});
