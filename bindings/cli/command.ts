/**
 * What a CLI command is (shared layer, imports no command): one record per command module, from which run.ts
 * derives the usage text, each command's --help, option parsing, the completion lists and dispatch.
 */
import type { OptionTable, ParsedArgs } from "./args.js";
import type { CliIO } from "./common.js";

/** What run.ts hands a command besides its arguments. */
export interface RunContext {
  /** --external-dir DIR, when given (where an ONNX model's external data is read from). */
  externalDir: string | undefined;
  /** Every command, in usage order (for completion scripts). */
  commands: readonly Command[];
}

/** One `tensorfile` command. */
export interface Command {
  /** The word after `tensorfile`. */
  readonly name: string;
  /** Its lines in the usage text (without the two-space indent; continuation lines indented under the name). */
  readonly synopsis: string;
  /** Its `--help` text. */
  readonly help: string;
  /** The options it takes (parseArgs form): its --help lists them, and the parser refuses others. */
  readonly options: OptionTable;
  /**
   * Which positionals are FILEs read ("-" may be named once among them): all of them, or only the first; and
   * which of the options of inputs it takes besides (--timeout, --max-stdin-bytes, --external-dir).
   */
  readonly inputs: "all" | "first" | "none";
  readonly inputOptions: "all" | "stdin" | "none";
  /** Runs the command on what the parser read; returns the exit status (or throws: cli/common.ts reportError). */
  run(io: CliIO, positionals: string[], values: ParsedArgs["values"], context: RunContext): Promise<number>;
}
