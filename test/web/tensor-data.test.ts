// The page's statistics and histograms (web/src/model/tensor-data.ts over web/src/compute.ts) on every example
// and reference fixture, against an independent oracle over readAny().tensors(); the chunked path (big
// tensors, read straight from their byte range) against the whole-tensor path; inputs as Node Buffers at odd
// offsets and as ArrayBuffers.
import { describe, expect, it } from "vitest";
import { type TensorInfo, fromBytes, readAny, readFromAny } from "../../bindings/index.js";
import { histogram, stats } from "../../web/src/compute.js";
import {
  type TensorSource,
  elementsOf,
  hasStatistics,
  histogramRange,
  rawReadable,
  statsAndHistogram,
  tensorHistogram,
  tensorStats,
} from "../../web/src/model/tensor-data.js";
import { close, oracleStats, oracleTensorValues, readableFiles } from "./corpus.js";

const files = readableFiles();

async function open(bytes: Uint8Array | ArrayBuffer): Promise<{ from: TensorSource; infos: TensorInfo[] }> {
  const source = fromBytes(bytes);
  const lazy = await readFromAny(source);
  return { from: { source, loadTensor: (i, o) => lazy.loadTensor(i, o) }, infos: lazy.tensorInfos() };
}

/** The same bytes in a Node Buffer at an odd offset of a bigger allocation. */
function oddBuffer(bytes: Uint8Array): Buffer {
  const big = Buffer.alloc(bytes.length + 7);
  big.set(bytes, 3);
  return big.subarray(3, 3 + bytes.length);
}

describe("tensor statistics on every example and fixture", () => {
  it("has files to test", () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });
  for (const { label, bytes } of files) {
    it(`${label}: equal the oracle, whole and chunked, from a Buffer at an odd offset and an ArrayBuffer`, async () => {
      const inputs = [oddBuffer(bytes), bytes.slice().buffer];
      for (const input of inputs) {
        const { from, infos } = await open(input);
        const oracle = oracleTensorValues(
          bytes,
          (name) => infos.find((i) => i.name === name)?.quantization !== undefined,
        );
        expect(infos.map((i) => i.name)).toEqual(
          readAny(bytes)
            .tensors()
            .map((t) => t.name),
        );
        for (const [k, info] of infos.entries()) {
          const values = oracle[k];
          expect(hasStatistics(info.dtype)).toBe(values !== undefined);
          if (!values) continue;
          const want = oracleStats(values);
          const scale = Math.max(Math.abs(want.min), Math.abs(want.max), 1);
          for (const chunkBytes of [undefined, 8, 24]) {
            const got = await tensorStats(from, info, { chunkBytes });
            expect(
              {
                count: got.count,
                finite: got.finite,
                nan: got.nan,
                posInf: got.posInf,
                negInf: got.negInf,
                zeros: got.zeros,
                min: got.min,
                max: got.max,
              },
              `${info.name} chunk ${chunkBytes}`,
            ).toEqual({
              count: want.count,
              finite: want.finite,
              nan: want.nan,
              posInf: want.posInf,
              negInf: want.negInf,
              zeros: want.zeros,
              min: want.min,
              max: want.max,
            });
            expect(close(got.mean, want.mean, scale), `${info.name} mean ${got.mean} vs ${want.mean}`).toBe(true);
            // merged chunks too, values near ±1e300 included (mergeStats rescales, so nothing overflows)
            expect(
              close(got.std, want.std, scale, 1e-6),
              `${info.name} std ${got.std} vs ${want.std} (chunks of ${chunkBytes ?? "all"})`,
            ).toBe(true);
          }
        }
      }
    });
  }
});

