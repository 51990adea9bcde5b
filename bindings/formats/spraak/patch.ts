/**
 * Replacing the MATRIX data of a SPRAAK file (the tensor `data`, [DIM1, DIM2]). The header stays exactly as
 * it is (same DIM1 and DIM2: the shape must match); the data is stored in the file's TYPE and FORMAT (BIN01
 * little-endian, BIN10 big-endian, ASCII re-printed with the shortest text that reads back the same value),
 * and a gzip file or COMPRESS gzip data is compressed again. ALAW/ULAW data takes its uint8 G.711 codes.
 *
 * A patch plan over binary data writes the data range only; ASCII or gzip data (whose size changes) is
 * patched by reading the whole file, replacing and writing it again.
 */
import type { ByteSource } from "../../io/source.js";
import { readExactly } from "../../io/source.js";
import { type TensorInfo, type TypedArray, bytesOf, viewAs } from "../../tensor.js";
import { encodeRowMajorBytes, replacementData, sameBytes } from "../../patch/encode.js";
import {
  type Incoming,
  type ReplaceOptions,
  type TensorsInput,
  checkUnknown,
  replacementsInMemory,
} from "../../patch/input.js";
import { type PatchPlan, asTensor, checkIncoming, rangePlan } from "../../patch/plan.js";
import { type SpraakFile, type SpraakReadOptions, type SpraakTensorInfo, TYPE_INFO } from "./model.js";
import { read } from "./reader.js";
import { write } from "./writer.js";

const FORMAT = "spraak";

/**
 * A copy of `file` with its MATRIX data replaced by `data` (the only tensor name). The header is kept; the
 * input is not changed. Unknown names are a RangeError unless `partial` (LIST and CUSTOM files hold no
 * tensors); a dtype that cannot replace the stored one a TypeError; another shape a RangeError.
 */
export function replaceTensors(file: SpraakFile, tensors: TensorsInput, options: ReplaceOptions = {}): SpraakFile {
  const given = replacementsInMemory(tensors, "spraak.replaceTensors");
  const data = file.data;
  const names = data.layout === "MATRIX" ? ["data"] : [];
  checkUnknown(
    [...given.keys()].filter((n) => !names.includes(n)),
    names,
    FORMAT,
    options,
  );
  const value = given.get("data");
  if (value === undefined || data.layout !== "MATRIX") return file;
  const replacement = asTensor("data", value);
  const dtype = TYPE_INFO[data.type].dtype;
  const shape = [data.rows, data.cols];
  if (data.encoding === "binary") {
    const form = { name: "data", dtype, shape, layout: "row-major", byteOrder: data.byteOrder } as const;
    const bytes = encodeRowMajorBytes(replacementData(form, replacement), replacement.dtype, form);
    if (data.bytes instanceof Uint8Array && sameBytes(bytes, data.bytes)) return file;
    return { ...file, data: { ...data, bytes } };
  }
  const form = { name: "data", dtype, shape, layout: "row-major", byteOrder: "le" } as const;
  const bytes = encodeRowMajorBytes(replacementData(form, replacement), replacement.dtype, form);
  if (sameBytes(bytes, bytesOf(data.values))) return file;
  return { ...file, data: { ...data, values: viewAs(dtype, bytes) as TypedArray } };
}

/**
 * The plan for a SPRAAK file opened with readFrom() (or read()), given its tensorInfos(): the data range for
 * binary data; for ASCII or gzip data one edit that rewrites the whole file (read whole, replaced, written).
 */
export async function planPatch(
  _file: SpraakFile,
  infos: readonly TensorInfo[],
  source: ByteSource,
  size: number,
  incoming: ReadonlyMap<string, Incoming>,
  options: ReplaceOptions,
): Promise<PatchPlan> {
  const info = infos[0] as SpraakTensorInfo | undefined;
  if (!info?.wholeFile || !incoming.has("data")) return rangePlan(FORMAT, size, infos, incoming, options);
  const plan = rangePlan(FORMAT, size, infos, new Map([...incoming].filter(([n]) => n !== "data")), options);
  const given = incoming.get("data")!;
  checkIncoming(info, given);
  const readOptions: SpraakReadOptions = info.wholeFile;
  const bytes = await readExactly(source, 0, size, FORMAT);
  const patched = write(
    replaceTensors(read(bytes, readOptions), [{ ...asTensor("data", await given.load()), name: "data" }]),
  );
  return {
    ...plan,
    edits: [{ offset: 0, length: size, sameSize: false, produce: () => [patched] }],
    replaced: ["data"],
    kept: [],
    outputSize: patched.length,
  };
}
