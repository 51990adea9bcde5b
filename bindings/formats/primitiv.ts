/**
 * primitiv File Format v0.1 (primitiv C++ @db14ca44: Parameter/Model/Optimizer::save and load).
 *
 * A file is a plain sequence of MessagePack objects (no outer container), big-endian except the tensor data:
 *
 *   header   ce 00000000  ce 00000001  ce <data type>        major 0, minor 1 (15 bytes, always uint32 0xce)
 *            data type 0x0 Shape, 0x100 Tensor, 0x200 Parameter, 0x300 Model, 0x400 Optimizer
 *   Shape     = dims: array of uint32 (ce), at most 8, none 0, trailing 1s stripped by the writer; batch: uint32
 *   Tensor    = Shape, data: bin (c4/c5/c6) of 4 x volume x batch bytes: float32 little-endian, column-major
 *               within a sample (element [i0][i1]… at i0 + d0 * (i1 + …)), samples one after another (batch last)
 *   Parameter = value: Tensor (batch 1), N: uint32, N x (key: str, stat: Tensor)      stats in file order
 *   Model     = N: uint32, N x (key path: array of str, Parameter)    primitiv writes them sorted by key path
 *   Optimizer = uint configs: map str -> uint32 (ce), float configs: map str -> float32 (ca)    file order
 *
 * The file must end with its last object (primitiv does not check; we do), and map keys, stat keys and model
 * key paths must be unique (primitiv silently keeps one; we refuse). See primitiv/msgpack.ts for the subset of
 * MessagePack: the reader takes every length form primitiv takes, the writer emits primitiv's exact widths.
 *
 * Object model: tensor data stays raw (the stored column-major little-endian bytes; from read() a view into
 * the input, from readFrom() a ByteRange). `tensors()` gives row-major float32 for the logical shape
 * `[batch, ...dims]` (batch only when > 1). `makeTensor`/`makeParameter`/`makeModel`/`makeOptimizer` build
 * objects for write() from row-major data.
 *
 * The code: primitiv/model.ts (types), reader.ts, writer.ts, view.ts (tensors, inspect, verify), builder.ts
 * (make*), patch.ts, msgpack.ts.
 */
import { bytesOrUndefined } from "../bytes/input.js";

/** The file extensions this format is written with (primitiv files have none of their own). */
export const extensions: readonly string[] = [".param", ".model", ".optimizer", ".tensor", ".shape"];

/** The 15-byte header `ce 00000000 ce 00000001 ce <data type>`. Never throws. */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head || head.length < 15) return false;
  const prefix = [0xce, 0, 0, 0, 0, 0xce, 0, 0, 0, 1, 0xce];
  for (let i = 0; i < prefix.length; i++) if (head[i] !== prefix[i]) return false;
  return true;
}

export {
  DATA_TYPE_CODES,
  MAX_DIMS,
  VERSION,
  id,
  type PrimitivDataType,
  type PrimitivFile,
  type PrimitivModel,
  type PrimitivModelEntry,
  type PrimitivOptimizer,
  type PrimitivParameter,
  type PrimitivReadOptions,
  type PrimitivShape,
  type PrimitivTensor,
  type PrimitivTensorInfo,
} from "./primitiv/model.js";
export { read, readFrom } from "./primitiv/reader.js";
export { type PrimitivFileLike, asFile, write, writeTo } from "./primitiv/writer.js";
export {
  blobs,
  decodeKey,
  inspect,
  loadTensor,
  logicalShape,
  namedTensors,
  tensorInfos,
  tensorValues,
  tensors,
  verify,
} from "./primitiv/view.js";
export {
  type KeyPath,
  compareKeyPaths,
  makeModel,
  makeOptimizer,
  makeParameter,
  makeShape,
  makeTensor,
} from "./primitiv/builder.js";
export { replaceTensors } from "./primitiv/patch.js";
