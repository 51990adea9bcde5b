/**
 * `tensorfile stats`: every fixture and example of every format against a TS oracle written here (values
 * decoded independently: float16 through @petamoriken/float16, int8 dequantized by the documented formula;
 * statistics by a plain loop with Kahan sums), the table, --tensor, JSON-safe non-finite numbers, and FILE as
 * "-" and as a URL through the built CLI.
 */
import { getFloat16 } from "@petamoriken/float16";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatModule, readAny } from "../bindings/any.js";
import { BUILT_CLI, cli } from "./helpers/cli.js";
import { exampleFiles } from "../bindings/examples.js";
import * as bw2l from "../bindings/formats/bw2l.js";
import { writeNpy } from "../bindings/export/npy.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import type { FormatModule } from "../bindings/formats/types.js";
import type { NamedTensor, TensorInfo } from "../bindings/tensor.js";
import { f32Sequence } from "./helpers/bw2l-builders.js";
import { FIXTURES, haveFixtures, listFixtures } from "./helpers/fixtures.js";

const CLI = BUILT_CLI;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-stats-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REAL_DTYPES = new Set([
  "float16",
  "float32",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
  "bfloat16",
  "float8_e4m3",
  "float8_e5m2",
]);

/** OCP float8 by its definition: sign, exponent with `bias`, mantissa of `mantissaBits`; e4m3 has no infinities. */
function float8(byte: number, exponentBits: number, mantissaBits: number, bias: number, ieee: boolean): number {
  const sign = byte & 0x80 ? -1 : 1;
  const e = (byte >> mantissaBits) & ((1 << exponentBits) - 1);
  const m = byte & ((1 << mantissaBits) - 1);
  const top = (1 << exponentBits) - 1;
  if (ieee && e === top) return m === 0 ? sign * Infinity : NaN;
  if (!ieee && e === top && m === (1 << mantissaBits) - 1) return NaN;
  if (e === 0) return sign * (m / (1 << mantissaBits)) * 2 ** (1 - bias);
  return sign * (1 + m / (1 << mantissaBits)) * 2 ** (e - bias);
}

/** The tensor's values as plain numbers, decoded without the kernels. */
function valuesOf(t: NamedTensor, info: TensorInfo | undefined): number[] {
  if (t.dtype === "bfloat16") {
    const view = new DataView(new ArrayBuffer(4));
    return Array.from(t.data as Uint16Array, (bits) => {
      view.setUint32(0, bits << 16);
      return view.getFloat32(0);
    });
  }
  if (t.dtype === "float8_e4m3") return Array.from(t.data as Uint8Array, (b) => float8(b, 4, 3, 7, false));
  if (t.dtype === "float8_e5m2") return Array.from(t.data as Uint8Array, (b) => float8(b, 5, 2, 15, true));
  if (t.dtype === "float16") {
    const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    return Array.from({ length: t.data.length }, (_, i) => getFloat16(view, i * 2, true));
  }
  const q = t.dtype === "int8" ? info?.quantization : undefined;
  if (q) {
    const scale = Math.fround(q.scale);
    const offset = Math.fround(q.offset);
    return Array.from(t.data as Int8Array, (v) => Math.fround(Math.fround(v - offset) * scale));
  }
  return Array.from(t.data as ArrayLike<number | bigint>, (v) => Number(v));
}

function kahanSum(values: number[]): number {
  let sum = 0,
    c = 0;
  for (const v of values) {
    const y = v - c;
    const t = sum + y;
    c = t - sum - y;
    sum = t;
  }
  return sum;
}

function oracle(values: number[]) {
  const finite = values.filter((v) => Number.isFinite(v));
  // values beyond 1e150 would overflow the squares: scale them down by a power of two first
  const factor = finite.some((v) => Math.abs(v) > 1e150) ? 2 ** -600 : 1;
  const scaled = finite.map((v) => v * factor);
  const scaledMean = finite.length > 0 ? kahanSum(scaled) / finite.length : NaN;
  const mean = scaledMean / factor;
  const std =
    finite.length > 0 ? Math.sqrt(kahanSum(scaled.map((v) => (v - scaledMean) ** 2)) / finite.length) / factor : NaN;
  return {
    count: values.length,
    min: finite.length > 0 ? finite.reduce((a, b) => Math.min(a, b)) + 0 : NaN,
    max: finite.length > 0 ? finite.reduce((a, b) => Math.max(a, b)) + 0 : NaN,
    mean,
    std,
    nan: values.filter((v) => Number.isNaN(v)).length,
    posInf: values.filter((v) => v === Infinity).length,
    negInf: values.filter((v) => v === -Infinity).length,
    zeros: values.filter((v) => v === 0).length,
  };
}

