/**
 * `tensorfile convert MODEL.tsm|MODEL.csta OUT.onnx` and the ONNX verdict of `inspect` on a tsm (in-process CLI).
 * Skips the fixture cases without ../shared; the hermetic cases build their modules in code.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tsm from "../bindings/formats/tsm.js";
import { cli } from "./helpers/cli.js";
import { fixturePath, haveFixtures, readFixture } from "./helpers/fixtures.js";
import { ort, runOnnx } from "./helpers/ort.js";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "tf-tsm-onnx-"));
}

const i32 = (shape: number[], values: number[]) => ({ dtype: "int32" as const, shape, data: new Int32Array(values) });

function writeModule(dir: string, nodes: tsm.TsmNodeInput[], outputs: string[]): string {
  const path = join(dir, "m.tsm");
  writeFileSync(path, tsm.write(tsm.create({ nodes, inputs: ["x"], outputs })));
  return path;
}

describe("tensorfile convert *.tsm OUT.onnx (hermetic)", () => {
  it("writes a model onnxruntime-web runs, byte-identical to tsm.toOnnx; --opset is recorded", async () => {
    const dir = tempDir();
    try {
      const input = writeModule(
        dir,
        [
          { op: "<param>", name: "x", params: { "#shape": i32([2], [1, 3]) } },
          { op: "<const>", name: "b", value: { dtype: "float32", shape: [3], data: Float32Array.from([1, -2, 3]) } },
          { op: "add_bias", name: "y0", inputs: ["x", "b"], params: { dim: i32([], [1]) } },
          { op: "relu", name: "y", inputs: ["y0"] },
        ],
        ["y"],
      );
      const out = join(dir, "m.onnx");
      const r = await cli("convert", input, out, "--opset", "13");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/wrote .*m\.onnx \(ONNX opset 13 from a TenniS module, \d+ bytes\)/);
      const bytes = new Uint8Array(readFileSync(out));
      expect(
        Buffer.from(bytes).equals(
          Buffer.from(tsm.toOnnx(tsm.read(new Uint8Array(readFileSync(input))), { opset: 13 })),
        ),
      ).toBe(true);
      const { outputs, messages } = await runOnnx(bytes, {
        x: new ort.Tensor("float32", Float32Array.from([0, 0, -5]), [1, 3]),
      });
      expect(messages).toEqual([]);
      expect(Array.from(outputs.y!.data as Float32Array)).toEqual([1, 0, 0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unsupported op: exit 1, the op and node names, nothing written (and no internal error)", async () => {
    const dir = tempDir();
    try {
      const input = writeModule(
        dir,
        [
          { op: "<param>", name: "x", params: { "#shape": i32([1], [3]) } },
          { op: "abs", name: "my_abs", inputs: ["x"] },
          { op: "relu", name: "y", inputs: ["my_abs"] },
        ],
        ["y"],
      );
      const out = join(dir, "m.onnx");
      const r = await cli("convert", input, out);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/cannot convert to ONNX: abs \(op not supported; used by "my_abs"\)/);
      expect(r.stderr).not.toMatch(/internal error/);
      expect(existsSync(out)).toBe(false);
      const text = await cli("inspect", input);
      expect(text.stdout).toMatch(/onnx\s+does not convert: abs \(op not supported; used by "my_abs"\)/);
      const json = await cli("inspect", "--json", input);
      expect(JSON.parse(json.stdout).meta.onnx).toEqual({
        convertible: false,
        blockers: [{ op: "abs", nodes: ["my_abs"], reasons: [] }],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("checks --opset and --input (usage errors, exit 2) and refuses them for other outputs", async () => {
    const dir = tempDir();
    try {
      const input = writeModule(
        dir,
        [
          { op: "<param>", name: "x" },
          { op: "relu", name: "y", inputs: ["x"] },
        ],
        ["y"],
      );
      expect((await cli("convert", input, join(dir, "a.onnx"), "--opset", "9")).code).toBe(2);
      expect((await cli("convert", input, join(dir, "a.onnx"), "--opset", "x17")).code).toBe(2);
      expect((await cli("convert", input, join(dir, "a.onnx"), "--input", "x=complex64")).code).toBe(2);
      expect((await cli("convert", input, join(dir, "a.onnx"), "--input", "x")).code).toBe(2);
      expect((await cli("convert", input, join(dir, "a.tsm"), "--input", "x=uint8")).code).toBe(2);
      const other = await cli("convert", input, join(dir, "a.tsm"), "--opset", "17");
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/--opset goes with an \.onnx OUT/);
      expect(existsSync(join(dir, "a.onnx"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("tensorfile convert --input on an input that declares its dtype and shape", () => {
  it("another dtype writes a model onnxruntime-web loads (a Cast to the declared dtype); a conflicting shape is a usage error", async () => {
    const dir = tempDir();
    try {
      const input = writeModule(
        dir,
        [
          {
            op: "<param>",
            name: "x",
            params: { "#shape": i32([2], [1, 3]), "#dtype": i32([], [tsm.tsmDTypeCode("float32")!]) },
          },
          { op: "relu", name: "y", inputs: ["x"] },
        ],
        ["y"],
      );
      const out = join(dir, "m.onnx");
      const r = await cli("convert", input, out, "--input", "x=float16");
      expect(r.code, r.stderr).toBe(0);
      const { outputs, messages } = await runOnnx(new Uint8Array(readFileSync(out)), {
        x: new ort.Tensor("float16", new Uint16Array([0x3c00, 0xc000, 0x4200]), [1, 3]),
      });
      expect(messages).toEqual([]);
      expect(Array.from(outputs.y!.data as Float32Array)).toEqual([1, 0, 3]);
      const bad = await cli("convert", input, join(dir, "b.onnx"), "--input", "x=float32:2x3");
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(
        /--input gives "x" the shape \[2, 3\], which the module's declared shape \[1, 3\] does not allow/,
      );
      expect(existsSync(join(dir, "b.onnx"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("tensorfile convert: large unaligned weights (kept as views of the file) give the same ONNX", () => {
  for (const ext of [".tsm", ".csta"]) {
    it(`${ext}: byte-identical to tsm.toOnnx(tsm.read(file)), and onnxruntime-web computes with the weights`, async () => {
      const dir = tempDir();
      try {
        const n = 160; // 160 x 160 float32 = 102400 bytes, over the 64 KiB raw-view threshold
        const w = Float32Array.from({ length: n * n }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
        let module: tsm.TsmFile | undefined;
        for (const name of ["w", "ww", "www", "wwww"]) {
          const candidate = tsm.create({
            nodes: [
              { op: "<param>", name: "x", params: { "#shape": i32([2], [1, n]) } },
              { op: "<const>", name, value: { dtype: "float32", shape: [n, n], data: w } },
              { op: "inner_prod", name: "y", inputs: ["x", name] },
            ],
            inputs: ["x"],
            outputs: ["y"],
          });
          const info = tsm.tensorInfos(tsm.read(tsm.write(candidate)))[0]!;
          if (info.byteOffset % 4 !== 0) {
            module = candidate;
            break;
          }
        }
        expect(module, "a layout with an unaligned payload").toBeDefined();
        const input = join(dir, `m${ext}`);
        const fileBytes = ext === ".tsm" ? tsm.write(module!) : tsm.writeCsta(module!);
        writeFileSync(input, fileBytes);
        const out = join(dir, "m.onnx");
        const r = await cli("convert", input, out);
        expect(r.code, r.stderr).toBe(0);
        const written = new Uint8Array(readFileSync(out));
        expect(Buffer.from(written).equals(Buffer.from(tsm.toOnnx(tsm.read(fileBytes))))).toBe(true);
        const x = Float32Array.from({ length: n }, (_, i) => (i % 5) - 2);
        const { outputs } = await runOnnx(written, { x: new ort.Tensor("float32", x, [1, n]) });
        const y = outputs.y!.data as Float32Array;
        for (const j of [0, 1, 77, n - 1]) {
          let sum = 0;
          for (let i = 0; i < n; i++) sum += x[i]! * w[i * n + j]!;
          expect(Math.abs(y[j]! - sum)).toBeLessThan(1e-3);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe.skipIf(!haveFixtures())("tensorfile convert / inspect on the TenniS fixtures", () => {
  it("converts the SeetaFace6 landmarker .csta; inspect says it converts (text and --json)", async () => {
    const dir = tempDir();
    try {
      const input = fixturePath("tennis", "seetaface6_face_landmarker_pts5.csta");
      const out = join(dir, "landmarker.onnx");
      const r = await cli("convert", input, out);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/from a SeetaFace6 \.csta/);
      expect(
        Buffer.from(readFileSync(out)).equals(
          Buffer.from(tsm.toOnnx(tsm.read(readFixture("tennis", "seetaface6_face_landmarker_pts5.csta")))),
        ),
      ).toBe(true);
      const text = await cli("inspect", input);
      expect(text.stdout).toMatch(/onnx\s+converts \(tensorfile convert FILE OUT\.onnx\)/);
      const json = await cli("inspect", "--json", fixturePath("tennis", "darknet_tiny_yolo.tsm"));
      expect(JSON.parse(json.stdout).meta.onnx).toEqual({ convertible: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--input gives an undeclared input its dtype and shape (quality_lbn takes uint8 BGR pixels)", async () => {
    const dir = tempDir();
    try {
      const out = join(dir, "q.onnx");
      const r = await cli(
        "convert",
        fixturePath("tennis", "seetaface6_quality_lbn.tsm"),
        out,
        "--input",
        "_origin_data=uint8:1x227x227x3",
      );
      expect(r.code, r.stderr).toBe(0);
      const expected = tsm.toOnnx(tsm.read(readFixture("tennis", "seetaface6_quality_lbn.tsm")), {
        inputs: { _origin_data: { dtype: "uint8", shape: [1, 227, 227, 3] } },
      });
      expect(Buffer.from(readFileSync(out)).equals(Buffer.from(expected))).toBe(true);
      const typo = await cli(
        "convert",
        fixturePath("tennis", "seetaface6_quality_lbn.tsm"),
        join(dir, "t.onnx"),
        "--input",
        "origin=uint8",
      );
      expect(typo.code).toBe(2);
      expect(typo.stderr).toMatch(/--input names "origin", which is not a module input \(inputs: "_origin_data"\)/);
      expect(existsSync(join(dir, "t.onnx"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("dtypes.tsm (a _pack node) is refused with its node name", async () => {
    const dir = tempDir();
    try {
      const r = await cli("convert", fixturePath("tennis", "dtypes.tsm"), join(dir, "d.onnx"));
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/_pack \(op not supported; used by "packed_all"\)/);
      expect(existsSync(join(dir, "d.onnx"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
