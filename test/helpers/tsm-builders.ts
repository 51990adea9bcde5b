/**
 * Hermetic builders for TenniS modules: small TsmFile objects made in code (then written with our writer),
 * and byte-level helpers for damaged files and huge virtual files.
 */
import type { TsmField, TsmFile, TsmNode, TsmParam } from "../../bindings/formats/tsm.js";
import * as tsm from "../../bindings/formats/tsm.js";
import type { DType, TypedArray } from "../../bindings/tensor.js";
import { randomNormal } from "./rng.js";

const encoder = new TextEncoder();

export function field(dtype: DType, shape: number[], data: TypedArray): TsmField {
  return { dtype, shape, data };
}

export function text(value: string): TsmField {
  const bytes = encoder.encode(value);
  return { dtype: "char8", shape: [bytes.length], data: bytes };
}

export function param(key: string, ...fields: TsmField[]): TsmParam {
  return { key, fields };
}

/** A node with `#op` and `#name` first (Python-writer style), then `params`. */
export function node(op: string, name: string, params: TsmParam[] = [], inputs: number[] = []): TsmNode {
  return { params: [param("#op", text(op)), param("#name", text(name)), ...params], inputs };
}

export function constNode(name: string, ...value: TsmField[]): TsmNode {
  return node("<const>", name, [param("value", ...value)]);
}

export function module(nodes: TsmNode[], inputs: number[], outputs: number[], reserved = new Uint8Array(120)): TsmFile {
  return { header: { fake: 0, code: tsm.MODULE_CODE, reserved }, inputs, outputs, nodes };
}

/**
 * A module touching every feature: a <param> with #shape/#dtype, consts of every TenniS dtype (a 0-d
 * scalar, a [1] scalar, an empty [0,3], a packed 3-field value), a forward reference, attributes stored
 * 0-d and [1], strings (UTF-8), a 0-field packed param, SeetaFace-like reserved bytes.
 */
