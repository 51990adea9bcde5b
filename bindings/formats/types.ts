/**
 * What every format module exports (see docs/guide.md), so that readAny, the CLI and the
 * tests can treat the five formats alike.
 */
import type { ByteRange } from "../bytes/byte-reader.js";
import type { ByteSink } from "../io/sink.js";
import type { ByteSource } from "../io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";
import type { Incoming, ReplaceOptions } from "../patch/input.js";
import type { PatchPlan } from "../patch/plan.js";
import type { OnnxModel } from "./onnx/model.js";
import type { QuantizeOptions, QuantizeReport } from "./onnx/quantize-types.js";
import type { TsmGraph } from "./tsm/graph.js";

/** The id of every format tensorfile reads: the five model formats, ONNX and the input formats. */
export type FormatId = "bw2l" | "april" | "tsm" | "primitiv" | "spraak" | "onnx" | InputFormatId;

/** The formats tensorfile reads but never writes as a re-encode target (other than convert's .safetensors/.npy). */
export type InputFormatId = "safetensors" | "npy" | "npz" | "onnx-tensor";

/** One row of the tensor table `inspect` prints. */
export interface InspectTensor {
  /** The tensor's name. */
  name: string;
  /** Its dtype as the format names it (`bfloat16`, TenniS `char8`, …). */
  dtype: string;
  /** Its logical shape. */
  shape: number[];
  /** Bytes it occupies in the file. */
  byteLength: number;
}

/** What `tensorfile inspect --json` prints: these keys, plus what the format holds beyond tensors. */
export interface InspectResult {
  /** The format's id. */
  format: FormatId;
  /** The format's version as the file declares it, or null for formats without one. */
  version: number | string | null;
  /** The format's metadata (names, flags, headers), as plain JSON values. */
  meta: Record<string, unknown>;
  /** One row per tensor, in the file's order. */
  tensors: InspectTensor[];
  [extra: string]: unknown;
}

/** An embedded file (an april network, a bw2l `data` section): extracted as `name` under the output folder. */
export interface EmbeddedBlob {
  /** The path to extract it to, relative to the output folder (`encoder.onnx`, `csta/backbone.bin`). */
  name: string;
  /** Its bytes, or where they are in the file (from a `readFrom()` result). */
  bytes: Uint8Array | ByteRange;
}

/**
 * What every format module exports, so that {@link readAny}, the CLI and the tests treat the formats alike: `F` is
 * the file object, `R` the read options, `W` the write options.
 */
export interface FormatModule<F = unknown, R = unknown, W = unknown> {
  /** The format's id. */
  readonly id: FormatId;
  /** File extensions, lower case with the dot. */
  readonly extensions: readonly string[];
  /** True for the input formats (safetensors, npy, npz, onnx-tensor): never a re-encode target. */
  readonly inputOnly?: boolean | undefined;
  /** True when the first bytes are this format's; never throws. */
  detect(head: Uint8Array): boolean;
  /**
   * Reads a whole file from its bytes (never written to) into the format's file object; throws only `FormatError`
   * for bad bytes.
   */
  read(bytes: Uint8Array, options?: R): F;
  /** The same object as read(), with payloads left as byte ranges. */
  readFrom(source: ByteSource, options?: R): Promise<F>;
  /** Writes the file object back to bytes: `write(read(x))` is `x`, byte for byte. */
  write(file: F, options?: W): Uint8Array;
  /** The uniform view (contract names and logical shapes). Needs a file from read(), not readFrom(). */
  tensors(file: F, options?: DecodeOptions): NamedTensor[];
  /** Where each tensor of `tensors()` is, for read() and readFrom() results alike. */
  tensorInfos(file: F): TensorInfo[];
  /** Reads one tensor from the source of a readFrom() result. */
  loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor>;
  /** What `tensorfile inspect` shows: format, version, metadata, tensors and the format's own details. */
  inspect(file: F): InspectResult;
  /** Warnings: what a reference runtime would refuse or what looks wrong but is readable. */
  verify(file: F): string[];
  /**
   * Errors found in a file that reads: parts that could not be read (an april network that is not a readable ONNX
   * model, so its weights are missing). `tensorfile verify` fails on them; inspect shows them. Absent: none.
   */
  verifyErrors?(file: F): string[];
  /** Embedded files for `extract`. */
  blobs(file: F): EmbeddedBlob[];
}

/**
 * What the registry (formats/registry.ts) needs of a format to detect and read it: its id, extensions, detector
 * and reading functions. Declared in the format's `format.ts` beside its {@link FormatCapabilities}, apart from
 * them, so that a bundle of detectFormat/readAny/readFromAny keeps the readers and drops writers and patchers.
 * @internal
 */
