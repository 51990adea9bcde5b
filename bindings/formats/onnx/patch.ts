/**
 * Replacing ONNX weights by name. Values are stored in the weight's own dtype and storage: a raw_data weight's
 * payload is overwritten in place (only its own bytes change); a typed-field weight's TensorProto is re-encoded
 * and every enclosing length fixed (writer.ts). A typed weight given back with its stored values is left as it is,
 * so `convert F x.safetensors` then `patch F x.safetensors OUT` gives OUT = F. Weights in external files
 * (external-write.ts): their files rewritten through the caller's `externalSink` (the model's bytes unchanged), or
 * stored in the model with `inlineExternal`; without either, replacing one is refused (UnsupportedError).
 */
import type { ByteSource } from "../../io/source.js";
import { rangeChunks, readExactly } from "../../io/source.js";
import { encodeRowMajorBytes, replacementData } from "../../patch/encode.js";
import {
  type Incoming,
  type ReplaceOptions,
  type TensorsInput,
  checkUnknown,
  replacementsInMemory,
} from "../../patch/input.js";
import { type PatchEdit, type PatchPlan, asTensor, checkIncoming, storedForm, tensorEdit } from "../../patch/plan.js";
import type { TensorInfo } from "../../tensor.js";
import { concatBytes } from "../../bytes/input.js";
import { DATA_TYPES, type OnnxModel, TYPED_FIELD_NUMBERS, id, rawByteLength } from "./model.js";
import { ProtoWriter } from "./proto-writer.js";
import { entryEncoding, streamsTypedField, typedEntryPieces } from "./typed-chunks.js";
import { elementCount } from "../../tensor.js";
import { type OnnxTensorInfo, type OnnxWeight, modelBytes, weightInfo, weights } from "./view.js";
import {
  type ExternalFileOutput,
  type ExternalPatchOptions,
  externalRefused,
  inlineChanges,
  planExternalFiles,
} from "./external-write.js";
import { type BodyChange, encodeTypedBody, lengthEdits, sameBytes, typedValues } from "./writer.js";

function refuseExternal(w: OnnxWeight, name: string): never {
  throw externalRefused(w, name);
}

/**
 * A copy of `model` (a read() result) whose write() stores the given weights. Unknown names are a RangeError
 * unless `partial`; a dtype that cannot replace the stored one a TypeError, another shape a RangeError.
 */
export function replaceTensors(model: OnnxModel, tensors: TensorsInput, options: ReplaceOptions = {}): OnnxModel {
  // (in memory, with no file beside it: an external weight is refused; patch/patchTo rewrite or inline them)
  const values = replacementsInMemory(tensors, "onnx.replaceTensors");
  const list = weights(model);
  const names = new Set(list.map((w) => w.name));
  checkUnknown(
    [...values.keys()].filter((n) => !names.has(n)),
    list.map((w) => w.name),
    id,
    options,
  );
  const replacements = new Map(model.replacements ?? []);
  for (const w of list) {
    const value = values.get(w.name);
    if (value === undefined) continue;
    if (w.tensor.storage === "external") refuseExternal(w, w.name);
    const info = weightInfo(w);
    const tensor = asTensor(w.name, value);
    const data = replacementData(info, tensor);
    replacements.set(w.name, encodeRowMajorBytes(data, tensor.dtype, storedForm(info)).slice());
  }
  const out: OnnxModel = { ...model, replacements };
  const bytes = modelBytes.get(model);
  if (bytes) modelBytes.set(out, bytes);
  return out;
}

/**
 * Whether two streams of bytes are equal (both read to their end whatever the answer: `a`'s reader records the
 * body's fields, `onB` sizes the replacement).
 */
