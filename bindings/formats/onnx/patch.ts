/**
 * Replacing ONNX weights by name. Values are stored in the weight's own dtype and storage: a raw_data weight's
 * payload is overwritten in place (only its own bytes change); a typed-field weight's TensorProto is re-encoded
 * and every enclosing length fixed (writer.ts). A typed weight given back with its stored values is left as it is,
 * so `convert F x.safetensors` then `patch F x.safetensors OUT` gives OUT = F. Weights in external files are
 * refused (UnsupportedError): their values live in another file.
 */
import { UnsupportedError } from "../../errors.js";
import type { ByteSource } from "../../io/source.js";
import { readExactly } from "../../io/source.js";
import { encodeRowMajorBytes, replacementData } from "../../patch/encode.js";
import { type Incoming, type ReplaceOptions, type TensorsInput, checkUnknown, replacementsInMemory } from "../../patch/input.js";
import { type PatchEdit, type PatchPlan, asTensor, checkIncoming, storedForm, tensorEdit } from "../../patch/plan.js";
import type { TensorInfo } from "../../tensor.js";
import { type OnnxModel, id } from "./model.js";
import { type OnnxTensorInfo, type OnnxWeight, modelBytes, weightInfo, weights } from "./view.js";
import { type BodyChange, encodeTypedBody, lengthEdits, sameBytes, typedValues } from "./writer.js";

function refuseExternal(w: OnnxWeight, name: string): never {
  throw new UnsupportedError(id, `weight "${name}" is stored in the external file ${JSON.stringify(w.tensor.external!.location)}; patching external data is not supported`, undefined, name);
}

/**
 * A copy of `model` (a read() result) whose write() stores the given weights. Unknown names are a RangeError
 * unless `partial`; a dtype that cannot replace the stored one a TypeError, another shape a RangeError.
 */
export function replaceTensors(model: OnnxModel, tensors: TensorsInput, options: ReplaceOptions = {}): OnnxModel {
  const values = replacementsInMemory(tensors, "onnx.replaceTensors");
  const list = weights(model);
  const names = new Set(list.map((w) => w.name));
  checkUnknown([...values.keys()].filter((n) => !names.has(n)), list.map((w) => w.name), id, options);
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

/** A splice edit as a patch-plan edit. */
function fixedEdit(offset: number, length: number, bytes: Uint8Array): PatchEdit {
  return { offset, length, sameSize: bytes.length === length, produce: () => [bytes] };
}

export interface ModelPlan {
  edits: PatchEdit[];
  /** Output size minus input size. */
  delta: number;
  replaced: string[];
}

/**
 * The edits that put `incoming` (by weight name, `prefix` included) into `model` read lazily from `source`.
 * Typed-field replacements are loaded and encoded now (their sizes fix the enclosing lengths); raw_data ones
 * stream when their turn comes.
 */
export async function planModel(model: OnnxModel, prefix: string, source: ByteSource, incoming: ReadonlyMap<string, Incoming>): Promise<ModelPlan> {
  const edits: PatchEdit[] = [];
  const changes: BodyChange[] = [];
  const replaced: string[] = [];
  const matched: [OnnxWeight, OnnxTensorInfo, Incoming][] = [];
  for (const w of weights(model)) {
    const given = incoming.get(prefix + w.name);
    if (!given) continue;
    const info = weightInfo(w, prefix);
    if (w.tensor.storage === "external") refuseExternal(w, info.name);
    checkIncoming(info, given);
    matched.push([w, info, given]);
  }
  for (const [w, info, given] of matched) {
    replaced.push(info.name);
    const t = w.tensor;
    if (t.storage === "raw_data" || t.packed) {
      // raw_data, or one packed float_data/double_data field (raw_data's layout): in place, streamed
      edits.push(tensorEdit(info, given));
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
    delta += e.bytes.length - e.length;
    edits.push(fixedEdit(e.offset, e.length, e.bytes));
  }
  edits.sort((a, b) => a.offset - b.offset);
  return { edits, delta, replaced };
}

/** The plan for an .onnx model opened with readFrom() (or read()). */
export async function planPatch(
  model: OnnxModel, infos: readonly TensorInfo[], source: ByteSource, size: number, incoming: ReadonlyMap<string, Incoming>, options: ReplaceOptions,
): Promise<PatchPlan> {
  const names = infos.map((i) => i.name);
  const inFile = new Set(names);
  const unknown = [...incoming.keys()].filter((n) => !inFile.has(n));
  checkUnknown(unknown, names, id, options);
  const plan = await planModel(model, "", source, incoming);
  return {
    edits: plan.edits, replaced: plan.replaced, kept: names.filter((n) => !incoming.has(n)), unknown, requantized: [], outputSize: size + plan.delta,
  };
}
