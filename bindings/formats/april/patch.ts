/**
 * Replacing what an april-asr model holds, by name:
 * - weights of its networks, `encoder/<name>`, `decoder/<name>`, `joiner/<name>` (what tensors() lists): stored
 *   in their own dtype and storage through the onnx patcher (onnx/patch.ts). raw_data weights are overwritten in
 *   place (only their own bytes change); a typed-field weight is re-encoded, its network's enclosing lengths fixed,
 *   and then the network's size changes, so the model is written in the reference layout with the network
 *   offsets and sizes fixed;
 * - whole networks, `encoder`, `decoder`, `joiner` (ONNX files, e.g. the `encoder.onnx` that `tensorfile extract`
 *   writes): the file's bytes as a Uint8Array, or a 1-D uint8/int8 NamedTensor holding them. The networks change
 *   size, so the model is written in the reference layout (header, encoder, decoder, joiner, params: what
 *   libapril loads), with header, params and tokens as they were.
 * A network and weights of that same network in one patch are refused. A model given back its own weights (or
 * networks) comes out byte-identical.
 */
import { patchError } from "../../bytes/errors.js";
import type { ByteSource } from "../../io/source.js";
import { rangeChunks, readExactly } from "../../io/source.js";
import { type NamedTensor, type TensorInfo, bytesOf, elementCount } from "../../tensor.js";
import { sameBytes } from "../../patch/encode.js";
import {
  type Incoming,
  type PatchValue,
  type ReplaceOptions,
  type TensorsInput,
  checkUnknown,
  replacementsInMemory,
} from "../../patch/input.js";
import { type PatchEdit, type PatchPlan, rangePlan } from "../../patch/plan.js";
import {
  type ModelPlan,
  planModel,
  replaceModelTensors as replaceOnnxTensors,
  writeModel as writeOnnx,
} from "../onnx/embed.js";
import { type AprilFile, type NetworkName, NETWORK_NAMES } from "./model.js";
import { modelsOfNetworks, weightInfos } from "./weights.js";
import { encodeHeaderAndParams } from "./writer.js";

const FORMAT = "april";

/** Checks a network replacement's kind before it is loaded: raw bytes or a 1-D uint8/int8 tensor. */
function checkNetwork(name: string, given: { dtype: string; shape: readonly number[] }): void {
  if (given.dtype === "bytes") return;
  if ((given.dtype !== "uint8" && given.dtype !== "int8") || given.shape.length !== 1) {
    throw patchError(
      "dtype",
      `tensorfile: april network "${name}" is an ONNX file: give its bytes (a Uint8Array, or a 1-D uint8 tensor), not a ${given.dtype} tensor of shape [${given.shape.join(", ")}]`,
      { tensor: name, expectedDtype: "uint8", actualDtype: given.dtype, actualShape: given.shape.slice() },
    );
  }
}

function networkBytesOf(name: string, value: PatchValue): Uint8Array {
  if (value instanceof Uint8Array && !("dtype" in value)) return value;
  const tensor = value as NamedTensor;
  checkNetwork(name, tensor);
  return bytesOf(tensor.data);
}

/** Network names and weight names given (each in file order), after the unknown-name check. */
function given(
  file: AprilFile,
  names: Iterable<string>,
  options: ReplaceOptions,
): { replaced: NetworkName[]; weights: string[]; unknown: string[] } {
  const list = new Set(names);
  const weightNames = weightInfos(file).map((i) => i.name);
  const known = new Set<string>([...NETWORK_NAMES, ...weightNames]);
  const unknown = [...list].filter((n) => !known.has(n));
  checkUnknown(unknown, [...weightNames, ...NETWORK_NAMES], FORMAT, options);
  const replaced = NETWORK_NAMES.filter((n) => list.has(n));
  const weights = weightNames.filter((n) => list.has(n));
  return { replaced, weights, unknown };
}

function clashError(network: NetworkName, weight: string): RangeError {
  return patchError(
    "conflict",
    `tensorfile: april: a changed ${network} network and its weight "${weight}" are both given; give one or the other`,
    { tensor: weight },
  );
}

/** The weights given for one network, without the network's prefix. */
function weightsOf(network: NetworkName, names: readonly string[]): string[] {
  return names.filter((n) => n.startsWith(`${network}/`));
}

/**
 * A copy of `file` with the named networks replaced (the file must be a read() result, or have its networks
 * loaded with april.loadNetworks). write() lays the result out as the reference writer does. Unknown names are
 * a RangeError unless `partial`; anything but bytes or a 1-D uint8 tensor a TypeError.
 */
export function replaceTensors(file: AprilFile, tensors: TensorsInput, options: ReplaceOptions = {}): AprilFile {
  const values = replacementsInMemory(tensors, "april.replaceTensors");
  const { replaced, weights } = given(file, values.keys(), options);
  const networks = { ...file.networks };
  const changedNetworks: Partial<Record<NetworkName, Uint8Array>> = {};
  for (const name of replaced) {
    const bytes = networkBytesOf(name, values.get(name)!);
    const old = file.networks[name];
    if (old instanceof Uint8Array && sameBytes(old, bytes)) continue;
    const clash = weightsOf(name, weights)[0];
    if (clash) throw clashError(name, clash);
    networks[name] = bytes;
    changedNetworks[name] = bytes;
  }
  for (const network of NETWORK_NAMES) {
    const names = weightsOf(network, weights);
    const model = file.onnx?.[network];
    if (names.length === 0 || !model) continue;
    const subset = new Map(names.map((n) => [n.slice(network.length + 1), values.get(n)!]));
    const bytes = writeOnnx(replaceOnnxTensors(model, subset));
    const old = file.networks[network];
    if (old instanceof Uint8Array && sameBytes(old, bytes)) continue;
    networks[network] = bytes;
    changedNetworks[network] = bytes;
  }
  if (Object.keys(changedNetworks).length === 0) return file;
  // the changed networks' models are read again from their new bytes (offsets relative to each network)
  const { models, errors } = modelsOfNetworks(changedNetworks);
  const onnx = { ...file.onnx };
  const onnxErrors = { ...file.onnxErrors };
  for (const name of Object.keys(changedNetworks) as NetworkName[]) {
    delete onnx[name];
    delete onnxErrors[name];
    if (models[name]) onnx[name] = models[name];
    if (errors[name]) onnxErrors[name] = errors[name];
  }
  return { ...file, networks, onnx, onnxErrors };
}

