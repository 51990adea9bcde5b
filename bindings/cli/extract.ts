/**
 * `tensorfile extract FILE DIR [--dtype float32] [--force]`: every tensor as DIR/<name>.npy, every embedded blob as
 * a file, and DIR/meta.json, written in a temporary folder put in place when complete (cli/output.ts).
 */
import type { Command } from "./command.js";
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isFormatError } from "../bytes/errors.js";
import { writeNpyTo, writePiecesTo } from "../export/stream.js";
import type { EmbeddedBlob } from "../formats/types.js";
import { rangeChunks } from "../io/source.js";
import type { DecodeOptions } from "../tensor.js";
import { type CliIO, InputError, UsageError, jsonText, plural, print } from "./common.js";
import { MANIFEST, folderPaths } from "../folder/names.js";
import { firstRepeat } from "../bytes/names.js";
import { lazyTensors, openLazy, readWhole } from "./inputs.js";
import { FOLDER_OUTPUT_RULES, checkOutput, writeAtomically } from "./output.js";
import { Progress } from "./progress.js";
import { npyNamed } from "./tensor-output.js";

export const EXTRACT_HELP = `tensorfile extract FILE DIR [--dtype float32] [--force] [--json]

Writes every tensor as DIR/<name>.npy (a "/" in a name becomes a folder), every embedded blob (april networks,
bw2l data sections, …) as a file, and DIR/meta.json (what "inspect --json" prints, plus "files": which file
holds which tensor or blob; "patch" takes the names from it). File names work on any system and decode back:
"%", "\\", control characters and <>:"|?* are %XX, an empty part is %, "." and ".." are %2E; a part over 200
bytes is cut (~ and a hash); names alike but for case, or too deep for folders, become one file (see docs/cli.md).
Says what it wrote on standard error ("extracted N files and meta.json into DIR").
  --json  print { input, dir, files } on standard output instead (files: meta.json's name -> file)
${FOLDER_OUTPUT_RULES}`;

export const EXTRACT_OPTIONS = {
  dtype: { type: "string" },
  force: { type: "boolean" },
  json: { type: "boolean" },
} as const;

export async function extractCommand(
  io: CliIO,
  args: string[],
  options: { dtype?: string; force?: boolean; json?: boolean },
): Promise<number> {
  if (args.length !== 2) throw new UsageError("extract takes FILE and DIR");
  const [input, dir] = args as [string, string];
  if (options.dtype !== undefined && options.dtype !== "float32")
    throw new UsageError(`--dtype takes float32, not ${options.dtype}`);
  await checkOutput(dir, [input], { force: options.force ?? false, folder: true });
  const decode: DecodeOptions = options.dtype === "float32" ? { dtype: "float32" } : {};
  const opened = await openLazy(input);
  /** [tensor or blob name, file written], for meta.json */
  const files: [string, string][] = [];
  try {
    const infos = opened.module.tensorInfos(opened.file);
    let blobs: EmbeddedBlob[];
    try {
      blobs = opened.module.blobs(opened.file);
    } catch (error) {
      // some containers (SeetaFace6 .csta) can list their blobs only from the whole file
      if (!isFormatError(error) || error.code !== "UNSUPPORTED") throw error;
      blobs = opened.module.blobs(opened.module.read(await readWhole(input)));
    }
    const names = [...infos.map((i) => i.name), ...blobs.map((b) => b.name)];
    const repeated = firstRepeat(names);
    if (repeated !== undefined) {
      throw new InputError(
        `two of ${input}'s tensors or blobs are both named ${JSON.stringify(repeated)}, and meta.json maps each name to one file`,
      );
    }
    const paths = folderPaths([
      ...infos.map((i) => ({ name: i.name, suffix: ".npy" })),
      ...blobs.map((b) => ({ name: b.name, suffix: "" })),
    ]);
    const total =
      infos.reduce((a, i) => a + i.byteLength, 0) +
      blobs.reduce((a, b) => a + (b.bytes instanceof Uint8Array ? b.bytes.length : b.bytes.byteLength), 0);
    await writeAtomically(
      dir,
      async (root) => {
        const progress = new Progress(io.stderr, "extract", total);
        try {
          // plainly stored tensors stream in chunks (flat memory), the others load one at a time
          const lazyFile = npyNamed(lazyTensors(opened, infos));
          for (const [i, info] of infos.entries()) {
            const relative = paths[i]!;
            files.push([info.name, relative]);
            const path = join(root, ...relative.split("/"));
            await mkdirInside(root, relative);
            await writeNpyTo(createWriteStream(path), { file: lazyFile, info, decode });
            progress.advance(info.byteLength, info.name);
          }
          for (const [i, blob] of blobs.entries()) {
            const relative = paths[infos.length + i]!;
            files.push([blob.name, relative]);
            const path = join(root, ...relative.split("/"));
            await mkdirInside(root, relative);
            // a blob still in the file (an april network of hundreds of MB) is copied 16 MiB at a time
            const { bytes } = blob;
            const written =
              bytes instanceof Uint8Array
                ? (await writeFile(path, bytes), bytes.length)
                : await writePiecesTo(
                    createWriteStream(path),
                    [
                      rangeChunks(
                        opened.source,
                        bytes.byteOffset,
                        bytes.byteOffset + bytes.byteLength,
                        16 << 20,
                        opened.format,
                        blob.name,
                      ),
                    ],
                    { caller: "extract" },
                  );
            progress.advance(written, blob.name);
          }
        } finally {
          progress.finish();
        }
        // (Object.fromEntries makes own keys: a name "__proto__" is kept)
        const meta = { ...opened.module.inspect(opened.file), files: Object.fromEntries(files) };
        await writeFile(join(root, MANIFEST), `${jsonText(meta)}\n`);
      },
      { folder: true, force: options.force ?? false },
    );
  } finally {
    await opened.source.close?.();
  }
  if (options.json) print(io.stdout, jsonText({ input, dir, files: Object.fromEntries(files) }));
  else print(io.stderr, `extracted ${plural(files.length, "file")} and meta.json into ${dir}`);
  return 0;
}

/**
 * The folders of `relative` inside `root`, one level at a time: never `root` itself (not recursive), so that an
 * extract interrupted by a signal cannot re-create its temporary folder after the handler removed it.
 */
async function mkdirInside(root: string, relative: string): Promise<void> {
  const parts = relative.split("/").slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    try {
      await mkdir(join(root, ...parts.slice(0, i)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** The `extract` command, as run.ts lists it. */
export const EXTRACT_COMMAND: Command = {
  name: "extract",
  synopsis: "tensorfile extract FILE DIR [--dtype float32] [--force] [--json]",
  help: EXTRACT_HELP,
  options: EXTRACT_OPTIONS,
  inputs: "first",
  inputOptions: "all",
  run: (io, positionals, values) =>
    extractCommand(io, positionals, values as { dtype?: string; force?: boolean; json?: boolean }),
};
