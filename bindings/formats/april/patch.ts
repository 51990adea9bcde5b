/**
 * Replacing the networks of an april-asr model by name: `encoder`, `decoder`, `joiner` (ONNX files, e.g. the
 * `encoder.onnx` that `tensorfile extract` writes). A replacement is the file's bytes as a Uint8Array, or a
 * 1-D uint8/int8 NamedTensor holding them. The networks change size, so the model is written in the
 * reference layout (header, encoder, decoder, joiner, params: what libapril loads), with header, params and
 * tokens as they were. A model already in that layout whose networks are given back unchanged comes out
 * byte-identical.
 */
import type { ByteSource } from "../../io/source.js";
import { readExactly } from "../../io/source.js";
import { type NamedTensor, type TensorInfo, bytesOf, elementCount } from "../../tensor.js";
import { sameBytes } from "../../patch/encode.js";
import { type Incoming, type PatchValue, type ReplaceOptions, type TensorsInput, checkUnknown, replacementsInMemory } from "../../patch/input.js";
import { type PatchPlan, rangePlan } from "../../patch/plan.js";
import { type AprilFile, type NetworkName, NETWORK_NAMES } from "./model.js";
import { encodeHeaderAndParams } from "./writer.js";

const FORMAT = "april";

/** Checks a network replacement's kind before it is loaded: raw bytes or a 1-D uint8/int8 tensor. */
function checkNetwork(name: string, given: { dtype: string; shape: readonly number[] }): void {
  if (given.dtype === "bytes") return;
  if ((given.dtype !== "uint8" && given.dtype !== "int8") || given.shape.length !== 1) {
    throw new TypeError(`tensorfile: april network "${name}" is an ONNX file: give its bytes (a Uint8Array, or a 1-D uint8 tensor), not a ${given.dtype} tensor of shape [${given.shape.join(", ")}]`);
  }
}

function networkBytesOf(name: string, value: PatchValue): Uint8Array {
  if (value instanceof Uint8Array && !("dtype" in value)) return value;
  const tensor = value as NamedTensor;
  checkNetwork(name, tensor);
  return bytesOf(tensor.data);
}

/** Network names given, in file order, after the unknown-name check. */
function given(names: Iterable<string>, options: ReplaceOptions): { replaced: NetworkName[]; unknown: string[] } {
  const list = [...names];
  const unknown = list.filter((n) => !(NETWORK_NAMES as readonly string[]).includes(n));
  checkUnknown(unknown, NETWORK_NAMES, FORMAT, options);
  return { replaced: NETWORK_NAMES.filter((n) => list.includes(n)), unknown };
}

/**
 * A copy of `file` with the named networks replaced (the file must be a read() result, or have its networks
 * loaded with april.loadNetworks). write() lays the result out as the reference writer does. Unknown names are
 * a RangeError unless `partial`; anything but bytes or a 1-D uint8 tensor a TypeError.
 */
export function replaceTensors(file: AprilFile, tensors: TensorsInput, options: ReplaceOptions = {}): AprilFile {
  const values = replacementsInMemory(tensors, "april.replaceTensors");
  const { replaced } = given(values.keys(), options);
  const networks = { ...file.networks };
  let changed = false;
  for (const name of replaced) {
    const bytes = networkBytesOf(name, values.get(name)!);
    const old = file.networks[name];
    if (old instanceof Uint8Array && sameBytes(old, bytes)) continue;
    networks[name] = bytes;
    changed = true;
  }
  return changed ? { ...file, networks } : file;
}

/** Bytes copied per read of an unchanged network. */
const COPY_CHUNK = 8 << 20;

/**
 * The plan for an april model opened with readFrom() (or read()): with no network given, the file as it is;
 * otherwise the whole model in the reference layout, unchanged networks streamed from the source.
 */
export async function planPatch(
  file: AprilFile, infos: readonly TensorInfo[], source: ByteSource, size: number, incoming: ReadonlyMap<string, Incoming>, options: ReplaceOptions,
): Promise<PatchPlan> {
  const { replaced, unknown } = given(incoming.keys(), options);
  if (replaced.length === 0) return { ...rangePlan(FORMAT, size, infos, new Map(), options), unknown };
  for (const name of replaced) checkNetwork(name, incoming.get(name)!);
  const sizes = NETWORK_NAMES.map((name) => {
    const g = incoming.get(name);
    if (g) return g.dtype === "bytes" ? g.shape[0]! : elementCount(g.shape);
    return file.layout.networks[NETWORK_NAMES.indexOf(name)]!.size;
  });
  const { header, params, layout } = encodeHeaderAndParams(file, sizes);
  async function* produce(): AsyncGenerator<Uint8Array> {
    yield header;
    for (const [i, name] of NETWORK_NAMES.entries()) {
      const g = incoming.get(name);
      if (g) {
        const bytes = networkBytesOf(name, await g.load());
        if (bytes.length !== sizes[i]) throw new RangeError(`tensorfile: april network "${name}" was announced as ${sizes[i]} bytes but has ${bytes.length}`);
        yield bytes;
        continue;
      }
      const entry = file.layout.networks[i]!;
      for (let at = 0; at < entry.size; at += COPY_CHUNK) {
        yield await readExactly(source, entry.offset + at, Math.min(COPY_CHUNK, entry.size - at), FORMAT, name);
      }
    }
    yield params;
  }
  return {
    edits: [{ offset: 0, length: size, sameSize: false, produce }],
    replaced,
    kept: NETWORK_NAMES.filter((n) => !incoming.has(n)),
    unknown,
    requantized: [],
    outputSize: layout.fileSize,
  };
}
