/**
 * Patching an ONNX model whose weights are in external files. Two ways, chosen by the caller:
 *
 * - Rewrite the external files (`externalSink`): the model's bytes stay as they are (its external_data entries
 *   keep their locations, offsets and lengths: a weight's byte count is fixed by its dims), and every external file
 *   the model names is written again through the sink the caller gives for its location, with the replaced
 *   weights' ranges overwritten and every other byte copied. Each file is written whole, replaced weights or not, so
 *   that the output model's folder holds all it names. Where the files go (beside the output model, at the same
 *   relative locations) and what may not be overwritten (the input's own external files) is the caller's to decide:
 *   the CLI refuses to write over an input's file and over existing files without --force.
 * - Inline them (`inlineExternal: true`): every external weight's TensorProto loses its external_data entries and
 *   data_location and gains a raw_data field with its bytes (the replacement's, or the stored ones read from its
 *   file), every enclosing length fixed; the output model is self-contained.
 *
 * Without either, replacing an external weight is an UnsupportedError (its values live in another file).
 * Weights are streamed in pieces both ways: a multi-GB external weight is never whole in memory.
 */
import { UnsupportedError } from "../../bytes/errors.js";
import { type ByteSink, sinkWriter } from "../../io/sink.js";
import { type ByteSource, rangeChunks, readExactly, sourceSize } from "../../io/source.js";
import type { Incoming } from "../../patch/input.js";
import { type PatchEdit, runPlan, tensorEdit } from "../../patch/plan.js";
import type { TensorInfo } from "../../tensor.js";
import { openExternal } from "./external.js";
import { id } from "./model.js";
import { ProtoWriter } from "./proto-writer.js";
import { type OnnxWeight, weightInfo } from "./view.js";
import { readVarintAt, varintValue } from "./wire.js";
import type { BodyChange } from "./writer.js";

/** Patch options for models with external weights (patch, patchFrom, patchTo). */
export interface ExternalPatchOptions {
  /**
   * Store every external weight in the output model itself (raw_data), its external_data entries dropped: the
   * output needs no other file. Default false.
   */
  inlineExternal?: boolean | undefined;
  /**
   * Where the output's external files go: called once per external file the model names (its `location`, as
   * written in the model, and its size), it returns the sink that file's new bytes are written into (a function,
   * a WritableStream or a Node Writable, ended when the file is complete). Each file is written whole: the
   * replaced weights' ranges with their new values, every other byte copied from the input's file.
   */
  externalSink?: ((location: string, file: { size: number }) => ByteSink | Promise<ByteSink>) | undefined;
}

/** One external file of the output (see {@link ExternalPatchOptions.externalSink}). */
export interface ExternalFileOutput {
  /** The location, as the model writes it. */
  location: string;
  /** Its size (the input's file's). */
  size: number;
  /** The names of the weights replaced in it. */
  replaced: string[];
  /** Writes the file's new bytes into `sink` (ended when done); resolves to the byte count. */
  write(sink: ByteSink): Promise<number>;
}

/** An external weight as a plainly stored tensor of its file (no `onnx` part). */
function plainInfo(info: TensorInfo): TensorInfo {
  const plain: TensorInfo = { ...info };
  delete (plain as { onnx?: unknown }).onnx;
  return plain;
}

/** The refusal for an external weight replaced without either option. */
export function externalRefused(w: OnnxWeight, name: string): UnsupportedError {
  return new UnsupportedError(
    id,
    `weight "${name}" is stored in the external file ${JSON.stringify(w.tensor.external!.location)}; to patch it, rewrite the external files (the externalSink option; the CLI writes them beside OUT) or store it in the model (inlineExternal: true, --inline-external)`,
    undefined,
    name,
  );
}

/** A location's file, whatever its spelling: "./a.bin", "a.bin" and "x//a.bin"-like runs name one file once. */
function sameFileKey(location: string): string {
  return location
    .split(/[\\/]+/)
    .filter((part) => part !== "" && part !== ".")
    .join("/");
}

/**
 * The output's external files: one per location the model's weights name, each with the edits of the weights
 * replaced in it. `source` is the model's (its external data found where it says: io/external-data.ts).
 */
