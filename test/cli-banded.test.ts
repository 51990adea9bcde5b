/**
 * convert, extract and verify of column-major files with the banded transpose forced (a band budget of a few KB,
 * so every matrix goes out in many bands): the outputs, read back with the independent safetensors and .npy
 * parsers, hold exactly the tensors readAny().tensors() gives for the same bytes (the whole-tensor decode), with
 * and without --dtype float32. Files: a primitiv model (column-major matrices and a batched tensor), a bw2l v2
 * model (2-D and 4-D params, fp16), a Fortran-order big-endian .npy.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { BAND_TUNING } from "../bindings/io/banded.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { cli } from "./helpers/cli.js";
import { parseNpy, parseSafetensors } from "./helpers/parsers.js";
import { npyFile } from "./helpers/input-formats.js";
import { randomNormal } from "./helpers/rng.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-cli-banded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const saved = { ...BAND_TUNING };
afterEach(() => Object.assign(BAND_TUNING, saved));

const bytesOf = (t: NamedTensor) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
const SAFETENSORS_DTYPE: Record<string, string> = { float32: "F32", float16: "F16", float64: "F64", int16: "I16" };

function files(): { name: string; bytes: Uint8Array }[] {
  const { makeModel, makeParameter, makeTensor } = lib.primitiv;
  const primitiv = lib.primitiv.write(
    makeModel([
      [
        "w",
        makeParameter(makeTensor([300, 70], randomNormal(1, 300 * 70)), [
          ["m", makeTensor([300, 70], randomNormal(2, 300 * 70))],
        ]),
      ],
      ["tall", makeParameter(makeTensor([2000, 3], randomNormal(3, 6000)))],
      ["wide", makeParameter(makeTensor([3, 2000], randomNormal(4, 6000)))],
      ["cube", makeParameter(makeTensor([11, 13, 17], randomNormal(5, 11 * 13 * 17)))],
    ]),
  );
  const batched = lib.primitiv.write({
    dataType: "tensor",
    tensor: makeTensor([40, 30], randomNormal(6, 4 * 40 * 30), 4),
  });
  const halves = lib.kernels.f32ToF16(randomNormal(7, 64 * 96));
  const bw2l = lib.bw2l.write(
    lib.bw2l.create({
      layers: [
        {
          arch: "C",
          params: [
            { dims: [5, 3, 40, 16], data: randomNormal(8, 5 * 3 * 40 * 16) },
            { dims: [16], data: randomNormal(9, 16) },
          ],
        },
        { arch: "L", params: [{ dims: [64, 96, 1, 1], data: halves }] },
      ],
      transitions: { dims: [50, 50], data: randomNormal(10, 2500) },
    }),
  );
  const values = randomNormal(11, 120 * 90);
  const big = new Uint8Array(values.length * 8);
  const view = new DataView(big.buffer);
  values.forEach((v, i) => view.setFloat64(i * 8, v, false)); // stored order: any order is a valid file
  const npy = npyFile("{'descr': '>f8', 'fortran_order': True, 'shape': (120, 90), }", big);
  return [
    { name: "model.primitiv", bytes: primitiv },
    { name: "batched.tensor", bytes: batched },
    { name: "model.b2l", bytes: bw2l },
    { name: "fortran.npy", bytes: npy },
  ];
}

describe("convert, extract and verify of column-major files in bands", () => {
  for (const file of files()) {
    for (const decode of [{}, { dtype: "float32" as const }]) {
      const dtypeArgs = decode.dtype ? ["--dtype", "float32"] : [];
      it(`${file.name}${decode.dtype ? " --dtype float32" : ""}: the same tensors as the whole decode`, async () => {
        const input = join(dir, file.name);
        writeFileSync(input, file.bytes);
        const want = lib.readAny(file.bytes).tensors(decode);
        expect(want.some((t) => t.shape.filter((d) => d > 1).length > 1)).toBe(true);
        BAND_TUNING.bandBytes = 4096;
        BAND_TUNING.coalesceGap = 512;
        BAND_TUNING.windowBytes = 3000;

        const out = join(dir, `${file.name}.safetensors`);
        expect((await cli("convert", input, out, "--force", ...dtypeArgs)).code).toBe(0);
        const parsed = parseSafetensors(new Uint8Array(readFileSync(out)));
        for (const tensor of want) {
          const entry = parsed.tensors.find((t) => t.name === tensor.name)!;
          expect(entry, tensor.name).toBeDefined();
          expect([entry.dtype, entry.shape]).toEqual([SAFETENSORS_DTYPE[tensor.dtype], tensor.shape]);
          expect(Buffer.from(entry.bytes).equals(Buffer.from(bytesOf(tensor))), `${file.name} ${tensor.name}`).toBe(
            true,
          );
        }

        const folder = join(dir, `${file.name}.extracted`);
        expect((await cli("extract", input, folder, "--force", ...dtypeArgs)).code).toBe(0);
        const meta = JSON.parse(readFileSync(join(folder, "meta.json"), "utf8")) as { files: Record<string, string> };
        for (const tensor of want) {
          const npy = parseNpy(new Uint8Array(readFileSync(join(folder, meta.files[tensor.name]!))));
          expect(npy.shape).toEqual(tensor.shape);
          expect(Buffer.from(npy.data).equals(Buffer.from(bytesOf(tensor))), `${file.name} ${tensor.name}`).toBe(true);
        }

        // one tensor as .npy, to a file and to standard output
        const largest = want.reduce((a, t) => (t.data.byteLength > a.data.byteLength ? t : a));
        const one = join(dir, `${file.name}.one.npy`);
        expect((await cli("convert", input, one, "--force", "--tensor", largest.name, ...dtypeArgs)).code).toBe(0);
        expect(
          Buffer.from(parseNpy(new Uint8Array(readFileSync(one))).data).equals(Buffer.from(bytesOf(largest))),
        ).toBe(true);
        const piped = await cli("convert", input, "-", "--to", "npy", "--tensor", largest.name, ...dtypeArgs);
        expect(Buffer.from(piped.stdout, "latin1").equals(readFileSync(one))).toBe(true);

        const verified = await cli("verify", input);
        expect(verified.code, verified.stderr).toBe(0);
        const stored = lib.readAny(file.bytes).tensors();
        expect(verified.stdout).toContain(`${stored.length} tensor`);
      });
    }
  }
});
