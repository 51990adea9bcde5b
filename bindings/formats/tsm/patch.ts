/**
 * Replacing TenniS tensors (the `value` of `<const>` nodes, by `#name`, `#name/k` for packed values) with new
 * values. Fields are stored row-major little-endian in the stored dtype (float32 -> float16 rounds to nearest
 * even), so a replacement keeps the field's size and every other byte of the module stays as it was.
 *
 * SeetaFace6 .csta containers: replaceTensors keeps the container, and write() wraps and re-obfuscates the
 * module as SeetaFace6 loads it. A patch plan over the file writes each field's new bytes XOR-ed with the
 * key at their absolute offset (the obfuscation is position-dependent and the module does not move).
 */
import { copyBytes } from "../../bytes/input.js";
import type { ByteSource } from "../../io/source.js";
import { uniqueNames } from "../../bytes/names.js";
import { type TensorInfo, bytesOf, viewAs } from "../../tensor.js";
import { encodeRowMajorBytes, replacementData, sameBytes } from "../../patch/encode.js";
import {
  type Incoming,
  type ReplaceOptions,
  type TensorsInput,
  checkUnknown,
  replacementsInMemory,
} from "../../patch/input.js";
import { type PatchPlan, asTensor, rangePlan } from "../../patch/plan.js";
import type { TsmFile } from "./model.js";
import { obfuscatedEnd, xorObfuscation } from "./csta.js";
import { type TsmField, type TsmNode, isLoaded } from "./module.js";

const FORMAT = "tsm";

function text(node: TsmNode, key: string): string {
  const field = node.params.find((p) => p.key === key)?.fields[0];
  if (!field || !isLoaded(field.data)) return "";
  return new TextDecoder().decode(bytesOf(field.data));
}

interface ConstField {
  name: string;
  node: number;
  param: number;
  field: number;
  value: TsmField;
}

function constFields(file: TsmFile): ConstField[] {
  const out: ConstField[] = [];
  file.nodes.forEach((node, n) => {
    if (text(node, "#op") !== "<const>") return;
    const param = node.params.findIndex((p) => p.key === "value");
    if (param < 0) return;
    const name = text(node, "#name");
    const fields = node.params[param]!.fields;
    fields.forEach((value, k) =>
      out.push({ name: fields.length === 1 ? name : `${name}/${k}`, node: n, param, field: k, value }),
    );
  });
  // the names tsm.ts's tensorInfos gives (repeated names made unique the same way)
  const names = uniqueNames(out.map((c) => c.name));
  out.forEach((c, i) => (c.name = names[i]!));
  return out;
}

/**
 * A copy of `file` with the named `<const>` values replaced; nodes that do not change are shared with the
 * input, which is not changed. A .csta keeps its container (write() re-obfuscates). Unknown names are a
 * RangeError unless `partial`; a dtype that cannot replace the stored one a TypeError; another shape a
 * RangeError.
 */
export function replaceTensors(file: TsmFile, tensors: TensorsInput, options: ReplaceOptions = {}): TsmFile {
  const given = replacementsInMemory(tensors, "tsm.replaceTensors");
  const all = constFields(file);
  const names = [...new Set(all.map((c) => c.name))];
  const inFile = new Set(names);
  checkUnknown(
    [...given.keys()].filter((n) => !inFile.has(n)),
    names,
    FORMAT,
    options,
  );
  const nodes = file.nodes.slice();
  for (const c of all) {
    const value = given.get(c.name);
    if (value === undefined) continue;
    const tensor = asTensor(c.name, value);
    const form = {
      name: c.name,
      dtype: c.value.dtype,
      shape: c.value.shape,
      layout: "row-major",
      byteOrder: "le",
    } as const;
    const bytes = encodeRowMajorBytes(replacementData(form, tensor), tensor.dtype, form);
    if (isLoaded(c.value.data) && sameBytes(bytes, bytesOf(c.value.data))) continue;
    const field: TsmField = { ...c.value, data: viewAs(c.value.dtype, bytes) };
    const node = nodes[c.node]!;
    const params = node.params.slice();
    const fields = params[c.param]!.fields.slice();
    fields[c.field] = field;
    params[c.param] = { ...params[c.param]!, fields };
    nodes[c.node] = { ...node, params };
  }
  return { ...file, nodes };
}

/**
 * The plan for a .tsm or .csta opened with readFrom() (or read()), given its tensorInfos(): each replaced field's
 * range; in a .csta
 * the new bytes are obfuscated at their offsets.
 */
export async function planPatch(
  file: TsmFile,
  infos: readonly TensorInfo[],
  _source: ByteSource,
  size: number,
  incoming: ReadonlyMap<string, Incoming>,
  options: ReplaceOptions,
): Promise<PatchPlan> {
  if (!file.container) return rangePlan(FORMAT, size, infos, incoming, options);
  const end = obfuscatedEnd(size);
  return rangePlan(FORMAT, size, infos, incoming, options, (chunk, at) => {
    const out = copyBytes(chunk);
    xorObfuscation(out, at, end);
    return out;
  });
}
