/** The CLI on the input formats: inspect, verify, convert (to .safetensors/.npy/.json, never a re-encode), extract. */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync, zipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { readAny } from "../bindings/any.js";
import { cli } from "./helpers/cli.js";
import { writeNpy } from "../bindings/export/npy.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { expectSameTensors, f32Bytes, npyFile, zipFile } from "./helpers/input-formats.js";
import { parseNpy, parseSafetensors } from "./helpers/parsers.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-cli-inputs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bf16: NamedTensor = {
  name: "model.w",
  dtype: "bfloat16",
  shape: [2, 2],
  data: Uint16Array.of(0x3f80, 0xc000, 0x3f00, 0x4040),
};
const e4m3: NamedTensor = { name: "model.q", dtype: "float8_e4m3", shape: [3], data: Uint8Array.of(0x38, 0x7e, 0x81) };
const f32: NamedTensor = { name: "bias", dtype: "float32", shape: [3], data: Float32Array.of(1, 2, 3) };
const i64: NamedTensor = { name: "ids", dtype: "int64", shape: [2], data: BigInt64Array.of(-1n, 5n) };

function write(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe("CLI: safetensors, npy and npz inputs", () => {
  const st = write("in.safetensors", writeSafetensors([bf16, e4m3, f32, i64]));
  const np = write(
    "in.npy",
    npyFile("{'descr': '>f4', 'fortran_order': True, 'shape': (2, 2), }", f32Bytes([1, 3, 2, 4], true)),
  );
  const nz = write("in.npz", zipSync({ "bias.npy": writeNpy(f32), "ids.npy": writeNpy(i64) }, { level: 6 }));

  it("inspect names the format and the stored dtypes (bfloat16 / float8 as such)", async () => {
    const human = await cli("inspect", st);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("format   safetensors");
    expect(human.stdout).toMatch(/model\.w\s+bfloat16\s+\[2, 2\]\s+8/);
    expect(human.stdout).toMatch(/model\.q\s+float8_e4m3\s+\[3\]\s+3/);
    const json = JSON.parse((await cli("inspect", st, "--json")).stdout);
    expect(json).toMatchObject({ format: "safetensors", version: null, meta: { format: "pt" } });
    expect(json.dtypes.BF16).toMatch(/bfloat16/);
    const npyJson = JSON.parse((await cli("inspect", np, "--json")).stdout);
    expect(npyJson).toMatchObject({
      format: "npy",
      version: "1.0",
      meta: { descr: ">f4", fortran_order: true, shape: [2, 2] },
    });
    const npzJson = JSON.parse((await cli("inspect", nz, "--json")).stdout);
    expect(npzJson.tensors.map((t: { name: string }) => t.name)).toEqual(["bias", "ids"]);
    expect(npzJson.members[0]).toMatchObject({ name: "bias.npy", method: "deflated" });
  });

  it("verify reads and checks all three", async () => {
    const result = await cli("verify", st, np, nz);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/in\.safetensors: safetensors, 4 tensors/);
    expect(result.stdout).toMatch(/in\.npy: npy \(version 1\.0\), 1 tensor/);
    expect(result.stdout).toMatch(/3 of 3 files ok/);
  });

  it("verify refuses a deflated npz member whose CRC-32 does not match (exit 1)", async () => {
    const a = npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f32Bytes([1]));
    const bad = write(
      "bad-crc.npz",
      zipFile([{ name: "a.npy", content: a, crc32: 7, method: 8 }], { deflate: (b) => deflateSync(b) }),
    );
    const result = await cli("verify", bad);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/npz: CRC-32 mismatch: 0x00000007 declared/);
  });

  it("safetensors -> safetensors keeps BF16 and F8_E4M3; --dtype float32 widens them exactly", async () => {
    const out = join(dir, "same.safetensors");
    expect((await cli("convert", st, out)).code).toBe(0);
    const kept = parseSafetensors(new Uint8Array(readFileSync(out)));
    expect(kept.header["model.w"].dtype).toBe("BF16");
    expect(kept.header["model.q"].dtype).toBe("F8_E4M3");
    expectSameTensors(readAny(new Uint8Array(readFileSync(out))).tensors(), [bf16, e4m3, f32, i64]);
    const wide = join(dir, "wide.safetensors");
    expect((await cli("convert", st, wide, "--dtype", "float32")).code).toBe(0);
    const widened = readAny(new Uint8Array(readFileSync(wide))).tensors();
    // every real-valued tensor becomes float32 (int64 too)
    expect(widened.map((t) => t.dtype)).toEqual(["float32", "float32", "float32", "float32"]);
    expect(Array.from(widened[3]!.data as Float32Array)).toEqual([-1, 5]);
    expect(Array.from(widened[0]!.data as Float32Array)).toEqual([1, -2, 0.5, 3]);
    expect(Array.from(widened[1]!.data as Float32Array)).toEqual([1, 448, -(2 ** -9)]);
    // one tensor to .npy, widened
    const one = join(dir, "w.npy");
    expect((await cli("convert", st, one, "--tensor", "model.w", "--dtype", "float32")).code).toBe(0);
    const parsed = parseNpy(new Uint8Array(readFileSync(one)));
    expect(parsed).toMatchObject({ descr: "<f4", shape: [2, 2] });
    expect(Array.from(new Float32Array(parsed.data.slice().buffer))).toEqual([1, -2, 0.5, 3]);
  });

  it("npy (big-endian, Fortran order) and npz convert to row-major little-endian safetensors and .json", async () => {
    const out = join(dir, "from-npy.safetensors");
    expect((await cli("convert", np, out)).code).toBe(0);
    const [t] = readAny(new Uint8Array(readFileSync(out))).tensors();
    expect(t).toMatchObject({ name: "array", dtype: "float32", shape: [2, 2] });
    expect(Array.from(t!.data as Float32Array)).toEqual([1, 2, 3, 4]);
    const fromNpz = join(dir, "from-npz.safetensors");
    expect((await cli("convert", nz, fromNpz)).code).toBe(0);
    expectSameTensors(readAny(new Uint8Array(readFileSync(fromNpz))).tensors(), [f32, i64]);
    const json = join(dir, "npz.json");
    expect((await cli("convert", nz, json)).code).toBe(0);
    expect(JSON.parse(readFileSync(json, "utf8")).format).toBe("npz");
  });

  it("a re-encode into an input format is a usage error (exit 2), and nothing is written", async () => {
    for (const [input, output] of [
      [nz, "again.npz"],
      [st, "x.b2l"],
      [np, "x.tsm"],
      [nz, "x.npz.bin"],
    ] as const) {
      const result = await cli("convert", input, join(dir, output));
      expect(result.code, `${input} -> ${output}`).toBe(2);
      expect(result.stderr).toMatch(
        /may end in \.safetensors, \.npy, \.json \(\w+ is read, never written as a re-encode\)/,
      );
      expect(readdirSync(dir)).not.toContain(output);
    }
  });

  it("extract writes every tensor as .npy (float8 and bfloat16 widened with --dtype float32)", async () => {
    const out = join(dir, "extracted");
    const result = await cli("extract", st, out, "--dtype", "float32");
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["bias.npy", "ids.npy", "meta.json", "model.q.npy", "model.w.npy"]);
    expect(parseNpy(new Uint8Array(readFileSync(join(out, "model.q.npy"))))).toMatchObject({
      descr: "<f4",
      shape: [3],
    });
    const meta = JSON.parse(readFileSync(join(out, "meta.json"), "utf8"));
    expect(meta.format).toBe("safetensors");
  });

  it("bad input is exit 1 with the FormatError's message", async () => {
    const broken = write("broken.safetensors", writeSafetensors([f32]).subarray(0, 60));
    const result = await cli("inspect", broken);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^tensorfile: safetensors: truncated/);
    const npzBad = write("bad.npz", zipSync({ "a.txt": Uint8Array.of(1) }));
    const r2 = await cli("verify", npzBad);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/^tensorfile: /);
  });
});
