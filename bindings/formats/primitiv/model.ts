/**
 * primitiv's object model: the five data types, the file objects read() returns and write() takes, and what
 * reading remembers for writing (payload offsets, notes, NaN bits of float configs).
 */




import { type ByteRange } from "../../io/byte-reader.js";




import { type TensorInfo } from "../../tensor.js";



/** The format id (also `primitiv.id`). */
export const id = "primitiv" as const;

// ---------------------------------------------------------------------------------------------------------
// object model

export type PrimitivDataType = "shape" | "tensor" | "parameter" | "model" | "optimizer";

/** The data_type word of each kind (primitiv/core/file_format.h). */
export const DATA_TYPE_CODES: Readonly<Record<PrimitivDataType, number>> = {
  shape: 0x0,
  tensor: 0x100,
  parameter: 0x200,
  model: 0x300,
  optimizer: 0x400,
};

/** The one version primitiv reads and writes. */
export const VERSION = { major: 0, minor: 1 } as const;

/** primitiv's Shape::MAX_DEPTH. */
export const MAX_DIMS = 8;

export interface PrimitivShape {
  /** As stored (primitiv's writer strips trailing 1s; a scalar is []). */
  dims: number[];
  batch: number;
}

export interface PrimitivTensor {
  shape: PrimitivShape;
  /**
   * The stored bytes: float32 little-endian, column-major per sample, samples in order (batch last).
   * From read(): a view into the input (no copy). From readFrom(): the range in the file.
   */
  data: Uint8Array | ByteRange;
}

export interface PrimitivParameter {
  value: PrimitivTensor;
  /** Optimizer statistics in file order (primitiv writes unordered_map order). */
  stats: Map<string, PrimitivTensor>;
}

export interface PrimitivModelEntry {
  /** The key path (a parameter `w` of a sub-model `sub` is ["sub", "w"]). */
  path: string[];
  parameter: PrimitivParameter;
}

export interface PrimitivModel {
  /** In file order (primitiv writes them sorted by key path, see makeModel). */
  parameters: PrimitivModelEntry[];
}

export interface PrimitivOptimizer {
  /** In file order. */
  uintConfigs: Map<string, number>;
  /** In file order; values are float32 values (a double holding the float exactly). */
  floatConfigs: Map<string, number>;
}

export type PrimitivFile =
  | { dataType: "shape"; shape: PrimitivShape }
  | { dataType: "tensor"; tensor: PrimitivTensor }
  | { dataType: "parameter"; parameter: PrimitivParameter }
  | { dataType: "model"; model: PrimitivModel }
  | { dataType: "optimizer"; optimizer: PrimitivOptimizer };

export interface PrimitivReadOptions {
  /** The data type the caller expects (as primitiv's loaders do); BAD_MAGIC when the file holds another. */
  expect?: PrimitivDataType | undefined;
}

/** A TensorInfo that also says how many samples the data holds (they are stored one after another). */
export interface PrimitivTensorInfo extends TensorInfo {
  batch: number;
}

/** Absolute file offsets of the tensor payloads read by read() (the objects stay plain). */
export const payloadOffsets = new WeakMap<Uint8Array, number>();
/** What read() noticed but accepted (non-minimal length forms), for verify(). */
export const readNotes = new WeakMap<object, string[]>();
/** The exact bits of NaN float configs whose payload is not the canonical quiet NaN, so write(read(x)) == x. */
export const nanBits = new WeakMap<Map<string, number>, Map<string, number>>();
