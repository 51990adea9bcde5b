/**
 * The `tensorfile` command line: `runCli` only dispatches. It prints the usage, reads a command's options
 * (cli/args.ts), prints its --help, runs it and turns what it throws into the exit status (cli/common.ts:
 * 0 on success, 1 when the input is bad, the error on stderr prefixed "tensorfile: ", 2 on a usage error,
 * 141 when standard output was closed).
 *
 * One module per command: inspect.ts, verify.ts, convert.ts (with batch.ts for --out-dir and tsm-onnx.ts for
 * .onnx), extract.ts, stats.ts, view.ts, patch.ts, diff.ts, edit.ts, show.ts, completion.ts; each exports one
 * Command record (cli/command.ts: name, synopsis, help, options, run), and COMMANDS below is the one list the
 * usage text, --help, option parsing, the completion scripts and dispatch are derived from. Under them the shared
 * layer, which imports no command: common.ts (the streams, error classes, error lines, printing, a closed
 * standard output), args.ts (option parsing and usage errors), inputs.ts (FILE as a ByteSource: "-", pipes, URLs,
 * files; picking a tensor), output.ts (outputs put in place safely), tensor-output.ts (tensors streamed to
 * .safetensors/.npy), progress.ts, warnings.ts. Nothing imports run.ts but cli.ts.
 */
import { closestNames } from "../any.js";
import { VERSION } from "../version.js";
import { type OptionTable, parseCommandArgs, takeExternalDir, takeTimeout } from "./args.js";
import type { Command } from "./command.js";
import { type CliIO, print, reportError } from "./common.js";
import { COMPLETION_COMMAND } from "./completion.js";
import { CONVERT_COMMAND } from "./convert.js";
import { DIFF_COMMAND } from "./diff.js";
import { EDIT_COMMAND } from "./edit.js";
import { EXTRACT_COMMAND } from "./extract.js";
import { setExternalDir, setMaxStreamBytes, setUrlIdleTimeout, withoutExternalData } from "./inputs.js";
import { INSPECT_COMMAND } from "./inspect.js";
import { PATCH_COMMAND } from "./patch.js";
import { SAMPLE_COMMAND } from "./sample.js";
import { SHOW_COMMAND } from "./show.js";
import { maxStreamBytesSetting } from "./stream-input.js";
import { STATS_COMMAND } from "./stats.js";
import { VERIFY_COMMAND } from "./verify.js";
import { VIEW_COMMAND } from "./view.js";

export type { CliIO } from "./common.js";

/** Every command, in the order the usage lists them: the one list usage, help, parsing, completion and dispatch come from. */
const COMMANDS: readonly Command[] = [
  INSPECT_COMMAND,
  VERIFY_COMMAND,
  CONVERT_COMMAND,
  EXTRACT_COMMAND,
  STATS_COMMAND,
  VIEW_COMMAND,
  PATCH_COMMAND,
  DIFF_COMMAND,
  EDIT_COMMAND,
  SHOW_COMMAND,
  SAMPLE_COMMAND,
  COMPLETION_COMMAND,
];

const USAGE = `Usage:
${COMMANDS.map((command) =>
  command.synopsis
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n"),
).join("\n")}

FILE may be "-" (standard input), a pipe or device (read whole, at most 2 GiB: --max-stdin-bytes N changes it; its
first bytes must start a known format), or an http(s) URL (read with Range requests; every command reading files
takes --timeout SECONDS: a URL that sends nothing, or under 1 KiB/s, for that long fails, default 30).
An ONNX model's external data is read from the folder of its path (a regular file); for "-", a pipe or a URL,
or to look elsewhere, every command reading files but view takes --external-dir DIR.
Formats: bw2l (.b2l), april (.april), tsm (.tsm, SeetaFace6 .csta), primitiv, spraak (.spr .trk .sam .cor .seg .key), onnx (.onnx);
read only: safetensors, npy, npz, onnx-tensor (an ONNX TensorProto .pb, as in ONNX test data).
Every command but completion takes --quiet (print only errors); the commands that report take --json.
Run "tensorfile help COMMAND" (or "tensorfile COMMAND --help") for one command; "tensorfile --version" for the version.`;

/**
 * Taken by every command that reads FILEs: the time limits of http(s) inputs, the cap on streams read whole, the
 * folder of ONNX external data.
 */
