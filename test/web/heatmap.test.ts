// The heatmap's model: slicing N-d tensors against naive indexing, reduction, per-feature normalisation,
// value ranges, colour maps, and the speech orientation (time on x, feature 0 at the bottom) with the
// pixel-to-cell mapping the hover read-out uses.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBytes, readFromAny } from "../../bindings/index.js";
import { exampleFiles } from "../../bindings/examples.js";
import {
  NAN_RGB,
  cellAt,
  clampSlice,
  colourMap,
  defaultSlice,
  extractSlice,
  fullIndex,
  normalizeColumns,
  reduce,
  regionWindow,
  renderRGBA,
  suggestedMap,
  valueRange,
} from "../../web/src/model/heatmap.js";
import { numbersOf } from "../../web/src/model/tensor-data.js";
import { HAVE_FIXTURES, readFixture } from "../helpers/fixtures.js";

/** Element at an N-d index of row-major values, the slow way. */
function at(values: ArrayLike<number>, shape: number[], index: number[]): number {
  let flat = 0;
  for (let k = 0; k < shape.length; k++) flat = flat * shape[k]! + index[k]!;
  return values[flat]!;
}

describe("slices", () => {
  it("every cell of every slice of random N-d shapes is the element at its full index", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 0, maxLength: 5 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 4 }),
        fc.array(fc.nat(6), { minLength: 5, maxLength: 5 }),
        (shape, a, b, fixed) => {
          const count = shape.reduce((x, y) => x * y, 1);
          const values = Float64Array.from({ length: count }, (_, i) => i * 1.5 - 3);
          const spec = clampSlice(shape, {
            rowAxis: shape.length ? a % shape.length : -1,
            colAxis: shape.length ? b % shape.length : -1,
            fixed,
          });
          if (shape.length >= 2) expect(spec.rowAxis).not.toBe(spec.colAxis);
          const matrix = extractSlice(values, shape, spec);
          for (let r = 0; r < matrix.rows; r++) {
            for (let c = 0; c < matrix.cols; c++) {
              expect(matrix.data[r * matrix.cols + c]).toBe(at(values, shape, fullIndex(shape, spec, r, c)));
            }
          }
        },
      ),
      { seed: 3, numRuns: 300 },
    );
  });

  it("defaults: a 2-D tensor whole, a 1-D one as one row, N-d the two largest axes", () => {
    expect(defaultSlice([321, 24])).toMatchObject({ rowAxis: 0, colAxis: 1 });
    expect(defaultSlice([7])).toMatchObject({ rowAxis: -1, colAxis: 0 });
    expect(defaultSlice([])).toMatchObject({ rowAxis: -1, colAxis: -1 });
    expect(defaultSlice([128, 32, 3, 3])).toMatchObject({ rowAxis: 0, colAxis: 1 });
    expect(defaultSlice([2, 3, 40, 16])).toMatchObject({ rowAxis: 2, colAxis: 3 });
  });
});

describe("reduction and normalisation", () => {
  it("reduce keeps block means (ignoring non-finite values) and the screen limits", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        (rows, cols, maxRows, maxCols) => {
          const data = Float64Array.from({ length: rows * cols }, (_, i) => (i % 7 === 3 ? NaN : Math.sin(i)));
          const out = reduce({ rows, cols, data }, maxRows, maxCols);
          expect(out.rows).toBeLessThanOrEqual(Math.max(maxRows, 1));
          expect(out.cols).toBeLessThanOrEqual(Math.max(maxCols, 1));
          const r0 = Math.min(out.rows - 1, 1);
          const c0 = out.cols - 1;
          const block: number[] = [];
          for (let r = r0 * out.rowStep; r < Math.min(rows, (r0 + 1) * out.rowStep); r++) {
            for (let c = c0 * out.colStep; c < Math.min(cols, (c0 + 1) * out.colStep); c++) {
              const v = data[r * cols + c]!;
              if (Number.isFinite(v)) block.push(v);
            }
          }
          const want = block.length ? block.reduce((a, b) => a + b, 0) / block.length : NaN;
          const got = out.data[r0 * out.cols + c0]!;
          if (Number.isNaN(want)) expect(got).toBeNaN();
          else expect(got).toBeCloseTo(want, 12);
        },
      ),
      { seed: 5, numRuns: 200 },
    );
  });

  it("per-feature normalisation gives every column mean 0 and std 1", () => {
    const rows = 50;
    const cols = 6;
    const data = Float64Array.from({ length: rows * cols }, (_, i) => (i % cols) * 10 + Math.cos(i) * (1 + (i % cols)));
    const out = normalizeColumns({ rows, cols, data });
    for (let c = 0; c < cols; c++) {
      const column = Array.from({ length: rows }, (_, r) => out.data[r * cols + c]!);
      const mean = column.reduce((a, b) => a + b, 0) / rows;
      const std = Math.sqrt(column.reduce((a, b) => a + (b - mean) ** 2, 0) / rows);
      expect(mean).toBeCloseTo(0, 10);
      expect(std).toBeCloseTo(1, 10);
    }
  });
});

