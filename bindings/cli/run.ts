/**
 * The `tensorfile` command line: `runCli` only dispatches. It prints the usage, reads a command's options
 * (cli/args.ts), prints its --help, runs it and turns what it throws into the exit status (cli/common.ts:
 * 0 on success, 1 when the input is bad, the error on stderr prefixed "tensorfile: ", 2 on a usage error,
 * 141 when standard output was closed).
 *
 * One module per command: inspect.ts, verify.ts, convert.ts (with batch.ts for --out-dir and tsm-onnx.ts for
 * .onnx), extract.ts, stats.ts, view.ts, patch.ts, diff.ts, edit.ts; each exports its command, its --help text and its
 * options. Under them the shared layer, which imports no command: common.ts (the streams, error classes,
 * error lines, printing, a closed standard output), args.ts (option parsing and usage errors), inputs.ts
 * (FILE as a ByteSource: "-", pipes, URLs, files; picking a tensor), output.ts (outputs put in place safely),
 * tensor-output.ts (tensors streamed to .safetensors/.npy), progress.ts, warnings.ts. Nothing imports run.ts
 * but cli.ts.
 */
import { closestNames } from "../any.js";
import { VERSION } from "../version.js";
import { type OptionTable, parseCommandArgs, takeExternalDir, takeTimeout } from "./args.js";
import { type CliIO, InputError, UsageError, print, reportError } from "./common.js";
import { CONVERT_HELP, CONVERT_OPTIONS, type ConvertOptions, convertCommand } from "./convert.js";
import { DIFF_HELP, DIFF_OPTIONS, type DiffCommandOptions, diffCommand } from "./diff.js";
import { EDIT_HELP, EDIT_OPTIONS, type EditCommandOptions, editCommand } from "./edit.js";
import { EXTRACT_HELP, EXTRACT_OPTIONS, extractCommand } from "./extract.js";
import { openLazy, openSource, setExternalDir, setMaxStreamBytes, setUrlIdleTimeout } from "./inputs.js";
import { INSPECT_HELP, INSPECT_OPTIONS, inspectCommand } from "./inspect.js";
import { PATCH_HELP, PATCH_OPTIONS, type PatchCommandOptions, patchCommand } from "./patch.js";
import { COMPLETION_HELP, COMPLETION_OPTIONS, completionCommand } from "./completion.js";
import { SHOW_HELP, SHOW_OPTIONS, type ShowCommandOptions, showCommand } from "./show.js";
import { maxStreamBytesSetting } from "./stream-input.js";
import { STATS_HELP, STATS_OPTIONS, type StatsCommandOptions, statsFiles } from "./stats.js";
import { VERIFY_HELP, VERIFY_OPTIONS, verifyCommand } from "./verify.js";
import { VIEW_HELP, VIEW_OPTIONS, type ViewCommandOptions, viewCommand } from "./view.js";

export type { CliIO } from "./common.js";

const USAGE = `Usage:
  tensorfile inspect FILE… [--json] [--full]
  tensorfile verify FILE… [--strict] [--json]
  tensorfile convert IN OUT [--dtype float32] [--quantize fp16|i8] [--tensor NAME] [--force]
  tensorfile convert IN.onnx|IN.april OUT --quantize fp16|bf16|i8 [--keep-io true|false] [--check] [--json]
  tensorfile convert MODEL.tsm|MODEL.csta OUT.onnx [--opset N] [--input NAME=DTYPE[:SHAPE]] [--force]
  tensorfile convert --out-dir DIR --to safetensors|npy FILE… [-j N] [--dtype float32] [--force]
  tensorfile extract FILE DIR [--dtype float32] [--force]
  tensorfile stats FILE… [--tensor NAME] [--json]
  tensorfile view [FILE…] [--port N] [--open]
  tensorfile patch MODEL WEIGHTS OUT [--partial] [--force] [--tensor NAME] [--inline-external]
  tensorfile diff A B [--atol X] [--rtol Y] [--only-different] [--quiet] [--json]
  tensorfile edit MODEL OUT [--set-meta KEY=VALUE]… [--delete-meta KEY]… [--rename OLD=NEW]… [--shape NAME=DIMS]…
                  [--set FIELD=VALUE]… [--json] [--force]
  tensorfile show FILE TENSOR [--slice SPEC] [--head N] [--json]
  tensorfile completion bash|zsh|fish

FILE may be "-" (standard input), a pipe or device (read whole, at most 2 GiB: --max-stdin-bytes N changes it; its
first bytes must start a known format), or an http(s) URL (read with Range requests; every command reading files
takes --timeout SECONDS: a URL that sends nothing, or under 1 KiB/s, for that long fails, default 30).
An ONNX model's external data is read from the folder of its path (a regular file); for "-", a pipe or a URL,
or to look elsewhere, every command reading files but view takes --external-dir DIR.
Formats: bw2l (.b2l), april (.april), tsm (.tsm, SeetaFace6 .csta), primitiv, spraak (.spr .trk .sam .cor .seg .key), onnx (.onnx);
read only: safetensors, npy, npz, onnx-tensor (an ONNX TensorProto .pb, as in ONNX test data).
Run "tensorfile help COMMAND" (or "tensorfile COMMAND --help") for one command; "tensorfile --version" for the version.`;

