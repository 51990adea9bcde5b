/**
 * ONNX precision changes, tensors and edits: reading float32 weights, converting them (float16, bfloat16) with
 * counters, and the small graph edits every mode uses (Cast nodes, retyped value infos, replaced sources).
 */
import { bfloat16Bits } from "../../bfloat16.js";
import * as kernels from "../../kernels/index.js";
import { type OnnxNode, type OnnxTensor, type OnnxValueInfo, DATA_TYPES, rawByteLength } from "./model.js";
import { tensorOf, weightInfo } from "./view.js";
import { HALF_MAX } from "./quantize-types.js";
import type { Source } from "./quantize-analysis.js";

// ------------------------------------------------------------------------------------------- tensors

export function tensorBytes(t: OnnxTensor): number {
  const info = DATA_TYPES[t.dataType];
  if (!info || info.bits === 0) return 0;
  return rawByteLength(
    info,
    t.dims.reduce((a, b) => a * b, 1),
  );
}

export function elementCount(t: OnnxTensor): number {
  return t.dims.reduce((a, b) => a * b, 1);
}

/** The float32 values of a weight (a copy), from the model's bytes. */
export function floatValues(bytes: Uint8Array, source: Pick<Source, "name" | "tensor" | "kind">): Float32Array {
  const values = source.tensor.values;
  if (values) return new Float32Array(values.slice().buffer);
  const w = { name: source.name, tensor: source.tensor, kind: source.kind };
  const decoded = tensorOf(bytes, w, weightInfo(w));
  return new Float32Array(decoded.data as Float32Array);
}

/** Why a float32 weight cannot be read here (external data, no data), or undefined. */
export function unreadable(t: OnnxTensor): string | undefined {
  if (t.storage === "external") return "stored in an external file";
  if (t.storage === "none" && elementCount(t) > 0) return "has no data";
  return undefined;
}

interface Counters {
  clamped: number;
  flushed: number;
}

/** A weight as quantizeInPlace found it (its tensor as read, before it is replaced). */
export interface WeightSource {
  /** The weight's name (an initializer's, or a Constant's output). */
  name: string;
  /** The tensor as read. */
  tensor: OnnxTensor;
  /** Where it is stored. */
  kind: "initializer" | "constant";
}

/**
 * How quantizeInPlace reads weights and stores what it converts, when not from and into memory (the streamed
 * conversion of onnx/quantize-stream.ts): `pieces` gives a weight's float32 values in order, in pieces (each one
 * may be changed, and is not used after the next is asked for); `defer`, given the byte length of a converted
 * tensor and how to compute it piece by piece, returns a stand-in of that length that write() keeps by reference
 * (the pieces are then swapped for what `produce` gives, as they are written), or undefined to have it computed
 * now. Counters (values clamped, flushed) of deferred tensors are added to the report as they are made.
 */
export interface WeightAccess {
  pieces(source: WeightSource): Iterable<Float32Array>;
  defer(byteLength: number, produce: () => Iterable<Uint8Array>): Uint8Array | undefined;
}

export function memoryAccess(bytes: () => Uint8Array): WeightAccess {
  return { pieces: (source) => [floatValues(bytes(), source)], defer: () => undefined };
}

/** A raw_data tensor whose elements `produce` computes: now, or when written (access.defer). */
export function convertedTensor(
  access: WeightAccess,
  header: { name: string; dataType: number; dims: number[]; docString: string },
  byteLength: number,
  produce: () => Iterable<Uint8Array>,
): OnnxTensor {
  let values = access.defer(byteLength, produce);
  if (!values) {
    const parts = [...produce()];
    values = parts.length === 1 ? parts[0]! : new Uint8Array(byteLength);
    if (parts.length !== 1) {
      let at = 0;
      for (const part of parts) {
        values.set(part, at);
        at += part.length;
      }
    }
  }
  return {
    ...header,
    dims: [...header.dims],
    storage: "raw_data",
    data: { byteOffset: 0, byteLength: 0 },
    frames: [],
    values,
  };
}

export function asBytes(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

export function toFloat16(values: Float32Array, counters: Counters): Uint16Array {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v > HALF_MAX && v !== Infinity) {
      values[i] = HALF_MAX;
      counters.clamped++;
    } else if (v < -HALF_MAX && v !== -Infinity) {
      values[i] = -HALF_MAX;
      counters.clamped++;
    }
  }
  const half = kernels.f32ToF16(values);
  for (let i = 0; i < values.length; i++)
    if (values[i] !== 0 && (half[i]! & 0x7fff) === 0 && !Number.isNaN(values[i])) counters.flushed++;
  return half;
}

/** bfloat16 bits of float32 values, rounded to nearest even (NaN stays NaN): bfloat16.ts's bfloat16Bits. */
export function toBfloat16(values: Float32Array, counters: Counters): Uint16Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const x = bits[i]!;
    const rounded = bfloat16Bits(x);
    out[i] = rounded;
    if ((x & 0x7fffffff) !== 0 && (x & 0x7fffffff) <= 0x7f800000 && (rounded & 0x7fff) === 0) counters.flushed++;
  }
  return out;
}

// ------------------------------------------------------------------------------------------- the edits

export function castNode(name: string, input: string, output: string, to: number): OnnxNode {
  return {
    name,
    opType: "Cast",
    domain: "",
    inputs: [input],
    outputs: [output],
    attributes: [{ name: "to", type: "INT", i: to }],
    docString: "",
  };
}

export function withElemType(v: OnnxValueInfo, elemType: number): OnnxValueInfo {
  return { ...v, type: { ...v.type, elemType } };
}

export function replaceSource(source: Source, tensor: OnnxTensor): void {
  if (source.kind === "initializer") {
    const list = source.ctx.graph.initializers;
    list[list.indexOf(source.tensor)] = tensor;
  } else {
    source.attr!.t = tensor;
  }
  source.tensor = tensor;
}
