/**
 * A string field whose length varint is 2^32 or more (the fast varint read's high word set) is refused as too
 * large, at its offset, wherever the ONNX reader reads strings. The fast path once left the cursor after that
 * length and read the next bytes as the string, so a .pb with a 2^55-byte name read as a tensor named by the bytes
 * after it (found by the onnx-tensor fuzz target: fuzz/.work/findings/onnx-tensor/crash-72e0aa86…).
 */
import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as onnx from "../../bindings/formats/onnx.js";
import * as onnxTensor from "../../bindings/formats/onnx-tensor.js";
import { varintArray } from "../helpers/bytes.js";

const utf8 = new TextEncoder();

/** A TensorProto: dims [3], INT64, then `name` with the given length varint followed by "resuit", int64_data 1,2,1. */
function tensorWithNameLength(length: bigint): Uint8Array {
  return Uint8Array.from([
    0x08,
    0x03, // dims: 3
    0x10,
    0x07, // data_type: INT64
    0x42,
    ...varintArray(length), // name, length as given
    0x06,
    ...utf8.encode("resuit"),
    0x3a,
    0x03,
    0x01,
    0x02,
    0x01, // int64_data, packed
  ]);
}

/** The error `fn` throws (a FormatError expected). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("string lengths of 2^32 and more", () => {
  for (const length of [2n ** 32n, 2n ** 32n + 6n, 14636698788954111n, 2n ** 63n]) {
    it(`a name of ${length} bytes is refused at its length, not read from the bytes after it`, () => {
      const bytes = tensorWithNameLength(length);
      const error = thrown(() => onnxTensor.read(bytes));
      expect(isFormatError(error)).toBe(true);
      // at the length (LIMIT: beyond 2^53) or where the string would start (TRUNCATED: beyond the file)
      expect([5, 5 + varintArray(length).length]).toContain((error as { offset: number }).offset);
      expect((error as { field?: string }).field ?? "").toContain("name");
    });
  }

  it("a model whose graph name has such a length is refused too", () => {
    // ModelProto.graph (7) holding GraphProto.name (2) with a 2^40 length and 6 bytes after it
    const graph = [0x12, ...varintArray(2n ** 40n), 0x06, ...utf8.encode("resuit")];
    const bytes = Uint8Array.from([0x08, 0x07, 0x3a, ...varintArray(graph.length), ...graph]);
    const error = thrown(() => onnx.read(bytes).graph?.name);
    expect(isFormatError(error)).toBe(true);
  });

  it("a short name still reads (the fast path)", () => {
    const bytes = tensorWithNameLength(6n);
    // the length 6 then the 6 bytes "\x06resui": the name is those bytes, and the rest is the tensor's fields
    expect(() => onnxTensor.read(bytes)).not.toThrow(RangeError);
  });
});