export interface FormatReading<F = unknown> {
  /** The format's id. */
  readonly id: FormatId;
  /** File extensions, lower case with the dot. */
  readonly extensions: readonly string[];
  /** What a person calls the format where that is not its id (`wav2letter` for bw2l), for lists of formats. */
  readonly title?: string | undefined;
  /**
   * True when a file name ending in one of `extensions` picks this format's parser when the content does not
   * decide (ONNX has no magic; a `.pb` is a TensorProto): the parser's error then says what is wrong.
   */
  readonly chosenByName?: boolean | undefined;
  /** True when the first bytes are this format's; never throws. */
  detect(head: Uint8Array): boolean;
  /** The format's read(). */
  read(bytes: Uint8Array): F;
  /** The format's readFrom(). */
  readFrom(source: ByteSource): Promise<F>;
  /** The format's tensors(). */
  tensors(file: F, options?: DecodeOptions): NamedTensor[];
  /** The format's tensorInfos(). */
  tensorInfos(file: F): TensorInfo[];
  /** The format's loadTensor(). */
  loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor>;
}

/**
 * What `tensorfile edit` needs of a format whose models it edits (onnx, april): the ONNX models an edit reaches, the
 * format's own fields, and the writer. The edits themselves (metadata, rename, shape) are ONNX's (formats/onnx/edit.ts).
 * @internal
 */
export interface FormatEditing<F = unknown> {
  /**
   * The names of the ONNX models the file holds, which an edit names first (`encoder/KEY`): undefined when the file
   * is one ONNX model, edited as it is.
   */
  readonly networks?: readonly string[] | undefined;
  /** The ONNX model an edit changes: the file's own (network undefined) or its network `network`. */
  model(file: F, network: string | undefined): OnnxModel;
  /** The fields `--set FIELD=VALUE` sets on the file itself (without a network). */
  readonly fields: readonly string[];
  /** Sets one of `fields`; a RangeError names a value that cannot be stored. */
  setField(file: F, field: string, value: string): void;
  /** Writes the edited file to `sink` in order; resolves to the bytes written. */
  writeTo(file: F, sink: ByteSink): Promise<number>;
  /**
   * The precision change of the whole file (what `convert --quantize` does): a new file object, with what was done
   * to each ONNX model it holds (`network` undefined for a file that is one model).
   */
  quantize?(
    file: F,
    options: QuantizeOptions,
  ): { file: F; reports: { network: string | undefined; report: QuantizeReport }[] };
}

/**
 * A model's graph as the inspector draws it: a TenniS graph, one ONNX model, or ONNX networks by name (a network
 * that is not a readable ONNX model with its error).
 * @internal
 */
export type FormatGraph =
  | { readonly kind: "tsm"; readonly graph: TsmGraph }
  | { readonly kind: "onnx"; readonly model: OnnxModel }
  | {
      readonly kind: "onnx-networks";
      readonly networks: readonly { readonly name: string; readonly model?: OnnxModel; readonly error?: string }[];
    };

/**
 * Container relations of a format (tsm: `.tsm` ↔ `.csta`): extensions a file may be written as that wrap the same
 * content differently, and how to re-wrap it.
 * @internal
 */
export interface FormatContainers<F = unknown> {
  /** The extensions, each one wrapping (`.csta`: the module inside a SeetaFace6 container; `.tsm`: bare). */
  readonly extensions: readonly string[];
  /** The one of `extensions` whose wrapping a read file has (`.csta` for a tsm file read from a container). */
  wrappingOf(file: F): string;
  /** What a wrapping is called in "wrote OUT (…)" when not the format's id (`.csta`: SeetaFace6 .csta container). */
  readonly names?: Readonly<Record<string, string>> | undefined;
  /** The file of `bytes` (a file of this format) re-wrapped as `extension`. */
  rewrap(bytes: Uint8Array, extension: string): Uint8Array;
}

/**
 * A re-encode of a file in its own format with another precision (`convert IN OUT --dtype float32` or `--quantize
 * MODE`, where OUT is IN's format): bw2l stores its layer params as float32, float16 or int8.
 * @internal
 */
export interface FormatReencoding<F = unknown> {
  /** The `--dtype` values it takes. */
  readonly dtypes: readonly string[];
  /** The `--quantize` modes it takes. */
  readonly quantize: readonly string[];
  /** Reads the file to re-encode, its tensors widened to `dtype` when given (one of `dtypes`). */
  read(bytes: Uint8Array, dtype: string | undefined): F;
  /**
   * Why `quantize` cannot re-encode this file (`input` is its path, for the message), or undefined when it can (bw2l:
   * int8 needs a version 1 file).
   */
  refusal(file: F, quantize: string | undefined, input: string): string | undefined;
  /** The file's bytes, its params stored as `quantize` (one of `quantize`) when given. */
  write(file: F, quantize: string | undefined): Uint8Array;
}

/**
 * What a format offers beyond reading, each optional: callers (patch, the CLI, the inspector) ask for one of
 * these rather than compare format ids. `M` is the format's module (its facade namespace), `F` its file object.
 * @internal
 */
export interface FormatCapabilities<
  M extends FormatModule<unknown, never, never> = FormatModule<unknown, never, never>,
  F = unknown,
