// Heatmaps of tensors too large to decode whole (web/src/model/streamed-slice.ts): the slice read straight from
// the stored bytes in small chunks and reduced on the fly, against reduce(normalizeColumns?(extractSlice())) of
// the values the library decodes (readAny().tensors(), an independent path: it transposes column-major tensors,
// swaps big-endian ones and widens float16 itself) on every example and fixture, for every pair of axes, reduced
// and not, normalised and not; and the exact-value region against the same cells.
import { describe, expect, it } from "vitest";
import { type TensorInfo, fromBytes, readFromAny } from "../../bindings/index.js";
import { type SliceSpec, extractSlice, normalizeColumns, reduce } from "../../web/src/model/heatmap.js";
import { streamedRegion, streamedSlice } from "../../web/src/model/streamed-slice.js";
import { type TensorSource, hasStatistics, rawReadable } from "../../web/src/model/tensor-data.js";
import { oracleTensorValues, readableFiles } from "./corpus.js";

const files = readableFiles();

/** Equal numbers, or both NaN, or within rounding of sums taken in another order. */
function same(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Every (rowAxis, colAxis) pair with the other axes at their last index; one spec for 0-d and 1-d tensors. */
function specs(shape: number[]): SliceSpec[] {
  const fixed = shape.map((d) => Math.max(0, d - 1));
  if (shape.length === 0) return [{ rowAxis: -1, colAxis: -1, fixed }];
  if (shape.length === 1)
    return [
      { rowAxis: -1, colAxis: 0, fixed },
      { rowAxis: 0, colAxis: -1, fixed },
    ];
  const out: SliceSpec[] = [];
  for (let a = 0; a < shape.length; a++)
    for (let b = 0; b < shape.length; b++) if (a !== b) out.push({ rowAxis: a, colAxis: b, fixed });
  return out;
}

describe("streamed heatmap slices on every example and fixture", () => {
  it("has files with plainly stored tensors of several layouts", () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });
  let checked = 0;
  const layouts = new Set<string>();
  for (const { label, bytes } of files) {
    it(`${label}: equal the decoded tensor's slices`, async () => {
      // the file as a Node Buffer at an odd offset of a bigger allocation (what fs.readFileSync-style callers pass)
      const backing = Buffer.alloc(bytes.length + 8);
      backing.set(bytes, 3);
      const source = fromBytes(backing.subarray(3, 3 + bytes.length));
      const lazy = await readFromAny(source);
      const from: TensorSource = { source, loadTensor: (i, o) => lazy.loadTensor(i, o) };
      const infos: TensorInfo[] = lazy.tensorInfos();
      const oracle = oracleTensorValues(
        bytes,
        (name) => infos.find((i) => i.name === name)?.quantization !== undefined,
      );
      for (const [k, info] of infos.entries()) {
        const values = oracle[k];
        if (!values || !hasStatistics(info.dtype) || !rawReadable(info) || values.length === 0) continue;
        layouts.add(`${info.layout}/${info.byteOrder}/${info.dtype}`);
        for (const [s, spec] of specs(info.shape).entries()) {
          const matrix = extractSlice(values, info.shape, spec);
          for (const normalize of [false, true]) {
            for (const [maxRows, maxCols] of [
              [4096, 4096],
              [3, 2],
            ] as const) {
              const want = reduce(normalize ? normalizeColumns(matrix) : matrix, maxRows, maxCols);
              const chunkBytes = (s + (normalize ? 1 : 0)) % 2 === 0 ? 24 : undefined;
              const got = await streamedSlice(from, info, spec, maxRows, maxCols, { normalize, chunkBytes });
              const what = `${info.name} ${JSON.stringify(spec)} ${maxRows}x${maxCols} normalize ${normalize} chunks ${chunkBytes}`;
              expect([got.rows, got.cols, got.rowStep, got.colStep, got.fullRows, got.fullCols], what).toEqual([
                want.rows,
                want.cols,
                want.rowStep,
                want.colStep,
                matrix.rows,
                matrix.cols,
              ]);
              const bad = Array.from(got.data).findIndex((v, i) => !same(v, want.data[i]!));
              expect(bad, `${what}: cell ${bad} ${got.data[bad]} vs ${want.data[bad]}`).toBe(-1);
              checked++;
            }
          }
          const region = await streamedRegion(from, info, spec, matrix.rows - 2, -1, 3, 4);
          for (let r = 0; r < 3; r++) {
            for (let c = 0; c < 4; c++) {
              const row = matrix.rows - 2 + r;
              const col = c - 1;
              const want =
                row >= 0 && row < matrix.rows && col >= 0 && col < matrix.cols
                  ? matrix.data[row * matrix.cols + col]!
                  : NaN;
              expect(
                same(region[r * 4 + c]!, want),
                `${info.name} region (${row}, ${col}): ${region[r * 4 + c]} vs ${want}`,
              ).toBe(true);
            }
          }
        }
      }
    });
  }
  it("covered row- and column-major, both byte orders, float16 and quantized int8 (run with the fixtures)", () => {
    if (files.length < 10) return; // examples only: not every layout is there
    const all = [...layouts].join(" ");
    expect(checked).toBeGreaterThan(100);
    for (const needed of ["column-major", "row-major", "/be/", "float16", "int8"])
      expect(all, needed).toContain(needed);
  });
});