async function sameStreams(
  a: AsyncIterable<Uint8Array>,
  b: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  onB: (chunk: Uint8Array) => void,
): Promise<boolean> {
  const ia = a[Symbol.asyncIterator]();
  const ib = Symbol.asyncIterator in b ? b[Symbol.asyncIterator]() : b[Symbol.iterator]();
  let ca: Uint8Array = new Uint8Array(0);
  let cb: Uint8Array = new Uint8Array(0);
  let doneA = false;
  let doneB = false;
  let same = true;
  for (;;) {
    if (ca.length === 0 && !doneA) {
      const r = await ia.next();
      if (r.done) doneA = true;
      else ca = r.value;
      continue;
    }
    if (cb.length === 0 && !doneB) {
      const r = await ib.next();
      if (r.done) doneB = true;
      else {
        cb = r.value;
        onB(cb);
      }
      continue;
    }
    if (doneA && doneB) return same;
    if (ca.length === 0 || cb.length === 0) {
      same = false; // one ended first
      ca = cb = new Uint8Array(0);
      continue;
    }
    const n = Math.min(ca.length, cb.length);
    if (same && !sameBytes(ca.subarray(0, n), cb.subarray(0, n))) same = false;
    ca = ca.subarray(n);
    cb = cb.subarray(n);
  }
}

/**
 * A large typed-field weight's new TensorProto body, streamed: one pass reads the stored entries (noting where the
 * other fields are) beside the replacement's stored form, comparing them and sizing the new entries; when they
 * differ, the body is produced as encodeTypedBody() makes it (the other fields as stored, the new entries packed
 * where the first data field was), reading the replacement a second time. Undefined when the values are the same.
 */
async function streamedTypedChange(
  source: ByteSource,
  w: OnnxWeight,
  info: OnnxTensorInfo,
  given: Incoming,
): Promise<BodyChange | undefined> {
  const t = w.tensor;
  const encoding = entryEncoding(t.storage, t.dataType);
  const type = DATA_TYPES[t.dataType]!;
  const plain: TensorInfo = {
    name: info.name,
    dtype: info.dtype,
    shape: info.shape,
    byteOrder: "le",
    layout: "row-major",
    format: id,
    byteOffset: 0,
    byteLength: rawByteLength(type, elementCount(t.dims)),
  };
  const replacement = () => tensorEdit(plain, given).produce();
  /** The body's other fields, as runs of stored bytes; the entries go before run `entriesAt` (-1: after the last). */
  const runs: { start: number; end: number }[] = [];
  let entriesAt = -1;
  const visit = (start: number, end: number, entries: boolean) => {
    if (entries) {
      if (entriesAt < 0) entriesAt = runs.length;
      return;
    }
    const last = runs[runs.length - 1];
    if (last && last.end === start) last.end = end;
    else runs.push({ start, end });
  };
  let carry: Uint8Array = new Uint8Array(0);
  let entryBytes = 0;
  /** Whole entries of `chunk` after what the last one left. */
  const aligned = (chunk: Uint8Array): Uint8Array => {
    const joined = carry.length > 0 ? concatBytes([carry, chunk]) : chunk;
    const whole = joined.length - (joined.length % encoding.width);
    carry = joined.slice(whole);
    return joined.subarray(0, whole);
  };
  const same = await sameStreams(
    typedEntryPieces(source, info, visit),
    replacement(),
    (chunk) => (entryBytes += encoding.size(aligned(chunk))),
  );
  if (same) return undefined;
  const head = new ProtoWriter().tag(TYPED_FIELD_NUMBERS[t.storage]!, 2).varint(entryBytes).finish();
  const size = runs.reduce((n, r) => n + r.end - r.start, 0) + head.length + entryBytes;
  async function* entries(): AsyncGenerator<Uint8Array> {
    yield head;
    carry = new Uint8Array(0);
    let written = 0;
    for await (const chunk of replacement()) {
      const encoded = encoding.encode(aligned(chunk));
      written += encoded.length;
      yield encoded;
    }
    if (written !== entryBytes)
      throw new Error(
        `onnx patch: the replacement for "${info.name}" changed while it was written (${written} bytes of entries, ${entryBytes} planned)`,
      );
  }
  async function* produce(): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < runs.length; i++) {
      if (i === entriesAt) yield* entries();
      yield* rangeChunks(source, runs[i]!.start, runs[i]!.end, 4 << 20, id, info.name);
    }
    if (entriesAt < 0 || entriesAt >= runs.length) yield* entries();
  }
  return { frames: t.frames, body: new Uint8Array(0), streamed: { size, produce } };
}

/** A splice edit as a patch-plan edit. */
function fixedEdit(offset: number, length: number, bytes: Uint8Array): PatchEdit {
  return { offset, length, sameSize: bytes.length === length, produce: () => [bytes] };
}

