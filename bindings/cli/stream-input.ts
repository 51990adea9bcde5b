/**
 * FILE when it is a stream: standard input ("-"), a pipe, a FIFO or a character device (/dev/zero, /dev/urandom,
 * /dev/stdin). A stream has no size to ask for and cannot seek, so it is read whole, but bounded: the format is
 * detected from its first bytes before anything more is read (an endless stream of something that is no model
 * fails at once with "unknown format"), and reading stops with a LIMIT error past a cap (default 2 GiB; the
 * option --max-stdin-bytes or the environment variable TENSORFILE_MAX_STDIN_BYTES changes it).
 */
import { createReadStream } from "node:fs";
import { DETECT_BYTES, detectFormat, unknownFormatError } from "../any.js";
import { LimitError } from "../bytes/errors.js";
import { concatBytes } from "../bytes/input.js";
import { MAX_BYTES_IN_ONE_ARRAY } from "../io/source.js";

/** The most bytes read whole from a stream unless told otherwise: 2 GiB. */
export const DEFAULT_MAX_STREAM_BYTES = 2 * 1024 ** 3;
/** The environment variable that sets the cap when --max-stdin-bytes is not given. */
export const MAX_STREAM_BYTES_ENV = "TENSORFILE_MAX_STDIN_BYTES";

/**
 * A byte count as a person writes it: digits, optionally followed by K, M or G (binary: 1K = 1024 bytes, with or
 * without "iB"/"B"); undefined when it is not one, or is 0 or above what one array holds (4 GiB).
 */
export function parseByteCount(text: string): number | undefined {
  const match = /^\s*(\d{1,13})\s*(?:([kmg])(?:i?b)?|b)?\s*$/i.exec(text);
  if (!match) return undefined;
  const scale = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match[2] ?? "").toLowerCase() as "k" | "m" | "g"] ?? 1;
  const bytes = Number(match[1]) * scale;
  return bytes > 0 && bytes <= MAX_BYTES_IN_ONE_ARRAY ? bytes : undefined;
}

/**
 * Reads a stream whole, at most `maxBytes` bytes. Its first DETECT_BYTES bytes (or all of it, when shorter) must
 * start a known format (unless `anyBytes`: `view` serves any file): otherwise the BAD_MAGIC "unknown format" error
 * is thrown before more is read. A stream
 * longer than `maxBytes` is a LIMIT error, thrown as soon as it passes the cap. The stream is released
 * (destroyed) when reading stops early.
 */
export async function readStreamBounded(
  stream: AsyncIterable<Uint8Array>,
  name: string,
  maxBytes: number,
  anyBytes = false,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let detected = anyBytes;
  const checkFormat = () => {
    const head = concatBytes(chunks).subarray(0, DETECT_BYTES);
    if (detectFormat(head) === undefined) throw unknownFormatError(head);
    detected = true;
  };
  for await (const chunk of stream) {
    if (total + chunk.length > maxBytes) {
      throw new LimitError(
        "tensorfile",
        `${name} is longer than ${maxBytes} bytes, the most read whole from standard input, a pipe or a device (raise it with --max-stdin-bytes N or ${MAX_STREAM_BYTES_ENV}, or save it to a file first)`,
        maxBytes,
        undefined,
        undefined,
        maxBytes,
      );
    }
    chunks.push(chunk);
    total += chunk.length;
    if (!detected && total >= DETECT_BYTES) checkFormat();
  }
  if (!detected) checkFormat();
  return concatBytes(chunks);
}

/** Reads the FIFO or device at `path` whole (see readStreamBounded). */
export function readDeviceBounded(path: string, maxBytes: number, anyBytes = false): Promise<Uint8Array> {
  return readStreamBounded(createReadStream(path) as AsyncIterable<Uint8Array>, path, maxBytes, anyBytes);
}

/**
 * The cap for the command about to run: --max-stdin-bytes when given, else the environment variable, else the
 * default. A value that is not a byte count gives the problem in words (a usage error).
 */
export function maxStreamBytesSetting(
  option: string | boolean | undefined,
  env: string | undefined,
): { bytes: number } | { problem: string } {
  const [given, where] = option !== undefined ? [option, "--max-stdin-bytes"] : [env, MAX_STREAM_BYTES_ENV];
  if (given === undefined || (given === "" && where === MAX_STREAM_BYTES_ENV))
    return { bytes: DEFAULT_MAX_STREAM_BYTES };
  const bytes = typeof given === "string" ? parseByteCount(given) : undefined;
  if (bytes === undefined)
    return {
      problem: `${where} takes a number of bytes from 1 to 4G (a K, M or G suffix counts 1024s), not ${JSON.stringify(given)}`,
    };
  return { bytes };
}
