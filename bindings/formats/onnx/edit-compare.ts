/**
 * Writing an edited ONNX model, the comparing half: the stored fields of a message, what changed (message by
 * message, memoized), the snapshot of the model as read and the replaced tensors; edit-write.ts writes from it.
 */
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import {
  type OnnxAttribute,
  type OnnxFrame,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxSparseTensor,
  type OnnxTensor,
  type OnnxValueInfo,
  type OnnxValueType,
  id,
} from "./model.js";
import { ProtoWriter } from "./proto-writer.js";
import { messageFrames, messageOrigins, parseModel } from "./reader.js";
import { decodeTypedBody, weights } from "./view.js";
import { sameBytes, typedValues } from "./writer.js";

export type Kind = "graph" | "node" | "attribute" | "tensor" | "sparse" | "valueInfo" | "opset" | "entry";
export type Opset = OnnxModel["opsetImports"][number];
export type Entry = OnnxModel["metadataProps"][number];

/** Which stored objects may stand for which kind (a frame of another kind is not a base). */
const LOOKS_LIKE: Record<Kind, (o: Record<string, unknown>) => boolean> = {
  graph: (o) => Array.isArray(o.nodes) && Array.isArray(o.initializers),
  node: (o) => typeof o.opType === "string",
  attribute: (o) => typeof o.type === "string" && typeof o.name === "string",
  tensor: (o) => typeof o.dataType === "number",
  sparse: (o) => typeof o.values === "object" && typeof o.indices === "object",
  valueInfo: (o) => typeof o.type === "object" && typeof o.name === "string",
  opset: (o) => typeof o.version === "number",
  entry: (o) => typeof o.key === "string",
};

/** One stored field: its number, wire type, where its tag is, where its payload starts (after a length) and ends. */
export interface Field {
  field: number;
  wire: number;
  tagAt: number;
  bodyStart: number;
  end: number;
}

export interface Range {
  start: number;
  end: number;
}

/** The fields of the stored message [start, end) (already checked by read(): no error cases left). */
export function fieldsOf(bytes: Uint8Array, range: Range): Field[] {
  const out: Field[] = [];
  let i = range.start;
  const varint = (): number => {
    let value = 0;
    for (let k = 0; ; k++) {
      const b = bytes[i++]!;
      if (k < 8) value += (b & 0x7f) * 2 ** (7 * k);
      if ((b & 0x80) === 0) return value;
    }
  };
  while (i < range.end) {
    const tagAt = i;
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    let bodyStart = i;
    if (wire === 0) while ((bytes[i++]! & 0x80) !== 0);
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const length = varint();
      bodyStart = i;
      i += length;
    } else throw new CorruptDataError(id, `wire type ${wire} in a message read before`, tagAt);
    out.push({ field, wire, tagAt, bodyStart, end: i });
  }
  return out;
}

/** How one field (or group of fields that hold one value) of a message is written. */
export interface Plan {
  fields: readonly number[];
  /** Unchanged: every stored occurrence is copied where it is. */
  same: boolean;
  /** Writes the current value (nothing for an absent or default one). */
  emit(w: ProtoWriter): void;
}

export function sameValues<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

export function sameShape(a: OnnxValueType["shape"], b: OnnxValueType["shape"]): boolean {
  return sameValues(a, b);
}

export function sameType(a: OnnxValueType, b: OnnxValueType): boolean {
  return a.kind === b.kind && a.elemType === b.elemType && sameShape(a.shape, b.shape);
}

/** True for an object shaped as a read OnnxTensor (what a message of kind "tensor" is): its storage, frames and dims. */
function isTensorMessage(value: object): value is OnnxTensor {
  return (
    "storage" in value &&
    typeof value.storage === "string" &&
    "frames" in value &&
    Array.isArray(value.frames) &&
    "dims" in value &&
    Array.isArray(value.dims)
  );
}

/** The placeholder read() gives a sparse tensor's absent values/indices (never written). */
export function isAbsentTensor(t: OnnxTensor): boolean {
  return (
    t.storage === "none" &&
    t.frames.length === 0 &&
    t.name === "" &&
    t.dataType === 0 &&
    t.dims.length === 0 &&
    t.values === undefined &&
    !messageFrames.has(t)
  );
}

/** The stored model at its frames, read again from the bytes at write time. */
interface Snapshot {
  model: OnnxModel;
  /** Stored message objects by the offset of their body. */
  at: Map<number, object>;
}

