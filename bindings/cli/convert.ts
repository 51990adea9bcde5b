/**
 * `tensorfile convert IN OUT`: OUT's extension picks the target (.safetensors, .npy, .json, a re-encode in the
 * input's format, .onnx for a TenniS module); OUT "-" is standard output with --to json|npy; `--out-dir DIR` hands
 * many files to cli/batch.ts.
 */
import type { Command } from "./command.js";
import { stat, writeFile } from "node:fs/promises";
import { extname } from "node:path";
import { FORMATS } from "../any.js";
import { capabilitiesOf } from "../formats/registry.js";
import { npyHeader } from "../export/npy.js";
import { decodeInChunks } from "../export/stream.js";
import { type DecodeOptions, decodedDType } from "../tensor.js";
import { runBatch } from "./batch.js";
import { type CliIO, UsageError, jsonText, print, writeStdout } from "./common.js";
import {
  type AnyModule,
  detectInputFormat,
  lazyTensors,
  openLazy,
  pickTensor,
  readWhole,
  readWholeAny,
} from "./inputs.js";
import { OUTPUT_RULES, checkOutput, writeAtomically } from "./output.js";
import { isStreamedReencode, streamReencode } from "./reencode-stream.js";
import { writeTensorOutput } from "./tensor-output.js";
import { InputNameError, convertTsmToOnnx, parseInputs, parseOpset } from "./tsm-onnx.js";
import {
  QUANTIZE_HELP,
  type QuantizeCliOptions,
  quantizeConvert,
  quantizeKindOf,
  quantizeOnlyOption,
} from "./quantize.js";

export const CONVERT_HELP = `tensorfile convert IN OUT [--dtype float32] [--quantize fp16|bf16|i8] [--tensor NAME] [--force] [--to json|npy]

OUT's extension picks the target:
  .safetensors  every tensor, row-major, logical shape (streamed tensor by tensor)
  .npy          one tensor: --tensor NAME, or the only one
  .json         what "inspect --json" prints
  an extension of the input's format: a re-encode (.csta -> .tsm unwraps the TenniS module, .tsm -> .csta wraps it;
                not for the input formats safetensors, npy, npz and onnx-tensor)
  -             standard output, with --to json or --to npy
  .onnx         a TenniS module (.tsm) or SeetaFace6 .csta as a standard ONNX model (refused, exit 1 and nothing
                written, when an op cannot be translated exactly: the message lists the ops and node names)
  --opset N     the ONNX opset of a TenniS module converted to .onnx (13 to 21, default 17; refused for other inputs)
  --input NAME=DTYPE[:SHAPE][,…]  for a TenniS module converted to .onnx: the dtype (and shape, e.g. 1x227x227x3) of module inputs
                that do not declare them (float32 otherwise); another dtype than a declared one is cast to it, as
                TenniS does; a shape must agree with a declared one (it may name the dims it leaves open)
  --dtype float32   every real-valued tensor as float32 (widens float16, bfloat16 and float8, dequantizes int8
                    with a scale and offset)
                    (for .safetensors/.npy; for a bw2l re-encode: store float32 params)
  --quantize fp16|i8  bw2l re-encode: store float32 layer params as float16 or as int8 (version 1) with per-layer scale/offset
${QUANTIZE_HELP}
  --tensor NAME     the tensor for .npy (or the only tensor to put in .safetensors)
  --force           overwrite an existing OUT
  --json            print { input, output, format, bytes } on standard output instead of "wrote OUT" on standard
                    error (with --quantize: the report above; with --out-dir: { outDir, to, converted, failed,
                    bytes, files: [{ input, output, ok, error? }] })

tensorfile convert --out-dir DIR --to safetensors|npy FILE… [-j N] [--dtype float32] [--force] [--json]

Many files at once, on worker threads: each FILE becomes DIR/<its name without extension>.safetensors (or .npy,
for files holding one tensor), exactly as "convert FILE OUT" writes it. A file that fails is reported and counted
(exit 1) and the others are still written; a summary at the end.
  -j N              threads (default: the number of cores; -j 1 converts in the main thread)
${OUTPUT_RULES}`;

