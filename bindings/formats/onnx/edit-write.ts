/**
 * Writing an edited ONNX model. An edit is a change to the object read() returned (see edit.ts); write() compares
 * every message object with the message stored at its frame (reader.ts messageFrames; the stored message is read
 * again from the model's bytes at write time, so no copy is kept meanwhile) and:
 *
 *   - copies the stored bytes (tag, length, body) of every message that did not change, whole;
 *   - re-encodes a message that changed, field by field in the stored order: a field whose value did not change
 *     is copied as stored (non-minimal varints, unpacked lists and unknown fields included), a changed field is
 *     encoded where its first occurrence was, a new field goes after the stored ones, a removed one is left out;
 *   - encodes a message made anew (a plain object without a frame) in field-number order, as onnx.create does.
 *
 * So an unchanged model writes back as the bytes read, and one edit changes its message and the lengths of the
 * messages enclosing it only. Objects are matched to stored messages by their frame, not their position: a node
 * moved, a value info moved from value_info to output, or an object shared by two places is still copied.
 * Replacements (replaceTensors) are stored along: a model with no other change is written by writer.ts.
 * Large copied ranges stay views of the model's bytes (writeTo streams them without a second copy).
 */
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import { concatBytes } from "../../bytes/input.js";
import { elementCount } from "../../tensor.js";
import {
  ATTRIBUTE_TYPES,
  DATA_TYPES,
  type OnnxAttribute,
  type OnnxFrame,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxSparseTensor,
  type OnnxTensor,
  type OnnxValueInfo,
  type OnnxValueType,
  dataTypeName,
  id,
  rawByteLength,
} from "./model.js";
import { ProtoWriter } from "./proto-writer.js";
import { messageFrames, messageOrigins, parseModel } from "./reader.js";
import { decodeTypedBody, modelBytes, weights } from "./view.js";
import { encodeTypedField, sameBytes, typedValues, writePieces as splicedPieces } from "./writer.js";

type Kind = "graph" | "node" | "attribute" | "tensor" | "sparse" | "valueInfo" | "opset" | "entry";
type Opset = OnnxModel["opsetImports"][number];
type Entry = OnnxModel["metadataProps"][number];

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
interface Field {
  field: number;
  wire: number;
  tagAt: number;
  bodyStart: number;
  end: number;
}

interface Range {
  start: number;
  end: number;
}

