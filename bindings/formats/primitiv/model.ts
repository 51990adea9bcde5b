/**
 * primitiv's object model: the five data types, the file objects read() returns and write() takes, and what
 * reading remembers for writing (payload offsets, notes, NaN bits of float configs).
 */

import { type ByteRange } from "../../bytes/byte-reader.js";

import { type TensorInfo } from "../../tensor.js";

/** The format id (also `primitiv.id`). */
export const id = "primitiv" as const;

// ---------------------------------------------------------------------------------------------------------
// object model

/** The five kinds of object a primitiv file holds. */
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
export const VERSION = {
  /** The major version. */
  major: 0,
  /** The minor version. */
  minor: 1,
} as const;

/** primitiv's Shape::MAX_DEPTH. */
export const MAX_DIMS = 8;

/** A primitiv Shape: dims and batch size. */
export interface PrimitivShape {
  /** As stored (primitiv's writer strips trailing 1s; a scalar is []). */
  dims: number[];
  /** The batch size (samples). */
  batch: number;
}

/** A primitiv Tensor: its shape and its stored bytes. */
export interface PrimitivTensor {
  /** The tensor's shape. */
  shape: PrimitivShape;
  /**
   * The stored bytes: float32 little-endian, column-major per sample, samples in order (batch last).
   * From read(): a view into the input (no copy). From readFrom(): the range in the file.
   */
  data: Uint8Array | ByteRange;
}

/** A primitiv Parameter: its value and its optimizer statistics. */
export interface PrimitivParameter {
  /** The parameter's value. */
  value: PrimitivTensor;
  /** Optimizer statistics in file order (primitiv writes unordered_map order). */
  stats: Map<string, PrimitivTensor>;
}

/** One parameter of a Model, with its key path. */
export interface PrimitivModelEntry {
  /** The key path (a parameter `w` of a sub-model `sub` is ["sub", "w"]). */
  path: string[];
  /** The parameter. */
  parameter: PrimitivParameter;
}

/** A primitiv Model: its parameters by key path. */
export interface PrimitivModel {
  /** In file order (primitiv writes them sorted by key path, see makeModel). */
  parameters: PrimitivModelEntry[];
}

/** A primitiv Optimizer: its uint and float configs. */
export interface PrimitivOptimizer {
  /** In file order. */
  uintConfigs: Map<string, number>;
  /** In file order; values are float32 values (a double holding the float exactly). */
  floatConfigs: Map<string, number>;
}

/** A whole primitiv file, as {@link read} gives it and {@link write} takes it (discriminated by `dataType`). */
export type PrimitivFile =
  | {
      /** Which kind of object the file holds. */
      dataType: "shape";
      /** The Shape. */
      shape: PrimitivShape;
    }
  | {
      /** Which kind of object the file holds. */
      dataType: "tensor";
      /** The Tensor. */
      tensor: PrimitivTensor;
    }
  | {
      /** Which kind of object the file holds. */
      dataType: "parameter";
      /** The Parameter. */
      parameter: PrimitivParameter;
    }
  | {
      /** Which kind of object the file holds. */
      dataType: "model";
      /** The Model. */
      model: PrimitivModel;
    }
  | {
      /** Which kind of object the file holds. */
      dataType: "optimizer";
      /** The Optimizer. */
      optimizer: PrimitivOptimizer;
    };

/** Options of {@link read} and {@link readFrom}. */
export interface PrimitivReadOptions {
  /** The data type the caller expects (as primitiv's loaders do); BAD_MAGIC when the file holds another. */
  expect?: PrimitivDataType | undefined;
}

/** A TensorInfo that also says how many samples the data holds (they are stored one after another). */
export interface PrimitivTensorInfo extends TensorInfo {
  /** The batch size: samples stored one after another. */
  batch: number;
}

/** Absolute file offsets of the tensor payloads read by read() (the objects stay plain). */
export const payloadOffsets = new WeakMap<Uint8Array, number>();
/** What read() noticed but accepted (non-minimal length forms), for verify(). */
export const readNotes = new WeakMap<object, string[]>();
/** The exact bits of NaN float configs whose payload is not the canonical quiet NaN, so write(read(x)) == x. */
export const nanBits = new WeakMap<Map<string, number>, Map<string, number>>();