export const CONVERT_OPTIONS = {
  dtype: { type: "string" },
  quantize: { type: "string" },
  "keep-io": { type: "string" },
  check: { type: "boolean" },
  inputs: { type: "string" },
  shape: { type: "string" },
  tolerance: { type: "string" },
  json: { type: "boolean" },
  tensor: { type: "string" },
  force: { type: "boolean" },
  to: { type: "string" },
  "out-dir": { type: "string" },
  jobs: { type: "string", short: "j" },
  opset: { type: "string" },
  input: { type: "string" },
} as const;

const TENSOR_OUTPUTS = [".safetensors", ".npy", ".json"];

/**
 * What OUT may end in for this input: the tensor outputs and the input format's own extensions (none for the
 * input formats safetensors, npy, npz and onnx-tensor, which are never re-encoded).
 */
function allowedExtensions(module: AnyModule, input: string): string[] {
  if (module.inputOnly) return [...TENSOR_OUTPUTS];
  const own = [...module.extensions];
  const inputExt = extname(input).toLowerCase();
  const otherFormats = FORMATS.filter((f) => f.id !== module.id).flatMap((f) => [...f.extensions]);
  if (inputExt && !own.includes(inputExt) && !otherFormats.includes(inputExt) && !TENSOR_OUTPUTS.includes(inputExt))
    own.push(inputExt);
  return [...TENSOR_OUTPUTS, ...own];
}

export interface ConvertOptions extends QuantizeCliOptions {
  dtype?: string;
  quantize?: string;
  tensor?: string;
  force?: boolean;
  to?: string;
  "out-dir"?: string;
  jobs?: string;
  opset?: string;
  input?: string;
}

export async function convertCommand(io: CliIO, args: string[], options: ConvertOptions): Promise<number> {
  if (options["out-dir"] !== undefined) {
    if (options.quantize !== undefined || options.tensor !== undefined)
      throw new UsageError(`--${options.quantize !== undefined ? "quantize" : "tensor"} does not go with --out-dir`);
    return runBatch(io, args, {
      outDir: options["out-dir"],
      to: options.to,
      jobs: options.jobs,
      dtype: options.dtype,
      force: options.force ?? false,
      json: options.json,
    });
  }
  if (options.jobs !== undefined) throw new UsageError("-j goes with --out-dir (converting many files)");
  if (args.length !== 2) throw new UsageError("convert takes IN and OUT (or --out-dir DIR --to safetensors|npy FILE…)");
  const [input, output] = args as [string, string];
  if (options.dtype !== undefined && options.dtype !== "float32")
    throw new UsageError(`--dtype takes float32, not ${options.dtype}`);
  // an unknown mode is the command line's fault, whatever IN is: refused before IN is opened
  if (options.quantize !== undefined && !["fp16", "bf16", "i8"].includes(options.quantize))
    throw new UsageError(
      `--quantize takes fp16, bf16 or i8 (bf16 for ONNX, .april and TenniS inputs), not ${JSON.stringify(options.quantize)}`,
    );
  // precision changes of ONNX models, .april files and TenniS modules (cli/quantize.ts)
  if (
    options.quantize !== undefined &&
    output !== "-" &&
    !TENSOR_OUTPUTS.includes(extname(output).toLowerCase()) &&
    (await isModelInput(input))
  ) {
    if (options.dtype !== undefined || options.tensor !== undefined)
      throw new UsageError(
        `--${options.dtype !== undefined ? "dtype" : "tensor"} does not go with --quantize for this input`,
      );
    return quantizeConvert(io, input, output, options);
  }
  if (options.json) {
    // the report as one JSON document on standard output; the text lines ("wrote …") are not printed
    if (output === "-")
      throw new UsageError(
        '--json prints the report on standard output, where OUT "-" writes the data: give OUT a file',
      );
    let status = 0;
    await convertFile(
      {
        stdout: io.stdout,
        stderr: {
          isTTY: false,
          write: (text: string) => (text.startsWith("tensorfile: ") ? io.stderr.write(text) : true),
        },
      },
      input,
      output,
      options,
    ).then((s) => (status = s));
    const target = extname(output).toLowerCase();
    const format =
      TENSOR_OUTPUTS.includes(target) || target === ".onnx"
        ? target.slice(1)
        : ((await detectInputFormat(output)) ?? target.slice(1));
    print(io.stdout, jsonText({ input, output, format, bytes: (await stat(output)).size }));
    return status;
  }
  return convertFile(io, input, output, options);
}

