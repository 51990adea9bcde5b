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
 * What changed is decided in edit-compare.ts (EditComparer, the snapshot, the replaced tensors); this module writes.
 */
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import { concatBytes } from "../../bytes/input.js";
import { elementCount } from "../../tensor.js";
import {
  ATTRIBUTE_TYPES,
  DATA_TYPES,
  type OnnxAttribute,
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
import { modelBytes } from "./view.js";
import { encodeTypedField, writePieces as splicedPieces } from "./writer.js";
import {
  EditComparer,
  type Entry,
  type Field,
  type Kind,
  type Opset,
  type Plan,
  type Range,
  checkedInt,
  fieldsOf,
  isAbsentTensor,
  lastField,
  movedValues,
  replacedTensors,
  sameShape,
  sameType,
  sameValues,
  snapshot,
} from "./edit-compare.js";

/** Writes an edited model: stored bytes for what did not change, re-encoded messages for what did. */
class EditWriter extends EditComparer {
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
