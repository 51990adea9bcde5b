/**
 * TenniS modules (.tsm) and SeetaFace6 containers (.csta). All integers little-endian.
 *
 *   .tsm   fake u32 | code u32 = 0x19910929 | reserved u8[120]
 *          | inputs: n u32 + u32 × n | outputs: n u32 + u32 × n
 *          | node_count u32 | node × node_count
 *          node   = param_count u32 | (key_len u32 + key | packed) × param_count | n u32 + input index u32 × n
 *          packed = field_count u32 | (dtype u8 | ndims u32 | dim u32 × ndims | raw bytes) × field_count
 *   .csta  "fast" | XOR(key bf97dfd5cf720000) of: code u32 = 0x19910929 | STA tree | padding
 *          the module is the tree's binary at ["backbone"]["tsm"]
 *
 * Details: tsm/module.ts (the module), tsm/csta.ts (the container), tsm/graph.ts (the graph view).
 * Tensors (the uniform view) are the `value` of every `<const>` node, named by the node's `#name`
 * (`#name/0` … `#name/k-1` for a packed value of k > 1 fields), in the stored shape.
 */
import { assertEager } from "../io/lazy.js";
import { type ByteSink, writePiecesTo } from "../export/stream.js";
import { copyBytes } from "../bytes/input.js";
import { asBytes, asSource, bytesOrUndefined } from "../bytes/input.js";
import { UnsupportedError } from "../bytes/errors.js";
import { ByteReader } from "../bytes/byte-reader.js";
import type { ByteBacking } from "../bytes/byte-reader.js";
import { ByteWriter } from "../bytes/byte-writer.js";
import * as lazy from "../io/lazy.js";
import { uniqueNames } from "../bytes/names.js";
import { type ByteSource, readExactly, sourceSize } from "../io/source.js";
import { type DecodeOptions, type NamedTensor, type TensorInfo, bytesOf, decodeRowMajorTensor, elementCount } from "../tensor.js";
import {
  type CstaContainer, DecodedCstaBacking, type StaValue, decodeCsta, defaultContainer, isCstaHead, obfuscatedEnd,
  readCstaContainer, staLookup, staToPlain, writeCstaBytes, xorObfuscation,
} from "./tsm/csta.js";
import { buildGraph, type TsmAttrValue, type TsmGraph, fieldValue } from "./tsm/graph.js";
import {
  MODULE_CODE, type TsmField, type TsmModule, type TsmNode, isLoaded, moduleByteLength, readModule, writeModule,
} from "./tsm/module.js";
import type { EmbeddedBlob, InspectResult, InspectTensor } from "./types.js";
import { checkWriterInput } from "../bytes/arguments.js";
import type { TsmFile, TsmTensorInfo } from "./tsm/file.js";

export type { TsmField, TsmHeader, TsmModule, TsmNode, TsmParam } from "./tsm/module.js";
export type { CstaContainer, StaEntry, StaValue } from "./tsm/csta.js";
export type { TsmAttrValue, TsmGraph, TsmGraphNode, TsmOpaqueValue, TsmUnloadedValue } from "./tsm/graph.js";
export { TSM_DTYPES, tsmDTypeCode, tsmDTypeName } from "./tsm/dtypes.js";
export { fieldString, fieldValue, paramValue } from "./tsm/graph.js";
export { MODULE_CODE, LAZY_ATTRIBUTE_BYTES } from "./tsm/module.js";
export { create } from "./tsm/builder.js";
export type { TsmCreateInput, TsmNodeInput, TsmFieldInput } from "./tsm/builder.js";
export { CSTA_KEY, STA_CODE, staToPlain, staLookup } from "./tsm/csta.js";

/** The format's id. */
export const id = "tsm" as const;
/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".tsm", ".csta"];

export type { TsmFile, TsmTensorInfo } from "./tsm/file.js";

function u32At(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** "fast" at 0 and no module code at 4: a .csta (a .tsm whose `fake` happens to spell "fast" still reads as .tsm). */
function looksLikeCsta(head: Uint8Array): boolean {
  if (head.length < 4 || head[0] !== 0x66 || head[1] !== 0x61 || head[2] !== 0x73 || head[3] !== 0x74) return false;
  return head.length < 8 || u32At(head, 4) !== MODULE_CODE;
}

/** A .tsm (code 0x19910929 at offset 4) or a .csta ("fast" whose payload decodes to the STA code). */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head) return false;
  try {
    if (head.length < 8) return false;
    return u32At(head, 4) === MODULE_CODE || isCstaHead(head);
  } catch {
    return false;
  }
}