export function richModule(): TsmFile {
  const reserved = new Uint8Array(120);
  reserved.set([0xaa, 0x02, 0x02, 0x20, 0x20]);
  const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 37 + seed) & 0xff);
  const consts: TsmNode[] = [
    constNode("c_void", field("void", [], new Uint8Array(0))),
    constNode("c_i8", field("int8", [4], Int8Array.of(-128, -1, 0, 127))),
    constNode("c_u8", field("uint8", [2, 2], Uint8Array.of(0, 1, 254, 255))),
    constNode("c_i16", field("int16", [3], Int16Array.of(-32768, 5, 32767))),
    constNode("c_u16", field("uint16", [3], Uint16Array.of(0, 40000, 65535))),
    constNode("c_i32", field("int32", [2, 3], Int32Array.of(-2147483648, -1, 0, 1, 2, 2147483647))),
    constNode("c_u32", field("uint32", [2], Uint32Array.of(0, 4294967295))),
    constNode("c_i64", field("int64", [2], BigInt64Array.of(-(2n ** 63n), 2n ** 63n - 1n))),
    constNode("c_u64", field("uint64", [2], BigUint64Array.of(0n, 2n ** 64n - 1n))),
    constNode("c_f16", field("float16", [3], Uint16Array.of(0x3c00, 0xc100, 0x7bff))),
    constNode("c_f32", field("float32", [2, 2, 2], randomNormal(11, 8))),
    constNode("c_f64", field("float64", [2], Float64Array.of(Math.PI, -1e-300))),
    constNode("c_ptr", field("ptr", [1], bytes(8, 1))),
    constNode("c_char8", text("héllo")),
    constNode("c_char16", field("char16", [2], Uint8Array.of(0x41, 0, 0x42, 0))),
    constNode("c_char32", field("char32", [1], Uint8Array.of(0x43, 0, 0, 0))),
    ...(["unknown8", "unknown16", "unknown32", "unknown64", "unknown128"] as const).map((d, i) =>
      constNode(`c_${d}`, field(d, [2], bytes(2 * [1, 2, 4, 8, 16][i]!, i))),
    ),
    constNode("c_bool", field("bool", [3], Uint8Array.of(1, 0, 1))),
    constNode("c_complex32", field("complex32", [1], bytes(4, 3))),
    constNode("c_complex64", field("complex64", [2], new Uint8Array(Float32Array.of(1, 2, -3.5, -0.25).buffer))),
    constNode("c_complex128", field("complex128", [1], bytes(16, 4))),
    ...[0, 1, 2, 3, 4, 5, 6, 7].map((q) => constNode(`c_sink8q${q}`, field(`sink8q${q}` as DType, [2], bytes(2, q)))),
    constNode("c_scalar0d", field("float32", [], Float32Array.of(2.5))),
    constNode("c_scalar1", field("float32", [1], Float32Array.of(-4))),
    constNode("c_empty", field("float32", [0, 3], new Float32Array(0))),
    constNode(
      "c_packed",
      field("int32", [2], Int32Array.of(1, 2)),
      text("abc"),
      field("float64", [1, 1], Float64Array.of(0.5)),
    ),
  ];
  const input = node("<param>", "input", [
    param("#shape", field("int32", [4], Int32Array.of(1, 3, 8, 8))),
    param("#dtype", field("int32", [], Int32Array.of(10))),
  ]);
  const first = consts.length + 1; // index of the op node, after input (0) and the consts (1..)
  const op = node(
    "_pack",
    "packed_all",
    [
      param("format", text("NCHW")),
      param("dim", field("int32", [1], Int32Array.of(1))), // C++-style [1] scalar
      param("axis", field("int32", [], Int32Array.of(-2))), // Python-style 0-d scalar
      param("smooth", field("bool", [], Uint8Array.of(1))),
      param("epsilon", field("float64", [], Float64Array.of(1e-5))),
      param("padding", field("int32", [4, 2], Int32Array.of(0, 0, 0, 0, 1, 1, 2, 2))),
      param("name_utf8", text("名前-name")),
      param("packed", field("int32", [2], Int32Array.of(1, 2)), text("abc")),
      param("packed_empty"),
    ],
    [0, first + 2, ...consts.map((_, i) => i + 1)],
  ); // first + 2: a forward reference to "late"
  const relu = node("relu", "out", [], [first]);
  const late = constNode("late", field("float32", [2], Float32Array.of(7, 8)));
  return module([input, ...consts, op, relu, late], [0], [first + 1], reserved);
}

/** Deep copy of a module's structure with every payload copied (so that comparisons do not share memory). */
export function cloneModule(file: TsmFile): TsmFile {
  return structuredClone(file);
}

/**
 * The pieces of a virtual .tsm whose last node is a `<const>` "huge" of `payloadBytes` float32 bytes, for
 * sparseSource: the bytes before its payload and the bytes after it. Also returns the payload's offset.
 */
export function hugeConstPieces(payloadBytes: number): {
  size: number;
  pieces: { offset: number; bytes: Uint8Array }[];
  payloadOffset: number;
} {
  const small = constNode("small", field("float32", [4], Float32Array.of(1, 2, 3, 4)));
  const huge = constNode("huge", field("float32", [0], new Float32Array(0)));
  const file = module([node("<param>", "x"), small, node("add", "y", [], [0, 1, 3]), huge], [0], [2]);
  const bytes = tsm.write(file);
  const payloadOffset = tsm.read(bytes).nodes[3]!.params[2]!.fields[0]!.byteOffset!;
  const head = bytes.slice(0, payloadOffset);
  new DataView(head.buffer).setUint32(payloadOffset - 4, payloadBytes / 4, true); // the dim in front of the payload
  const tail = bytes.slice(payloadOffset);
  return {
    size: payloadOffset + payloadBytes + tail.length,
    pieces: [
      { offset: 0, bytes: head },
      { offset: payloadOffset + payloadBytes, bytes: tail },
    ],
    payloadOffset,
  };
}

/** Writes a little-endian u32 into a copy of `bytes`. */
export function patchU32(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(at, value, true);
  return out;
}
