/** The uniform view of a TenniS module: graph, tensors, tensorInfos, loadTensor, inspect, verify, blobs. */
import { UnsupportedError } from "../../bytes/errors.js";
import { copyBytes } from "../../bytes/input.js";
import { assertEager } from "../../io/lazy.js";
import * as lazy from "../../io/lazy.js";
import { uniqueNames } from "../../bytes/names.js";
import { type ByteSource, readExactly, sourceSize } from "../../io/source.js";
import {
  type DecodeOptions,
  type NamedTensor,
  type TensorInfo,
  bytesOf,
  decodeRowMajorTensor,
  elementCount,
} from "../../tensor.js";
import type { EmbeddedBlob, InspectResult, InspectTensor } from "../types.js";
import { type StaValue, obfuscatedEnd, staLookup, staToPlain, xorObfuscation } from "./csta.js";
import { buildGraph, type TsmAttrValue, type TsmGraph, fieldValue } from "./graph.js";
import { id, type TsmFile, type TsmTensorInfo } from "./model.js";
import { type TsmField, type TsmModule, type TsmNode, isLoaded } from "./module.js";
import { moduleBytes } from "./writer.js";

/** The module's graph: nodes by name, ops, decoded attributes, inputs resolved to nodes. */
export function graph(file: TsmModule): TsmGraph {
  return buildGraph(file);
}

interface ConstEntry {
  name: string;
  field: TsmField;
  node: number;
}

function nodeText(node: TsmNode, key: string): string {
  const field = node.params.find((p) => p.key === key)?.fields[0];
  if (!field || !isLoaded(field.data)) return "";
  return new TextDecoder().decode(bytesOf(field.data));
}

/** Every `<const>` value field with its contract name. */
function constEntries(file: TsmModule): ConstEntry[] {
  const out: ConstEntry[] = [];
  file.nodes.forEach((node, index) => {
    if (nodeText(node, "#op") !== "<const>") return;
    const value = node.params.find((p) => p.key === "value");
    if (!value) return;
    const name = nodeText(node, "#name");
    value.fields.forEach((field, k) =>
      out.push({ name: value.fields.length === 1 ? name : `${name}/${k}`, field, node: index }),
    );
  });
  // repeated `#name`s (and a `#name` that is another's `name/k`) get `#2`, … as ONNX weights do
  const names = uniqueNames(out.map((e) => e.name));
  out.forEach((e, i) => (e.name = names[i]!));
  return out;
}

function fieldByteLength(field: TsmField): number {
  return field.data.byteLength;
}

function infoOf(entry: ConstEntry, file: TsmFile): TsmTensorInfo {
  const { field } = entry;
  const byteOffset = field.byteOffset ?? (!isLoaded(field.data) ? field.data.byteOffset : undefined);
  if (byteOffset === undefined) {
    throw new UnsupportedError(
      id,
      "tensorInfos needs a file from read() or readFrom() (payload offsets are unknown)",
      undefined,
      entry.name,
    );
  }
  const info: TsmTensorInfo = {
    name: entry.name,
    dtype: field.dtype,
    shape: field.shape.slice(),
    byteOffset,
    byteLength: fieldByteLength(field),
    byteOrder: "le",
    layout: "row-major",
    format: id,
  };
  if (file.container) info.obfuscated = "csta";
  return info;
}

/** The `value` of every `<const>` node, decoded (options.dtype "float32" widens float16). */
export function tensors(file: TsmFile, options?: DecodeOptions): NamedTensor[] {
  assertEager(file, id);
  return constEntries(file).map((entry) => {
    const { field } = entry;
    if (!isLoaded(field.data)) {
      throw new UnsupportedError(
        id,
        "payload was not loaded (a readFrom() result): use loadTensor",
        field.data.byteOffset,
        entry.name,
      );
    }
    const info: TensorInfo = {
      name: entry.name,
      dtype: field.dtype,
      shape: field.shape,
      byteOffset: field.byteOffset ?? 0,
      byteLength: field.data.byteLength,
      byteOrder: "le",
      layout: "row-major",
    };
    return decodeRowMajorTensor(bytesOf(field.data), info, options, id);
  });
}

/** Where each tensor of tensors() is (absolute file offsets; for .csta, offsets in the obfuscated file). */
export function tensorInfos(file: TsmFile): TsmTensorInfo[] {
  return constEntries(file).map((entry) => infoOf(entry, file));
}

