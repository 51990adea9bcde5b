/**
 * Replacing primitiv tensors (`tensor`; `value`, `stats/<key>`; `<k1>.<k2>…`, `<k1>.<k2>…/stats/<key>`) with
 * new values. primitiv stores float32 column-major within each sample, samples one after another (batch
 * last); a replacement is given row-major for the logical shape `[batch, ...dims]` (batch only when > 1) and
 * is reordered with the transpose kernel. The bin payload keeps its size, so nothing else in the file moves.
 */
import type { ByteSource } from "../../io/source.js";
import { type TensorInfo, bytesOf } from "../../tensor.js";
import { encodeBytes, replacementData, sameBytes } from "../../patch/encode.js";
import {
  type Incoming,
  type ReplaceOptions,
  type TensorsInput,
  checkUnknown,
  replacementsInMemory,
} from "../../patch/input.js";
import { type PatchPlan, asTensor, rangePlan, storedForm } from "../../patch/plan.js";
import type { PrimitivFile, PrimitivParameter, PrimitivTensor } from "./model.js";
import { namedTensors, tensorInfos } from "./view.js";

const FORMAT = "primitiv";

function mapParameter(p: PrimitivParameter, swap: Map<PrimitivTensor, PrimitivTensor>): PrimitivParameter {
  const value = swap.get(p.value) ?? p.value;
  let changed = value !== p.value;
  const stats = new Map<string, PrimitivTensor>();
  for (const [key, stat] of p.stats) {
    const next = swap.get(stat) ?? stat;
    if (next !== stat) changed = true;
    stats.set(key, next);
  }
  return changed ? { value, stats } : p;
}

/**
 * A copy of `file` with the named tensors replaced (float32, float16, float64 or bfloat16 values, row-major
 * for the logical shape). The input is not changed; unchanged tensors are shared with it. Unknown names are a
 * RangeError unless `partial`; a dtype that cannot replace float32 a TypeError; another shape a RangeError.
 */
export function replaceTensors(file: PrimitivFile, tensors: TensorsInput, options: ReplaceOptions = {}): PrimitivFile {
  const given = replacementsInMemory(tensors, "primitiv.replaceTensors");
  const named = namedTensors(file);
  const names = named.map((n) => n.name);
  const inFile = new Set(names);
  checkUnknown(
    [...given.keys()].filter((n) => !inFile.has(n)),
    names,
    FORMAT,
    options,
  );
  if (given.size === 0) return file;
  const infos = tensorInfos(file);
  const swap = new Map<PrimitivTensor, PrimitivTensor>();
  named.forEach(({ name, tensor }, i) => {
    const value = given.get(name);
    if (value === undefined) return;
    const info = infos[i]!;
    const replacement = asTensor(name, value);
    const bytes = encodeBytes(replacementData(info, replacement), replacement.dtype, storedForm(info));
    if (tensor.data instanceof Uint8Array && sameBytes(bytes, bytesOf(tensor.data))) return;
    swap.set(tensor, { shape: { dims: tensor.shape.dims.slice(), batch: tensor.shape.batch }, data: bytes });
  });
  if (swap.size === 0) return file;
  switch (file.dataType) {
    case "tensor":
      return { dataType: "tensor", tensor: swap.get(file.tensor) ?? file.tensor };
    case "parameter":
      return { dataType: "parameter", parameter: mapParameter(file.parameter, swap) };
    case "model":
      return {
        dataType: "model",
        model: {
          parameters: file.model.parameters.map((e) => ({ path: e.path, parameter: mapParameter(e.parameter, swap) })),
        },
      };
    default:
      return file;
  }
}

/** The plan for a primitiv file opened with readFrom() (or read()), given its tensorInfos(): each replaced payload. */
export async function planPatch(
  _file: PrimitivFile,
  infos: readonly TensorInfo[],
  _source: ByteSource,
  size: number,
  incoming: ReadonlyMap<string, Incoming>,
  options: ReplaceOptions,
): Promise<PatchPlan> {
  return rangePlan(FORMAT, size, infos, incoming, options);
}
