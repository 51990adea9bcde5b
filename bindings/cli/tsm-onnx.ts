/**
 * The CLI's TenniS -> ONNX pieces: `convert MODEL.tsm|MODEL.csta OUT.onnx [--opset N]` and the ONNX verdict that
 * `inspect` shows for a tsm. The model is converted in memory first and OUT is written only when that succeeded
 * (an unsupported op is an input error: exit 1, nothing written).
 */
import { createWriteStream } from "node:fs";
import { writePiecesTo } from "../export/stream.js";
import * as tsm from "../formats/tsm.js";
import { type ByteSource, readExactly, sourceSize } from "../io/source.js";
import { writeAtomically } from "./output.js";

/** Parses --opset (undefined: the default, 17). */
export function parseOpset(text: string | undefined, usage: (message: string) => Error): number | undefined {
  if (text === undefined) return undefined;
  const opset = Number(text);
  if (!/^\d+$/.test(text) || opset < 13 || opset > 21) throw usage(`--opset takes a number from 13 to 21, not ${text}`);
  return opset;
}

async function wholeSource(source: ByteSource): Promise<Uint8Array> {
  const { size } = await sourceSize(source);
  return readExactly(source, 0, size, "tsm");
}

/**
 * Converts a tsm/csta to OUT.onnx when `bytes` is a TenniS module (returns the message to print), or returns
 * undefined for any other input (the caller goes on with its own rules for .onnx outputs).
 */
export async function convertTsmToOnnx(bytes: Uint8Array, output: string, opset: number | undefined): Promise<string | undefined> {
  if (!tsm.detect(bytes)) return undefined;
  const module = tsm.read(bytes);
  const pieces = tsm.toOnnxPieces(module, { opset });
  const total = pieces.reduce((n, p) => n + p.length, 0);
  await writeAtomically(output, (temp) => writePiecesTo(createWriteStream(temp), pieces, { caller: "convert" }));
  const kind = module.container ? "SeetaFace6 .csta" : "TenniS module";
  return `wrote ${output} (ONNX opset ${opset ?? 17} from a ${kind}, ${total} bytes)`;
}

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