export function snapshot(model: OnnxModel, bytes: Uint8Array): Snapshot {
  const at = new Map<number, object>();
  const start = model.span.byteOffset;
  const stored = parseModel(new ByteReader(bytes, id), {
    eager: false,
    countVarints: false,
    start,
    end: start + model.span.byteLength,
    maxGraphDepth: Number.MAX_SAFE_INTEGER,
    origin: bytes,
    onMessage: (message, frame) => at.set(frame.bodyStart, message),
  });
  return { model: stored, at };
}

/**
 * The stored values of each replaced weight's tensor (replaceTensors), by tensor object: by the weight's name now,
 * else by its name as read (a weight renamed after replaceTensors keeps its new values).
 */
export function replacedTensors(model: OnnxModel, bytes: Uint8Array, stored: Snapshot): Map<OnnxTensor, Uint8Array> {
  const out = new Map<OnnxTensor, Uint8Array>();
  const replacements = model.replacements;
  if (!replacements || replacements.size === 0) return out;
  const current = weights(model);
  const names = new Set(current.map((w) => w.name));
  const byFrame = new Map<number, Uint8Array>();
  for (const w of weights(stored.model)) {
    const values = replacements.get(w.name);
    const own = messageFrames.get(w.tensor);
    if (values && own && !names.has(w.name)) byFrame.set(own.bodyStart, values);
  }
  for (const w of current) {
    const own = messageOrigins.get(w.tensor) === bytes ? messageFrames.get(w.tensor) : undefined;
    const values = replacements.get(w.name) ?? (own && byFrame.get(own.bodyStart));
    if (!values) continue;
    const t = w.tensor;
    if (t.storage === "external") {
      throw new UnsupportedError(
        id,
        `weight "${w.name}" is stored in the external file ${JSON.stringify(t.external!.location)}; write its values there`,
        undefined,
        w.name,
      );
    }
    if (
      t.storage !== "raw_data" &&
      !t.packed &&
      t.storage !== "none" &&
      t.frames.length > 0 &&
      messageOrigins.get(t) === bytes
    ) {
      const own = t.frames[t.frames.length - 1]!;
      // typed values given back as stored: left as they are (as writer.ts does)
      if (sameBytes(typedValues(bytes.subarray(own.bodyStart, own.bodyEnd), own.bodyStart, t), values)) continue;
    }
    out.set(t, values);
  }
  return out;
}

/** Compares each message object with the stored message it was read from (memoized); EditWriter writes from it. */
export class EditComparer {
  private readonly memo = new Map<object, boolean>();

  constructor(
    protected readonly bytes: Uint8Array,
    private readonly stored: Snapshot,
    protected readonly replaced: ReadonlyMap<OnnxTensor, Uint8Array>,
  ) {}

  /** The stored message `value` was read from (in this model's bytes), with its frame; undefined for a new object. */
  protected base<T extends object>(kind: Kind, value: T): { frame: OnnxFrame; old: T } | undefined {
    const origin = messageOrigins.get(value);
    // read from other bytes (another model, a lazy open): its frame says nothing about these bytes
    if (origin !== undefined && origin !== this.bytes) return undefined;
    let frame = messageFrames.get(value);
    if (!frame && kind === "tensor" && isTensorMessage(value)) frame = value.frames[value.frames.length - 1];
    if (!frame) return undefined;
    const old = this.stored.at.get(frame.bodyStart);
    const oldFrame = old && messageFrames.get(old);
    if (!old || !oldFrame || oldFrame.tagAt !== frame.tagAt || oldFrame.bodyEnd !== frame.bodyEnd) return undefined;
    if (!LOOKS_LIKE[kind](old as Record<string, unknown>)) return undefined;
    return { frame: oldFrame, old: old as T };
  }

  /** `value` is the stored message `old` (by frame) and neither it nor anything in it changed. */
  protected sameChild<T extends object>(kind: Kind, value: T | undefined, old: T | undefined): boolean {
    if (value === undefined || old === undefined) return value === old;
    if (
      kind === "tensor" &&
      isTensorMessage(value) &&
      isAbsentTensor(value) &&
      isTensorMessage(old) &&
      isAbsentTensor(old)
    )
      return true;
    const b = this.base(kind, value);
    return b !== undefined && b.old === old && this.unchanged(kind, value);
  }

  protected sameList<T extends object>(kind: Kind, values: readonly T[], olds: readonly T[]): boolean {
    return values.length === olds.length && values.every((v, i) => this.sameChild(kind, v, olds[i]));
  }

  /** True when `value` was read from this model and nothing in it changed. */
  unchanged(kind: Kind, value: object): boolean {
    const known = this.memo.get(value);
    if (known !== undefined) return known;
    const b = this.base(kind, value);
    const result = b !== undefined && this.compare(kind, value, b.old);
    this.memo.set(value, result);
    return result;
  }

