/**
 * docs/seetaface6-onnx.md "Feeding the three SeetaFace6 models", row by row: each model is converted with the
 * command its row shows (`tensorfile convert`, the built CLI), its ONNX input has the row's name, dtype and shape,
 * and run in onnxruntime-web on the fixture's picture given as the row says (layout, colours, values, crop) it gives
 * TenniS's own outputs, read as the outputs table says. The wrong way (0..1 values, RGB, a 128 x 128 mask crop, a
 * float32 picture for the uint8 input) does not. The landmarker's `transform` table is the .csta's own.
 * Skips without ../shared or without dist/ (npm test builds it first).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import onnxProto from "onnx-proto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as npy from "../bindings/formats/npy.js";
import * as tsm from "../bindings/formats/tsm.js";
import { BUILT_CLI } from "./helpers/cli.js";
import { fixturePath, haveFixtures, readFixture } from "./helpers/fixtures.js";
import { ort, runOnnx } from "./helpers/ort.js";

const { onnx } = onnxProto;
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const doc = readFileSync(resolve(root, "docs/seetaface6-onnx.md"), "utf8");

/** The rows of the table after `<!-- marker -->`, as trimmed cells with the backquotes removed. */
function table(marker: string): string[][] {
  const at = doc.indexOf(`<!-- ${marker} -->`);
  expect(at, `<!-- ${marker} --> in the doc`).toBeGreaterThan(-1);
  const lines = doc.slice(at).split("\n").slice(1);
  const rows: string[][] = [];
  for (const line of lines.slice(2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim().replace(/`/g, "")),
    );
  }
  return rows;
}

/** The fixture folder and module file of each model of the doc (the fixtures hold the .tsm a .csta wraps). */
const FIXTURE: Record<string, { dir: string; file: string }> = {
  face_landmarker_pts5: { dir: "seetaface6_face_landmarker_pts5", file: "seetaface6_face_landmarker_pts5.csta" },
  mask_detector: { dir: "seetaface6_mask_detector", file: "seetaface6_mask_detector.tsm" },
  quality_lbn: { dir: "seetaface6_quality_lbn", file: "seetaface6_quality_lbn.tsm" },
};

const ELEM_TYPE: Record<number, string> = { 1: "float32", 2: "uint8" };

function npyArray(dir: string, file: string): { data: Float32Array | Uint8Array; shape: number[] } {
  const t = npy.tensors(npy.read(new Uint8Array(readFileSync(fixturePath("tennis", "outputs", dir, file)))))[0]!;
  return { data: t.data as Float32Array | Uint8Array, shape: t.shape };
}

/** TenniS's outputs of a model, by name (its manifest's order). */
function reference(dir: string): Map<string, Float32Array> {
  const manifest = JSON.parse(readFileSync(fixturePath("tennis", "outputs", dir, "manifest.json"), "utf8")) as {
    outputs: { name: string; file: string }[];
  };
  return new Map(manifest.outputs.map((o) => [o.name, npyArray(dir, o.file).data as Float32Array]));
}

/** max |a - b| over all values. */
function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs(a[i]! - b[i]!));
  return most;
}

/** Within the bound test/formats/tsm-onnx-models.test.ts holds the conversion to: 1e-4 + 1e-3 * max |reference|. */
function closeTo(got: ArrayLike<number>, want: Float32Array): boolean {
  const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  return maxDiff(got, want) <= 1e-4 + 1e-3 * scale;
}

const built = existsSync(BUILT_CLI);

describe.skipIf(!haveFixtures() || !built)("docs/seetaface6-onnx.md: feeding the SeetaFace6 models", () => {
  const inputs = table("seetaface6-inputs");
  const outputs = table("seetaface6-outputs");
  const work = mkdtempSync(join(tmpdir(), "tensorfile-seetaface6-"));
  const models = new Map<string, Uint8Array>();
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  beforeAll(() => {
    // each row's own command, with the fixture's module in place of the .csta the doc names
    for (const [name, command] of inputs.map((row) => [row[0]!, row[1]!] as const)) {
      const words = command.split(" ");
      expect(words.slice(0, 2)).toEqual(["tensorfile", "convert"]);
      const out = join(work, words[3]!);
      execFileSync(
        process.execPath,
        [BUILT_CLI, "convert", fixturePath("tennis", FIXTURE[name]!.file), out, ...words.slice(4)],
        { stdio: "pipe", timeout: 120_000 },
      );
      models.set(name, new Uint8Array(readFileSync(out)));
    }
  }, 180_000);

  it("the tables name the three models, each output once", () => {
    expect(inputs.map((row) => row[0])).toEqual(["face_landmarker_pts5", "mask_detector", "quality_lbn"]);
    expect(outputs.map((row) => `${row[0]} ${row[1]}`)).toEqual([
      "face_landmarker_pts5 Common/EltwiseOP",
      "mask_detector mask",
      "quality_lbn fc8_light",
      "quality_lbn fc8_blur",
      "quality_lbn fc8_noise",
    ]);
  });

  it("each converted model's input has the name, dtype and shape of its row", () => {
    for (const [name, , input, dtype, shape] of inputs) {
      const graph = onnx.ModelProto.decode(models.get(name!)!).graph!;
      expect(
        (graph.input ?? []).map((v) => v.name),
        name,
      ).toEqual([input]);
      const type = graph.input![0]!.type!.tensorType!;
      expect(ELEM_TYPE[type.elemType!], name).toBe(dtype);
      const dims = type.shape!.dim!.map((d) => (d.dimParam ? d.dimParam : String(d.dimValue)));
      expect(`[${dims.join(", ")}]`, name).toBe(shape);
    }
  });

  it("each output has the shape of its row", async () => {
    const feeds = await allFeeds();
    for (const [name, output, shape] of outputs) {
      const { outputs: got } = await runOnnx(models.get(name!)!, feeds[name!]!);
      expect(`[${Array.from(got[output!]!.dims).join(", ")}]`, `${name} ${output}`).toBe(shape);
    }
  });

  /** The "at least T" of an output's meaning cell. */
  function threshold(model: string, output: string): number {
    const cell = outputs.find((row) => row[0] === model && row[1] === output)![3]!;
    return Number(/at least ([\d.]+)/.exec(cell)![1]);
  }

  /** Each model's feed, built from the fixture's picture as its row says. */
  async function allFeeds(): Promise<Record<string, Record<string, ort.Tensor>>> {
    const landmarker = npyArray(FIXTURE.face_landmarker_pts5!.dir, "input_0.npy");
    const mask = maskFromCrop128(crop128());
    const quality = npyArray(FIXTURE.quality_lbn!.dir, "input_0.npy");
    return {
      face_landmarker_pts5: { _input: new ort.Tensor("float32", landmarker.data as Float32Array, [1, 1, 112, 112]) },
      mask_detector: { _input: mask },
      quality_lbn: { _origin_data: new ort.Tensor("uint8", quality.data as Uint8Array, quality.shape) },
    };
  }

  /** The 128 x 128 crop SeetaFace6 would give the mask detector: the fixture's 112 x 112 face with 8 other pixels around. */
  function crop128(): Float32Array {
    const face = npyArray(FIXTURE.mask_detector!.dir, "input_0.npy").data as Float32Array;
    const big = new Float32Array(3 * 128 * 128).map((_, i) => (i * 37) % 256); // anything: the model must not see it
    for (let c = 0; c < 3; c++) {
      for (let y = 0; y < 112; y++) {
        for (let x = 0; x < 112; x++) big[(c * 128 + y + 8) * 128 + x + 8] = face[(c * 112 + y) * 112 + x]!;
      }
    }
    return big;
  }

  /** The mask detector's crop cell: "then its centre 112 x 112 (rows and columns 8 to 119)". */
  function maskFromCrop128(big: Float32Array): ort.Tensor {
    const cell = inputs.find((row) => row[0] === "mask_detector")![8]!;
    const [, first, last] = /rows and columns (\d+) to (\d+)/.exec(cell)!.map(Number) as [number, number, number];
    expect(last - first + 1).toBe(112);
    const centre = new Float32Array(3 * 112 * 112);
    for (let c = 0; c < 3; c++) {
      for (let y = first; y <= last; y++) {
        for (let x = first; x <= last; x++)
          centre[(c * 112 + y - first) * 112 + x - first] = big[(c * 128 + y) * 128 + x]!;
      }
    }
    return new ort.Tensor("float32", centre, [1, 3, 112, 112]);
  }

  it("face_landmarker_pts5: gray 0..255 NCHW gives TenniS's points; in pixels as the outputs table says; 0..1 does not", async () => {
    const { dir } = FIXTURE.face_landmarker_pts5!;
    const picture = npyArray(dir, "input_0.npy").data as Float32Array;
    // the fixture's picture is what the row describes: one channel, whole values 0..255
    expect(picture.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)).toBe(true);
    expect(Math.max(...picture)).toBeGreaterThan(1);
    const model = models.get("face_landmarker_pts5")!;
    const want = reference(dir).get("Common/EltwiseOP")!;
    const { outputs: got, messages } = await runOnnx(model, {
      _input: new ort.Tensor("float32", picture, [1, 1, 112, 112]),
    });
    expect(messages).toEqual([]);
    const points = got["Common/EltwiseOP"]!.data as Float32Array;
    expect(closeTo(points, want)).toBe(true);
    // (crop x + xi * crop w, crop y + yi * crop h): the crop is the whole 112 x 112 picture here
    const pixels = Array.from(
      { length: 5 },
      (_, i) => `(${(points[2 * i]! * 112).toFixed(1)}, ${(points[2 * i + 1]! * 112).toFixed(1)})`,
    );
    expect(pixels.join(" ")).toBe("(39.2, 47.5) (73.8, 49.4) (55.7, 71.2) (40.7, 84.7) (67.2, 85.7)");
    // scaled to 0..1 it runs, and is wrong
    const scaled = await runOnnx(model, {
      _input: new ort.Tensor(
        "float32",
        picture.map((v) => v / 255),
        [1, 1, 112, 112],
      ),
    });
    expect(closeTo(scaled.outputs["Common/EltwiseOP"]!.data as Float32Array, want)).toBe(false);
  });

  it("face_landmarker_pts5: the transform table is the .csta's own", () => {
    const module = tsm.read(readFixture("tennis", FIXTURE.face_landmarker_pts5!.file));
    const plain = tsm.staToPlain(module.container!.root) as {
      transform: { op: string; param?: number[]; description?: string }[];
    };
    const rows = table("seetaface6-transform");
    expect(rows.map((row) => row[1])).toEqual(plain.transform.map((t) => t.op));
    for (const [i, t] of plain.transform.entries()) {
      const param = rows[i]![2]!;
      expect(param, `step ${i + 1}`).toBe((t.param ?? []).map((v) => String(Number(v.toFixed(4)))).join(", "));
      // the steps the container describes say what the table says
      const squeeze = (text: string): string =>
        text
          .replace(/ \(nothing\)$/, "")
          .replace(/;$/, "")
          .replace(/ /g, "");
      if (t.description) expect(squeeze(rows[i]![3]!), `step ${i + 1}`).toBe(squeeze(t.description));
    }
  });

  it("mask_detector: the centre 112 x 112 of a 128 x 128 BGR crop gives TenniS's score; RGB or the whole 128 x 128 does not", async () => {
    const { dir } = FIXTURE.mask_detector!;
    const model = models.get("mask_detector")!;
    const want = reference(dir).get("mask")!;
    const picture = npyArray(dir, "input_0.npy").data as Float32Array;
    // the fixture's picture is B, G, R (make_inputs.py tints the face red: the third channel is the brightest)
    const plane = 112 * 112;
    const mean = (c: number): number => picture.subarray(c * plane, (c + 1) * plane).reduce((s, v) => s + v, 0) / plane;
    expect(mean(2)).toBeGreaterThan(mean(1));
    expect(mean(1)).toBeGreaterThan(mean(0));
    const big = crop128();
    const { outputs: got, messages } = await runOnnx(model, { _input: maskFromCrop128(big) });
    expect(messages).toEqual([]);
    const scores = got.mask!.data as Float32Array;
    expect(closeTo(scores, want)).toBe(true);
    // the outputs table: the first value is the score, the second 1 minus it; no mask on the synthetic face
    expect(scores[0]! + scores[1]!).toBeCloseTo(1, 6);
    expect(scores[0]!.toFixed(3)).toBe("0.063");
    expect(scores[0]! >= threshold("mask_detector", "mask")).toBe(false);
    // R, G, B: another score
    const rgb = new Float32Array(picture.length);
    for (let c = 0; c < 3; c++) rgb.set(picture.subarray((2 - c) * plane, (3 - c) * plane), c * plane);
    const swapped = await runOnnx(model, { _input: new ort.Tensor("float32", rgb, [1, 3, 112, 112]) });
    expect(closeTo(swapped.outputs.mask!.data as Float32Array, want)).toBe(false);
    // the whole 128 x 128 crop: refused (the model keeps the module's declared [1, 3, 112, 112])
    await expect(runOnnx(model, { _input: new ort.Tensor("float32", big, [1, 3, 128, 128]) })).rejects.toThrow(
      /dimension|Got: 128|Expected: 112/i,
    );
  });

  it("quality_lbn: a uint8 NHWC BGR picture gives TenniS's three scores, read with SeetaFace's thresholds; float32 is refused", async () => {
    const { dir } = FIXTURE.quality_lbn!;
    const model = models.get("quality_lbn")!;
    const ref = reference(dir);
    const picture = npyArray(dir, "input_0.npy");
    expect(picture.shape).toEqual([1, 227, 227, 3]);
    // B, G, R interleaved (NHWC): the red of the tint is the third value of each pixel
    const channelMean = (c: number): number => {
      let s = 0;
      for (let i = c; i < picture.data.length; i += 3) s += picture.data[i]!;
      return s / (picture.data.length / 3);
    };
    expect(channelMean(2)).toBeGreaterThan(channelMean(0));
    const { outputs: got, messages } = await runOnnx(model, {
      _origin_data: new ort.Tensor("uint8", picture.data as Uint8Array, picture.shape),
    });
    expect(messages).toEqual([]);
    const value = (name: string): number => {
      const data = got[name]!.data as Float32Array;
      expect(closeTo(data, ref.get(name)!), name).toBe(true);
      return data[0]!;
    };
    const light = value("fc8_light");
    const blur = value("fc8_blur");
    const noise = value("fc8_noise");
    expect([light, blur, noise].map((v) => v.toFixed(3))).toEqual(["0.563", "0.241", "0.900"]);
    // the outputs table's thresholds, as SeetaFace6's QualityOfLBN applies them
    const [lightAt, blurAt, noiseAt] = ["fc8_light", "fc8_blur", "fc8_noise"].map((name) =>
      threshold("quality_lbn", name),
    );
    expect([lightAt, blurAt, noiseAt]).toEqual([0.5, 0.8, 0.5]);
    expect([
      light >= lightAt! ? "BRIGHT" : "DARK",
      blur >= blurAt! ? "CLEAR" : "BLUR",
      noise >= noiseAt! ? "HAVENOISE" : "NONOISE",
    ]).toEqual(["BRIGHT", "BLUR", "HAVENOISE"]);
    // the same picture as float32: onnxruntime refuses it (the input is uint8, as --input made it)
    await expect(
      runOnnx(model, { _origin_data: new ort.Tensor("float32", Float32Array.from(picture.data), picture.shape) }),
    ).rejects.toThrow(/type|tensor\(uint8\)/i);
  });

  it("quality_lbn: H and W left as names take SeetaFace's 256 x 256 crop too", async () => {
    const picture = npyArray(FIXTURE.quality_lbn!.dir, "input_0.npy").data as Uint8Array;
    // nearest-neighbour 227 -> 256, enough to show the model takes it (the graph resizes to 227 itself)
    const big = new Uint8Array(256 * 256 * 3);
    for (let y = 0; y < 256; y++) {
      for (let x = 0; x < 256; x++) {
        const sy = Math.floor((y * 227) / 256);
        const sx = Math.floor((x * 227) / 256);
        for (let c = 0; c < 3; c++) big[(y * 256 + x) * 3 + c] = picture[(sy * 227 + sx) * 3 + c]!;
      }
    }
    const { outputs: got, messages } = await runOnnx(models.get("quality_lbn")!, {
      _origin_data: new ort.Tensor("uint8", big, [1, 256, 256, 3]),
    });
    expect(messages).toEqual([]);
    for (const name of ["fc8_light", "fc8_blur", "fc8_noise"]) {
      const v = (got[name]!.data as Float32Array)[0]!;
      expect(v > 0 && v < 1, name).toBe(true);
    }
  });
});