/** The options each command takes (parseArgs form) — one table for parsing, "did you mean" and help. */
const OPTIONS = {
  inspect: INSPECT_OPTIONS,
  verify: VERIFY_OPTIONS,
  convert: CONVERT_OPTIONS,
  extract: EXTRACT_OPTIONS,
  stats: STATS_OPTIONS,
  view: VIEW_OPTIONS,
  patch: PATCH_OPTIONS,
  diff: DIFF_OPTIONS,
  edit: EDIT_OPTIONS,
  show: SHOW_OPTIONS,
  completion: COMPLETION_OPTIONS,
} as const satisfies Record<string, Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }>>;

type CommandName = keyof typeof OPTIONS;
/**
 * Taken by every command that reads FILEs: the time limits of http(s) inputs, the cap on streams read whole, the
 * folder of ONNX external data.
 */
const URL_OPTIONS = { timeout: { type: "string" }, "max-stdin-bytes": { type: "string" }, "external-dir": { type: "string" } } as const;

const HELP: Record<CommandName, string> = {
  inspect: INSPECT_HELP,
  verify: VERIFY_HELP,
  convert: CONVERT_HELP,
  extract: EXTRACT_HELP,
  stats: STATS_HELP,
  view: VIEW_HELP,
  patch: PATCH_HELP,
  diff: DIFF_HELP,
  edit: EDIT_HELP,
  show: SHOW_HELP,
  completion: COMPLETION_HELP,
};

/** Runs the CLI; returns the exit status. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "help" && rest.length > 0) return runCli([rest[0]!, "--help"], io); // help CMD = CMD --help
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    print(command === undefined ? io.stderr : io.stdout, USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version") {
    print(io.stdout, `tensorfile ${VERSION}`);
    return 0;
  }
  if (!Object.hasOwn(OPTIONS, command)) { // ("toString" is no command)
    const [close] = closestNames(command, Object.keys(OPTIONS), 1);
    print(io.stderr, `tensorfile: unknown command "${command}"${close ? ` (did you mean "${close}"?)` : ""}; run "tensorfile --help" for the commands`);
    return 2;
  }
  const name = command as CommandName;
  const urlOptions: OptionTable = name === "completion" ? {} : name === "view" ? { "max-stdin-bytes": URL_OPTIONS["max-stdin-bytes"] } : URL_OPTIONS;
  const parsed = parseCommandArgs(io, name, OPTIONS[name], rest, urlOptions);
  if (parsed === undefined) return 2;
  const { values, positionals } = parsed;
  if (values.help) {
    print(io.stdout, HELP[name]);
    return 0;
  }
  setUrlIdleTimeout(undefined);
  const timeout = takeTimeout(io, name, values);
  if (timeout === null) return 2;
  setUrlIdleTimeout(timeout);
  const streamCap = maxStreamBytesSetting(values["max-stdin-bytes"] as string | undefined, process.env.TENSORFILE_MAX_STDIN_BYTES);
  if ("problem" in streamCap) {
    print(io.stderr, `tensorfile: ${streamCap.problem} (see "tensorfile ${name} --help")`);
    return 2;
  }
  delete values["max-stdin-bytes"];
  setMaxStreamBytes(streamCap.bytes);
  setExternalDir(undefined);
  const externalDir = takeExternalDir(io, name, values);
  if (externalDir === null) return 2;
  setExternalDir(externalDir);
  const inputs = name === "inspect" || name === "verify" || name === "view" || name === "stats" ? positionals : positionals.slice(0, 1);
  if (inputs.filter((p) => p === "-").length > 1) {
    print(io.stderr, `tensorfile: "-" (standard input) can be named only once`);
    return 2;
  }
  try {
    switch (name) {
      case "inspect":
        return await inspectCommand(io, positionals, values as { json?: boolean; full?: boolean });
      case "convert":
        return await convertCommand(io, positionals, values as ConvertOptions);
      case "extract":
        return await extractCommand(io, positionals, values as { dtype?: string; force?: boolean });
      case "verify":
        return await verifyCommand(io, positionals, values as { strict?: boolean; json?: boolean });
      case "stats":
        return await statsFiles(io, positionals, values as StatsCommandOptions);
      case "view":
        return await viewCommand(io, positionals, values as ViewCommandOptions);
      case "patch":
        return await patchCommand({ ...io, openSource, externalDir, usageError: (m) => new UsageError(m), inputError: (m) => new InputError(m) }, positionals, values as PatchCommandOptions);
      case "diff":
        return await diffCommand({ ...io, openLazy, usageError: (m) => new UsageError(m) }, positionals, values as DiffCommandOptions);
      case "edit":
        return await editCommand(io, positionals, values as EditCommandOptions);
      case "show":
        return await showCommand(io, positionals, values as ShowCommandOptions);
      case "completion": {
        const commands = Object.fromEntries(Object.entries(OPTIONS).map(([command, options]) => [command, Object.keys(options)]));
        return await completionCommand(io, positionals, values as { tensors?: string }, commands);
      }
    }
  } catch (error) {
    return reportError(io, name, error);
  }
}
