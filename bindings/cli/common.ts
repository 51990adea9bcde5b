/**
 * The CLI's shared layer for printing and errors (imports no command): the streams a command writes to, the error
 * classes that pick the exit status (UsageError 2, InputError 1, StdoutClosed 141), how an error reads on one line
 * or as JSON, and the small text helpers several commands print with.
 */
import { isFormatError } from "../bytes/errors.js";
import { capabilitiesOf } from "../formats/registry.js";
import type { InspectResult } from "../formats/types.js";
import { SourceError } from "../io/source.js";
import { OutputError, OutputRefused, fsReason } from "./output.js";
import type { ProgressStream } from "./progress.js";

export interface CliIO {
  /** Reports (and with --quiet a stream that drops them: `data` is then where data still goes, see writeStdout). */
  stdout: ProgressStream & { data?: ProgressStream };
  stderr: ProgressStream;
}

export class UsageError extends Error {}
/** The input is bad (exit 1) for a reason that is not a FormatError. */
export class InputError extends Error {}

export function print(stream: ProgressStream, text: string): void {
  stream.write(`${text}\n`);
}

export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

/** How a person reads the version: SPRAAK's is the header kind, the others a number. */
export function versionText(info: InspectResult): string {
  if (info.version === null || info.version === undefined) return "";
  if (typeof info.version === "string" && info.version.startsWith(".")) return ` (${info.version} header)`;
  return ` (version ${info.version})`;
}

export function jsonText(value: unknown, indent = 2): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), indent);
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The one-line message of an error from reading FILE, with a hint where the cause is likely. */
export function errorLine(error: unknown): string {
  const errno = error as NodeJS.ErrnoException;
  // a raw file-system error (EISDIR: illegal operation…): in words, with the path it is about
  if (
    !isFormatError(error) &&
    /^E[A-Z]+$/.test(String(errno?.code ?? "")) &&
    String(errno.message).startsWith(`${errno.code}:`)
  ) {
    return `${typeof errno.path === "string" ? `${errno.path}: ` : ""}${fsReason(error, "input")}`;
  }
  const message = (error as Error)?.message ?? String(error);
  let line = message.startsWith("tensorfile: ") ? message.slice("tensorfile: ".length) : message;
  if (isFormatError(error)) line += capabilitiesOf(error.format)?.errorHint?.(message) ?? "";
  return line;
}

export function isInputError(error: unknown): boolean {
  return (
    isFormatError(error) ||
    error instanceof InputError ||
    error instanceof SourceError ||
    error instanceof OutputError ||
    /^E[A-Z]+$/.test(String((error as NodeJS.ErrnoException)?.code ?? ""))
  );
}

export function errorJson(error: unknown): Record<string, unknown> {
  if (isFormatError(error))
    return { code: error.code, offset: error.offset ?? null, field: error.field ?? null, message: error.message };
  return {
    code: error instanceof SourceError ? "SOURCE" : "INPUT",
    offset: null,
    field: null,
    message: (error as Error)?.message ?? String(error),
  };
}

/** Standard output was closed by its reader while data was streamed to it (exit 141, as for SIGPIPE). */
export class StdoutClosed extends Error {}

/**
 * Writes data to standard output (even with --quiet: the data is the output, not a report), resolving when the
 * chunk is handed over; rejects with StdoutClosed on EPIPE (cli.ts).
 */
export function writeStdout(io: CliIO, bytes: Uint8Array | string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = (io.stdout.data ?? io.stdout) as ProgressStream & {
      write(chunk: Uint8Array | string, callback?: (error?: Error | null) => void): unknown;
    };
    if (stream.write.length >= 2) {
      stream.write(bytes, (error) => {
        if ((error as NodeJS.ErrnoException | null | undefined)?.code === "EPIPE")
          reject(new StdoutClosed("standard output closed"));
        else resolve();
      });
    } else {
      stream.write(typeof bytes === "string" ? bytes : new TextDecoder("latin1").decode(bytes));
      resolve();
    }
  });
}

/**
 * The exit status for an error a command threw, reported on standard error: 141 for a closed standard output,
 * 2 for a usage error or a refused output, 1 for a bad input, and 1 with "internal error:" for anything else (a bug).
 */
export function reportError(io: CliIO, command: string, error: unknown): number {
  if (error instanceof StdoutClosed) return 141;
  if (error instanceof UsageError || error instanceof OutputRefused) {
    print(
      io.stderr,
      `tensorfile: ${error.message}${error instanceof UsageError ? ` (see "tensorfile ${command} --help")` : ""}`,
    );
    return 2;
  }
  if (isInputError(error)) {
    print(io.stderr, `tensorfile: ${errorLine(error)}`);
    return 1;
  }
  print(io.stderr, `tensorfile: internal error: ${(error as Error)?.message ?? String(error)}`);
  return 1;
}