/** `convert IN OUT` but the quantize route and --json (convertCommand). */
async function convertFile(io: CliIO, input: string, output: string, options: ConvertOptions): Promise<number> {
  const only = quantizeOnlyOption(options);
  if (only !== undefined)
    throw new UsageError(`--${only} goes with --quantize fp16|bf16|i8 for ONNX, .april and TenniS inputs`);
  if (options.quantize !== undefined && options.quantize !== "fp16" && options.quantize !== "i8")
    throw new UsageError(
      `--quantize takes fp16 or i8 (bf16 too for ONNX, .april and TenniS inputs), not ${options.quantize}`,
    );
  const toStdout = output === "-";
  if (toStdout && options.to !== "json" && options.to !== "npy")
    throw new UsageError(
      'OUT "-" (standard output) needs --to json or --to npy (a .safetensors file or a re-encode cannot be streamed to a pipe here)',
    );
  if (toStdout && options.force)
    throw new UsageError(
      '--force overwrites an existing OUT file; OUT "-" is standard output, which it does not concern',
    );
  if (!toStdout && options.to !== undefined)
    throw new UsageError('--to goes with OUT "-" (standard output): otherwise OUT\'s extension picks the target');
  const ext = toStdout ? `.${options.to}` : extname(output).toLowerCase();
  if (ext === ".json" && (options.dtype !== undefined || options.tensor !== undefined))
    throw new UsageError(
      `--${options.dtype !== undefined ? "dtype" : "tensor"} does nothing for a .json output (it describes the file, not tensor values)`,
    );
  if (TENSOR_OUTPUTS.includes(ext) && options.quantize !== undefined)
    throw new UsageError(
      `--quantize applies to a bw2l re-encode, not to ${ext} outputs (use --dtype float32 to widen)`,
    );
  if (!toStdout) await checkOutput(output, [input], { force: options.force ?? false });
  if ((options.opset !== undefined || options.input !== undefined) && ext !== ".onnx")
    throw new UsageError(`--${options.opset !== undefined ? "opset" : "input"} goes with an .onnx OUT`);
  if (ext === ".onnx" && !toStdout) {
    // issue 25: a TenniS module / SeetaFace6 .csta to ONNX (other inputs go on below; the first bytes decide, so
    // that an .onnx input is not read whole here)
    const usage = (m: string) => new UsageError(m);
    const opset = parseOpset(options.opset, usage);
    const inputs = parseInputs(options.input?.split(","), usage);
    const format = await detectInputFormat(input);
    if (format !== undefined && capabilitiesOf(format)?.convertsTo?.includes("onnx")) {
      const message = await convertTsmToOnnx(await readWhole(input), output, opset, inputs).catch((error: unknown) => {
        throw error instanceof InputNameError ? new UsageError(error.message) : error;
      });
      if (message !== undefined) {
        print(io.stderr, message);
        return 0;
      }
    } else if (options.opset !== undefined || options.input !== undefined) {
      // an ONNX (or .april) input is re-encoded as it is: an opset or input types would silently do nothing
      throw new UsageError(
        `--${options.opset !== undefined ? "opset" : "input"} goes with a TenniS module or SeetaFace6 .csta converted to ONNX; this ${format ?? "input"} is re-encoded as it is`,
      );
    }
  }
  const decode: DecodeOptions = options.dtype === "float32" ? { dtype: "float32" } : {};

  const opened = await openLazy(input);
  try {
    const allowed = allowedExtensions(opened.module, input);
    if (!allowed.includes(ext)) {
      throw new UsageError(
        `OUT ${output} ends in "${ext || "(nothing)"}": for this ${opened.format} input OUT may end in ${allowed.join(", ")}${opened.module.inputOnly ? ` (${opened.format} is read, never written as a re-encode)` : ""}`,
      );
    }
    if (TENSOR_OUTPUTS.includes(ext)) {
      if (ext === ".json") {
        const text = `${jsonText(opened.module.inspect(opened.file))}\n`;
        if (toStdout) await writeStdout(io, text);
        else await writeAtomically(output, (temp) => writeFile(temp, text), { force: options.force ?? false });
      } else {
        if (ext === ".npy" && toStdout) {
          const infos = opened.module.tensorInfos(opened.file);
          const info = pickTensor(infos, options.tensor);
          await writeStdout(io, npyHeader(decodedDType(info, decode), info.shape));
          for await (const piece of decodeInChunks(lazyTensors(opened, infos), info, decode))
            await writeStdout(io, piece);
        } else {
          await writeAtomically(
            output,
            (temp) =>
              writeTensorOutput(io, opened, input, temp, ext as ".npy" | ".safetensors", decode, options.tensor),
            { force: options.force ?? false },
          );
        }
      }
      if (!toStdout) print(io.stderr, `wrote ${output}`);
      return 0;
    }
  } finally {
    await opened.source.close?.();
  }
  // a re-encode in the input's own format
  if (options.tensor !== undefined) throw new UsageError("--tensor applies to .npy and .safetensors outputs");
  if (options.quantize === undefined && options.dtype === undefined && isStreamedReencode(opened.format)) {
    return streamReencode(io, input, output, opened.format, options.force ?? false);
  }
  const bytes = await readWhole(input);
  const { module } = readWholeAny(bytes, input);
  const capabilities = capabilitiesOf(module.id);
  let out: Uint8Array;
  let wrapping: string | undefined;
  if (options.quantize !== undefined || options.dtype !== undefined) {
    // another precision: only a format that declares the re-encode (bw2l) takes it
    const reencode = capabilities?.reencode;
    if (
      reencode === undefined ||
      (options.quantize !== undefined && !reencode.quantize.includes(options.quantize)) ||
      (options.dtype !== undefined && !reencode.dtypes.includes(options.dtype))
    ) {
      throw new UsageError(
        `--${options.quantize !== undefined ? "quantize" : "dtype"} applies to bw2l re-encodes and to .safetensors/.npy outputs; ${module.id} files are written as they are stored`,
      );
    }
    const file = reencode.read(bytes, options.dtype);
    const refusal = reencode.refusal(file, options.quantize, input);
    if (refusal !== undefined) throw new UsageError(refusal);
    out = reencode.write(file, options.quantize);
  } else {
    const file = module.read(bytes);
    // a container format written in its other wrapping (.csta -> .tsm unwraps the module, .tsm -> .csta wraps it)
    const containers = capabilities?.containers;
    if (containers?.extensions.includes(ext) && containers.wrappingOf(file) !== ext) {
      out = containers.rewrap(bytes, ext);
      wrapping = containers.names?.[ext];
    } else {
      out = module.write(file);
    }
  }
  await writeAtomically(output, (temp) => writeFile(temp, out), { force: options.force ?? false });
  print(io.stderr, `wrote ${output} (${wrapping ?? module.id}, ${out.length} bytes)`);
  return 0;
}

/** Whether IN is an ONNX model, an .april file or a TenniS module (by its first bytes). */
async function isModelInput(input: string): Promise<boolean> {
  // the first bytes only (a stream is read once per command: cli/stream-input.ts keeps it for the conversion)
  const format = await detectInputFormat(input);
  return quantizeKindOf(format) !== undefined;
}

/** The `convert` command, as run.ts lists it. */
export const CONVERT_COMMAND: Command = {
  name: "convert",
  synopsis: `tensorfile convert IN OUT [--dtype float32] [--quantize fp16|i8] [--tensor NAME] [--force] [--json]
tensorfile convert IN.onnx|IN.april OUT --quantize fp16|bf16|i8 [--keep-io true|false] [--check] [--json]
tensorfile convert MODEL.tsm|MODEL.csta OUT.onnx [--opset N] [--input NAME=DTYPE[:SHAPE]] [--force]
tensorfile convert --out-dir DIR --to safetensors|npy FILE… [-j N] [--dtype float32] [--force] [--json]`,
  help: CONVERT_HELP,
  options: CONVERT_OPTIONS,
  inputs: "first",
  inputOptions: "all",
  run: (io, positionals, values) => convertCommand(io, positionals, values as ConvertOptions),
};
