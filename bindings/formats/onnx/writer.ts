/**
 * ONNX writing. A model is written as the bytes it was read from, with replaced weights spliced in: a raw_data
 * weight's payload is overwritten in place (same size), a typed-field weight's TensorProto is re-encoded (every
 * other field of it copied as stored, the new data packed where its first data field was) and the length of every
 * message enclosing it (tensor, attribute, node, graph, …) is re-encoded. Unknown fields, field order and
 * everything else are the stored bytes, so write(read(x)) is x.
 */
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { UnsupportedError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import { concatBytes } from "../../bytes/input.js";
import { DATA_TYPES, type OnnxFrame, type OnnxModel, type OnnxTensor, TYPED_FIELD_NUMBERS, id } from "./model.js";
import { ProtoWriter, varintSize } from "./proto-writer.js";
import { backingAt, decodeTypedBody, modelBytes, weights } from "./view.js";
import { ProtoCursor } from "./wire.js";

/** One byte range of the original replaced by new bytes. */
export interface SpliceEdit {
  offset: number;
  length: number;
  bytes: Uint8Array;
  /** Streamed instead (patch of a large typed-field weight): `size` new bytes produced in pieces; `bytes` is empty. */
  streamed?: { size: number; produce(): AsyncIterable<Uint8Array> } | undefined;
}

/** The packed field for `values` (raw_data-layout bytes of the tensor's dtype) in the tensor's typed storage. */
export function encodeTypedField(w: ProtoWriter, tensor: OnnxTensor, values: Uint8Array): void {
  const type = DATA_TYPES[tensor.dataType]!;
  const field = TYPED_FIELD_NUMBERS[tensor.storage]!;
  if (tensor.storage === "float_data" || tensor.storage === "double_data") {
    w.bytesField(field, values);
    return;
  }
  const inner = new ProtoWriter();
  const view = new DataView(values.buffer, values.byteOffset, values.byteLength);
  const width = type.bits === 4 ? 1 : type.bits / 8;
  const signed = type.dtype === "int8" || type.dtype === "int16" || type.dtype === "int32" || type.dtype === "int64";
  for (let at = 0; at < values.length; at += width) {
    if (width === 1) inner.varint(signed ? view.getInt8(at) : view.getUint8(at));
    else if (width === 2) inner.varint(signed ? view.getInt16(at, true) : view.getUint16(at, true));
    else if (width === 4) inner.varint(signed ? view.getInt32(at, true) : view.getUint32(at, true));
    else inner.varint(signed ? view.getBigInt64(at, true) : view.getBigUint64(at, true));
  }
  w.embed(field, inner);
}

/**
 * A typed-field TensorProto body with its data replaced by `values`: the other fields as stored, in order, the
 * new packed data where the first data field was.
 */
export function encodeTypedBody(body: Uint8Array, base: number, tensor: OnnxTensor, values: Uint8Array): Uint8Array {
  const field = TYPED_FIELD_NUMBERS[tensor.storage];
  if (field === undefined)
    throw new UnsupportedError(id, `storage ${tensor.storage} is not a typed field`, base, tensor.name);
  const r = new ByteReader(backingAt(body, base), id, { start: base, end: base + body.length });
  const c = new ProtoCursor(r, base, base + body.length, 1, tensor.name);
  const w = new ProtoWriter();
  let written = false;
  for (let head = c.next(); head; head = c.next()) {
    const start = head.tagAt;
    c.skip(head, `${tensor.name}.field${head.field}`);
    if (head.field === field) {
      if (!written) encodeTypedField(w, tensor, values);
      written = true;
      continue;
    }
    w.raw(body.subarray(start - base, c.pos - base));
  }
  if (!written) encodeTypedField(w, tensor, values);
  return w.finish();
}

/** The stored values of a typed-field tensor in raw_data layout, for comparing with a replacement. */
export function typedValues(body: Uint8Array, base: number, tensor: OnnxTensor): Uint8Array {
  return decodeTypedBody(body, base, tensor.storage, tensor.dataType, tensor.name);
}

/** A replaced TensorProto body: the tensor (its frames) and its new body (in memory, or streamed: patch only). */
export interface BodyChange {
  frames: OnnxFrame[];
  body: Uint8Array;
  streamed?: SpliceEdit["streamed"];
}

/**
 * The edits that replace bodies and re-encode every enclosing length. `changes` must not nest (each is a
 * TensorProto; a Constant inside a replaced tensor cannot happen). Sorted by offset.
 */
export function lengthEdits(changes: readonly BodyChange[]): SpliceEdit[] {
  const edits: SpliceEdit[] = [];
  interface FrameState {
    frame: OnnxFrame;
    depth: number;
    chain: OnnxFrame[];
    delta: number;
  }
  const frames = new Map<number, FrameState>();
  for (const change of changes) {
    const own = change.frames[change.frames.length - 1]!;
    const delta = (change.streamed?.size ?? change.body.length) - (own.bodyEnd - own.bodyStart);
    edits.push({
      offset: own.bodyStart,
      length: own.bodyEnd - own.bodyStart,
      bytes: change.body,
      streamed: change.streamed,
    });
    change.frames.forEach((frame, depth) => {
      const state = frames.get(frame.lengthAt) ?? { frame, depth, chain: change.frames.slice(0, depth), delta: 0 };
      state.delta += delta;
      frames.set(frame.lengthAt, state);
    });
  }
  // innermost first: a length varint that grows makes every enclosing message longer too
  const ordered = [...frames.values()].sort((a, b) => b.depth - a.depth);
  for (const state of ordered) {
    const newLength = state.frame.bodyEnd - state.frame.bodyStart + state.delta;
    const grown = varintSize(newLength) - state.frame.lengthBytes;
    if (grown !== 0) for (const outer of state.chain) frames.get(outer.lengthAt)!.delta += grown;
  }
  for (const state of ordered) {
    const newLength = state.frame.bodyEnd - state.frame.bodyStart + state.delta;
    if (state.delta === 0) continue;
    edits.push({
      offset: state.frame.lengthAt,
      length: state.frame.lengthBytes,
      bytes: new ProtoWriter().varint(newLength).finish(),
    });
  }
  return edits.sort((a, b) => a.offset - b.offset);
}

/**
 * The edits write() makes for a model's replacements (`bytes`: the file the model was read from; for an .april
 * network the whole .april file, as the model's offsets are absolute).
 */
export function replacementEdits(model: OnnxModel, bytes: Uint8Array): SpliceEdit[] {
  const replacements = model.replacements;
  if (!replacements || replacements.size === 0) return [];
  const edits: SpliceEdit[] = [];
  const changes: BodyChange[] = [];
  for (const w of weights(model)) {
    const values = replacements.get(w.name);
    if (!values) continue;
    const t = w.tensor;
    if (t.storage === "raw_data" || t.packed) {
      // raw_data, or one packed float_data/double_data field (the same layout): overwritten in place
      const range = t.packed ?? t.data;
      edits.push({ offset: range.byteOffset, length: range.byteLength, bytes: values });
    } else if (t.storage === "external") {
      throw new UnsupportedError(
        id,
        `weight "${w.name}" is stored in the external file ${JSON.stringify(t.external!.location)}; write its values there`,
        undefined,
        w.name,
      );
    } else if (t.storage !== "none") {
      const own = t.frames[t.frames.length - 1]!;
      const body = bytes.subarray(own.bodyStart, own.bodyEnd);
      if (sameBytes(typedValues(body, own.bodyStart, t), values)) continue;
      changes.push({ frames: t.frames, body: encodeTypedBody(body, own.bodyStart, t, values) });
    }
  }
  return [...edits, ...lengthEdits(changes)].sort((a, b) => a.offset - b.offset);
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The pieces of bytes [start, end) with `edits` (sorted, inside the range) applied. */
export function splice(bytes: Uint8Array, start: number, end: number, edits: readonly SpliceEdit[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let pos = start;
  for (const e of edits) {
    if (e.offset > pos) pieces.push(bytes.subarray(pos, e.offset));
    pieces.push(e.bytes);
    pos = e.offset + e.length;
  }
  if (end > pos) pieces.push(bytes.subarray(pos, end));
  return pieces;
}

function originalBytes(model: OnnxModel, fn: string): Uint8Array {
  const bytes = modelBytes.get(model);
  if (!bytes) {
    throw new UnsupportedError(
      id,
      `${fn}() needs a model from onnx.read() (a readFrom() result has no payloads in memory; use patchFrom/patchTo to write a lazily opened model)`,
      undefined,
      fn,
    );
  }
  return bytes;
}

export function writePieces(model: OnnxModel): Uint8Array[] {
  const bytes = originalBytes(model, "write");
  const { byteOffset, byteLength } = model.span;
  return splice(bytes, byteOffset, byteOffset + byteLength, replacementEdits(model, bytes));
}

/** The model's bytes: the bytes it was read from, with replacements spliced in. */
export function write(model: OnnxModel): Uint8Array {
  const pieces = writePieces(model);
  // one piece can be the very bytes read() was given: hand out a copy, never the caller's input
  return pieces.length === 1 ? pieces[0]!.slice() : concatBytes(pieces);
}

/** write() into a sink piece by piece (payloads are not copied). Resolves to the byte count. */
export async function writeTo(
  model: OnnxModel,
  sink: ByteSink,
  options: { end?: boolean | undefined } = {},
): Promise<number> {
  return writePiecesTo(sink, writePieces(model), { end: options.end, caller: "onnx.writeTo" });
}
