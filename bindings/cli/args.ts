/**
 * The CLI's argument parsing (imports no command): a command's options read with node:util's parseArgs, and
 * every complaint turned into a usage error in our words (an unknown option with a "did you mean", a missing or
 * unexpected value) on standard error, exit 2.
 */
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import { closestNames, editDistance } from "../bytes/names.js";
import { type CliIO, print } from "./common.js";

/** The options a command takes, in parseArgs form. */
export type OptionTable = Readonly<
  Record<string, { readonly type: "boolean" | "string"; readonly short?: string; readonly multiple?: boolean }>
>;

/** What parseCommandArgs read: option values by name, and the positionals. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * The arguments of command `name` (which takes `options`, `unlisted` ones such as --timeout, and --help/-h);
 * undefined when they cannot be read, after the reason was printed on standard error (exit 2). An unknown option's
 * message lists `options` only.
 */
export function parseCommandArgs(
  io: CliIO,
  name: string,
  options: OptionTable,
  rest: string[],
  unlisted: OptionTable = {},
): ParsedArgs | undefined {
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...options, ...unlisted, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    }) as { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (unknown) {
      const known = Object.keys(options).map((o) => `--${o}`);
      const [close] = closestNames(unknown.replace(/^-+/, "--"), known, 1);
      const hint = close && levenshteinClose(unknown.replace(/^-+/, "--"), close) ? `: did you mean ${close}?` : "";
      print(
        io.stderr,
        `tensorfile: ${name} does not take ${unknown}${hint} (it takes ${known.join(", ") || "no options"}; see "tensorfile ${name} --help")`,
      );
    } else {
      print(io.stderr, `tensorfile: ${optionProblem(message, rest)} (see "tensorfile ${name} --help")`);
    }
    return undefined;
  }
  return { values, positionals };
}

/**
 * --timeout SECONDS (the idle timeout of URL inputs) in milliseconds, taken out of `values`: undefined when not
 * given, null when it is not a number of seconds > 0 (the reason printed on standard error: exit 2).
 */
export function takeTimeout(io: CliIO, name: string, values: ParsedArgs["values"]): number | undefined | null {
  if (values.timeout === undefined) return undefined;
  const seconds = Number(values.timeout);
  if (
    typeof values.timeout !== "string" ||
    !/^\s*\d*\.?\d+\s*$/.test(values.timeout) ||
    !(seconds > 0) ||
    seconds > 2_000_000
  ) {
    print(
      io.stderr,
      `tensorfile: --timeout takes a number of seconds > 0 (for URL inputs), not ${JSON.stringify(values.timeout)} (see "tensorfile ${name} --help")`,
    );
    return null;
  }
  delete values.timeout;
  return seconds * 1000;
}

/**
 * --external-dir DIR (the folder of ONNX external data), taken out of `values`: undefined when not given, null when
 * DIR is not a folder (the reason printed on standard error: exit 2).
 */
export function takeExternalDir(io: CliIO, name: string, values: ParsedArgs["values"]): string | undefined | null {
  const dir = values["external-dir"];
  if (dir === undefined) return undefined;
  delete values["external-dir"];
  let isFolder: boolean;
  try {
    isFolder = typeof dir === "string" && dir !== "" && statSync(dir).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) {
    print(
      io.stderr,
      `tensorfile: --external-dir takes a folder (where an ONNX model's external data files are), and ${JSON.stringify(dir)} is not one (see "tensorfile ${name} --help")`,
    );
    return null;
  }
  return dir as string;
}

/** A parseArgs complaint about an option's value, in our words (the raw text only for a case not foreseen). */
function optionProblem(message: string, args: readonly string[]): string {
  const option = /Option '(?:-\w, )?(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (option === undefined) return `cannot read the options: ${message.replace(/\s+/g, " ")}`;
  if (/does not take an argument/.test(message)) return `${option} takes no value (write just ${option})`;
  if (/ambiguous/.test(message)) {
    const at = args.findIndex((a) => a === option || /^-\w$/.test(a));
    const next = at >= 0 ? args[at + 1] : undefined;
    return `${option} needs a value${next !== undefined ? `, and "${next}" after it looks like an option: write ${option}=${next} for a value that starts with "-"` : ""}`;
  }
  if (/argument missing/.test(message)) return `${option} needs a value (${option} VALUE)`;
  return `${option}: ${message.replace(/^Option '[^']*'\s*/, "").replace(/\s+/g, " ")}`;
}

/** Small enough an edit to suggest (at most a third of the word, and at most 3). */
function levenshteinClose(a: string, b: string): boolean {
  return editDistance(a, b) <= Math.min(3, Math.max(1, Math.floor(b.length / 3)));
}
