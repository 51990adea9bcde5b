/**
 * april views: tensors (every weight of the three ONNX networks, weights.ts), inspect, verify, blobs.
 */
import { assertEager } from "../../io/lazy.js";
import { utf8Bytes } from "../../bytes/byte-writer.js";
import { type ByteSource } from "../../io/source.js";
import { loadModelTensor as loadOnnxTensor } from "../onnx/embed.js";
import {
  inspectNetworks,
  inspectWeights,
  networkProblems,
  verifyNetworks,
  weightInfos,
  weightTensors,
} from "./weights.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "../../tensor.js";
import type { EmbeddedBlob, InspectResult } from "../types.js";
import {
  type AprilFile,
  type AprilParams,
  id,
  isValidUtf8,
  MODEL_TYPE_LSTM_TRANSDUCER_STATELESS,
  NETWORK_NAMES,
  PARAM_FIELDS,
  PRELUDE_BYTES,
} from "./model.js";

// ------------------------------------------------------------------------------------ uniform views

/** Every weight of the three networks (`encoder/<name>`, `decoder/<name>`, `joiner/<name>`), decoded. */
export function tensors(file: AprilFile, options?: DecodeOptions): NamedTensor[] {
  assertEager(file, id);
  return weightTensors(file, options);
}

/** Where each weight is in the file (the onnx module's TensorInfos: raw_data ranges or typed-field TensorProtos). */
export function tensorInfos(file: AprilFile): TensorInfo[] {
  return weightInfos(file);
}

/** Reads one weight of a readFrom() result (through the onnx module's loadTensor). */
export async function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  return loadOnnxTensor(source, info, options);
}

function paramsJson(params: AprilParams): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key] of PARAM_FIELDS) out[key] = params[key];
  return out;
}

/** What `tensorfile inspect` shows: version, language, name, params, tokens and the networks' sizes. */
export function inspect(file: AprilFile): InspectResult {
  return {
    format: id,
    version: file.version,
    meta: {
      language: file.language,
      name: file.name,
      description: file.description,
      modelType: file.modelType,
      modelTypeName: file.modelType === MODEL_TYPE_LSTM_TRANSDUCER_STATELESS ? "LSTM_TRANSDUCER_STATELESS" : "unknown",
      headerSize: file.headerSize,
    },
    tensors: inspectWeights(file),
    params: paramsJson(file.params),
    paramsBlock: { offset: file.layout.params.offset, size: file.layout.params.size },
    tokens: [...file.tokens],
    networks: NETWORK_NAMES.map((name, i) => ({
      name,
      offset: file.layout.networks[i]!.offset,
      size: file.layout.networks[i]!.size,
    })),
    onnx: inspectNetworks(file),
  };
}

/** Warnings about what libapril would refuse or misread, and about what write() would not keep. */
export function verify(file: AprilFile): string[] {
  const warnings: string[] = [];
  const { layout } = file;
  const joiner = layout.networks[2];
  const afterJoiner = joiner.offset + joiner.size;
  if (layout.params.offset !== afterJoiner) {
    warnings.push(
      `params start at ${layout.params.offset}, not right after the joiner (${afterJoiner}): libapril reads params from ` +
        "the file position after the joiner and would fail to load this model (write() re-lays it out)",
    );
  }
  const parsedHeader = layout.headerEnd - PRELUDE_BYTES;
  if (file.headerSize !== parsedHeader) {
    warnings.push(
      `header_size is ${file.headerSize} but the header is ${parsedHeader} bytes: libapril ignores header_size, other ` +
        `readers use it to bound the header (write() stores ${parsedHeader})`,
    );
  }
  const lastEnd = Math.max(
    afterJoiner,
    layout.params.offset + layout.params.size,
    ...layout.networks.map((n) => n.offset + n.size),
  );
  if (layout.fileSize > lastEnd)
    warnings.push(
      `${layout.fileSize - lastEnd} bytes after the last section (from ${lastEnd}) are not used (write() drops them)`,
    );
  if (layout.params.size > layout.paramsUsed) {
    warnings.push(
      `params.size is ${layout.params.size} but the params use ${layout.paramsUsed} bytes (write() drops the rest)`,
    );
  }
  NETWORK_NAMES.forEach((name, i) => {
    if (layout.networks[i]!.size === 0) warnings.push(`the ${name} network is empty: libapril cannot load it`);
  });
  const raw = file.raw;
  const languageEnd = raw ? raw.language.indexOf(0) : -1;
  if (raw && !isValidUtf8(languageEnd < 0 ? raw.language : raw.language.subarray(0, languageEnd)))
    warnings.push("language_tag is not valid UTF-8");
  if (raw && !isValidUtf8(raw.name)) warnings.push("name is not valid UTF-8");
  if (raw && !isValidUtf8(raw.description)) warnings.push("description is not valid UTF-8");
  file.tokens.forEach((token, i) => {
    const bytes = raw?.tokens[i];
    if (bytes && !isValidUtf8(bytes)) warnings.push(`token ${i} is not valid UTF-8`);
    if (token.includes("\0")) warnings.push(`token ${i} contains a NUL byte: libapril cuts it there`);
    if (token.length === 0 && i !== file.params.blankTokenId) warnings.push(`token ${i} is empty`);
  });
  const nyquist = file.params.sampleRate / 2;
  if (file.params.melHigh > nyquist)
    warnings.push(`mel_high ${file.params.melHigh} is above samplerate / 2 (${nyquist})`);
  warnings.push(...verifyNetworks(file));
  return warnings;
}

/**
 * What makes `tensorfile verify` fail (exit 1) although the file reads: each network that is not a readable ONNX
 * model (libapril cannot load it, and its weights are missing from tensors()), by name and the parser's reason. An
 * empty network is a verify() warning instead.
 */
export function verifyErrors(file: AprilFile): string[] {
  return networkProblems(file);
}

/** encoder.onnx, decoder.onnx, joiner.onnx, params.json (the 13 fields) and tokens.json (a string array). */
export function blobs(file: AprilFile): EmbeddedBlob[] {
  const json = (value: unknown) => utf8Bytes(`${JSON.stringify(value, null, 2)}\n`);
  return [
    ...NETWORK_NAMES.map((name) => ({ name: `${name}.onnx`, bytes: file.networks[name] })),
    { name: "params.json", bytes: json(paramsJson(file.params)) },
    { name: "tokens.json", bytes: json(file.tokens) },
  ];
}