export async function planExternalFiles(
  weightsOf: readonly OnnxWeight[],
  prefix: string,
  source: ByteSource,
  incoming: ReadonlyMap<string, Incoming>,
): Promise<ExternalFileOutput[]> {
  const byLocation = new Map<string, { location: string; first: TensorInfo; replaced: [TensorInfo, Incoming][] }>();
  for (const w of weightsOf) {
    if (w.tensor.storage !== "external") continue;
    const info = weightInfo(w, prefix);
    const location = w.tensor.external!.location;
    const key = sameFileKey(location);
    const entry = byLocation.get(key) ?? { location, first: info, replaced: [] };
    byLocation.set(key, entry);
    const given = incoming.get(info.name);
    if (given) entry.replaced.push([info, given]);
  }
  const out: ExternalFileOutput[] = [];
  for (const { location, first, replaced } of byLocation.values()) {
    const opened = await openExternal(source, first);
    let size: number;
    try {
      size = (await sourceSize(opened.source)).size;
    } finally {
      await opened.close();
    }
    const edits: PatchEdit[] = replaced
      .map(([info, given]) => tensorEdit(plainInfo(info), given))
      .sort((a, b) => a.offset - b.offset);
    for (let i = 1; i < edits.length; i++) {
      if (edits[i]!.offset < edits[i - 1]!.offset + edits[i - 1]!.length) {
        throw new UnsupportedError(
          id,
          `two replaced weights share bytes of the external file ${JSON.stringify(location)}; patch one of them at a time`,
          edits[i]!.offset,
          replaced[i]![0].name,
        );
      }
    }
    for (const [info] of replaced) {
      if (info.byteOffset + info.byteLength > size)
        throw new UnsupportedError(
          id,
          `weight "${info.name}" runs past the end of its external file ${JSON.stringify(location)}`,
          info.byteOffset,
          info.name,
        );
    }
    out.push({
      location,
      size,
      replaced: replaced.map(([info]) => info.name),
      async write(sink) {
        const again = await openExternal(source, first);
        const writer = sinkWriter(sink, true, "patchTo");
        try {
          const written = await runPlan(
            again.source,
            size,
            { edits, replaced: [], kept: [], unknown: [], requantized: [], outputSize: size },
            (chunk) => writer.write(chunk),
            id,
          );
          await writer.finish();
          return written;
        } catch (error) {
          await writer.abort(error);
          throw error;
        } finally {
          await again.close();
        }
      },
    });
  }
  return out;
}

/** Field numbers of a TensorProto that say "external" (13 external_data, 14 data_location): dropped when inlined. */
const EXTERNAL_FIELDS = new Set([13, 14]);

/**
 * The body changes that store external weights in the model: each TensorProto keeps its other fields as stored,
 * drops external_data and data_location, and gains raw_data (field 9) with the weight's bytes: the replacement's
 * stored form when `incoming` has it, else the bytes of its external file, streamed.
 */
export async function inlineChanges(
  weightsOf: readonly OnnxWeight[],
  prefix: string,
  source: ByteSource,
  incoming: ReadonlyMap<string, Incoming>,
): Promise<BodyChange[]> {
  const changes: BodyChange[] = [];
  for (const w of weightsOf) {
    const t = w.tensor;
    if (t.storage !== "external") continue;
    const info = weightInfo(w, prefix);
    const own = t.frames[t.frames.length - 1]!;
    const body = await readExactly(source, own.bodyStart, own.bodyEnd - own.bodyStart, id, info.name);
    const kept: Uint8Array[] = [];
    for (let i = 0; i < body.length;) {
      const start = i;
      const n = readVarintAt(body, i, body.length);
      if (n <= 0) throw new UnsupportedError(id, "a TensorProto field cannot be read", own.bodyStart + i, info.name);
      const field = Math.floor(varintValue.lo / 8);
      const wire = varintValue.lo & 7;
      i += n;
      if (wire === 0) {
        const m = readVarintAt(body, i, body.length);
        if (m <= 0) throw new UnsupportedError(id, "a varint cannot be read", own.bodyStart + i, info.name);
        i += m;
      } else if (wire === 1) i += 8;
      else if (wire === 5) i += 4;
      else if (wire === 2) {
        const m = readVarintAt(body, i, body.length);
        if (m <= 0) throw new UnsupportedError(id, "a length cannot be read", own.bodyStart + i, info.name);
        i += m + varintValue.lo + varintValue.hi * 2 ** 32;
      } else throw new UnsupportedError(id, `wire type ${wire} in a TensorProto`, own.bodyStart + start, info.name);
      if (!EXTERNAL_FIELDS.has(field)) kept.push(body.subarray(start, Math.min(i, body.length)));
    }
    const head = new ProtoWriter().tag(9, 2).varint(info.byteLength).finish();
    const size = kept.reduce((a, k) => a + k.length, 0) + head.length + info.byteLength;
    const given = incoming.get(info.name);
    const plain = plainInfo(info);
    async function* produce(): AsyncGenerator<Uint8Array> {
      yield* kept;
      yield head;
      if (given) {
        yield* tensorEdit(plain, given).produce();
        return;
      }
      const opened = await openExternal(source, info);
      try {
        yield* rangeChunks(
          opened.source,
          plain.byteOffset,
          plain.byteOffset + plain.byteLength,
          4 << 20,
          id,
          info.name,
        );
      } finally {
        await opened.close();
      }
    }
    changes.push({ frames: t.frames, body: new Uint8Array(0), streamed: { size, produce } });
  }
  return changes;
}