function close(actual: unknown, expected: number, scale: number): boolean {
  const a = typeof actual === "string" ? Number(actual) : (actual as number);
  if (Number.isNaN(expected)) return Number.isNaN(a) && actual === "NaN";
  return Math.abs(a - expected) <= 1e-12 * scale;
}

/** Runs `stats --json` on a file and checks every tensor against the oracle. */
async function checkStats(path: string) {
  const bytes = new Uint8Array(readFileSync(path));
  const { format, file } = readAny(bytes);
  const module = formatModule(format) as unknown as FormatModule;
  const tensors = module.tensors(file) as NamedTensor[];
  const infos = new Map(module.tensorInfos(file).map((i) => [i.name, i]));
  const result = await cli("stats", path, "--json");
  expect(result.code, result.stderr).toBe(0);
  const json = JSON.parse(result.stdout) as { format: string; tensors: Record<string, unknown>[] };
  expect(json.format).toBe(format);
  expect(json.tensors.map((t) => t.name)).toEqual(tensors.map((t) => t.name));
  for (const [i, t] of tensors.entries()) {
    const got = json.tensors[i]!;
    expect(got.dtype).toBe(infos.get(t.name)?.dtype ?? t.dtype);
    expect(got.shape).toEqual(t.shape);
    if (!REAL_DTYPES.has(t.dtype)) {
      expect(got.skipped, t.name).toMatch(/not a real-valued dtype/);
      expect(got.mean).toBeUndefined();
      continue;
    }
    const o = oracle(valuesOf(t, infos.get(t.name)));
    const where = `${basename(path)}: ${t.name}`;
    expect(
      {
        count: got.count,
        nan: got.nan,
        posInf: got.posInf,
        negInf: got.negInf,
        zeros: got.zeros,
        zeroShare: got.zeroShare,
      },
      where,
    ).toEqual({
      count: o.count,
      nan: o.nan,
      posInf: o.posInf,
      negInf: o.negInf,
      zeros: o.zeros,
      zeroShare: o.count === 0 ? 0 : o.zeros / o.count,
    });
    const scale = Math.max(Math.abs(o.mean) + o.std, Math.abs(o.min), Math.abs(o.max));
    for (const key of ["min", "max", "mean", "std"] as const) {
      expect(close(got[key], o[key], scale), `${where} ${key}: ${String(got[key])} vs ${o[key]}`).toBe(true);
    }
    for (const key of ["count", "nan", "posInf", "negInf", "zeros"] as const) expect(typeof got[key]).toBe("number");
  }
  return json;
}

const FORMAT_FOLDERS = ["bw2l", "april", "tennis", "primitiv", "spraak"];

describe("stats on the reference fixtures", () => {
  for (const folder of FORMAT_FOLDERS) {
    const files = listFixtures(folder).filter(
      (f) => !f.endsWith(".md") && !f.endsWith(".json") && !f.includes("crlf-damaged") && !f.endsWith(".bin"),
    );
    it.skipIf(!haveFixtures())(`${folder}: every file, every tensor, equals the oracle`, async () => {
      expect(files.length).toBeGreaterThan(0);
      for (const name of files) await checkStats(join(FIXTURES, folder, name));
    });
  }

  it.skipIf(!haveFixtures())("a damaged file is exit 1 with the FormatError", async () => {
    const damaged = await cli("stats", join(FIXTURES, "spraak", "sx313.crlf-damaged.trk"));
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toMatch(/^tensorfile: spraak: /);
  });
});

