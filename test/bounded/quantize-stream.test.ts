/**
 * `convert X.onnx Y.onnx --quantize fp16|bf16|i8` streams: the CLI converting a 512 MiB model of MatMul weights
 * stays within 0.6 x the file's size + 200 MiB above Node's baseline (the in-memory conversion held the whole
 * model and every converted weight: about 1.8 x the file), and writes what the in-memory conversion writes. The
 * model is a sparse file (headers at their offsets, each weight a hole but for a marker at its start), so the
 * test holds no large buffer; the peak is the child's process.resourceUsage().maxRSS.
 */
import { closeSync, existsSync, ftruncateSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as onnx from "../../bindings/formats/onnx.js";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";
import { fromFile } from "../../bindings/io/source.js";
import { BUILT_CLI, peakRss } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-quantize-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MiB = 1024 * 1024;

interface Piece {
  offset: number;
  bytes: Uint8Array;
}

function valueInfo(name: string, dims: number[]): (w: ProtoWriter) => void {
  return (v) =>
    v.stringField(1, name).messageField(2, (t) =>
      t.messageField(1, (tt) =>
        tt.uintField(1, 1).messageField(2, (s) => {
          for (const d of dims) s.messageField(1, (dim) => dim.uintField(1, d));
        }),
      ),
    );
}

/**
 * y = x @ w0 @ w1 … (x: [1, n]; each w: [n, n] float32 raw_data, a hole but for 64 bytes of values at its start),
 * as pieces at their offsets, and the file's size.
 */
export function sparseMatMulChain(count: number, n: number): { pieces: Piece[]; size: number } {
  const payload = n * n * 4;
  const marker = new Uint8Array(new Float32Array(Array.from({ length: 16 }, (_, i) => (i - 7.5) / 4)).buffer);
  const front = new ProtoWriter();
  for (let i = 0; i < count; i++) {
    front.messageField(1, (node) =>
      node
        .stringField(1, i === 0 ? "x" : `h${i}`)
        .stringField(1, `w${i}`)
        .stringField(2, i === count - 1 ? "y" : `h${i + 1}`)
        .stringField(3, `matmul${i}`)
        .stringField(4, "MatMul"),
    );
  }
  front.stringField(2, "chain");
  const heads = Array.from({ length: count }, (_, i) =>
    new ProtoWriter()
      .packedVarintField(1, [n, n])
      .uintField(2, 1)
      .stringField(8, `w${i}`)
      .tag(9, 2)
      .varint(payload)
      .finish(),
  );
  const fields = heads.map((h) =>
    new ProtoWriter()
      .tag(5, 2)
      .varint(h.length + payload)
      .finish(),
  );
  const back = new ProtoWriter()
    .messageField(11, valueInfo("x", [1, n]))
    .messageField(12, valueInfo("y", [1, n]))
    .finish();
  const frontBytes = front.finish();
  const graphLength =
    frontBytes.length + heads.reduce((s, h, i) => s + fields[i]!.length + h.length + payload, 0) + back.length;
  const pieces: Piece[] = [];
  let at = 0;
  const put = (bytes: Uint8Array) => {
    pieces.push({ offset: at, bytes });
    at += bytes.length;
  };
  put(new ProtoWriter().uintField(1, 8).stringField(2, "sparse").tag(7, 2).varint(graphLength).finish());
  put(frontBytes);
  heads.forEach((h, i) => {
    put(fields[i]!);
    put(h);
    pieces.push({ offset: at, bytes: marker });
    at += payload;
  });
  put(back);
  put(new ProtoWriter().messageField(8, (op) => op.stringField(1, "").uintField(2, 17)).finish());
  return { pieces, size: at };
}

function writeSparse(path: string, pieces: Piece[], size: number): void {
  const fd = openSync(path, "w");
  try {
    ftruncateSync(fd, size);
    for (const p of pieces) writeSync(fd, p.bytes, 0, p.bytes.length, p.offset);
  } finally {
    closeSync(fd);
  }
}

describe.runIf(existsSync(BUILT_CLI))("convert --quantize streams (a 512 MiB model)", () => {
  it("fp16, bf16, i8: within 0.6 x the size + 200 MiB of Node's baseline; the same structure as in memory", async () => {
    const { pieces, size } = sparseMatMulChain(8, 4096);
    expect(size).toBeGreaterThan(512 * MiB);
    const input = join(dir, "big.onnx");
    writeSparse(input, pieces, size);
    const baseline = peakRss(dir, ["--version"]);
    const bound = 0.6 * size + 200 * MiB;
    for (const mode of ["fp16", "bf16", "i8"]) {
      const output = join(dir, `big-${mode}.onnx`);
      const run = peakRss(dir, ["convert", input, output, "--quantize", mode]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toMatch(new RegExp(`${mode}: 8 tensors converted`));
      expect(run.rss - baseline.rss, `${mode}: peak ${run.rss} vs baseline ${baseline.rss}`).toBeLessThan(bound);
      // the converted weights are half (a quarter for i8) of the input's
      const written = statSync(output).size;
      expect(written).toBeLessThan(mode === "i8" ? size * 0.26 : size * 0.51);
      // read back (headers only: a large parent would raise the next child's maxRSS, which Linux carries over
      // fork): the eight weights stored in the new type (the bytes are compared with the in-memory conversion on
      // real models in cli-quantize.test.ts and on generated ones in onnx-quantize-stream.test.ts)
      const source = await fromFile(output);
      const model = await onnx.readFrom(source);
      await source.close?.();
      expect(
        model.graph!.initializers.filter((t) => t.dataType === (mode === "fp16" ? 10 : mode === "bf16" ? 16 : 3)),
      ).toHaveLength(8);
      rmSync(output);
    }
    rmSync(input);
  }, 900_000);
});