  private compare(kind: Kind, value: object, old: object): boolean {
    switch (kind) {
      case "graph": {
        const g = value as OnnxGraph;
        const o = old as OnnxGraph;
        return (
          g.name === o.name &&
          g.docString === o.docString &&
          this.sameList("node", g.nodes, o.nodes) &&
          this.sameList("tensor", g.initializers, o.initializers) &&
          this.sameList("sparse", g.sparseInitializers, o.sparseInitializers) &&
          this.sameList("valueInfo", g.inputs, o.inputs) &&
          this.sameList("valueInfo", g.outputs, o.outputs) &&
          this.sameList("valueInfo", g.valueInfo, o.valueInfo)
        );
      }
      case "node": {
        const n = value as OnnxNode;
        const o = old as OnnxNode;
        return (
          n.name === o.name &&
          n.opType === o.opType &&
          n.domain === o.domain &&
          n.docString === o.docString &&
          sameValues(n.inputs, o.inputs) &&
          sameValues(n.outputs, o.outputs) &&
          this.sameList("attribute", n.attributes, o.attributes)
        );
      }
      case "attribute": {
        const a = value as OnnxAttribute;
        const o = old as OnnxAttribute;
        return (
          a.name === o.name &&
          a.type === o.type &&
          Object.is(a.f, o.f) &&
          a.i === o.i &&
          a.s === o.s &&
          sameValues(a.floats, o.floats) &&
          sameValues(a.ints, o.ints) &&
          sameValues(a.strings, o.strings) &&
          a.refAttrName === o.refAttrName &&
          a.docString === o.docString &&
          this.sameChild("tensor", a.t, o.t) &&
          this.sameChild("graph", a.g, o.g) &&
          this.sameChild("sparse", a.sparseTensor, o.sparseTensor) &&
          this.sameList("tensor", a.tensors ?? [], o.tensors ?? []) &&
          (a.tensors === undefined) === (o.tensors === undefined) &&
          this.sameList("graph", a.graphs ?? [], o.graphs ?? []) &&
          (a.graphs === undefined) === (o.graphs === undefined)
        );
      }
      case "tensor": {
        const t = value as OnnxTensor;
        const o = old as OnnxTensor;
        return (
          t.name === o.name &&
          t.dataType === o.dataType &&
          sameValues(t.dims, o.dims) &&
          t.docString === o.docString &&
          t.storage === o.storage &&
          t.values === undefined &&
          !this.replaced.has(t)
        );
      }
      case "sparse": {
        const s = value as OnnxSparseTensor;
        const o = old as OnnxSparseTensor;
        return (
          sameValues(s.dims, o.dims) &&
          this.sameChild("tensor", s.values, o.values) &&
          this.sameChild("tensor", s.indices, o.indices)
        );
      }
      case "valueInfo": {
        const v = value as OnnxValueInfo;
        const o = old as OnnxValueInfo;
        return v.name === o.name && v.docString === o.docString && sameType(v.type, o.type);
      }
      case "opset":
        return (value as Opset).domain === (old as Opset).domain && (value as Opset).version === (old as Opset).version;
      case "entry":
        return (value as Entry).key === (old as Entry).key && (value as Entry).value === (old as Entry).value;
    }
  }
}
export function movedValues(t: OnnxTensor): Uint8Array | undefined {
  const origin = messageOrigins.get(t);
  if (!(origin instanceof Uint8Array) || t.storage === "none") return undefined;
  const path = t.name || "tensor";
  if (t.storage === "external" || t.storage === "string_data") {
    throw new UnsupportedError(
      id,
      `tensor "${path}" comes from another model and holds ${t.storage === "external" ? "external data" : "strings"}; give its elements in \`values\``,
      undefined,
      path,
    );
  }
  if (t.storage === "raw_data" || t.packed) {
    const range = t.packed ?? t.data;
    return origin.subarray(range.byteOffset, range.byteOffset + range.byteLength);
  }
  const own = t.frames[t.frames.length - 1]!;
  return decodeTypedBody(origin.subarray(own.bodyStart, own.bodyEnd), own.bodyStart, t.storage, t.dataType, path);
}

export function lastField(fields: readonly Field[], field: number): Field | undefined {
  for (let i = fields.length - 1; i >= 0; i--) if (fields[i]!.field === field) return fields[i];
  return undefined;
}

/** An integer field's value: a safe integer (int64 within ±2^53), else a RangeError naming the field. */
export function checkedInt(value: number, field: number): number {
  if (!Number.isSafeInteger(value))
    throw new RangeError(`tensorfile: onnx.write: field ${field} takes an integer within ±2^53, not ${value}`);
  return value;
}
