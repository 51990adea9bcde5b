/**
 * The CLI's TenniS -> ONNX pieces: `convert MODEL.tsm|MODEL.csta OUT.onnx [--opset N]` and the ONNX verdict that
 * `inspect` shows for a tsm. The model is converted in memory first and OUT is written only when that succeeded
 * (an unsupported op is an input error: exit 1, nothing written).
 */
import { createWriteStream } from "node:fs";
import { writePiecesTo } from "../export/stream.js";
import * as tsm from "../formats/tsm.js";
import type { ByteRange } from "../bytes/byte-reader.js";
import { type ByteSource, fromBytes, readExactly, sourceSize } from "../io/source.js";
import { dictionary } from "../bytes/names.js";
import { type DType, viewAs } from "../tensor.js";
import { obfuscatedEnd, xorObfuscation } from "../formats/tsm/csta.js";
import { writeAtomically } from "./output.js";

/** Parses --opset (undefined: the default, 17). */
export function parseOpset(text: string | undefined, usage: (message: string) => Error): number | undefined {
  if (text === undefined) return undefined;
  const opset = Number(text);
  if (!/^\d+$/.test(text) || opset < 13 || opset > 21) throw usage(`--opset takes a number from 13 to 21, not ${text}`);
  return opset;
}

/** Payloads of at least this many bytes stay raw views of the file when unaligned (only their bytes are used). */
const RAW_VIEW_BYTES = 64 * 1024;

/**
 * The module with every payload a view of `bytes`: tsm.read() copies a payload that is not aligned for its dtype,
 * which for a model of unaligned float32 weights doubles the memory. Here large `value` payloads stay Uint8Array
 * views (toOnnx reads initializers as bytes, and the constants it reads as numbers by their dtype). In a .csta the
 * payloads are de-obfuscated in place, so `bytes` must be the caller's own copy (it is changed).
 */
async function viewsOf(bytes: Uint8Array): Promise<tsm.TsmFile> {
  const file = await tsm.readFrom(fromBytes(bytes));
  const end = obfuscatedEnd(bytes.length);
  for (const node of file.nodes) {
    for (const param of node.params) {
      for (const field of param.fields) {
        if (ArrayBuffer.isView(field.data)) continue;
        const range = field.data as ByteRange;
        const view = bytes.subarray(range.byteOffset, range.byteOffset + range.byteLength);
        // a .csta payload: de-obfuscated in place (`bytes` is this conversion's own copy of the file)
        if (file.container) xorObfuscation(view, range.byteOffset, end);
        field.data = param.key === "value" && view.byteLength >= RAW_VIEW_BYTES ? view : viewAs(field.dtype, view);
      }
    }
  }
  return file;
}

const INPUT_DTYPES = [
  "float32",
  "float16",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
];

/**
 * Parses the items of `--input NAME=DTYPE[:SHAPE],…` (SHAPE: dims joined by "x", "?" or a name for an unknown dim),
 * e.g. `--input _origin_data=uint8:1x227x227x3`, into tsm.toOnnx's `inputs` option.
 */
export function parseInputs(
  values: readonly string[] | undefined,
  usage: (message: string) => Error,
): tsm.ToOnnxOptions["inputs"] {
  if (!values || values.length === 0) return undefined;
  const inputs: NonNullable<tsm.ToOnnxOptions["inputs"]> = dictionary(); // input names are the module's: "__proto__" too
  for (const value of values) {
    const match = /^(.+)=([a-z0-9]+)(?::(.+))?$/.exec(value);
    if (!match || !INPUT_DTYPES.includes(match[2]!)) {
      throw usage(
        `--input takes NAME=DTYPE[:SHAPE] (DTYPE one of ${INPUT_DTYPES.join(", ")}; SHAPE like 1x227x227x3), not ${value}`,
      );
    }
    const shape = match[3]?.split("x").map((d) => (/^\d+$/.test(d) ? Number(d) : d === "?" ? null : d));
    inputs[match[1]!] = { dtype: match[2] as DType, ...(shape ? { shape } : {}) };
  }
  return inputs;
}

async function wholeSource(source: ByteSource): Promise<Uint8Array> {
  const { size } = await sourceSize(source);
  return readExactly(source, 0, size, "tsm");
}

/**
 * Converts a tsm/csta to OUT.onnx when `bytes` is a TenniS module (returns the message to print), or returns
 * undefined for any other input (the caller goes on with its own rules for .onnx outputs). `bytes` must be the
 * caller's own copy of the file: a .csta is de-obfuscated in place.
 */
export async function convertTsmToOnnx(
  bytes: Uint8Array,
  output: string,
  opset: number | undefined,
  inputs?: tsm.ToOnnxOptions["inputs"],
): Promise<string | undefined> {
  if (!tsm.detect(bytes)) return undefined;
  const module = await viewsOf(bytes);
  let pieces: Uint8Array[];
  try {
    pieces = tsm.toOnnxPieces(module, { opset, inputs });
  } catch (error) {
    // a --input naming no module input, or giving a shape its declaration does not allow
    if (error instanceof RangeError)
      throw new InputNameError(error.message.replace(/^tsm\.toOnnx: options\.inputs (names|gives)/, "--input $1"));
    throw error;
  }
  const total = pieces.reduce((n, p) => n + p.length, 0);
  await writeAtomically(output, (temp) => writePiecesTo(createWriteStream(temp), pieces, { caller: "convert" }));
  const kind = module.container ? "SeetaFace6 .csta" : "TenniS module";
  return `wrote ${output} (ONNX opset ${opset ?? 17} from a ${kind}, ${total} bytes)`;
}

/** --input names no input of the module, or a shape it does not allow (the CLI reports it as a usage error). */
export class InputNameError extends Error {}

export interface OnnxVerdict {
  convertible: boolean;
  /** "op (node, node…)" per blocking op, with the reason when the op is supported but a node's use is not. */
  blockers?: tsm.OnnxBlocker[] | undefined;
}

/** Whether the tsm behind `source` converts to ONNX (reads it whole: the check needs small constants). */
export async function tsmOnnxVerdict(source: ByteSource): Promise<OnnxVerdict> {
  const support = tsm.onnxSupport(tsm.read(await wholeSource(source)));
  return support.convertible ? { convertible: true } : { convertible: false, blockers: support.blockers };
}

/** The verdict as `inspect` prints it. */
export function onnxVerdictText(value: unknown): string {
  const verdict = value as OnnxVerdict;
  if (verdict.convertible) return "converts (tensorfile convert FILE OUT.onnx)";
  return `does not convert: ${tsm.describeBlockers(verdict.blockers ?? [])}`;
}
