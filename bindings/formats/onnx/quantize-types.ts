/** ONNX precision changes, the vocabulary: the modes, the options, the report and the element type numbers. */

/** The three precision modes. */
export type QuantizeMode = "fp16" | "bf16" | "i8";

/** quantize() options. */
export interface QuantizeOptions {
  /** fp16 (computation in float16), bf16 (weights stored as bfloat16) or i8 (weights as int8 per channel). */
  mode: QuantizeMode;
  /** fp16: keep the graph's inputs and outputs float32 (default true). */
  keepIO?: boolean | undefined;
}

/** What a conversion did (the CLI prints it; `--json` gives it as is). */
export interface QuantizeReport {
  /** The mode. */
  mode: QuantizeMode;
  /** The model's ai.onnx opset. */
  opset: number;
  /** Weights converted (float32 -> float16, bfloat16 or int8). */
  tensorsConverted: number;
  /** float32 weights left as they are, with the reason. */
  tensorsKept: {
    /** The weight's name (an initializer's, or a Constant's output). */
    name: string;
    /** Why it was left float32. */
    reason: string;
  }[];
  /** Bytes of every weight before (all dtypes). */
  weightBytesBefore: number;
  /** Bytes of every weight after (scales of i8 included). */
  weightBytesAfter: number;
  /** Bytes of the float32 weights before. */
  float32BytesBefore: number;
  /** fp16: values beyond ±65504 clamped to it. */
  clamped: number;
  /** Non-zero values that became zero (underflow). */
  flushed: number;
  /** fp16: ops that compute in float32, by op type, with the reason. */
  opsKeptFloat32: {
    /** The op type (`domain.op` outside ai.onnx). */
    opType: string;
    /** How many nodes. */
    count: number;
    /** Why they stay float32. */
    reason: string;
  }[];
  /** fp16: ops that compute in float16. */
  opsFloat16: number;
  /** Cast (fp16, bf16) or DequantizeLinear (i8) nodes added. */
  nodesAdded: number;
  /** fp16: existing Cast(to=FLOAT) retargeted to FLOAT16. */
  castsRetargeted: number;
  /** Anything else worth saying (per-tensor scales below opset 13, …). */
  notes: string[];
}

export const FLOAT = 1;
export const FLOAT16 = 10;
export const BFLOAT16 = 16;
export const INT8 = 3;
export const HALF_MAX = 65504;
/** Weights with fewer elements are left float32 by bf16 and i8 (their size does not matter; they are often scalars of formulas). */
export const MIN_WEIGHT_ELEMENTS = 16;