describe("histograms", () => {
  for (const { label, bytes } of files) {
    it(`${label}: every value lands in exactly one bar; chunked equals whole`, async () => {
      const { from, infos } = await open(bytes);
      const oracle = oracleTensorValues(
        bytes,
        (name) => infos.find((i) => i.name === name)?.quantization !== undefined,
      );
      for (const [k, info] of infos.entries()) {
        const values = oracle[k];
        if (!values) continue;
        const { stats: s, histogram: h } = await statsAndHistogram(from, info, 16);
        const inBins = h.counts.reduce((a, b) => a + b, 0);
        expect(inBins + h.nan + h.posInf + h.negInf + h.below + h.above).toBe(values.length);
        expect(h.below + h.above).toBe(0);
        const { lo, hi } = histogramRange(s);
        const chunked = await tensorHistogram(from, info, 16, lo, hi, { chunkBytes: 16 });
        expect(Array.from(chunked.counts)).toEqual(Array.from(h.counts));
        // streamed with the statistics known (the table's): one pass, the same statistics and bars
        const reads: number[] = [];
        const counting: TensorSource = {
          ...from,
          source: { ...from.source, read: (offset, length) => (reads.push(length), from.source.read(offset, length)) },
        };
        const known = await statsAndHistogram(counting, info, 16, { chunkBytes: 16 }, s);
        expect(Array.from(known.histogram.counts)).toEqual(Array.from(h.counts));
        if (rawReadable(info) && info.byteLength > 16) {
          expect(known.stats).toBe(s);
          expect(reads.reduce((a, b) => a + b, 0)).toBe(info.byteLength);
        } else {
          expect(known.stats).toEqual(s);
        }
        // the oracle's own binning; a value within rounding of a bin edge may land on either side of it
        const want = new Array<number>(16).fill(0);
        let nearEdges = 0;
        for (const v of values) {
          if (!Number.isFinite(v)) continue;
          const position = ((v - lo) / (hi - lo)) * 16;
          want[Math.min(15, Math.floor(position))]! += 1;
          if (Math.abs(position - Math.round(position)) < 1e-6 && position > 0.5 && position < 15.5) nearEdges++;
        }
        let got = 0;
        let expected = 0;
        for (let i = 0; i < 16; i++) {
          got += h.counts[i]!;
          expected += want[i]!;
          expect(Math.abs(got - expected), `${info.name} bins up to ${i}`).toBeLessThanOrEqual(nearEdges);
        }
      }
    });
  }
});

describe("which tensors are read straight from their bytes", () => {
  it("plain elements yes (little- or big-endian, column-major, quantized int8); obfuscated .csta payloads no", async () => {
    const seen = new Map<string, boolean>();
    for (const { label, bytes } of files) {
      const { infos } = await open(bytes);
      for (const info of infos) {
        const readable = rawReadable(info);
        if ((info as { obfuscated?: string }).obfuscated) expect(readable, `${label} ${info.name}`).toBe(false);
        if (!hasStatistics(info.dtype)) expect(readable).toBe(false);
        seen.set(
          `${info.byteOrder} ${info.layout} ${info.quantization ? "q" : ""}`,
          readable || (seen.get(`${info.byteOrder} ${info.layout} ${info.quantization ? "q" : ""}`) ?? false),
        );
      }
    }
    expect(seen.get("be row-major ")).toBe(true);
    expect(seen.get("le column-major ")).toBe(true);
    expect(seen.get("le row-major ")).toBe(true);
  });

  it("an unaligned chunk is copied, not misread", () => {
    const values = new Float32Array([1.5, -2, NaN, Infinity, 0]);
    const bytes = new Uint8Array(values.byteLength + 1);
    bytes.set(new Uint8Array(values.buffer), 1);
    const { data, options } = elementsOf("float32", bytes.subarray(1));
    expect(Array.from(data as Float32Array)).toEqual(Array.from(values));
    const s = stats(data, options);
    expect([s.min, s.max, s.nan, s.posInf, s.zeros]).toEqual([-2, 1.5, 1, 1, 1]);
  });

  it("non-finite values are counted apart and never enter min, max, mean or the bins", () => {
    const data = new Float32Array([NaN, -Infinity, Infinity, 2, 4]);
    const s = stats(data);
    expect([s.nan, s.negInf, s.posInf, s.finite, s.min, s.max, s.mean]).toEqual([1, 1, 1, 2, 2, 4, 3]);
    const h = histogram(data, 2, 2, 4);
    expect([Array.from(h.counts), h.nan, h.posInf, h.negInf]).toEqual([[1, 1], 1, 1, 1]);
  });
});