> {
  /** The format's id (the same as its reading's). */
  readonly id: FormatId;
  /** The format's whole module, as `formatModule(id)` returns it. */
  readonly module: M;
  /** Plans a patch (patch/plan.ts runs it): absent for formats that hold weights but are not models to patch. */
  planPatch?(
    file: F,
    infos: readonly TensorInfo[],
    source: ByteSource,
    size: number,
    incoming: ReadonlyMap<string, Incoming>,
    options: ReplaceOptions,
  ): Promise<PatchPlan>;
  /**
   * The decoded bytes of a tensor (an info of this format's tensorInfos()) streamed from the file's source in pieces
   * of `pieceElements` elements, when the format stores it in a form of its own that decodes piece by piece (npz: a
   * large deflated member, inflated as it comes); undefined for a tensor it does not stream so (export then reads it
   * plainly or loads it whole).
   */
  tensorChunks?(
    source: ByteSource,
    info: TensorInfo,
    decode: DecodeOptions | undefined,
    pieceElements: number,
  ): AsyncGenerator<Uint8Array> | undefined;
  /** Checks of a lazily opened file that reading its tensors does not make (npz: stored members' CRC-32s). */
  verifyFrom?(source: ByteSource, file: F): Promise<string[]>;
  /**
   * The format's TensorInfos describe stored bytes that decodeTensor alone turns into the tensor (safetensors, npy):
   * patch copies them through and diff streams them in slices straight from the source.
   */
  readonly rawReadable?: boolean | undefined;
  /**
   * Tensors may live in files beside the model (ONNX external data): the file a weight is stored in (its location
   * as the model gives it), or undefined. Declaring it also makes verify read such weights from there in pieces.
   */
  externalFileOf?(info: TensorInfo): string | undefined;
  /**
   * The stored bytes of a weight kept outside the file's plain ranges (an ONNX weight in an external file), for a
   * patch that copies them through: undefined for a weight that is not.
   */
  storedBytesOutside?(source: ByteSource, info: TensorInfo): Incoming["raw"];
  /** The format's models are edited by `tensorfile edit` (onnx, april). */
  readonly edit?: FormatEditing<F> | undefined;
  /** The model's graph for the inspector's graph view (tsm, onnx, april). */
  graph?(file: F): FormatGraph;
  /** The 2-D tensors are speech features, frames by coefficients (SPRAAK): the inspector offers its speech view. */
  readonly speechFrames?: boolean | undefined;
  /** A segmentation list's header keys and entry lines (a SPRAAK `.seg`), or undefined when the file is none. */
  segmentList?(
    file: F,
  ): { readonly keys: Readonly<Record<string, string>>; readonly entries: readonly string[] } | undefined;
  /**
   * Container relations: extensions a patched file may be written as that wrap the same content differently
   * (`.tsm` ↔ `.csta`), with the function that re-wraps a read file as `extension`.
   */
  readonly containers?: FormatContainers<F> | undefined;
  /**
   * The pieces of `write(read(all of source))`, after read()'s checks (which reject with read()'s error): what
   * `convert IN OUT` in IN's own format without options streams from IN (onnx, april), bytes or chunks read from the
   * source as they are consumed, so a large model is converted in about the memory of a chunk.
   */
  rewritePieces?(source: ByteSource): Promise<(Uint8Array | AsyncIterable<Uint8Array>)[]>;
  /** Re-encodes in the format's own file with another precision (`convert --dtype`, `--quantize`: bw2l). */
  readonly reencode?: FormatReencoding<F> | undefined;
  /** Other formats' files this format converts to (tsm: `onnx`, through bindings/convert/tsm-onnx/). */
  readonly convertsTo?: readonly FormatId[] | undefined;
  /** A format whose models this one embeds by name (april: its ONNX networks `encoder`, `decoder`, `joiner`). */
  readonly embeds?:
    | {
        readonly format: FormatId;
        readonly names: readonly string[];
        /** Where the embedded model `name` is stored in the file (absolute offset and size), if it is one of `names`. */
        location(file: F, name: string): { readonly offset: number; readonly size: number } | undefined;
      }
    | undefined;
  /**
   * Set for formats of one tensor whose name the file may not carry (npy, onnx-tensor): what the file is and that
   * its tensor's name must be given (`a .npy file: it holds one tensor and no name; give the name with --tensor
   * NAME`), or undefined when this file names it.
   */
  unnamedTensor?(file: F): string | undefined;
  /** The inspect rows printed as tables of name, dtype and shape (ONNX's `inputs`, `outputs`). */
  readonly inspectTables?: readonly string[] | undefined;
  /** The meta key holding key/value pairs printed one per line (ONNX's `metadataProps`). */
  readonly inspectMetadataKey?: string | undefined;
  /** A meta value as a person reads it, when the format knows better than JSON (tsm's reserved bytes). */
  inspectMetaText?(key: string, value: unknown): string | undefined;
  /** A hint to add to an error message of this format (SPRAAK: a binary file copied as text). */
  errorHint?(message: string): string | undefined;
}
