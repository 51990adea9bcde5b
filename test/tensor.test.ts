import { describe, expect, it } from "vitest";
import { FormatError } from "../bindings/bytes/errors.js";
import * as kernels from "../bindings/kernels/index.js";
import { type TensorInfo, decodeTensor } from "../bindings/tensor.js";

function info(partial: Partial<TensorInfo>): TensorInfo {
  return {
    name: "t",
    dtype: "float32",
    shape: [2, 3],
    byteOffset: 0,
    byteLength: 24,
    byteOrder: "le",
    layout: "row-major",
    ...partial,
  };
}

/** Stored bytes of `values` (logical row-major [2][3]) in the given layout and byte order. */
function stored(
  values: number[],
  ctor: Float32ArrayConstructor | Float64ArrayConstructor | Int16ArrayConstructor,
  columnMajor: boolean,
  bigEndian: boolean,
  pad = 0,
): Uint8Array {
  const order = columnMajor ? [0, 3, 1, 4, 2, 5] : [0, 1, 2, 3, 4, 5];
  const arr = new ctor(order.map((i) => values[i]!));
  const bytes = new Uint8Array(pad + arr.byteLength);
  bytes.set(new Uint8Array(arr.buffer), pad);
  const body = bytes.subarray(pad);
  if (bigEndian) kernels.byteSwap(body, ctor.BYTES_PER_ELEMENT as 2 | 4 | 8);
  return body;
}

describe("decodeTensor", () => {
  const values = [1.5, -2, 3, 4, 5, 6.25];
  it.each([
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ])("float32 column-major=%s big-endian=%s gives row-major host order", (columnMajor, bigEndian) => {
    for (const pad of [0, 1]) {
      const bytes = stored(values, Float32Array, columnMajor, bigEndian, pad);
      const t = decodeTensor(
        bytes,
        info({ layout: columnMajor ? "column-major" : "row-major", byteOrder: bigEndian ? "be" : "le" }),
      );
      expect(Array.from(t.data as Float32Array)).toEqual(values);
      expect(t.shape).toEqual([2, 3]);
      if (!columnMajor && !bigEndian && pad === 0) expect(t.data.buffer).toBe(bytes.buffer); // zero-copy view
      if (bigEndian)
        expect(Array.from(bytes.subarray(0, 4))).toEqual(
          Array.from(stored(values, Float32Array, columnMajor, true).subarray(0, 4)),
        ); // input untouched
    }
  });

  it("float64 and int16 big-endian, column-major", () => {
    const t = decodeTensor(
      stored(values, Float64Array, true, true),
      info({ dtype: "float64", byteLength: 48, layout: "column-major", byteOrder: "be" }),
    );
    expect(Array.from(t.data as Float64Array)).toEqual(values);
    const ints = [1, -2, 3, 400, -500, 6];
    const i = decodeTensor(
      stored(ints, Int16Array, false, true),
      info({ dtype: "int16", byteLength: 12, byteOrder: "be" }),
    );
    expect(Array.from(i.data as Int16Array)).toEqual(ints);
  });

  it("widens float16 and dequantizes int8 with options.dtype float32, in column-major too", () => {
    const halves = kernels.f32ToF16(new Float32Array([1, 4, 2, 5, 3, 6])); // column-major of [[1,2,3],[4,5,6]]
    const h = decodeTensor(
      new Uint8Array(halves.buffer),
      info({ dtype: "float16", byteLength: 12, layout: "column-major" }),
      { dtype: "float32" },
    );
    expect(h.dtype).toBe("float32");
    expect(Array.from(h.data as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
    const raw = decodeTensor(new Uint8Array(halves.buffer), info({ dtype: "float16", byteLength: 12 }));
    expect(raw.dtype).toBe("float16");
    expect(raw.data).toBeInstanceOf(Uint16Array);
    const q = new Int8Array([10, 20, 30, 40, 50, 60]);
    const d = decodeTensor(
      new Uint8Array(q.buffer),
      info({ dtype: "int8", byteLength: 6, quantization: { scale: 0.5, offset: 10 } }),
      { dtype: "float32" },
    );
    expect(Array.from(d.data as Float32Array)).toEqual([0, 5, 10, 15, 20, 25]);
    const kept = decodeTensor(
      new Uint8Array(q.buffer),
      info({ dtype: "int8", byteLength: 6, quantization: { scale: 0.5, offset: 10 } }),
    );
    expect(kept.dtype).toBe("int8");
  });

  it("decodes into a caller-given array", () => {
    const out = new Float32Array(6);
    const t = decodeTensor(
      stored(values, Float32Array, true, true),
      info({ layout: "column-major", byteOrder: "be" }),
      { out },
    );
    expect(t.data).toBe(out);
    expect(Array.from(out)).toEqual(values);
    const plain = new Float32Array(6);
    expect(decodeTensor(stored(values, Float32Array, false, false), info({}), { out: plain }).data).toBe(plain);
    expect(Array.from(plain)).toEqual(values);
    expect(() =>
      decodeTensor(stored(values, Float32Array, false, false), info({}), { out: new Float32Array(5) }),
    ).toThrow(RangeError);
  });

  it("refuses bytes that disagree with the shape, with a FormatError", () => {
    expect(() => decodeTensor(new Uint8Array(20), info({ byteOffset: 100 }), {}, "bw2l")).toThrow(FormatError);
    expect(() => decodeTensor(new Uint8Array(20), info({ byteOffset: 100 }), {}, "bw2l")).toThrow(
      /bw2l: tensor "t" has 20 bytes; its float32 shape \[2, 3\] needs 24 at offset 100/,
    );
  });
});