describe("stats on the generated examples and built files", () => {
  it.each(exampleFiles().map((e) => [e.format, e] as const))("%s example", async (_format, e) => {
    const path = join(dir, e.name);
    writeFileSync(path, e.bytes);
    await checkStats(path);
  });

  const model = bw2l.create({
    version: 1,
    flags: { criterion: "ctc" },
    tokens: ["a", "b"],
    layers: [
      {
        arch: "L 4 6",
        params: [
          { dims: [24], data: f32Sequence(-1.5, 0.125, 24) },
          { dims: [6], data: f32Sequence(0, 0.25, 6) },
        ],
      },
      { arch: "L 6 3", params: [{ dims: [18], data: f32Sequence(-3, 0.37, 18) }] },
    ],
  });

  it("int8 layers with a scale and offset are reduced as their dequantized values; fp16 as their widened values", async () => {
    for (const quantize of ["i8", "fp16"] as const) {
      const path = join(dir, `quantized-${quantize}.b2l`);
      writeFileSync(path, bw2l.write(model, { quantize }));
      const json = await checkStats(path);
      expect(json.tensors.map((t) => t.dtype)).toEqual(
        quantize === "i8" ? ["int8", "int8", "int8"] : ["float16", "float16", "float16"],
      );
      // the dequantized range is close to the original float32 range, not the int8 codes'
      expect(Number(json.tensors[0]!.min)).toBeCloseTo(-1.5, 1);
      expect(Number(json.tensors[0]!.max)).toBeCloseTo(1.375, 1);
    }
  });

  it('NaN and infinities are counted apart; an all-NaN tensor reports "NaN" strings in JSON and - in the table', async () => {
    const weird = bw2l.create({
      version: 2,
      flags: { criterion: "ctc" },
      tokens: ["a"],
      layers: [
        {
          arch: "L 2 2",
          params: [
            { dims: [6], data: Float32Array.from([1, NaN, Infinity, -Infinity, 0, -3]) },
            { dims: [3], data: Float32Array.from([NaN, NaN, NaN]) },
            { dims: [2], data: Float32Array.from([3e38, 3e38]) },
          ],
        },
      ],
    });
    const path = join(dir, "weird.b2l");
    writeFileSync(path, bw2l.write(weird));
    const json = await checkStats(path);
    expect(json.tensors[0]).toMatchObject({
      count: 6,
      min: -3,
      max: 1,
      nan: 1,
      posInf: 1,
      negInf: 1,
      zeros: 1,
      zeroShare: 1 / 6,
    });
    expect(json.tensors[0]!.mean).toBeCloseTo(-2 / 3, 15);
    expect(json.tensors[1]).toMatchObject({ count: 3, min: "NaN", max: "NaN", mean: "NaN", std: "NaN", nan: 3 });
    expect(json.tensors[2]).toMatchObject({ std: 0, zeros: 0 });
    const table = await cli("stats", path);
    expect(table.code).toBe(0);
    const lines = table.stdout.split("\n");
    const header = lines.find((l) => /^\s+name\s+dtype/.test(l))!;
    expect(header.trim().split(/\s+/)).toEqual([
      "name",
      "dtype",
      "shape",
      "min",
      "max",
      "mean",
      "std",
      "NaN",
      "±Inf",
      "zeros",
    ]);
    expect(
      lines
        .find((l) => l.includes("layers.0.0"))!
        .trim()
        .split(/\s+/),
    ).toEqual(["layers.0.0", "float32", "[6]", "-3", "1", "-0.666667", "1.69967", "1", "+1", "-1", "16.7%"]);
    expect(
      lines
        .find((l) => l.includes("layers.0.1"))!
        .trim()
        .split(/\s+/),
    ).toEqual(["layers.0.1", "float32", "[3]", "-", "-", "-", "-", "3", "0", "0%"]);
  });

  it("safetensors (float16, bfloat16, both float8 kinds, int64, bool, NaN and infinities) and npy files", async () => {
    const all = (n: number) => Uint8Array.from({ length: n }, (_, i) => i & 255);
    const tensors = [
      { name: "f32", dtype: "float32", shape: [2, 3], data: Float32Array.from([1, NaN, -Infinity, 0, 2.5, Infinity]) },
      { name: "f16", dtype: "float16", shape: [4], data: Uint16Array.from([0x3c00, 0x7c00, 0x7e00, 0x8000]) },
      {
        name: "bf16",
        dtype: "bfloat16",
        shape: [1024],
        data: Uint16Array.from({ length: 1024 }, (_, i) => (i * 67) & 0xffff),
      },
      { name: "e4m3", dtype: "float8_e4m3", shape: [256], data: all(256) },
      { name: "e5m2", dtype: "float8_e5m2", shape: [16, 16], data: all(256) },
      { name: "i64", dtype: "int64", shape: [3], data: BigInt64Array.from([-5n, 0n, 2n ** 40n]) },
      { name: "mask", dtype: "bool", shape: [3], data: Uint8Array.from([1, 0, 1]) },
      { name: "empty", dtype: "float32", shape: [0], data: new Float32Array(0) },
    ] as NamedTensor[];
    const path = join(dir, "mixed.safetensors");
    writeFileSync(path, writeSafetensors(tensors));
    const json = await checkStats(path);
    expect(json.format).toBe("safetensors");
    expect(json.tensors.find((t) => t.name === "e4m3")).toMatchObject({ nan: 2, max: 448, min: -448 });
    const npyPath = join(dir, "one.npy");
    writeFileSync(npyPath, writeNpy(tensors[2]!));
    expect((await checkStats(npyPath)).format).toBe("npy");
  });

  it("--tensor picks one tensor; an unknown name is exit 1 with the closest names", async () => {
    const path = join(dir, "pick.b2l");
    writeFileSync(path, bw2l.write(model));
    const one = await cli("stats", path, "--tensor", "layers.0.1", "--json");
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).tensors.map((t: { name: string }) => t.name)).toEqual(["layers.0.1"]);
    const wrong = await cli("stats", path, "--tensor", "layers.0.2");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/no tensor named "layers.0.2"; the closest: .*layers.0.1/);
  });

  it("usage errors are exit 2", async () => {
    expect((await cli("stats")).code).toBe(2);
    // several FILEs are allowed (issue 23): two missing ones are two failures, exit 1
    const two = await cli("stats", join(dir, "nope-a.b2l"), join(dir, "nope-b.b2l"));
    expect(two.code).toBe(1);
    expect(two.stderr).toMatch(/nope-a\.b2l: cannot open[\s\S]*nope-b\.b2l: cannot open/);
    const unknown = await cli("stats", "a", "--tensr", "x");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/did you mean --tensor/);
    expect((await cli("stats", "--help")).stdout).toMatch(/"NaN", "Infinity"/);
  });

  it("a missing file is exit 1", async () => {
    const missing = await cli("stats", join(dir, "nope.b2l"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot open/);
  });
});

