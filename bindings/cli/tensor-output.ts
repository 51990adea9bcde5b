/**
 * A file's tensors written as .safetensors (every tensor, or one) or .npy (one), streamed tensor by tensor: what
 * `convert IN OUT` and `convert --out-dir` (cli/batch.ts) both write through. Imports no command.
 */
import { createWriteStream } from "node:fs";
import { planSafetensors } from "../export/safetensors.js";
import { type LazyTensors, writeNpyTo, writeSafetensorsTo } from "../export/stream.js";
import type { ByteSource } from "../io/source.js";
import { type DecodeOptions, type TensorInfo, decodedDType } from "../tensor.js";
import { type CliIO, InputError } from "./common.js";
import { type AnyModule, type OpenedInput, lazyTensors, openLazy, pickTensor } from "./inputs.js";
import { Progress } from "./progress.js";

async function writeTensorsSafetensors(
  io: CliIO,
  source: ByteSource,
  module: AnyModule,
  infos: TensorInfo[],
  outPath: string,
  options: DecodeOptions,
  label: string,
): Promise<void> {
  const size = planSafetensors(
    infos.map((i) => ({ name: i.name, dtype: decodedDType(i, options), shape: i.shape })),
  ).size;
  const progress = new Progress(io.stderr, "convert", size);
  let reported = 0;
  // the public streaming writer: one tensor is written while the next is read and decoded
  try {
    await writeSafetensorsTo(
      createWriteStream(outPath),
      {
        tensorInfos: () => infos,
        loadTensor: (info, decode) => module.loadTensor(source, info, decode),
        source, // plainly stored tensors stream in 16 MiB chunks (flat memory on any size)
      },
      {
        metadata: { "tensorfile.source": label },
        decode: options,
        onProgress: (written, _total, name) => {
          progress.advance(written - reported, name);
          reported = written;
        },
      },
    );
  } finally {
    progress.finish();
  }
}

/**
 * IN's tensors written to `path` (the output or its temporary file): every tensor as .safetensors, or one as .npy
 * (`tensor`, or the only one). convert and convert --out-dir (cli/batch.ts) both write through here.
 */
export async function writeTensorOutput(
  io: CliIO,
  opened: OpenedInput,
  input: string,
  path: string,
  ext: ".npy" | ".safetensors",
  decode: DecodeOptions,
  tensor: string | undefined,
): Promise<void> {
  let infos = opened.module.tensorInfos(opened.file);
  if (ext === ".safetensors" && infos.length === 0 && tensor === undefined)
    throw noTensorsError(
      input,
      opened.module.blobs(opened.file).map((b) => b.name),
    );
  if (ext === ".npy") {
    // large tensors stream in chunks or bands of rows (flat memory), as extract writes them
    await writeNpyTo(createWriteStream(path), {
      file: npyNamed(lazyTensors(opened, infos)),
      info: pickTensor(infos, tensor),
      decode,
    });
    return;
  }
  if (tensor !== undefined) infos = [pickTensor(infos, tensor)];
  checkSafetensorsNames(input, infos);
  await writeTensorsSafetensors(io, opened.source, opened.module, infos, path, decode, opened.format);
}

/**
 * safetensors names a tensor by a key of its JSON header: an empty name is refused by its readers and
 * "__metadata__" is the header's metadata. Such a tensor is an input error, naming what can write it.
 */
export function checkSafetensorsNames(input: string, infos: readonly TensorInfo[]): void {
  for (const [i, info] of infos.entries()) {
    if (info.name !== "" && info.name !== "__metadata__") continue;
    const which =
      info.name === "" ? "has an empty name" : 'is named "__metadata__" (safetensors\' key for its metadata)';
    throw new InputError(
      `tensor ${i} of ${input} ${which}, which a .safetensors file cannot hold: write it to a .npy with --tensor, or every tensor with "tensorfile extract ${input} DIR"`,
    );
  }
}

/** The error for a .safetensors output of a file without tensors, naming what `extract` would give instead. */
export function noTensorsError(input: string, blobNames: readonly string[]): InputError {
  return new InputError(
    `${input} holds no tensors, so a .safetensors output would be empty${blobNames.length > 0 ? `; its contents (${blobNames.join(", ")}) come out with "tensorfile extract ${input} DIR"` : ""}`,
  );
}

/** convert IN into `path` as .safetensors or .npy, opening and closing IN (for convert --out-dir's workers). */
export async function convertTensorsTo(
  io: CliIO,
  input: string,
  path: string,
  ext: ".npy" | ".safetensors",
  decode: DecodeOptions,
): Promise<void> {
  const opened = await openLazy(input);
  try {
    await writeTensorOutput(io, opened, input, path, ext, decode, undefined);
  } finally {
    await opened.source.close?.();
  }
}

/**
 * The tensors as writeNpyTo takes them, a tensor with an empty name included: a .npy file holds no name (the
 * file's name, and meta.json, say which tensor it is), and writeNpyTo refuses a nameless tensor.
 */
export function npyNamed(file: LazyTensors): LazyTensors {
  return {
    ...file,
    loadTensor: async (info, decode) => {
      const tensor = await file.loadTensor(info, decode);
      return tensor.name === "" ? { ...tensor, name: "(unnamed)" } : tensor;
    },
  };
}
