/**
 * Putting new weights back into a model file of any of the five formats: patch (bytes in memory), patchFrom
 * (a ByteSource: the model is read lazily) and patchTo (streams the patched file into a sink, so a multi-GB
 * model is never held in memory). Replacements are given by contract name (see replaceTensors in each format
 * module for what each format accepts); every name, dtype and shape is checked before a byte is produced.
 *
 * What stays the same: every byte that is not a replaced tensor (headers, metadata, other tensors, padding,
 * trailing bytes) is copied from the original, so giving back the tensors tensors() returned yields a
 * byte-identical file. How each format is patched:
 *   bw2l, tsm, .csta, primitiv, binary SPRAAK   each replaced tensor's byte range is overwritten in place
 *                                                (.csta: re-obfuscated at its offset; bw2l v1 int8 layers may
 *                                                also get a fresh scale/offset, see formats/bw2l/patch.ts)
 *   april                                        networks change size: the model is written in the reference
 *                                                layout, unchanged networks streamed from the source
 *   onnx                                         raw_data weights overwritten in place; typed-field weights
 *                                                re-encoded with every enclosing length fixed (onnx/patch.ts)
 *   SPRAAK ASCII or gzip data                    the whole file is read, patched and written (its size changes)
 * Memory for patchTo: one replacement tensor (as the weights' loadTensor gives it) plus about 16 MiB of
 * chunks; a bw2l int8 layer given float values is held whole while it is re-quantized; SPRAAK ASCII/gzip
 * files are held whole.
 */
import { type AnyLazyFile, readFromAny } from "./any.js";
import { UnsupportedError } from "./bytes/errors.js";
import { capabilitiesOf } from "./formats/registry.js";
import type { FormatId } from "./formats/types.js";
import type { ExternalPatchOptions } from "./formats/onnx/external-write.js";
import { asBytes, asSource } from "./bytes/input.js";
import { type ByteSource, fromBytes, sourceSize } from "./io/source.js";
import {
  type LazyTensors,
  type LazyTensorsWithSource,
  type ReplaceOptions,
  type TensorsInput,
  replacementsLazy,
} from "./patch/input.js";
import { type PatchPlan, runPlan } from "./patch/plan.js";
import { type ByteSink, sinkWriter } from "./export/stream.js";

export type {
  LazyTensors,
  LazyTensorsWithSource,
  PatchValue,
  ReplaceOptions,
  TensorsHolder,
  TensorsInput,
} from "./patch/input.js";
export type { ByteSink } from "./export/stream.js";
export type { ExternalPatchOptions } from "./formats/onnx/external-write.js";

/**
 * Options of {@link patch} and {@link patchFrom}: `partial`, and for ONNX models with weights in external files
 * `inlineExternal` (store them in the model) or `externalSink` (write the output's external files).
 */
export interface PatchOptions extends ReplaceOptions, ExternalPatchOptions {
  /**
   * The model as `readFromAny(source)` already opened it (patchFrom and patchTo): its headers are then not parsed
   * a second time. It must be the opening of this very source.
   */
  opened?: AnyLazyFile | undefined;
}

/** Options of {@link patchTo}. */
export interface PatchToOptions extends PatchOptions {
  /** Close/end a stream sink when done (default true), as writeSafetensorsTo does. */
  end?: boolean | undefined;
  /**
   * The sink is done with each chunk when its call (or the promise it returns) completes: it writes it out or
   * copies it. patchTo may then hand out the same memory again (less garbage, lower peak memory). Only for
   * function sinks that await their writes; default false.
   */
  reuseChunks?: boolean | undefined;
}

/** What a patch did, tensor by tensor. */
export interface PatchSummary {
  /** The format of the patched file. */
  format: FormatId;
  /** Names replaced, in file order. */
  replaced: string[];
  /** Names in the file left as they were, in file order. */
  kept: string[];
  /** Names given that the file does not hold (only with { partial: true }; otherwise a RangeError). */
  unknown: string[];
  /** bw2l v1 int8 tensors not given but re-encoded, because their layer got a fresh scale and offset. */
  requantized: string[];
}

/** What {@link patch} and {@link patchFrom} return: the summary and the patched file. */
export interface PatchResult extends PatchSummary {
  /** The patched file. */
  bytes: Uint8Array;
}

/** What {@link patchTo} returns: the summary and how many bytes went to the sink. */
export interface PatchToResult extends PatchSummary {
  /** Bytes handed to the sink. */
  byteLength: number;
}

function checkOptions(options: PatchOptions): void {
  if (options === null || typeof options !== "object")
    throw new TypeError("tensorfile: patch options must be an object ({ partial })");
  if (options.externalSink !== undefined && typeof options.externalSink !== "function") {
    throw new TypeError(
      "tensorfile: patch option externalSink is a function (location, { size }) => a sink for that external file",
    );
  }
}

/** Writes the output's other files (an ONNX model's external data, with externalSink) after the model itself. */
async function writeExternalFiles(plan: PatchPlan, options: PatchOptions): Promise<void> {
  for (const file of plan.external ?? [])
    await file.write(await options.externalSink!(file.location, { size: file.size }));
}