/** Reads one tensor from the source a readFrom()/read() result came from (undoing .csta obfuscation). */
export async function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  if ((info as TsmTensorInfo).obfuscated !== "csta")
    return lazy.loadRowMajorTensor(source, info, { ...options, format: id });
  const { size } = await sourceSize(source);
  const bytes = copyBytes(await readExactly(source, info.byteOffset, info.byteLength, id, info.name));
  xorObfuscation(bytes, info.byteOffset, obfuscatedEnd(size));
  return decodeRowMajorTensor(bytes, info, { ...options, copy: false }, id);
}

// ---------------------------------------------------------------------------------------------------------
// inspect / verify / blobs

/** Attributes with more elements than this are summarised in inspect (dtype, shape, byteLength). */
const INSPECT_MAX_ELEMENTS = 64;

function jsonValue(value: TsmAttrValue): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === "object")
    return {
      dtype: value.dtype,
      shape: value.shape,
      byteLength: "bytes" in value ? value.bytes.byteLength : value.byteLength,
    };
  return value;
}

function jsonField(field: TsmField): unknown {
  const isText = field.dtype === "char8" || field.dtype === "char16" || field.dtype === "char32";
  if (!isText && elementCount(field.shape) > INSPECT_MAX_ELEMENTS) {
    return { dtype: field.dtype, shape: field.shape, byteLength: fieldByteLength(field) };
  }
  return jsonValue(fieldValue(field));
}

function hexUpToLastNonZero(bytes: Uint8Array): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return Array.from(bytes.subarray(0, end), (b) => b.toString(16).padStart(2, "0")).join("");
}

function nodeRef(g: TsmGraph, index: number): { index: number; name: string } {
  return { index, name: g.nodes[index]!.name };
}

/** What `tensorfile inspect --json` prints: header, container tree, inputs/outputs, op counts, nodes. */
export function inspect(file: TsmFile): InspectResult {
  const g = buildGraph(file);
  const tensorRows: InspectTensor[] = constEntries(file).map(({ name, field }) => ({
    name,
    dtype: field.dtype,
    shape: field.shape.slice(),
    byteLength: fieldByteLength(field),
  }));
  const meta: Record<string, unknown> = {
    container: file.container ? "csta" : null,
    fake: file.header.fake,
    code: `0x${file.header.code.toString(16)}`,
    reserved: hexUpToLastNonZero(file.header.reserved),
    nodeCount: file.nodes.length,
  };
  if (file.container) meta.csta = staToPlain(file.container.root);
  if (file.trailing) meta.trailingBytes = file.trailing.byteLength;
  return {
    format: id,
    version: 1,
    meta,
    tensors: tensorRows,
    inputs: file.inputs.map((i) => ({ ...nodeRef(g, i), ...(g.nodes[i]!.shape ? { shape: g.nodes[i]!.shape } : {}) })),
    outputs: file.outputs.map((i) => nodeRef(g, i)),
    ops: g.ops,
    nodes: file.nodes.map((node, index) => ({
      index,
      name: g.nodes[index]!.name,
      op: g.nodes[index]!.op,
      inputs: node.inputs.slice(),
      attrs: Object.fromEntries(
        node.params
          .filter(
            (p) => p.key !== "#op" && p.key !== "#name" && !(p.key === "value" && g.nodes[index]!.op === "<const>"),
          )
          .map((p) => [p.key, p.fields.length === 1 ? jsonField(p.fields[0]!) : p.fields.map(jsonField)]),
      ),
    })),
  };
}

const ENDPOINT_OPS = new Set(["<param>", "<const>", "<var>"]);