export interface ModelPlan {
  edits: PatchEdit[];
  /** Output size minus input size. */
  delta: number;
  replaced: string[];
  /** The output's external files (with `externalSink`; see external-write.ts). */
  external: ExternalFileOutput[];
}

/**
 * The edits that put `incoming` (by weight name, `prefix` included) into `model` read lazily from `source`.
 * Typed-field replacements are loaded and encoded now (their sizes fix the enclosing lengths); raw_data ones
 * stream when their turn comes.
 */
export async function planModel(
  model: OnnxModel,
  prefix: string,
  source: ByteSource,
  incoming: ReadonlyMap<string, Incoming>,
  external: ExternalPatchOptions = {},
): Promise<ModelPlan> {
  const edits: PatchEdit[] = [];
  const changes: BodyChange[] = [];
  const replaced: string[] = [];
  const matched: [OnnxWeight, OnnxTensorInfo, Incoming][] = [];
  const all = weights(model);
  const inline = external.inlineExternal === true;
  const rewrite = !inline && external.externalSink !== undefined;
  for (const w of all) {
    const given = incoming.get(prefix + w.name);
    if (!given) continue;
    const info = weightInfo(w, prefix);
    if (w.tensor.storage === "external" && !inline && !rewrite) refuseExternal(w, info.name);
    checkIncoming(info, given);
    matched.push([w, info, given]);
  }
  // external weights: stored in the model (every one), or their files rewritten (the model's bytes unchanged)
  if (inline) changes.push(...(await inlineChanges(all, prefix, source, incoming)));
  const files = rewrite ? await planExternalFiles(all, prefix, source, incoming) : [];
  for (const [w, info, given] of matched) {
    replaced.push(info.name);
    const t = w.tensor;
    if (t.storage === "external") continue; // done above
    if (t.storage === "raw_data" || t.packed) {
      // raw_data, or one packed float_data/double_data field (raw_data's layout): in place, streamed
      edits.push(tensorEdit(info, given));
    } else if (t.storage !== "none" && streamsTypedField(info)) {
      // a large typed-field weight: compared, sized and re-encoded in pieces, never held whole
      const change = await streamedTypedChange(source, w, info, given);
      if (change) changes.push(change);
    } else if (t.storage !== "none") {
      const own = t.frames[t.frames.length - 1]!;
      const body = await readExactly(source, own.bodyStart, own.bodyEnd - own.bodyStart, id, info.name);
      const tensor = asTensor(info.name, await given.load());
      const values = encodeRowMajorBytes(replacementData(info, tensor), tensor.dtype, storedForm(info));
      if (sameBytes(typedValues(body, own.bodyStart, t), values)) continue;
      changes.push({ frames: t.frames, body: encodeTypedBody(body, own.bodyStart, t, values) });
    }
  }
  let delta = 0;
  for (const e of lengthEdits(changes)) {
    const size = e.streamed?.size ?? e.bytes.length;
    delta += size - e.length;
    const streamed = e.streamed;
    edits.push(
      streamed
        ? { offset: e.offset, length: e.length, sameSize: size === e.length, produce: () => streamed.produce() }
        : fixedEdit(e.offset, e.length, e.bytes),
    );
  }
  edits.sort((a, b) => a.offset - b.offset);
  return { edits, delta, replaced, external: files };
}

/** The plan for an .onnx model opened with readFrom() (or read()). */
export async function planPatch(
  model: OnnxModel,
  infos: readonly TensorInfo[],
  source: ByteSource,
  size: number,
  incoming: ReadonlyMap<string, Incoming>,
  options: ReplaceOptions,
): Promise<PatchPlan> {
  const names = infos.map((i) => i.name);
  const inFile = new Set(names);
  const unknown = [...incoming.keys()].filter((n) => !inFile.has(n));
  checkUnknown(unknown, names, id, options);
  const plan = await planModel(model, "", source, incoming, options as ExternalPatchOptions);
  return {
    edits: plan.edits,
    replaced: plan.replaced,
    kept: names.filter((n) => !incoming.has(n)),
    unknown,
    requantized: [],
    outputSize: size + plan.delta,
    external: plan.external,
  };
}