function readCsta(decoded: ByteReader, lazyPayloads: boolean): TsmFile {
  const { container, module: range } = readCstaContainer(decoded, lazyPayloads);
  const module = readModule(decoded.slice(range.byteOffset, range.byteOffset + range.byteLength), lazyPayloads);
  return { ...module, container };
}

/**
 * Reads a .tsm module or a .csta container (then `container` holds the STA tree). Payloads are typed-array
 * views of `bytes` where aligned (copies otherwise; .csta payloads view a decoded copy of the file).
 */
export function read(input: Uint8Array, _options?: unknown): TsmFile {
  const bytes = asBytes(input, "tsm.read");
  if (looksLikeCsta(bytes)) return readCsta(new ByteReader(decodeCsta(bytes), id), false);
  return readModule(new ByteReader(bytes, id), false);
}

/**
 * The same object as read(), reading only what is needed: node headers and attributes, not the `value`
 * payloads (nor attribute payloads over LAZY_ATTRIBUTE_BYTES), which stay ByteRanges. Works on .csta too:
 * loaded ranges are decoded as they arrive, so a .csta is not read whole either.
 */
export async function readFrom(source: ByteSource, _options?: unknown): Promise<TsmFile> {
  let decoded: DecodedCstaBacking | undefined;
  return lazy.parseFrom(asSource(source, "tsm.readFrom"), id, (backing: ByteBacking) => {
    const r = new ByteReader(backing, id);
    if (looksLikeCsta(r.peek(8))) {
      decoded ??= new DecodedCstaBacking(backing);
      return readCsta(new ByteReader(decoded, id), true);
    }
    return readModule(r, true);
  });
}

function moduleBytes(module: TsmModule): Uint8Array {
  const w = new ByteWriter(moduleByteLength(module));
  writeModule(w, module);
  return w.finish();
}

/**
 * write() into a sink (a function, a WritableStream or a Node Writable). A .tsm goes out piece by piece with the
 * `<const>` payloads as they are (no second copy); a .csta is obfuscated as a whole first, so it is written
 * whole. Resolves to the byte count.
 */
export async function writeTo(file: TsmFile, sink: ByteSink, options: { end?: boolean | undefined } = {}): Promise<number> {
  checkWriterInput(file, "tsm.writeTo", "a TenniS module (from read() or built: { nodes, inputs, outputs, … })", { arrays: ["nodes", "inputs", "outputs"] });
  let pieces: Uint8Array[];
  if (file.container) {
    pieces = [write(file)];
  } else {
    const w = new ByteWriter(moduleByteLength(file), true, { passThrough: true });
    writeModule(w, file);
    pieces = w.segments();
  }
  return writePiecesTo(sink, pieces, { end: options.end, caller: "tsm.writeTo" });
}

/** The file's bytes: a .tsm, or a .csta when `file.container` is set (as read() gives for a .csta). */
export function write(file: TsmFile, _options?: unknown): Uint8Array {
  checkWriterInput(file, "tsm.write", "a TenniS module (from read() or built: { nodes, inputs, outputs, … })", { arrays: ["nodes", "inputs", "outputs"] });
  const bytes = moduleBytes(file);
  return file.container ? writeCstaBytes(file.container, bytes) : bytes;
}

/** Options of {@link writeCsta}. */
export interface WriteCstaOptions {
  /** The tree to put the module in (default: file.container, else { backbone: { tsm } } with PKCS#7 padding). */
  container?: CstaContainer | undefined;
}

