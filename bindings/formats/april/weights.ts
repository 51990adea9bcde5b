/**
 * april's weights: every weight of its three ONNX networks, named `encoder/<name>`, `decoder/<name>`,
 * `joiner/<name>`, read through the onnx module's code. Each network is parsed as a ModelProto over its range of
 * the .april file (offsets stay absolute), eagerly for read() and with small range reads for readFrom(), so a
 * lazy open fetches the networks' headers and never their payloads. Every network is parsed, whatever its first
 * bytes look like (protobuf fields may come in any order): one that is not a readable ONNX model has no weights,
 * and says so: `onnxErrors` holds the parser's error, verifyErrors() (tensorfile verify: exit 1) and inspect name
 * the network and the reason.
 */
import { type FormatError, isFormatError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import type { ByteSource } from "../../io/source.js";
import type { DecodeOptions, NamedTensor } from "../../tensor.js";
import type { InspectTensor } from "../types.js";
import {
  type OnnxModel,
  type OnnxTensorInfo,
  type VarintCounter,
  inspectExtras,
  inspectTensors,
  looksLikeModel,
  modelBytes,
  parseModel,
  parseSmallChunks,
  tensorOf,
  verifyModel,
  weightInfo,
  weights,
} from "../onnx/embed.js";
import {
  type AprilEntry,
  type AprilFile,
  type AprilNetworkModels,
  type NetworkName,
  NETWORK_NAMES,
  id,
} from "./model.js";

interface Parsed {
  models: AprilNetworkModels;
  errors: Partial<Record<NetworkName, string>>;
}

/** The error of an empty network (no bytes: no model). */
export const EMPTY_NETWORK = "the network is empty (0 bytes)";

/** Why a network that failed to parse is not ONNX: the parser's error, and whether its first bytes looked like a model. */
function parseFailure(error: FormatError, networkOffset: number, head: Uint8Array): string {
  const why = networkError(error, networkOffset);
  return looksLikeModel(head)
    ? why
    : `not an ONNX model (its first bytes are not ModelProto fields; the parser: ${why})`;
}

/**
 * A network's FormatError as text with the offset inside the network (so it reads the same after write() moves
 * the network: the layout may change, the network's bytes do not).
 */
function networkError(error: FormatError, networkOffset: number): string {
  const at = error.offset === undefined ? "" : ` at offset ${error.offset - networkOffset} of the network`;
  return `${error.detail}${at}${error.field ? ` [${error.field}]` : ""}`;
}

/**
 * Parses each network's ONNX over `r` (absolute offsets), keeping a network's FormatError as its error. Varint-typed
 * payloads are counted lazily too: a network with a malformed one has no weights in read(), so it has none in
 * readFrom() either (a lazy open of an .onnx file leaves that check to loadTensor).
 */
function parseAll(
  r: ByteReader,
  entries: readonly AprilEntry[],
  eager: boolean,
  varintCounter?: VarintCounter,
  origin?: Uint8Array,
): Parsed {
  const models: AprilNetworkModels = {};
  const errors: Partial<Record<NetworkName, string>> = {};
  NETWORK_NAMES.forEach((name, i) => {
    const entry = entries[i]!;
    if (entry.size === 0) {
      errors[name] = EMPTY_NETWORK;
      return;
    }
    try {
      models[name] = parseModel(r, {
        eager,
        countVarints: true,
        varintCounter,
        start: entry.offset,
        end: entry.offset + entry.size,
        root: name,
        origin,
      });
    } catch (error) {
      if (!isFormatError(error)) throw error; // NeedBytes (the lazy driver fetches and parses again) and bugs
      errors[name] = parseFailure(
        error,
        entry.offset,
        r.viewOf({ byteOffset: entry.offset, byteLength: Math.min(64, entry.size) }),
      );
    }
  });
  return { models, errors };
}

/** read(): the networks' models over the whole file's bytes. */
export function attachModels<F extends AprilFile>(file: F, bytes: Uint8Array): F {
  const { models, errors } = parseAll(new ByteReader(bytes, id), file.layout.networks, true, undefined, bytes);
  for (const model of Object.values(models)) modelBytes.set(model, bytes);
  return { ...file, onnx: models, onnxErrors: errors };
}

/** readFrom(): the networks' headers through small range reads (payloads are never fetched). */
export async function attachModelsFrom<F extends AprilFile>(file: F, source: ByteSource): Promise<F> {
  const ranges = file.layout.networks.map((entry) => ({ start: entry.offset, end: entry.offset + entry.size }));
  const { models, errors } = await parseSmallChunks(
    source,
    id,
    (backing, countVarints) => parseAll(new ByteReader(backing, id), file.layout.networks, false, countVarints),
    { models: ranges, varintPayloads: true },
  );
  return { ...file, onnx: models, onnxErrors: errors };
}

/** create() and replaced networks: each network's model over its own bytes (offsets relative to the network). */
export function modelsOfNetworks(networks: Partial<Record<NetworkName, Uint8Array>>): Parsed {
  const models: AprilNetworkModels = {};
  const errors: Partial<Record<NetworkName, string>> = {};
  for (const name of NETWORK_NAMES) {
    const bytes = networks[name];
    if (!bytes) continue;
    if (bytes.length === 0) {
      errors[name] = EMPTY_NETWORK;
      continue;
    }
    try {
      const model = parseModel(new ByteReader(bytes, id), { eager: true, root: name, origin: bytes });
      modelBytes.set(model, bytes);
      models[name] = model;
    } catch (error) {
      if (!isFormatError(error)) throw error;
      errors[name] = parseFailure(error, 0, bytes.subarray(0, 64));
    }
  }
  return { models, errors };
}

/** The networks that have a model, in file order. */
export function networkModels(file: AprilFile): [NetworkName, OnnxModel][] {
  const out: [NetworkName, OnnxModel][] = [];
  for (const name of NETWORK_NAMES) {
    const model = file.onnx?.[name];
    if (model) out.push([name, model]);
  }
  return out;
}

export function weightInfos(file: AprilFile): OnnxTensorInfo[] {
  return networkModels(file).flatMap(([name, model]) => weights(model).map((w) => weightInfo(w, `${name}/`)));
}

export function weightTensors(file: AprilFile, options?: DecodeOptions): NamedTensor[] {
  return networkModels(file).flatMap(([name, model]) => {
    const bytes = modelBytes.get(model);
    if (!bytes) return [];
    return weights(model).map((w) => tensorOf(bytes, w, weightInfo(w, `${name}/`), options));
  });
}

export function inspectWeights(file: AprilFile): InspectTensor[] {
  return networkModels(file).flatMap(([name, model]) => inspectTensors(model, `${name}/`));
}

/** What inspect shows of each network's model: its graph summary, strings, sparse initializers, or its error. */
export function inspectNetworks(file: AprilFile): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of NETWORK_NAMES) {
    const model = file.onnx?.[name];
    if (model) {
      out[name] = {
        irVersion: model.irVersion,
        producerName: model.producerName,
        opsetImports: model.opsetImports,
        ...inspectExtras(model, `${name}/`),
      };
    } else if (file.onnxErrors?.[name]) out[name] = { error: file.onnxErrors[name] };
  }
  return out;
}

/** Warnings about the networks: each model's own warnings (a network that is not a model: {@link networkProblems}). */
export function verifyNetworks(file: AprilFile): string[] {
  const warnings: string[] = [];
  for (const [name, model] of networkModels(file)) for (const w of verifyModel(model)) warnings.push(`${name}: ${w}`);
  return warnings;
}

/**
 * Each network that is not a readable ONNX model, by name and reason: libapril cannot load it, and its weights
 * are missing from tensors() (verify fails on these; inspect shows them).
 */
export function networkProblems(file: AprilFile): string[] {
  const problems: string[] = [];
  for (const name of NETWORK_NAMES) {
    const error = file.onnxErrors?.[name];
    if (error !== undefined && error !== EMPTY_NETWORK && !file.onnx?.[name])
      problems.push(`the ${name} network is not a readable ONNX model: ${error}; its weights are not listed`);
  }
  return problems;
}
