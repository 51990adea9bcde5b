/**
 * openTensorFolder(dir): a folder as `tensorfile extract` writes it, opened as lazy tensors, so that
 * `patch(model, await openTensorFolder(dir))` (or patchFrom/patchTo) puts an extracted and edited folder back into
 * its model from code, as `tensorfile patch MODEL DIR OUT` does.
 *
 * What it reads (folder/names.ts has the naming scheme): every file under `dir`; `.npy` files are tensors (one
 * tensor a file), named by meta.json's `"files"` when it lists them, else by decoding their path ("/" a subfolder);
 * `.onnx` files at the top (`encoder.onnx`, …) are april networks, given as 1-D uint8 tensors named without
 * ".onnx". Each file's header is read when the folder is opened; a tensor is read when it is loaded (one at a
 * time). Node only (node:fs).
 *
 * Errors: a path that is not a folder, a folder with no .npy or .onnx file, two files for one name, a meta.json that is not JSON, or a .npy
 * that does not hold exactly one tensor is a SourceError; a file that is not a tensor file is its reader's
 * FormatError.
 */
import { readFile, readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { readFromAny } from "../any.js";
import { fromFile, SourceError } from "../io/source.js";
import type { NamedTensor, TensorInfo } from "../tensor.js";
import { MANIFEST, decodePath } from "./names.js";

/** An opened extract folder: its tensors (lazily loaded) for patch, patchFrom and patchTo. */
export interface TensorFolder {
  /** The folder, as given. */
  readonly dir: string;
  /** Every tensor of the folder (april networks as 1-D uint8 tensors), in the order of their files. */
  tensorInfos(): TensorInfo[];
  /** Reads one tensor (an info tensorInfos() returned) from its file. */
  loadTensor(info: TensorInfo): Promise<NamedTensor>;
  /** The name → file (relative, "/"-separated) of every tensor. */
  readonly files: ReadonlyMap<string, string>;
}

/** Every file under `dir` (relative paths with "/"), sorted. */
async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await visit(path);
      else if (entry.isFile()) out.push(relative(dir, path).split(sep).join("/"));
    }
  };
  await visit(dir);
  return out.sort();
}

interface FolderTensor {
  info: TensorInfo;
  load(): Promise<NamedTensor>;
}

/** One lazily readable tensor file (opened to read its header, closed; reopened to load the tensor). */
async function fileTensor(path: string, name: string): Promise<FolderTensor> {
  const source = await fromFile(path);
  try {
    const opened = await readFromAny(source);
    const infos = opened.tensorInfos();
    if (infos.length !== 1)
      throw new SourceError(`${path} holds ${infos.length} tensors; a folder of weights holds one tensor a file`);
    return {
      info: { ...infos[0]!, name },
      async load() {
        const again = await fromFile(path);
        try {
          const file = await readFromAny(again);
          const tensor = await file.loadTensor(file.tensorInfos()[0]!);
          return { ...tensor, name } as NamedTensor;
        } finally {
          await again.close();
        }
      },
    };
  } finally {
    await source.close();
  }
}

/** The files of `dir` by tensor name: meta.json's "files" for those it lists, else decoded paths. */
async function namedFiles(dir: string, files: readonly string[]): Promise<[string, string][]> {
  // a listed path as the folder holds it (exactly, or in another Unicode normalization, as macOS may give it)
  const onDisk = new Map<string, string>();
  for (const file of files) {
    onDisk.set(file.normalize("NFC"), file);
    onDisk.set(file, file);
  }
  const named: [string, string][] = [];
  if (files.includes(MANIFEST)) {
    let listed: [string, unknown][];
    try {
      const meta = JSON.parse(await readFile(join(dir, MANIFEST), "utf8")) as { files?: unknown };
      listed = meta.files !== null && typeof meta.files === "object" ? Object.entries(meta.files) : [];
    } catch (cause) {
      throw new SourceError(`${join(dir, MANIFEST)} is not the JSON extract writes: ${(cause as Error).message}`, {
        cause,
      });
    }
    for (const [name, file] of listed) {
      const found = typeof file === "string" ? (onDisk.get(file) ?? onDisk.get(file.normalize("NFC"))) : undefined;
      if (found !== undefined && (found.endsWith(".npy") || found.endsWith(".onnx"))) named.push([name, found]);
    }
  }
  const mapped = new Set(named.map(([, f]) => f));
  for (const file of files) {
    if (mapped.has(file)) continue;
    if (file.endsWith(".npy")) named.push([decodePath(file, ".npy"), file]);
    else if (file.endsWith(".onnx") && !file.includes("/")) named.push([file, file]);
  }
  const byName = new Map<string, string>();
  for (const [name, file] of named) {
    const other = byName.get(name);
    if (other !== undefined)
      throw new SourceError(
        `${dir}: both ${other} and ${file} hold the tensor ${JSON.stringify(name)}; remove one (meta.json's "files" says which file holds which name)`,
      );
    byName.set(name, file);
  }
  return named;
}

/**
 * Opens a folder as `tensorfile extract` writes it: `patch(model, await openTensorFolder(dir))` puts its tensors
 * back into the model. See the module comment for what is read and the errors.
 */
export async function openTensorFolder(dir: string): Promise<TensorFolder> {
  if (typeof dir !== "string" || dir === "")
    throw new TypeError("tensorfile: openTensorFolder(dir) takes the path of a folder");
  let listing: string[];
  try {
    listing = await walk(dir);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException)?.code;
    throw new SourceError(
      `${dir}: ${code === "ENOENT" ? "no such folder" : code === "ENOTDIR" ? "not a folder" : ((cause as Error)?.message ?? String(cause))}`,
      { cause },
    );
  }
  const named = await namedFiles(dir, listing);
  const tensors: FolderTensor[] = [];
  const networks: FolderTensor[] = [];
  const files = new Map<string, string>();
  for (const [listedName, file] of named) {
    const path = join(dir, ...file.split("/"));
    files.set(file.endsWith(".onnx") ? listedName.replace(/\.onnx$/, "") : listedName, file);
    if (file.endsWith(".onnx")) {
      const name = listedName.replace(/\.onnx$/, "");
      // april networks: a 1-D uint8 tensor of the ONNX file's bytes (april's patch uses a network given with its
      // own weights only where it differs from the model's)
      const bytes = new Uint8Array(await readFile(path));
      const info: TensorInfo = {
        name,
        dtype: "uint8",
        shape: [bytes.length],
        byteOffset: 0,
        byteLength: bytes.length,
        byteOrder: "le",
        layout: "row-major",
      };
      networks.push({ info, load: async () => ({ name, dtype: "uint8", shape: [bytes.length], data: bytes }) });
    } else {
      tensors.push(await fileTensor(path, listedName));
    }
  }
  const all = [...tensors, ...networks];
  if (all.length === 0) throw new SourceError(`${dir} holds no .npy or .onnx files`);
  const byName = new Map(all.map((t) => [t.info.name, t]));
  return {
    dir,
    files,
    tensorInfos: () => all.map((t) => ({ ...t.info, shape: t.info.shape.slice() })),
    loadTensor: (info: TensorInfo) => {
      const found = byName.get(info?.name);
      if (found === undefined)
        return Promise.reject(new SourceError(`${dir} holds no tensor named ${JSON.stringify(info?.name)}`));
      return found.load();
    },
  };
}
