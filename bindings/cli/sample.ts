/**
 * `tensorfile sample DIR [--force] [--json]`: writes the demo files (bindings/examples.ts: one small file of each
 * format, and the files the README's quick start opens) into DIR, so the README works from the installed package.
 */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exampleFiles, quickStartFiles } from "../examples.js";
import type { Command } from "./command.js";
import { type CliIO, UsageError, jsonText, print } from "./common.js";
import { OutputError, OutputRefused, fsReason } from "./output.js";

export const SAMPLE_HELP = `tensorfile sample DIR [--force] [--json]

Writes small sample files into DIR (created when missing), made with tensorfile's own writers:
  demo.b2l demo.april demo.tsm demo.model demo.trk demo.onnx  one small file of each format it writes
  model.b2l    the model of the README's quick start (what examples/make-model.mjs writes)
  model.april  the april-asr model of the README (a copy of demo.april)
  edit.py      the numpy edit the README's april example runs (python3 edit.py)
Says what it wrote on standard error. Exit 2, writing nothing, when one of the files exists (unless --force).
  --force  overwrite files of these names in DIR
  --json   print { dir, files: [{ name, bytes, description }] } on standard output instead`;

export const SAMPLE_OPTIONS = { force: { type: "boolean" }, json: { type: "boolean" } } as const;

/** Runs `tensorfile sample`; returns the exit status. */
export async function sampleCommand(
  io: CliIO,
  args: string[],
  options: { force?: boolean; json?: boolean },
): Promise<number> {
  if (args.length !== 1 || args[0] === "")
    throw new UsageError("sample takes DIR (the folder to write the sample files into)");
  const dir = args[0]!;
  if (dir === "-") throw new UsageError("sample writes files into a folder, not to standard output");
  const files = [
    ...exampleFiles().map((e) => ({ name: e.name, bytes: e.bytes, description: e.description })),
    ...quickStartFiles(),
  ];
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new OutputError(`cannot create the folder ${dir}: ${fsReason(error)}`);
  }
  if (!options.force) {
    const existing: string[] = [];
    for (const file of files)
      if (
        await stat(join(dir, file.name)).then(
          () => true,
          () => false,
        )
      )
        existing.push(file.name);
    if (existing.length > 0)
      throw new OutputRefused(`${dir} already holds ${existing.join(", ")} (use --force to overwrite)`);
  }
  for (const file of files) {
    try {
      await writeFile(join(dir, file.name), file.bytes);
    } catch (error) {
      throw new OutputError(`cannot write ${join(dir, file.name)}: ${fsReason(error)}`);
    }
  }
  if (options.json)
    print(
      io.stdout,
      jsonText({ dir, files: files.map((f) => ({ name: f.name, bytes: f.bytes.length, description: f.description })) }),
    );
  else print(io.stderr, `wrote ${files.length} sample files into ${dir}: ${files.map((f) => f.name).join(", ")}`);
  return 0;
}

/** The `sample` command, as run.ts lists it. */
export const SAMPLE_COMMAND: Command = {
  name: "sample",
  synopsis: "tensorfile sample DIR [--force] [--json]",
  help: SAMPLE_HELP,
  options: SAMPLE_OPTIONS,
  inputs: "none",
  inputOptions: "none",
  run: (io, positionals, values) => sampleCommand(io, positionals, values as { force?: boolean; json?: boolean }),
};