describe("colours and ranges", () => {
  it("ranges: min–max, 1–99 percentile inside it, symmetric around 0; never empty", () => {
    const data = Float64Array.from({ length: 1000 }, (_, i) => i - 300);
    data[5] = NaN;
    data[6] = Infinity;
    expect(valueRange(data, "minmax")).toEqual({ lo: -300, hi: 699 });
    const p = valueRange(data, "percentile");
    expect(p.lo).toBeGreaterThan(-300);
    expect(p.hi).toBeLessThan(699);
    expect(valueRange(data, "symmetric")).toEqual({ lo: -699, hi: 699 });
    const flat = valueRange(new Float64Array([2, 2, 2]), "minmax");
    expect(flat.hi).toBeGreaterThan(flat.lo);
    expect(valueRange(new Float64Array([NaN]), "minmax")).toEqual({ lo: 0, hi: 1 });
  });

  it("maps have 256 colours; signed data suggests the diverging map", () => {
    for (const name of ["viridis", "grey", "diverging"] as const) expect(colourMap(name).length).toBe(768);
    expect(Array.from(colourMap("grey").subarray(0, 3))).toEqual([0, 0, 0]);
    expect(Array.from(colourMap("grey").subarray(765))).toEqual([255, 255, 255]);
    expect(suggestedMap(-3, 4)).toBe("diverging");
    expect(suggestedMap(0, 4)).toBe("viridis");
    expect(suggestedMap(-0.01, 4)).toBe("viridis");
  });
});

describe("orientations", () => {
  const matrix = { rows: 3, cols: 2, data: Float64Array.from([0, 1, 2, 3, 4, NaN]) };
  const options = { map: "grey" as const, lo: 0, hi: 4 };

  it("matrix: row 0 on top; speech: frames along x, feature 0 at the bottom", () => {
    const m = renderRGBA(matrix, { ...options, orientation: "matrix" });
    expect([m.width, m.height]).toEqual([2, 3]);
    const grey = (p: Uint8ClampedArray, w: number, x: number, y: number) => p[(y * w + x) * 4]!;
    expect(grey(m.pixels, 2, 1, 0)).toBe(Math.round((1 / 4) * 255));
    const s = renderRGBA(matrix, { ...options, orientation: "speech" });
    expect([s.width, s.height]).toEqual([3, 2]);
    // frame 1 (x = 1), feature 0 (bottom row, y = 1) holds matrix[1][0] = 2
    expect(grey(s.pixels, 3, 1, 1)).toBe(Math.round((2 / 4) * 255));
    // NaN in its own colour
    expect(Array.from(s.pixels.subarray((0 * 3 + 2) * 4, (0 * 3 + 2) * 4 + 3))).toEqual([...NAN_RGB]);
  });

  it("cellAt inverts the pixel placement of both orientations", () => {
    for (const orientation of ["matrix", "speech"] as const) {
      const { width, height } = renderRGBA(matrix, { ...options, orientation });
      for (let x = 0; x < width; x++) {
        for (let y = 0; y < height; y++) {
          const cell = cellAt(matrix, orientation, x + 0.5, y + 0.5)!;
          const back =
            orientation === "speech" ? { x: cell.row, y: height - 1 - cell.col } : { x: cell.col, y: cell.row };
          expect(back).toEqual({ x, y });
        }
      }
      expect(cellAt(matrix, orientation, -1, 0)).toBeUndefined();
      expect(cellAt(matrix, orientation, width, 0)).toBeUndefined();
    }
  });

  it("a SPRAAK track draws frame by frame (the real fixture and the generated example)", async () => {
    const inputs = [exampleFiles().find((e) => e.format === "spraak")!.bytes];
    if (HAVE_FIXTURES) inputs.push(readFixture("spraak", "sx313.trk"));
    for (const bytes of inputs) {
      const lazy = await readFromAny(fromBytes(bytes));
      const info = lazy.tensorInfos()[0]!;
      const values = numbersOf(await lazy.loadTensor(info), info);
      const [frames, features] = info.shape as [number, number];
      const matrix = extractSlice(values, info.shape, defaultSlice(info.shape));
      const { lo, hi } = valueRange(matrix.data, "minmax");
      const image = renderRGBA(matrix, { map: "grey", lo, hi, orientation: "speech" });
      expect([image.width, image.height]).toEqual([frames, features]);
      // pixel (frame 7, bottom row) shows feature 0 of frame 7
      const v = values[7 * features]!;
      expect(image.pixels[((features - 1) * frames + 7) * 4]).toBe(Math.round(((v - lo) / (hi - lo)) * 255));
    }
  });

  it("the region window stays inside the slice", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        fc.nat(40),
        fc.nat(40),
        (rows, cols, r, c) => {
          const w = regionWindow(rows, cols, Math.min(r, rows - 1), Math.min(c, cols - 1), 8);
          expect(w.row0).toBeGreaterThanOrEqual(0);
          expect(w.col0).toBeGreaterThanOrEqual(0);
          expect(w.row0 + w.rows).toBeLessThanOrEqual(rows);
          expect(w.col0 + w.cols).toBeLessThanOrEqual(cols);
          expect(Math.min(r, rows - 1)).toBeGreaterThanOrEqual(w.row0);
          expect(Math.min(r, rows - 1)).toBeLessThan(w.row0 + w.rows);
        },
      ),
      { seed: 9 },
    );
  });
});