const URL_OPTIONS = {
  timeout: { type: "string" },
  "max-stdin-bytes": { type: "string" },
  "external-dir": { type: "string" },
} as const;
const INPUT_OPTIONS: Record<Command["inputOptions"], OptionTable> = {
  all: URL_OPTIONS,
  stdin: { "max-stdin-bytes": URL_OPTIONS["max-stdin-bytes"] },
  none: {},
};

/** --quiet, taken by every command but completion (diff has its own: exit status only). */
const QUIET_OPTION = { quiet: { type: "boolean" } } as const;
/** The line run.ts adds to the --help of the commands it gives --quiet. */
const QUIET_HELP = "  --quiet  print nothing but errors (on standard error); the exit status says how it went";

/** Whether run.ts gives `command` --quiet (diff and completion: no). */
function takesQuiet(command: Command): boolean {
  return command.name !== "completion" && !Object.hasOwn(command.options, "quiet");
}

/** A command's --help: its record's, with the --quiet line when run.ts gives it --quiet. */
function helpOf(command: Command): string {
  return takesQuiet(command) ? `${command.help}\n${QUIET_HELP}` : command.help;
}

/**
 * The streams of a --quiet run: standard output and standard error swallowed but for error lines ("tensorfile: "
 * lines that are not warnings); data a command streams to standard output (convert OUT "-") still goes out.
 */
function quietIO(io: CliIO): CliIO {
  const errorsOnly = (text: string) => {
    const lines = String(text)
      .split(/(?<=\n)/)
      .filter((line) => line.startsWith("tensorfile: ") && !/^tensorfile: (?:.*?: )?warning: /.test(line));
    if (lines.length > 0) io.stderr.write(lines.join(""));
    return true;
  };
  return { stdout: { isTTY: false, write: () => true, data: io.stdout }, stderr: { isTTY: false, write: errorsOnly } };
}

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
  const found = COMMANDS.find((c) => c.name === command); // ("toString" is no command)
  if (found === undefined) {
    const [close] = closestNames(
      command,
      COMMANDS.map((c) => c.name),
      1,
    );
    print(
      io.stderr,
      `tensorfile: unknown command "${command}"${close ? ` (did you mean "${close}"?)` : ""}; run "tensorfile --help" for the commands`,
    );
    return 2;
  }
  const name = found.name;
  const parsed = parseCommandArgs(io, name, found.options, rest, {
    ...INPUT_OPTIONS[found.inputOptions],
    ...(takesQuiet(found) ? QUIET_OPTION : {}),
  });
  if (parsed === undefined) return 2;
  const { values, positionals } = parsed;
  if (values.help) {
    print(io.stdout, helpOf(found));
    return 0;
  }
  setUrlIdleTimeout(undefined);
  const timeout = takeTimeout(io, name, values);
  if (timeout === null) return 2;
  setUrlIdleTimeout(timeout);
  const streamCap = maxStreamBytesSetting(
    values["max-stdin-bytes"] as string | undefined,
    process.env.TENSORFILE_MAX_STDIN_BYTES,
  );
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
  const inputs = found.inputs === "all" ? positionals : found.inputs === "first" ? positionals.slice(0, 1) : [];
  if (externalDir !== undefined) {
    // diff reads A and B, convert --out-dir every FILE; every other "first" command its first FILE only
    const read =
      name === "diff"
        ? positionals.slice(0, 2)
        : name === "convert" && values["out-dir"] !== undefined
          ? positionals
          : inputs;
    const noExternal = await withoutExternalData(read);
    if (noExternal) {
      print(
        io.stderr,
        `tensorfile: --external-dir is where an ONNX model's external data is read from, and ${noExternal.path} is a ${noExternal.format} file (no external data): leave it out (see "tensorfile ${name} --help")`,
      );
      return 2;
    }
  }
  if (inputs.filter((p) => p === "-").length > 1) {
    print(io.stderr, `tensorfile: "-" (standard input) can be named only once`);
    return 2;
  }
  const quiet = takesQuiet(found) && values.quiet === true;
  if (takesQuiet(found)) delete values.quiet;
  if (quiet && values.json === true) {
    print(
      io.stderr,
      `tensorfile: --quiet prints nothing and --json prints a report: give one of them (see "tensorfile ${name} --help")`,
    );
    return 2;
  }
  try {
    return await found.run(quiet ? quietIO(io) : io, positionals, values, { externalDir, commands: COMMANDS });
  } catch (error) {
    return reportError(io, name, error);
  }
}
