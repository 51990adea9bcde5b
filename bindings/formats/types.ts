/**
 * What every format module exports (see the README), so that readAny, the CLI and the
 * tests can treat the five formats alike.
 */
import type { ByteRange } from "../io/byte-reader.js";
import type { ByteSource } from "../io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";

export type FormatId = "bw2l" | "april" | "tsm" | "primitiv" | "spraak" | "onnx" | InputFormatId;

/** The formats tensorfile reads but never writes as a re-encode target (other than convert's .safetensors/.npy). */
export type InputFormatId = "safetensors" | "npy" | "npz";

/** One row of the tensor table `inspect` prints. */
export interface InspectTensor {
  name: string;
  dtype: string;
  shape: number[];
  byteLength: number;
}

/** What `tensorfile inspect --json` prints: these keys, plus what the format holds beyond tensors. */
export interface InspectResult {
  format: FormatId;
  version: number | string | null;
  meta: Record<string, unknown>;
  tensors: InspectTensor[];
  [extra: string]: unknown;
}

/** An embedded file (an april network, a bw2l `data` section): extracted as `name` under the output folder. */
export interface EmbeddedBlob {
  name: string;
  bytes: Uint8Array | ByteRange;
}

export interface FormatModule<F = unknown, R = unknown, W = unknown> {
  readonly id: FormatId;
  /** File extensions, lower case with the dot. */
  readonly extensions: readonly string[];
  /** True for the input formats (safetensors, npy, npz): never a re-encode target. */
  readonly inputOnly?: boolean | undefined;
  /** True when the first bytes are this format's; never throws. */
  detect(head: Uint8Array): boolean;
  read(bytes: Uint8Array, options?: R): F;
  /** The same object as read(), with payloads left as byte ranges. */
  readFrom(source: ByteSource, options?: R): Promise<F>;
  write(file: F, options?: W): Uint8Array;
  /** The uniform view (contract names and logical shapes). Needs a file from read(), not readFrom(). */
  tensors(file: F, options?: DecodeOptions): NamedTensor[];
  /** Where each tensor of `tensors()` is, for read() and readFrom() results alike. */
  tensorInfos(file: F): TensorInfo[];
  /** Reads one tensor from the source of a readFrom() result. */
  loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor>;
  inspect(file: F): InspectResult;
  /** Warnings: what a reference runtime would refuse or what looks wrong but is readable. */
  verify(file: F): string[];
  /** Embedded files for `extract`. */
  blobs(file: F): EmbeddedBlob[];
}