/** The fields of the stored message [start, end) (already checked by read(): no error cases left). */
function fieldsOf(bytes: Uint8Array, range: Range): Field[] {
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
interface Plan {
  fields: readonly number[];
  /** Unchanged: every stored occurrence is copied where it is. */
  same: boolean;
  /** Writes the current value (nothing for an absent or default one). */
  emit(w: ProtoWriter): void;
}

function sameValues<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

function sameShape(a: OnnxValueType["shape"], b: OnnxValueType["shape"]): boolean {
  return sameValues(a, b);
}

function sameType(a: OnnxValueType, b: OnnxValueType): boolean {
  return a.kind === b.kind && a.elemType === b.elemType && sameShape(a.shape, b.shape);
}

/** The placeholder read() gives a sparse tensor's absent values/indices (never written). */
function isAbsentTensor(t: OnnxTensor): boolean {
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

function snapshot(model: OnnxModel, bytes: Uint8Array): Snapshot {
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
function replacedTensors(model: OnnxModel, bytes: Uint8Array, stored: Snapshot): Map<OnnxTensor, Uint8Array> {
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

class EditWriter {
  private readonly memo = new Map<object, boolean>();

  constructor(
    private readonly bytes: Uint8Array,
    private readonly stored: Snapshot,
    private readonly replaced: ReadonlyMap<OnnxTensor, Uint8Array>,
  ) {}

  /** The stored message `value` was read from (in this model's bytes), with its frame; undefined for a new object. */
  private base<T extends object>(kind: Kind, value: T): { frame: OnnxFrame; old: T } | undefined {
    const origin = messageOrigins.get(value);
    // read from other bytes (another model, a lazy open): its frame says nothing about these bytes
    if (origin !== undefined && origin !== this.bytes) return undefined;
    let frame = messageFrames.get(value);
    if (!frame && kind === "tensor") {
      const frames = (value as unknown as OnnxTensor).frames;
      frame = Array.isArray(frames) ? frames[frames.length - 1] : undefined;
    }
    if (!frame) return undefined;
    const old = this.stored.at.get(frame.bodyStart);
    const oldFrame = old && messageFrames.get(old);
    if (!old || !oldFrame || oldFrame.tagAt !== frame.tagAt || oldFrame.bodyEnd !== frame.bodyEnd) return undefined;
    if (!LOOKS_LIKE[kind](old as Record<string, unknown>)) return undefined;
    return { frame: oldFrame, old: old as T };
  }

  /** `value` is the stored message `old` (by frame) and neither it nor anything in it changed. */
  private sameChild<T extends object>(kind: Kind, value: T | undefined, old: T | undefined): boolean {
    if (value === undefined || old === undefined) return value === old;
    if (
      kind === "tensor" &&
      isAbsentTensor(value as unknown as OnnxTensor) &&
      isAbsentTensor(old as unknown as OnnxTensor)
    )
      return true;
    const b = this.base(kind, value);
    return b !== undefined && b.old === old && this.unchanged(kind, value);
  }

  private sameList<T extends object>(kind: Kind, values: readonly T[], olds: readonly T[]): boolean {
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

  /** Field `field` holding `value`: its stored bytes when unchanged, else its body re-encoded. */
  child(w: ProtoWriter, field: number, kind: Kind, value: object): void {
    if (kind === "tensor" && isAbsentTensor(value as OnnxTensor)) return;
    const b = this.base(kind, value);
    if (b && this.unchanged(kind, value)) {
      const { frame } = b;
      if (this.tagField(frame.tagAt) === field) w.raw(this.bytes.subarray(frame.tagAt, frame.bodyEnd));
      else w.bytesField(field, this.bytes.subarray(frame.bodyStart, frame.bodyEnd));
      return;
    }
    const inner = new ProtoWriter();
    this.encode(inner, kind, value, b?.old, b && { start: b.frame.bodyStart, end: b.frame.bodyEnd });
    w.embed(field, inner);
  }

  private tagField(at: number): number {
    let tag = 0;
    for (let k = 0; ; k++) {
      const b = this.bytes[at + k]!;
      tag += (b & 0x7f) * 2 ** (7 * k);
      if ((b & 0x80) === 0) return Math.floor(tag / 8);
    }
  }

  /**
   * The body of a message from `plans`: with a stored body, its fields in stored order (unchanged ones and
   * unknown ones copied, a changed one written at its first occurrence), then the changed fields it did not hold.
   */
  rewrite(w: ProtoWriter, stored: Range | undefined, plans: readonly Plan[]): void {
    const byField = new Map<number, Plan>();
    for (const p of plans) for (const f of p.fields) byField.set(f, p);
    const done = new Set<Plan>();
    if (stored) {
      for (const f of fieldsOf(this.bytes, stored)) {
        const p = byField.get(f.field);
        if (!p || p.same) w.raw(this.bytes.subarray(f.tagAt, f.end));
        else if (!done.has(p)) {
          p.emit(w);
          done.add(p);
        }
      }
    }
    for (const p of plans) if (!p.same && !done.has(p)) p.emit(w);
  }

  private listPlan<T extends object>(
    field: number,
    kind: Kind,
    values: readonly T[],
    olds: readonly T[] | undefined,
  ): Plan {
    return {
      fields: [field],
      same: olds !== undefined && this.sameList(kind, values, olds),
      emit: (w) => {
        for (const v of values) this.child(w, field, kind, v);
      },
    };
  }

  private childPlan<T extends object>(
    field: number,
    kind: Kind,
    value: T | undefined,
    old: T | undefined,
    hadOld: boolean,
  ): Plan {
    return {
      fields: [field],
      same: hadOld && this.sameChild(kind, value, old),
      emit: (w) => {
        if (value !== undefined) this.child(w, field, kind, value);
      },
    };
  }

  /** Writes the body of `value` (a `kind` message), on the stored body `stored` of `old` when there is one. */
  encode(w: ProtoWriter, kind: Kind, value: object, old: object | undefined, stored: Range | undefined): void {
    const had = old !== undefined;
    const text = (field: number, now: string | undefined, before: string | undefined, always = false): Plan => ({
      fields: [field],
      same: had && now === before,
      emit: (out) => {
        if (now !== undefined && (always || now !== "")) out.stringField(field, now);
      },
    });
    const int = (field: number, now: number | undefined, before: number | undefined, always = false): Plan => ({
      fields: [field],
      same: had && now === before,
      emit: (out) => {
        if (now !== undefined && (always || now !== 0)) out.uintField(field, checkedInt(now, field));
      },
    });
    const strings = (
      field: number,
      now: readonly string[] | undefined,
      before: readonly string[] | undefined,
    ): Plan => ({
      fields: [field],
      same: had && sameValues(now, before),
      emit: (out) => {
        for (const s of now ?? []) out.stringField(field, s);
      },
    });
    switch (kind) {
      case "graph": {
        const g = value as OnnxGraph;
        const o = old as OnnxGraph | undefined;
        this.rewrite(w, stored, [
          this.listPlan(1, "node", g.nodes, o?.nodes),
          text(2, g.name, o?.name),
          this.listPlan(5, "tensor", g.initializers, o?.initializers),
          text(10, g.docString, o?.docString),
          this.listPlan(11, "valueInfo", g.inputs, o?.inputs),
          this.listPlan(12, "valueInfo", g.outputs, o?.outputs),
          this.listPlan(13, "valueInfo", g.valueInfo, o?.valueInfo),
          this.listPlan(15, "sparse", g.sparseInitializers, o?.sparseInitializers),
        ]);
        return;
      }
      case "node": {
        const n = value as OnnxNode;
        const o = old as OnnxNode | undefined;
        this.rewrite(w, stored, [
          strings(1, n.inputs, o?.inputs),
          strings(2, n.outputs, o?.outputs),
          text(3, n.name, o?.name),
          text(4, n.opType, o?.opType),
          this.listPlan(5, "attribute", n.attributes, o?.attributes),
          text(6, n.docString, o?.docString),
          text(7, n.domain, o?.domain),
        ]);
        return;
      }
      case "attribute": {
        const a = value as OnnxAttribute;
        const o = old as OnnxAttribute | undefined;
        const code = ATTRIBUTE_TYPES.indexOf(a.type);
        if (code < 0)
          throw new TypeError(
            `tensorfile: onnx.write: attribute "${a.name}" has the unknown type ${JSON.stringify(a.type)}`,
          );
        this.rewrite(w, stored, [
          text(1, a.name, o?.name, true),
          {
            fields: [2],
            same: had && Object.is(a.f, o!.f),
            emit: (out) => void (a.f !== undefined && out.floatField(2, a.f)),
          },
          {
            fields: [3],
            same: had && a.i === o!.i,
            emit: (out) => void (a.i !== undefined && out.uintField(3, checkedInt(a.i, 3))),
          },
          text(4, a.s, o?.s, true),
          this.childPlan(5, "tensor", a.t, o?.t, had),
          this.childPlan(6, "graph", a.g, o?.g, had),
          {
            fields: [7],
            same: had && sameValues(a.floats, o!.floats),
            emit: (out) => void (a.floats && out.packedFloatField(7, a.floats)),
          },
          {
            fields: [8],
            same: had && sameValues(a.ints, o!.ints),
            emit: (out) =>
              void (
                a.ints &&
                out.packedVarintField(
                  8,
                  a.ints.map((v) => checkedInt(v, 8)),
                )
              ),
          },
          strings(9, a.strings, o?.strings),
          { ...this.listPlan(10, "tensor", a.tensors ?? [], o && (o.tensors ?? [])), fields: [10] },
          { ...this.listPlan(11, "graph", a.graphs ?? [], o && (o.graphs ?? [])), fields: [11] },
          text(13, a.docString, o?.docString),
          { fields: [20], same: had && a.type === o!.type, emit: (out) => void (code > 0 && out.uintField(20, code)) },
          text(21, a.refAttrName, o?.refAttrName),
          this.childPlan(22, "sparse", a.sparseTensor, o?.sparseTensor, had),
        ]);
        return;
      }
      case "tensor":
        this.encodeTensor(w, value as OnnxTensor, old as OnnxTensor | undefined, stored);
        return;
      case "sparse": {
        const s = value as OnnxSparseTensor;
        const o = old as OnnxSparseTensor | undefined;
        this.rewrite(w, stored, [
          this.childPlan(1, "tensor", s.values, o?.values, had),
          this.childPlan(2, "tensor", s.indices, o?.indices, had),
          {
            fields: [3],
            same: had && sameValues(s.dims, o!.dims),
            emit: (out) =>
              void out.packedVarintField(
                3,
                s.dims.map((d) => checkedInt(d, 3)),
              ),
          },
        ]);
        return;
      }
      case "valueInfo": {
        const v = value as OnnxValueInfo;
        const o = old as OnnxValueInfo | undefined;
        const typeField = stored ? lastField(fieldsOf(this.bytes, stored), 2) : undefined;
        this.rewrite(w, stored, [
          text(1, v.name, o?.name, true),
          {
            fields: [2],
            same: had && sameType(v.type, o!.type),
            emit: (out) => {
              if (v.type.kind === "unknown" && !typeField) return;
              const inner = new ProtoWriter();
              this.encodeType(inner, v.type, o?.type, typeField);
              out.embed(2, inner);
            },
          },
          text(3, v.docString, o?.docString),
        ]);
        return;
      }
      case "opset": {
        const p = value as Opset;
        const o = old as Opset | undefined;
        this.rewrite(w, stored, [text(1, p.domain, o?.domain, true), int(2, p.version, o?.version, true)]);
        return;
      }
      case "entry": {
        const e = value as Entry;
        const o = old as Entry | undefined;
        this.rewrite(w, stored, [text(1, e.key, o?.key, true), text(2, e.value, o?.value, true)]);
        return;
      }
    }
  }

  /** A TypeProto: tensor/sparse types re-encoded over the stored ones (their unknown fields kept). */
  private encodeType(
    w: ProtoWriter,
    type: OnnxValueType,
    old: OnnxValueType | undefined,
    stored: Field | undefined,
  ): void {
    const fields = { tensor: 1, sparse_tensor: 8, sequence: 4, map: 5, optional: 9 } as const;
    const range = stored && { start: stored.bodyStart, end: stored.end };
    const sameKind = old !== undefined && old.kind === type.kind;
    this.rewrite(w, range, [
      {
        fields: [1, 4, 5, 8, 9],
        same: old !== undefined && sameType(type, old),
        emit: (out) => {
          if (type.kind === "unknown") return;
          if (type.kind !== "tensor" && type.kind !== "sparse_tensor") {
            throw new UnsupportedError(
              id,
              `a ${type.kind} type can be kept as read, not written anew`,
              undefined,
              "type",
            );
          }
          const field = fields[type.kind];
          const inner = new ProtoWriter();
          const storedInner = sameKind && range ? lastField(fieldsOf(this.bytes, range), field) : undefined;
          const innerRange = storedInner && { start: storedInner.bodyStart, end: storedInner.end };
          const shapeField = innerRange ? lastField(fieldsOf(this.bytes, innerRange), 2) : undefined;
          const before = sameKind ? old : undefined;
          this.rewrite(inner, innerRange, [
            {
              fields: [1],
              same: before !== undefined && type.elemType === before.elemType,
              emit: (o) => void (type.elemType !== undefined && o.uintField(1, checkedInt(type.elemType, 1))),
            },
            {
              fields: [2],
              same: before !== undefined && sameShape(type.shape, before.shape),
              emit: (o) => {
                if (type.shape === undefined) return;
                const shape = new ProtoWriter();
                this.encodeShape(shape, type.shape, before?.shape, shapeField);
                o.embed(2, shape);
              },
            },
          ]);
          out.embed(field, inner);
        },
      },
    ]);
  }

  /** A TensorShapeProto: a dim that did not change is copied (its denotation with it), the others written. */
  private encodeShape(
    w: ProtoWriter,
    shape: readonly (number | string | null)[],
    old: readonly (number | string | null)[] | undefined,
    stored: Field | undefined,
  ): void {
    const range = stored && { start: stored.bodyStart, end: stored.end };
    const dims = range ? fieldsOf(this.bytes, range).filter((f) => f.field === 1) : [];
    this.rewrite(w, range, [
      {
        fields: [1],
        same: false,
        emit: (out) => {
          shape.forEach((d, i) => {
            const storedDim = dims[i];
            if (storedDim && old && i < old.length && Object.is(old[i], d)) {
              out.raw(this.bytes.subarray(storedDim.tagAt, storedDim.end));
              return;
            }
            if (d !== null && typeof d !== "number" && typeof d !== "string")
              throw new TypeError(`tensorfile: onnx.write: a dim is a number, a name or null, not ${typeof d}`);
            const dim = new ProtoWriter();
            this.rewrite(dim, storedDim && { start: storedDim.bodyStart, end: storedDim.end }, [
              {
                fields: [1, 2],
                same: false,
                emit: (o) => {
                  if (typeof d === "number") o.uintField(1, checkedInt(d, 1));
                  else if (typeof d === "string") o.stringField(2, d);
                },
              },
            ]);
            out.embed(1, dim);
          });
        },
      },
    ]);
  }

  /** A TensorProto: header fields, and its data as stored, replaced (replaceTensors) or new (`values`). */
  private encodeTensor(w: ProtoWriter, t: OnnxTensor, old: OnnxTensor | undefined, stored: Range | undefined): void {
    const info = DATA_TYPES[t.dataType];
    const path = t.name || "tensor";
    const count = elementCount(t.dims);
    if (t.dims.some((d) => !Number.isSafeInteger(d) || d < 0))
      throw new RangeError(`tensorfile: onnx.write: tensor "${path}" has a bad dim in [${t.dims.join(", ")}]`);
    const replaced = this.replaced.get(t);
    // a tensor read from other bytes (moved from another model): its elements come along, stored as raw_data
    const moved = !old && t.values === undefined ? movedValues(t) : undefined;
    const newData = t.values ?? replaced ?? moved;
    let sameData = old !== undefined && newData === undefined && t.storage === old.storage;
    if (newData !== undefined) {
      if (!info || info.dtype === undefined)
        throw new CorruptDataError(
          id,
          `cannot write: ${dataTypeName(t.dataType)} values`,
          undefined,
          `${path}.data_type`,
        );
      const want = rawByteLength(info, count);
      if (newData.length !== want)
        throw new CorruptDataError(
          id,
          `cannot write: dims [${t.dims.join(", ")}] of ${info.name} take ${want} bytes, the values have ${newData.length}`,
          undefined,
          `${path}.raw_data`,
        );
    } else if (!old) {
      if (t.storage !== "none")
        throw new CorruptDataError(
          id,
          `cannot write: a new tensor needs its elements in \`values\` (raw_data layout)`,
          undefined,
          `${path}.values`,
        );
      if (count !== 0)
        throw new CorruptDataError(
          id,
          `cannot write: dims [${t.dims.join(", ")}] hold ${count} elements but the tensor has no data`,
          undefined,
          `${path}.dims`,
        );
      sameData = false;
    } else if (t.storage !== old.storage) {
      throw new CorruptDataError(
        id,
        `cannot write: storage is ${old.storage} as read; give new elements in \`values\` instead`,
        undefined,
        `${path}.storage`,
      );
    } else if (t.dataType !== old.dataType || elementCount(old.dims) !== count) {
      if (
        t.storage === "raw_data" &&
        info &&
        rawByteLength(info, count) === old.data.byteLength &&
        info.dtype !== undefined
      ) {
        // the same stored bytes read as another type or shape: allowed (a reinterpretation)
      } else if (t.dataType !== old.dataType || elementCount(old.dims) !== count) {
        throw new CorruptDataError(
          id,
          `cannot write: dims [${t.dims.join(", ")}] of ${dataTypeName(t.dataType)} do not fit the stored data (${dataTypeName(old.dataType)} [${old.dims.join(", ")}]); give new elements in \`values\``,
          undefined,
          `${path}.dims`,
        );
      }
    }
    const had = old !== undefined;
    this.rewrite(w, stored, [
      { fields: [1], same: had && sameValues(t.dims, old!.dims), emit: (o) => void o.packedVarintField(1, t.dims) },
      {
        fields: [2],
        same: had && t.dataType === old!.dataType,
        emit: (o) => void (t.dataType !== 0 && o.uintField(2, t.dataType)),
      },
      { fields: [8], same: had && t.name === old!.name, emit: (o) => void (t.name !== "" && o.stringField(8, t.name)) },
      {
        fields: [12],
        same: had && t.docString === old!.docString,
        emit: (o) => void (t.docString !== "" && o.stringField(12, t.docString)),
      },
      {
        fields: [4, 5, 6, 7, 9, 10, 11],
        same: sameData,
        emit: (o) => {
          if (newData === undefined) return;
          if (
            t.values !== undefined ||
            moved !== undefined ||
            t.storage === "raw_data" ||
            t.storage === "none" ||
            t.storage === "external"
          )
            o.bytesField(9, newData);
          else if (t.packed) o.bytesField(t.storage === "float_data" ? 4 : 10, newData);
          else encodeTypedField(o, t, newData);
        },
      },
      // external_data and data_location go when new elements are stored in the model
      { fields: [13, 14], same: t.values === undefined, emit: () => {} },
    ]);
  }

  /** The model's body, on its stored body. */
  model(w: ProtoWriter, model: OnnxModel, old: OnnxModel): void {
    const text = (field: number, now: string, before: string): Plan => ({
      fields: [field],
      same: now === before,
      emit: (o) => void (now !== "" && o.stringField(field, now)),
    });
    const int = (field: number, now: number, before: number): Plan => ({
      fields: [field],
      same: now === before,
      emit: (o) => void (now !== 0 && o.uintField(field, checkedInt(now, field))),
    });
    this.rewrite(w, { start: model.span.byteOffset, end: model.span.byteOffset + model.span.byteLength }, [
      int(1, model.irVersion, old.irVersion),
      text(2, model.producerName, old.producerName),
      text(3, model.producerVersion, old.producerVersion),
      text(4, model.domain, old.domain),
      int(5, model.modelVersion, old.modelVersion),
      text(6, model.docString, old.docString),
      this.childPlan(7, "graph", model.graph, old.graph, true),
      this.listPlan(8, "opset", model.opsetImports, old.opsetImports),
      this.listPlan(14, "entry", model.metadataProps, old.metadataProps),
    ]);
  }

  /** Nothing in `model` changed (replacements aside, which this writer was not given). */
  modelUnchanged(model: OnnxModel, old: OnnxModel): boolean {
    return (
      model.irVersion === old.irVersion &&
      model.producerName === old.producerName &&
      model.producerVersion === old.producerVersion &&
      model.domain === old.domain &&
      model.modelVersion === old.modelVersion &&
      model.docString === old.docString &&
      this.sameChild("graph", model.graph, old.graph) &&
      this.sameList("opset", model.opsetImports, old.opsetImports) &&
      this.sameList("entry", model.metadataProps, old.metadataProps)
    );
  }
}

/** The elements (raw_data layout) of a tensor read from other bytes than the model's, or undefined. */
function movedValues(t: OnnxTensor): Uint8Array | undefined {
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

function lastField(fields: readonly Field[], field: number): Field | undefined {
  for (let i = fields.length - 1; i >= 0; i--) if (fields[i]!.field === field) return fields[i];
  return undefined;
}

/** An integer field's value: a safe integer (int64 within ±2^53), else a RangeError naming the field. */
function checkedInt(value: number, field: number): number {
  if (!Number.isSafeInteger(value))
    throw new RangeError(`tensorfile: onnx.write: field ${field} takes an integer within ±2^53, not ${value}`);
  return value;
}

/**
 * The model's bytes as pieces with every edit stored, or undefined when nothing but replacements changed
 * (writer.ts splices those). `bytes`: what the model was read from (an .april file for its networks).
 */
export function editedPieces(model: OnnxModel, bytes: Uint8Array): Uint8Array[] | undefined {
  const stored = snapshot(model, bytes);
  if (new EditWriter(bytes, stored, new Map()).modelUnchanged(model, stored.model)) return undefined;
  const w = new ProtoWriter();
  new EditWriter(bytes, stored, replacedTensors(model, bytes, stored)).model(w, model, stored.model);
  return w.pieces();
}

/** The pieces write() joins: edits re-encoded (edit-write.ts), or the bytes read with replacements spliced. */
export function writePieces(model: OnnxModel): Uint8Array[] {
  const bytes = modelBytes.get(model);
  return (bytes && editedPieces(model, bytes)) ?? splicedPieces(model);
}

/** The model's bytes with every edit and replacement stored; an unchanged model gives the bytes it was read from. */
export function write(model: OnnxModel): Uint8Array {
  const pieces = writePieces(model);
  // one piece can be the very bytes read() was given: hand out a copy, never the caller's input
  return pieces.length === 1 ? pieces[0]!.slice() : concatBytes(pieces);
}

/** write() into a sink piece by piece (stored bytes are not copied). Resolves to the byte count. */
export async function writeTo(
  model: OnnxModel,
  sink: ByteSink,
  options: { end?: boolean | undefined } = {},
): Promise<number> {
  return writePiecesTo(sink, writePieces(model), { end: options.end, caller: "onnx.writeTo" });
}