/** What the weights may be: tensors in memory, a lazily opened file (with its source: streamed), or a ByteSource. */
export type Weights = TensorsInput | LazyTensorsWithSource | ByteSource;

function isByteSource(value: unknown): value is ByteSource {
  return (
    typeof (value as ByteSource)?.read === "function" &&
    typeof (value as LazyTensors).tensorInfos !== "function" &&
    !ArrayBuffer.isView(value)
  );
}

async function planFor(
  source: ByteSource,
  weights: Weights,
  options: PatchOptions,
  fn: string,
): Promise<{ plan: PatchPlan; format: FormatId; size: number }> {
  checkOptions(options);
  const tensors: TensorsInput | LazyTensorsWithSource = isByteSource(weights)
    ? { ...(await readFromAny(weights)), source: weights }
    : weights;
  const incoming = replacementsLazy(
    tensors,
    fn,
    (from, info) => (info.format ? capabilitiesOf(info.format)?.storedBytesOutside?.(from, info) : undefined),
    (info) => (info.format ? capabilitiesOf(info.format)?.rawReadable === true : false),
  );
  const { size } = await sourceSize(source);
  const opened = options.opened ?? (await readFromAny(source));
  const format = opened.format as FormatId;
  const capabilities = capabilitiesOf(format);
  if (!capabilities?.planPatch)
    throw new UnsupportedError(
      format,
      `${format} files hold weights but are not a model format that can be patched; patch a model with them`,
    );
  const plan = await capabilities.planPatch(opened.file, opened.tensorInfos(), source, size, incoming, options);
  return { plan, format, size };
}

function summary(format: FormatId, plan: PatchPlan): PatchSummary {
  return { format, replaced: plan.replaced, kept: plan.kept, unknown: plan.unknown, requantized: plan.requantized };
}

/**
 * Streams the patched file into `sink` (a function, a WritableStream or a Node Writable, as writeSafetensorsTo
 * takes), chunk by chunk in order with backpressure; chunks are never changed afterwards. Every check (names,
 * dtypes, shapes) runs before the first chunk. `weights` may be tensors in memory, a lazily opened file
 * (readFromAny: its tensors are loaded one at a time, when their turn comes) or a ByteSource of one (opened
 * here; safetensors and npy tensors that need no conversion are then copied through in chunks, never loaded
 * whole: `{ ...opened, source }` does the same for a file you opened). A stream sink is ended unless `{ end: false }`.
 */
export async function patchTo(
  source: ByteSource,
  weights: Weights,
  sink: ByteSink,
  options: PatchToOptions = {},
): Promise<PatchToResult> {
  const input = asSource(source, "patchTo");
  const writer = sinkWriter(sink, options.end ?? true, "patchTo");
  let planned: Awaited<ReturnType<typeof planFor>>;
  try {
    planned = await planFor(input, weights, options, "patchTo");
  } catch (error) {
    await writer.abort(error);
    throw error;
  }
  const { plan, format, size } = planned;
  let byteLength: number;
  try {
    const reuse = options.reuseChunks === true && typeof sink === "function";
    byteLength = await runPlan(input, size, plan, (chunk) => writer.write(chunk), format, reuse);
    await writer.finish();
    await writeExternalFiles(plan, options);
  } catch (error) {
    await writer.abort(error);
    throw error;
  }
  return { ...summary(format, plan), byteLength };
}

/** The patched file in memory, reading the model lazily from `source` (see patchTo). */
export async function patchFrom(
  source: ByteSource,
  weights: Weights,
  options: PatchOptions = {},
): Promise<PatchResult> {
  const input = asSource(source, "patchFrom");
  const { plan, format, size } = await planFor(input, weights, options, "patchFrom");
  const bytes = new Uint8Array(plan.outputSize);
  let at = 0;
  await runPlan(
    input,
    size,
    plan,
    (chunk) => {
      bytes.set(chunk, at);
      at += chunk.length;
    },
    format,
  );
  if (at !== bytes.length)
    throw new Error(`tensorfile: internal error: a ${format} patch produced ${at} bytes, planned ${bytes.length}`);
  await writeExternalFiles(plan, options);
  return { ...summary(format, plan), bytes };
}

/**
 * A model (`bytes`: a Uint8Array, a Node Buffer at any offset, or an ArrayBuffer; never modified) with the
 * named tensors replaced: `{ bytes, format, replaced, kept, unknown, requantized }`. Unknown names are a
 * RangeError unless `{ partial: true }`; a dtype that cannot replace the stored one is a TypeError and a shape
 * other than the stored logical shape a RangeError, both naming the tensor.
 */
export async function patch(
  bytes: Uint8Array | ArrayBuffer,
  weights: Weights,
  options: PatchOptions = {},
): Promise<PatchResult> {
  return patchFrom(fromBytes(asBytes(bytes, "patch")), weights, options);
}