/** What TenniS (C++) would refuse or mis-read, and what looks odd but is readable. */
export function verify(file: TsmFile): string[] {
  const warnings: string[] = [];
  const g = buildGraph(file);
  if (file.header.fake !== 0)
    warnings.push(`header.fake is ${file.header.fake} (reference writers write 0; readers ignore it)`);
  if (file.trailing) warnings.push(`${file.trailing.byteLength} bytes after the graph (ignored by TenniS)`);
  const names = new Map<string, number>();
  file.nodes.forEach((node, i) => {
    const v = g.nodes[i]!;
    const nameField = node.params.find((p) => p.key === "#name")!.fields[0]!;
    const opField = node.params.find((p) => p.key === "#op")!.fields[0]!;
    for (const [key, f] of [
      ["#name", nameField],
      ["#op", opField],
    ] as const) {
      if (f.shape.length !== 1)
        warnings.push(`node ${i} (${v.name}): ${key} is not 1-D (TenniS requires a 1-D char8 string)`);
    }
    if (v.op === "<const>") {
      if (names.has(v.name))
        warnings.push(`node ${i}: <const> name "${v.name}" repeats node ${names.get(v.name)} (tensor names collide)`);
      else names.set(v.name, i);
    }
    if (!ENDPOINT_OPS.has(v.op) && node.inputs.length === 0)
      warnings.push(`node ${i} (${v.name}): op ${v.op} has no inputs (TenniS: "Found not computable node")`);
    if (v.op === "<const>" && !node.params.some((p) => p.key === "value"))
      warnings.push(`node ${i} (${v.name}): <const> without a value`);
    const outputCount = v.attrs["#output_count"];
    if (outputCount !== undefined && outputCount !== 1)
      warnings.push(`node ${i} (${v.name}): #output_count is not 1 (TenniS: "All operators' output count must be 1.")`);
    const keys = new Set<string>();
    node.params.forEach((p, k) => {
      if (keys.has(p.key)) warnings.push(`node ${i} (${v.name}): param ${p.key} repeats (TenniS keeps one)`);
      keys.add(p.key);
      if (p.fields.length === 0 && k > 0 && node.params[k - 1]!.fields.length > 1) {
        warnings.push(
          `node ${i} (${v.name}): ${p.key} has 0 fields right after a packed param; TenniS C++ reads it with the previous param's extra fields`,
        );
      }
      for (const f of p.fields) {
        if (f.dtype === "ptr")
          warnings.push(
            `node ${i} (${v.name}): ${p.key} has dtype ptr (size depends on the writer's platform; read as 8 bytes)`,
          );
      }
    });
  });
  // every <param> reachable from the outputs must be a module input
  const reachable = new Set<number>();
  const stack = file.outputs.slice();
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (reachable.has(i)) continue;
    reachable.add(i);
    for (const j of file.nodes[i]!.inputs) stack.push(j);
  }
  const inputs = new Set(file.inputs);
  for (const i of reachable) {
    if (g.nodes[i]!.op === "<param>" && !inputs.has(i))
      warnings.push(
        `node ${i} (${g.nodes[i]!.name}) is a <param> the outputs need but not a module input (TenniS refuses)`,
      );
  }
  if (file.container) {
    const padding = file.container.padding;
    const n = padding?.length ?? 0;
    const pkcs7 = n >= 1 && n <= 16 && padding!.every((b) => b === n);
    if (!pkcs7) warnings.push(`the .csta padding (${n} bytes) is not PKCS#7 as in SeetaFace6 files`);
    if (file.container.tail.length > 0)
      warnings.push(`${file.container.tail.length} bytes after the obfuscated region of the .csta`);
  }
  return warnings;
}

function otherBinaries(value: StaValue, path: string[], moduleSlot: StaValue | undefined, out: EmbeddedBlob[]): void {
  if (value.type === "binary") {
    if (value !== moduleSlot && isLoaded(value.bytes))
      out.push({ name: `csta/${path.join("/")}.bin`, bytes: value.bytes });
  } else if (value.type === "list") {
    value.items.forEach((item, i) => otherBinaries(item, [...path, String(i)], moduleSlot, out));
  } else if (value.type === "dict") {
    for (const e of value.entries) otherBinaries(e.value, [...path, e.key], moduleSlot, out);
  }
}

/**
 * A .csta's embedded module as `module.tsm` (plus any other binary of its tree as `csta/<path>.bin`); a
 * plain .tsm has none. The module is re-serialised (byte-identical), so it needs a read() result.
 */
export function blobs(file: TsmFile): EmbeddedBlob[] {
  if (!file.container) return [];
  const out: EmbeddedBlob[] = [{ name: "module.tsm", bytes: moduleBytes(file) }];
  otherBinaries(file.container.root, [], staLookup(file.container.root, file.container.modulePath), out);
  return out;
}

/** The module's tree entry for a .csta (input size, pre-processing…) as plain values, or undefined. */
export function cstaMeta(file: TsmFile): Record<string, unknown> | undefined {
  if (!file.container) return undefined;
  const plain = staToPlain(file.container.root);
  return typeof plain === "object" && plain !== null && !Array.isArray(plain)
    ? (plain as Record<string, unknown>)
    : { root: plain };
}
