/**
 * april.quantize: the three ONNX networks of an .april file changed to float16 computation, bfloat16 weights or
 * int8 weights (onnx/quantize.ts), as edits of a new file object that write() stores.
 */
import {
  type QuantizeOptions,
  type QuantizeReport,
  checkQuantize,
  modelBytes,
  quantizeInPlace,
} from "../onnx/embed.js";
import { type AprilFile, type NetworkName, NETWORK_NAMES } from "./model.js";
import { read } from "./reader.js";
import { write } from "./writer.js";

/** A new file object (the same bytes read again) whose networks are converted, with a report per network. */
export function quantizeWithReport(
  file: AprilFile,
  options: QuantizeOptions,
): {
  /** The new file object, its networks changed. */
  file: AprilFile;
  /** What was done, per network. */
  reports: Partial<Record<NetworkName, QuantizeReport>>;
} {
  const first = NETWORK_NAMES.map((n) => file.onnx?.[n]).find((m) => m !== undefined);
  const bytes = first ? modelBytes.get(first) : undefined;
  // a read() result: its bytes again; otherwise (create(), replaced networks) the file as write() gives it
  const fresh = read(bytes && first!.span.byteOffset > 0 ? bytes : write(file));
  const reports: Partial<Record<NetworkName, QuantizeReport>> = {};
  // refusals (bf16 below opset 13) come before any network is changed
  for (const name of NETWORK_NAMES) {
    const model = fresh.onnx?.[name];
    if (model) checkQuantize(model, options, name);
  }
  for (const name of NETWORK_NAMES) {
    const model = fresh.onnx?.[name];
    if (model) reports[name] = quantizeInPlace(model, options);
  }
  return { file: fresh, reports };
}

/** {@link quantizeWithReport}'s file. */
export function quantize(file: AprilFile, options: QuantizeOptions): AprilFile {
  return quantizeWithReport(file, options).file;
}
