// tensorfile show: numpy's print of an array is the oracle. Each case writes a tensor to .npy, prints it with
// `show` (the line after the header) and with python3's `print(np.load(f)[slice])`, and compares them; without
// python3 and numpy those comparisons skip and the structural checks still run.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseSlice } from "../bindings/cli/show.js";
import { writeNpy } from "../bindings/export/npy.js";
import type { NamedTensor } from "../bindings/tensor.js";
import * as kernels from "../bindings/kernels/index.js";
import { cli } from "./helpers/cli.js";
import { rng } from "./helpers/rng.js";

const HAVE_NUMPY = spawnSync("python3", ["-c", "import numpy"], { stdio: "ignore" }).status === 0;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-show-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function npyFile(name: string, tensor: NamedTensor): string {
  const path = join(dir, `${name}.npy`);
  writeFileSync(path, writeNpy(tensor));
  return path;
}

/** What numpy prints for the file, sliced by SPEC (numpy's own syntax) and cut to `head` first entries. */
function numpyPrint(path: string, spec: string | undefined, head?: number): string {
  const index = spec === undefined ? "" : `[${spec}]`;
  const cut = head === undefined ? "" : `[:${head}]`;
  const r = spawnSync("python3", ["-c", `import numpy as np, sys\nprint(np.load(sys.argv[1])${index}${cut})`, path], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trimEnd();
}

async function showText(path: string, ...options: string[]): Promise<string> {
  const r = await cli("show", path, "array", ...options);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split("\n").slice(1).join("\n").trimEnd();
}

const random = rng(7);
const float32 = (n: number, scale: number) => new Float32Array(n).map(() => (random() - 0.5) * scale);
const CASES: { name: string; tensor: NamedTensor; slices: (string | undefined)[] }[] = [
  {
    name: "f32-small",
    tensor: { name: "t", dtype: "float32", shape: [16], data: float32(16, 0.02) },
    slices: [undefined, "3:11:2", "::-3", "-1"],
  },
  {
    name: "f32-matrix",
    tensor: { name: "t", dtype: "float32", shape: [5, 7], data: float32(35, 10) },
    slices: [undefined, "1:4,::2", "-2,:", ":,3"],
  },
  {
    name: "f32-wide-range",
    tensor: { name: "t", dtype: "float32", shape: [6], data: new Float32Array([1e-6, 0.5, 2000, -3, 0, 1.25]) },
    slices: [undefined, "0", "1", "2", "3", "4", "1:3"],
  },
  {
    name: "f32-big",
    tensor: { name: "t", dtype: "float32", shape: [3, 40, 16], data: float32(1920, 2) },
    slices: [undefined, "1", "0:2,5:9,:"],
  },
  {
    name: "f32-special",
    tensor: { name: "t", dtype: "float32", shape: [5], data: new Float32Array([NaN, Infinity, -Infinity, -0, 1.5]) },
    slices: [undefined],
  },
  {
    name: "f16",
    tensor: { name: "t", dtype: "float16", shape: [4, 16], data: kernels.f32ToF16(float32(64, 2)) },
    slices: [undefined, "2,:"],
  },
  {
    name: "f64",
    tensor: { name: "t", dtype: "float64", shape: [9], data: new Float64Array(9).map(() => (random() - 0.5) * 1e3) },
    slices: [undefined],
  },
  {
    name: "i32",
    tensor: {
      name: "t",
      dtype: "int32",
      shape: [3, 4],
      data: new Int32Array(12).map(() => Math.round((random() - 0.5) * 2e4)),
    },
    slices: [undefined, ":, 1:3"],
  },
  {
    name: "i64",
    tensor: { name: "t", dtype: "int64", shape: [4], data: new BigInt64Array([1n, -2n, 9007199254740993n, 0n]) },
    slices: [undefined],
  },
  {
    name: "bool",
    tensor: { name: "t", dtype: "bool", shape: [2, 3], data: new Uint8Array([1, 0, 0, 1, 1, 0]) },
    slices: [undefined],
  },
  {
    name: "u8-long",
    tensor: { name: "t", dtype: "uint8", shape: [2000], data: new Uint8Array(2000).map((_, i) => i % 251) },
    slices: [undefined, "100:140"],
  },
];

describe("tensorfile show prints what numpy prints", () => {
  for (const { name, tensor, slices } of CASES) {
    it.skipIf(!HAVE_NUMPY)(`${name}: ${slices.map((s) => s ?? "whole").join(" | ")}`, async () => {
      const path = npyFile(name, tensor);
      for (const spec of slices) {
        expect(await showText(path, ...(spec === undefined ? [] : [`--slice=${spec}`])), `${name} ${spec}`).toBe(
          numpyPrint(path, spec),
        );
      }
    });
  }

  it.skipIf(!HAVE_NUMPY)("--head N keeps the first N entries of the first axis (numpy's [:N])", async () => {
    const path = npyFile("head", CASES[1]!.tensor);
    expect(await showText(path, "--head", "2")).toBe(numpyPrint(path, undefined, 2));
    expect(await showText(path, "--slice=::-1", "--head", "3")).toBe(numpyPrint(path, "::-1", 3));
  });
});

describe("tensorfile show: slices, JSON and refusals", () => {
  it("parseSlice follows Python's slice.indices for every start, stop and step on small axes", () => {
    for (let size = 0; size <= 5; size++) {
      for (const start of [undefined, -7, -2, 0, 1, 4, 9]) {
        for (const stop of [undefined, -7, -1, 0, 2, 5, 9]) {
          for (const step of [undefined, -3, -1, 1, 2]) {
            const spec = `${start ?? ""}:${stop ?? ""}${step === undefined ? "" : `:${step}`}`;
            const got = parseSlice(spec, [size])[0]!;
            const all = Array.from({ length: size }, (_, i) => i);
            // Python's semantics, written out independently of show.ts
            const st = step ?? 1;
            const norm = (v: number | undefined, dflt: number, lo: number, hi: number) =>
              v === undefined ? dflt : Math.min(Math.max(v < 0 ? v + size : v, lo), hi);
            const from = st > 0 ? norm(start, 0, 0, size) : norm(start, size - 1, -1, size - 1);
            const to = st > 0 ? norm(stop, size, 0, size) : norm(stop, -1, -1, size - 1);
            const want: number[] = [];
            for (let i = from; st > 0 ? i < to : i > to; i += st) want.push(all[i]!);
            const have = Array.from({ length: got.count }, (_, k) => got.start + k * got.step);
            expect(have, `${spec} of ${size}`).toEqual(want);
          }
        }
      }
    }
  });

  it("--json gives every selected value nested by axis, with non-finite numbers and big int64 as strings", async () => {
    const special = npyFile("json-special", CASES[4]!.tensor);
    const json = JSON.parse((await cli("show", special, "array", "--json")).stdout) as {
      values: unknown[];
      shape: number[];
    };
    expect(json.values).toEqual(["NaN", "Infinity", "-Infinity", 0, 1.5]); // JSON has no -0
    const big = npyFile("json-i64", CASES[8]!.tensor);
    expect((JSON.parse((await cli("show", big, "array", "--json")).stdout) as { values: unknown[] }).values).toEqual([
      1,
      -2,
      "9007199254740993",
      0,
    ]);
    const matrix = npyFile("json-matrix", CASES[1]!.tensor);
    const sliced = JSON.parse((await cli("show", matrix, "array", "--slice", "1:3,-1", "--json")).stdout) as {
      values: number[];
    };
    const data = CASES[1]!.tensor.data as Float32Array;
    expect(sliced.values).toEqual([data[1 * 7 + 6], data[2 * 7 + 6]]);
  });

  it("a summary of a huge tensor builds only its edges; bad slices, names and counts are usage or input errors", async () => {
    const path = npyFile("huge", {
      name: "t",
      dtype: "float32",
      shape: [4096, 4096],
      data: new Float32Array(4096 * 4096),
    });
    const shown = await showText(path);
    expect(shown.split("\n")).toHaveLength(7);
    expect(shown).toContain("...");
    const small = npyFile("errors", CASES[1]!.tensor);
    expect((await cli("show", small, "array", "--slice", "9")).stderr).toMatch(
      /index 9 is out of range for axis 0 of size 5/,
    );
    expect((await cli("show", small, "array", "--slice", "1,2,3")).code).toBe(2);
    expect((await cli("show", small, "array", "--slice", "::0")).stderr).toMatch(/step cannot be zero/);
    expect((await cli("show", small, "array", "--slice", "a:b")).code).toBe(2);
    expect((await cli("show", small, "array", "--head", "-1")).code).toBe(2);
    const missing = await cli("show", small, "x");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no tensor named "x"/);
    expect((await cli("show", small)).code).toBe(2);
  });
});