describe("stats through the built CLI", () => {
  const bytes = bw2l.write(
    bw2l.create({
      version: 2,
      flags: { criterion: "ctc" },
      tokens: ["a"],
      layers: [{ arch: "L 2 2", params: [{ dims: [4], data: Float32Array.from([1, 2, 3, 4]) }] }],
    }),
  );

  it("reads FILE - from standard input", () => {
    const r = spawnSync(process.execPath, [CLI, "stats", "-", "--json"], { input: bytes });
    expect(r.status, r.stderr.toString()).toBe(0);
    expect(JSON.parse(r.stdout.toString())).toEqual({
      format: "bw2l",
      tensors: [
        {
          name: "layers.0.0",
          dtype: "float32",
          shape: [4],
          count: 4,
          min: 1,
          max: 4,
          mean: 2.5,
          std: Math.sqrt(1.25),
          nan: 0,
          posInf: 0,
          negInf: 0,
          zeros: 0,
          zeroShare: 0,
        },
      ],
    });
  });

  it("reads an http URL with Range requests", async () => {
    const server = createServer((req, res) => {
      const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? "");
      if (!range) {
        res.writeHead(200, { "content-length": bytes.length }).end(Buffer.from(bytes));
        return;
      }
      const start = Number(range[1]);
      const end = Math.min(range[2] ? Number(range[2]) : bytes.length - 1, bytes.length - 1);
      res.writeHead(206, {
        "content-range": `bytes ${start}-${end}/${bytes.length}`,
        "content-length": end - start + 1,
      });
      res.end(Buffer.from(bytes.subarray(start, end + 1)));
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/model.b2l`;
      const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((ok) => {
        const child = spawn(process.execPath, [CLI, "stats", url]);
        let stdout = "",
          stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d));
        child.stderr.on("data", (d: Buffer) => (stderr += d));
        child.on("close", (status) => ok({ status, stdout, stderr }));
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/layers\.0\.0\s+float32\s+\[4\]\s+1\s+4\s+2\.5\s+1\.11803\s+0\s+0\s+0%/);
    } finally {
      server.close();
    }
  });
});