/** Bytes copied per read of an unchanged network. */
const COPY_CHUNK = 8 << 20;

/** Runs `edits` (sorted, inside [start, end)) over the source range: the bytes between them copied in chunks. */
async function* editedRange(
  source: ByteSource,
  start: number,
  end: number,
  edits: readonly PatchEdit[],
  name: string,
): AsyncGenerator<Uint8Array> {
  let pos = start;
  const copy = (from: number, to: number) => rangeChunks(source, from, to, COPY_CHUNK, FORMAT, name);
  for (const edit of edits) {
    yield* copy(pos, edit.offset);
    for await (const chunk of edit.produce()) yield chunk;
    pos = edit.offset + edit.length;
  }
  yield* copy(pos, end);
}

/**
 * The plan for an april model opened with readFrom() (or read()): with nothing given, the file as it is; weights
 * whose edits keep every size (raw_data, or typed values given back unchanged), edits in place; otherwise the
 * whole model in the reference layout, unchanged networks streamed from the source, edited ones run through
 * their edits.
 */
export async function planPatch(
  file: AprilFile,
  infos: readonly TensorInfo[],
  source: ByteSource,
  size: number,
  incoming: ReadonlyMap<string, Incoming>,
  options: ReplaceOptions,
): Promise<PatchPlan> {
  const given_ = given(file, incoming.keys(), options);
  const { weights, unknown } = given_;
  const replaced: NetworkName[] = [];
  for (const network of given_.replaced) {
    const clash = weightsOf(network, weights)[0];
    if (clash === undefined) {
      replaced.push(network);
      continue;
    }
    // a network given with its own weights (an extract folder): used only if it differs from the model's
    checkNetwork(network, incoming.get(network)!);
    const bytes = networkBytesOf(network, await incoming.get(network)!.load());
    const entry = file.layout.networks[NETWORK_NAMES.indexOf(network)]!;
    if (
      bytes.length !== entry.size ||
      !sameBytes(bytes, await readExactly(source, entry.offset, entry.size, FORMAT, network))
    )
      throw clashError(network, clash);
  }
  const networksGiven = new Set<string>(given_.replaced);
  const weightNames = infos.map((i) => i.name);
  // whole networks only: the networks kept; weights: the weights kept (and the networks, if some were replaced)
  const kept = [
    ...(weights.length > 0
      ? weightNames.filter((n) => !incoming.has(n) && !replaced.some((r) => n.startsWith(`${r}/`)))
      : []),
    ...(replaced.length > 0 ? NETWORK_NAMES.filter((n) => !networksGiven.has(n)) : []),
  ];
  if (replaced.length === 0 && weights.length === 0)
    return { ...rangePlan(FORMAT, size, infos, new Map(), options), unknown, kept: weightNames };
  for (const name of replaced) checkNetwork(name, incoming.get(name)!);
  const plans: Partial<Record<NetworkName, ModelPlan>> = {};
  for (const network of NETWORK_NAMES) {
    const model = file.onnx?.[network];
    if (model && weightsOf(network, weights).length > 0)
      plans[network] = await planModel(model, `${network}/`, source, incoming);
  }
  const resized = Object.values(plans).some((p) => p.delta !== 0);
  if (replaced.length === 0 && !resized) {
    // every edit keeps its size: the file stays in its layout, only the weights' bytes change
    const edits = Object.values(plans)
      .flatMap((p) => p.edits)
      .sort((a, b) => a.offset - b.offset);
    return { edits, replaced: weights, kept, unknown, requantized: [], outputSize: size };
  }
  const sizes = NETWORK_NAMES.map((name, i) => {
    const g = incoming.get(name);
    if (g) return g.dtype === "bytes" ? g.shape[0]! : elementCount(g.shape);
    return file.layout.networks[i]!.size + (plans[name]?.delta ?? 0);
  });
  const { header, params, layout } = encodeHeaderAndParams(file, sizes);
  async function* produce(): AsyncGenerator<Uint8Array> {
    yield header;
    for (const [i, name] of NETWORK_NAMES.entries()) {
      const g = incoming.get(name);
      if (g) {
        const bytes = networkBytesOf(name, await g.load());
        if (bytes.length !== sizes[i])
          throw patchError(
            "conflict",
            `tensorfile: april network "${name}" was announced as ${sizes[i]} bytes but has ${bytes.length}`,
            { tensor: name },
          );
        yield bytes;
        continue;
      }
      const entry = file.layout.networks[i]!;
      yield* editedRange(source, entry.offset, entry.offset + entry.size, plans[name]?.edits ?? [], name);
    }
    yield params;
  }
  return {
    edits: [{ offset: 0, length: size, sameSize: false, produce }],
    replaced: [...replaced, ...weights],
    kept,
    unknown,
    requantized: [],
    outputSize: layout.fileSize,
  };
}