/** Packs the module into a SeetaFace6 .csta container. */
export function writeCsta(file: TsmFile, options: WriteCstaOptions = {}): Uint8Array {
  checkWriterInput(file, "tsm.writeCsta", "a TenniS module (from read() or built: { nodes, inputs, outputs, … })", { arrays: ["nodes", "inputs", "outputs"] });
  return writeCstaBytes(options.container ?? file.container ?? defaultContainer(), moduleBytes(file));
}

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
    value.fields.forEach((field, k) => out.push({ name: value.fields.length === 1 ? name : `${name}/${k}`, field, node: index }));
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
    throw new UnsupportedError(id, "tensorInfos needs a file from read() or readFrom() (payload offsets are unknown)", undefined, entry.name);
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
      throw new UnsupportedError(id, "payload was not loaded (a readFrom() result): use loadTensor", field.data.byteOffset, entry.name);
    }
    const info: TensorInfo = {
      name: entry.name, dtype: field.dtype, shape: field.shape, byteOffset: field.byteOffset ?? 0,
      byteLength: field.data.byteLength, byteOrder: "le", layout: "row-major",
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
  if ((info as TsmTensorInfo).obfuscated !== "csta") return lazy.loadRowMajorTensor(source, info, { ...options, format: id });
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
  if (typeof value === "object") return { dtype: value.dtype, shape: value.shape, byteLength: "bytes" in value ? value.bytes.byteLength : value.byteLength };
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
    name, dtype: field.dtype, shape: field.shape.slice(), byteLength: fieldByteLength(field),
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
          .filter((p) => p.key !== "#op" && p.key !== "#name" && !(p.key === "value" && g.nodes[index]!.op === "<const>"))
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
  if (file.header.fake !== 0) warnings.push(`header.fake is ${file.header.fake} (reference writers write 0; readers ignore it)`);
  if (file.trailing) warnings.push(`${file.trailing.byteLength} bytes after the graph (ignored by TenniS)`);
  const names = new Map<string, number>();
  file.nodes.forEach((node, i) => {
    const v = g.nodes[i]!;
    const nameField = node.params.find((p) => p.key === "#name")!.fields[0]!;
    const opField = node.params.find((p) => p.key === "#op")!.fields[0]!;
    for (const [key, f] of [["#name", nameField], ["#op", opField]] as const) {
      if (f.shape.length !== 1) warnings.push(`node ${i} (${v.name}): ${key} is not 1-D (TenniS requires a 1-D char8 string)`);
    }
    if (v.op === "<const>") {
      if (names.has(v.name)) warnings.push(`node ${i}: <const> name "${v.name}" repeats node ${names.get(v.name)} (tensor names collide)`);
      else names.set(v.name, i);
    }
    if (!ENDPOINT_OPS.has(v.op) && node.inputs.length === 0) warnings.push(`node ${i} (${v.name}): op ${v.op} has no inputs (TenniS: "Found not computable node")`);
    if (v.op === "<const>" && !node.params.some((p) => p.key === "value")) warnings.push(`node ${i} (${v.name}): <const> without a value`);
    const outputCount = v.attrs["#output_count"];
    if (outputCount !== undefined && outputCount !== 1) warnings.push(`node ${i} (${v.name}): #output_count is not 1 (TenniS: "All operators' output count must be 1.")`);
    const keys = new Set<string>();
    node.params.forEach((p, k) => {
      if (keys.has(p.key)) warnings.push(`node ${i} (${v.name}): param ${p.key} repeats (TenniS keeps one)`);
      keys.add(p.key);
      if (p.fields.length === 0 && k > 0 && node.params[k - 1]!.fields.length > 1) {
        warnings.push(`node ${i} (${v.name}): ${p.key} has 0 fields right after a packed param; TenniS C++ reads it with the previous param's extra fields`);
      }
      for (const f of p.fields) {
        if (f.dtype === "ptr") warnings.push(`node ${i} (${v.name}): ${p.key} has dtype ptr (size depends on the writer's platform; read as 8 bytes)`);
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
    if (g.nodes[i]!.op === "<param>" && !inputs.has(i)) warnings.push(`node ${i} (${g.nodes[i]!.name}) is a <param> the outputs need but not a module input (TenniS refuses)`);
  }
  if (file.container) {
    const padding = file.container.padding;
    const n = padding?.length ?? 0;
    const pkcs7 = n >= 1 && n <= 16 && padding!.every((b) => b === n);
    if (!pkcs7) warnings.push(`the .csta padding (${n} bytes) is not PKCS#7 as in SeetaFace6 files`);
    if (file.container.tail.length > 0) warnings.push(`${file.container.tail.length} bytes after the obfuscated region of the .csta`);
  }
  return warnings;
}

function otherBinaries(value: StaValue, path: string[], moduleSlot: StaValue | undefined, out: EmbeddedBlob[]): void {
  if (value.type === "binary") {
    if (value !== moduleSlot && isLoaded(value.bytes)) out.push({ name: `csta/${path.join("/")}.bin`, bytes: value.bytes });
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
  return typeof plain === "object" && plain !== null && !Array.isArray(plain) ? (plain as Record<string, unknown>) : { root: plain };
}
// issue 15: replace tensors by name (patch)
export { replaceTensors } from "./tsm/patch.js";
// issue 25: TenniS / SeetaFace6 modules out to ONNX
export { toOnnx, toOnnxPieces, onnxSupport, describeBlockers, TsmOnnxUnsupportedError, SUPPORTED_OPS as ONNX_SUPPORTED_OPS } from "./tsm/to-onnx.js";
export type { ToOnnxOptions, OnnxBlocker } from "./tsm/to-onnx.js";
