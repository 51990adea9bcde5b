/**
 * ByteSource: random access to a file that is not (or need not be) in memory. Readers' `readFrom` parse
 * headers through it with a few small range reads; `loadTensor` reads one tensor's range.
 *
 * - fromBytes(bytes): a Uint8Array already in memory
 * - fromBlob(blob): a browser File/Blob, or Node's fs.openAsBlob(path)
 * - fromFile(path): Node/Deno, a file handle; reads only the ranges asked for (no 2 GB readFile limit)
 * - fromUrl(url, { fetch, headers, idleTimeoutMs, minBytesPerSecond, ifRange }): HTTP Range requests; the size comes
 *   from Content-Range; one version of the file (ETag/Last-Modified, If-Range) and a least body rate (url-checks.ts)
 */
import { LimitError, TruncatedError } from "../bytes/errors.js";
import { markRegularFile } from "./regular-file.js";
import { asBytes, bytesOrUndefined } from "../bytes/input.js";
import { type FileKind, notRegularFile } from "./file-kind.js";
import { DEFAULT_URL_MIN_BYTES_PER_SECOND, ProgressWatch, VersionCheck } from "./url-checks.js";

/**
 * Random access to a file that is not (or need not be) in memory: what `readFrom`, {@link readFromAny} and
 * `loadTensor` read through. Made by {@link fromBytes}, {@link fromBlob}, {@link fromFile} and {@link fromUrl}, or
 * by hand.
 */
export interface ByteSource {
  /** Total size in bytes, when known (fromUrl learns it from its first response). */
  size?: number | undefined;
  /** Bytes [offset, offset + length); fewer only at the end of the source. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /**
   * The same bytes as read(), synchronously, for sources that can (local files opened by openFile/loadFile).
   * Optional; when present, header parsers read through it in one pass instead of fetching and re-parsing.
   */
  readSync?(offset: number, length: number): Uint8Array;
  /** Releases what the source holds open (a file handle). Optional. */
  close?(): Promise<void>;
  /**
   * Optional: reads bytes [offset, offset + target.length) into `target` (no new memory: a caller can reuse one
   * buffer, or read straight into WebAssembly memory). Returns how many bytes were read (fewer only at the end).
   */
  readInto?(target: Uint8Array, offset: number): Promise<number>;
  /** A name for messages (a path or URL). */
  readonly name?: string | undefined;
}

/** A source failed for a reason other than the file's content: a network error, an HTTP status, I/O. */
export class SourceError extends Error {
  /** The class's name. */
  override name = "SourceError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(`tensorfile: ${message}`, options);
  }
}

/** A source over bytes already in memory (nothing is copied). */
export function fromBytes(input: Uint8Array | ArrayBuffer, name?: string): ByteSource {
  const bytes = asBytes(input, "fromBytes");
  return {
    size: bytes.byteLength,
    name,
    read: async (offset, length) =>
      bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length)),
    readInto: async (target, offset) => {
      const part = bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + target.length, bytes.length));
      target.set(part);
      return part.length;
    },
  };
}

/** A source over a browser `File` or `Blob` (or Node's `fs.openAsBlob(path)`): each read is one `Blob.slice()`. */
export function fromBlob(blob: Blob, name?: string): ByteSource {
  return {
    size: blob.size,
    name: name ?? (blob as { name?: string }).name,
    read: async (offset, length) => {
      try {
        return new Uint8Array(await blob.slice(offset, Math.min(offset + length, blob.size)).arrayBuffer());
      } catch (cause) {
        throw new SourceError(
          `cannot read bytes ${offset}..${offset + length} of ${name ?? "blob"}: ${String(cause)}`,
          { cause },
        );
      }
    },
  };
}

/** Largest single read of a file handle (Node aborts on lengths of 2 GiB and more). */
const MAX_READ = 1 << 30;

interface FileHandleLike {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/** What fromFile takes a path it cannot stat for: a file, so that opening it reports what is wrong. */
const STAT_FAILED: FileKind = {
  isFile: () => true,
  isDirectory: () => false,
  isFIFO: () => false,
  isCharacterDevice: () => false,
  isBlockDevice: () => false,
  isSocket: () => false,
};

/**
 * A file on disk (Node, Deno). Reads ranges through one file handle; call `close()` when done. The size is
 * read once: a file that shrinks afterwards gives TRUNCATED errors, one that changes size a SourceError.
 */
export async function fromFile(path: string): Promise<
  ByteSource & {
    /** The file's size in bytes, read when it was opened. */
    size: number;
    /** Closes the file handle; reads fail afterwards. */
    close(): Promise<void>;
  }
> {
  if (typeof path !== "string" && !((path as unknown) instanceof URL)) {
    throw new TypeError(
      `tensorfile: fromFile() takes a path (a string), not ${path === null ? "null" : typeof path}; for bytes in memory use fromBytes(), for a browser File fromBlob()`,
    );
  }
  let fs: { open(path: string, flags: string): Promise<FileHandleLike>; stat(path: string): Promise<FileKind> };
  try {
    // the specifier is a variable so that browser bundlers (esbuild, Vite, Rollup) leave this Node-only import
    // alone instead of failing to resolve it: in a browser it fails here, at run time, with the message below
    const specifier = "node:fs/promises";
    fs = (await import(/* @vite-ignore */ specifier)) as typeof fs;
  } catch (cause) {
    throw new SourceError(
      "fromFile() needs a file system (Node or Deno); in a browser use fromBlob(file) for a picked or dropped File, or fromUrl(url)",
      { cause },
    );
  }
  // (before opening: opening a FIFO waits for a writer; a missing file is reported by open below)
  const notRegular = notRegularFile(await fs.stat(path).catch((): FileKind => STAT_FAILED));
  if (notRegular) throw new SourceError(`cannot open ${path}: ${notRegular}`);
  let handle: FileHandleLike;
  try {
    handle = await fs.open(path, "r");
  } catch (cause) {
    throw new SourceError(`cannot open ${path}: ${(cause as Error).message ?? String(cause)}`, { cause });
  }
  const stats = (await handle.stat()) as { size: number; isDirectory?(): boolean; isFile?(): boolean };
  if (stats.isDirectory?.()) {
    await handle.close();
    throw new SourceError(`cannot open ${path}: it is a directory, not a file`);
  }
  const size = stats.size;
  const source = {
    size,
    name: path,
    async read(offset, length) {
      const n = Math.max(0, Math.min(length, size - offset));
      const out = new Uint8Array(n);
      let done = 0;
      while (done < n) {
        let bytesRead: number;
        try {
          ({ bytesRead } = await handle.read(out, done, Math.min(n - done, MAX_READ), offset + done));
        } catch (cause) {
          throw new SourceError(`cannot read bytes ${offset}..${offset + n} of ${path}: ${String(cause)}`, { cause });
        }
        if (bytesRead === 0) break; // the file shrank: the caller sees a short read
        done += bytesRead;
      }
      return done === n ? out : out.subarray(0, done);
    },
    async readInto(target, offset) {
      const n = Math.max(0, Math.min(target.length, size - offset));
      let done = 0;
      while (done < n) {
        let bytesRead: number;
        try {
          ({ bytesRead } = await handle.read(target, done, Math.min(n - done, MAX_READ), offset + done));
        } catch (cause) {
          throw new SourceError(`cannot read bytes ${offset}..${offset + n} of ${path}: ${String(cause)}`, { cause });
        }
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done;
    },
    close: () => handle.close(),
  } satisfies ByteSource;
  // fstat of the opened handle said "a regular file": its folder holds the model's external data (io/regular-file.ts)
  return stats.isFile?.() ? markRegularFile(source, path) : source;
}

/** Options of {@link fromUrl}. */
export interface UrlSourceOptions {
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof globalThis.fetch | undefined;
  /** Extra request headers (an `Authorization` header, say). */
  headers?: Record<string, string> | undefined;
  /**
   * Milliseconds to wait for a response to start, and then for each next piece of its body; past that the read
   * fails with a SourceError and the request is aborted (a stalled server). Default 30,000 (30 s,
   * DEFAULT_URL_IDLE_TIMEOUT_MS); 0 or Infinity waits forever. It also bounds a trickle: see minBytesPerSecond.
   */
  idleTimeoutMs?: number | undefined;
  /**
   * The least rate of a response body, in bytes per second averaged over each window of `idleTimeoutMs`: a window
   * that brings fewer (and fewer than the bytes still wanted) fails the read with a SourceError. Default 1024
   * (DEFAULT_URL_MIN_BYTES_PER_SECOND); 0: any byte is progress.
   */
  minBytesPerSecond?: number | undefined;
  /**
   * Send `If-Range` with the validator (ETag or Last-Modified) of the first response on every later request, so
   * that a server whose file changed answers with the new file instead of a range of it (detected: a
   * SourceError). Default true, but false in a browser, where the header makes cross-origin requests need a CORS
   * preflight that many servers refuse. Responses' validators are compared in either case.
   */
  ifRange?: boolean | undefined;
}

/** The most bytes one Uint8Array holds in JavaScript engines (V8: 2^32); readExactly refuses more with LIMIT. */
export const MAX_BYTES_IN_ONE_ARRAY = 2 ** 32;

/** fromUrl's default idle timeout: 30 s without a byte arriving fails the read. */
export const DEFAULT_URL_IDLE_TIMEOUT_MS = 30_000;
/**
 * A server that ignores Range answers 200 with the whole file: the first bytes of such a body, up to this many,
 * are kept so that the many small header reads near the start do not download them again (a file that declares
 * no more than this is kept whole).
 */
const URL_PREFIX_CACHE_BYTES = 16 << 20;

/**
 * A file over HTTP(S) read with `Range` requests. The size comes from the first response's Content-Range.
 * Every read checks that the file is the version the first response showed (ETag, Last-Modified, sent back as
 * `If-Range`; see io/url-checks.ts): a file that changes between reads is a SourceError naming the URL, never a
 * model mixed from two versions.
 * Each read takes in only the bytes it asked for (plus at most the network's last chunk, whose rest is dropped
 * with the body cancelled): a server that ignores Range (200 with the whole body, even an endless one) still
 * works, read from the start up to the end of the asked range and no further. A response that stalls for
 * `idleTimeoutMs`, ends early, or states sizes that cannot be (a Content-Range that is not the asked range,
 * totals that are negative, not numbers, beyond 2^53 or that change, a Content-Length that disagrees) fails the
 * read with a SourceError.
 */
export function fromUrl(url: string | URL, options: UrlSourceOptions = {}): ByteSource {
  const doFetch = options.fetch ?? globalThis.fetch;
  const href = String(url);
  const idleMs = options.idleTimeoutMs ?? DEFAULT_URL_IDLE_TIMEOUT_MS;
  if (typeof idleMs !== "number" || Number.isNaN(idleMs) || idleMs < 0) {
    throw new TypeError(
      `tensorfile: fromUrl()'s idleTimeoutMs is a number of milliseconds >= 0 (0: no timeout), not ${String(idleMs)}`,
    );
  }
  const minRate = options.minBytesPerSecond ?? DEFAULT_URL_MIN_BYTES_PER_SECOND;
  if (typeof minRate !== "number" || !(minRate >= 0) || minRate === Infinity) {
    throw new TypeError(
      `tensorfile: fromUrl()'s minBytesPerSecond is a number >= 0 (0: no least rate), not ${String(minRate)}`,
    );
  }
  const versions = new VersionCheck(
    href,
    options.ifRange ?? (globalThis as { document?: unknown }).document === undefined,
    (message) => new SourceError(message),
  );
  /** The first bytes of the file, from a 200 answer; `complete` when they are the whole file. */
  let prefix: { bytes: Uint8Array; complete: boolean } | undefined;
  const learnSize = (total: number, what: string): void => {
    if (source.size !== undefined && total !== source.size) {
      throw new SourceError(`${href} changed size from ${source.size} to ${total} bytes while being read (${what})`);
    }
    source.size = total;
  };
  const source: ByteSource = {
    size: undefined,
    name: href,
    async read(offset, length) {
      if (!Number.isSafeInteger(offset) || offset < 0 || !(length >= 0)) {
        throw new SourceError(`cannot read bytes ${offset}..${offset + length} of ${href}: not a range of a file`);
      }
      if (source.size !== undefined) length = Math.max(0, Math.min(length, source.size - offset));
      if (length === 0) return new Uint8Array(0);
      if (!Number.isSafeInteger(offset + length)) length = Number.MAX_SAFE_INTEGER - offset;
      if (prefix && (prefix.complete || offset + length <= prefix.bytes.length)) {
        return prefix.bytes.slice(
          Math.min(offset, prefix.bytes.length),
          Math.min(offset + length, prefix.bytes.length),
        );
      }
      const abort = new AbortController();
      const what = `bytes ${offset}..${offset + length} of ${href}`;
      let response: Response;
      const ifRange = versions.ifRange();
      const headers: Record<string, string> = {
        ...options.headers,
        Range: `bytes=${offset}-${offset + length - 1}`,
        ...(ifRange === undefined ? {} : { "If-Range": ifRange }),
      };
      try {
        response = await idle(doFetch(href, { headers, signal: abort.signal }), idleMs, abort, `no answer for ${what}`);
      } catch (cause) {
        if (cause instanceof SourceError) throw cause;
        throw new SourceError(`cannot fetch ${href}: ${causeText(cause)}`, { cause });
      }
      try {
        const contentLength = parseLength(response.headers.get("content-length"), href, "Content-Length");
        if (response.status === 416) {
          const total = /^\s*bytes\s+\*\/(\S+)\s*$/i.exec(response.headers.get("content-range") ?? "");
          if (!total)
            throw new SourceError(`${href} answered 416 (range not satisfiable) for ${what} without the file's size`);
          learnSize(parseLength(total[1]!, href, "Content-Range")!, "416");
          if (offset < source.size!)
            throw new SourceError(
              `${href} answered 416 (range not satisfiable) for ${what}, inside its ${source.size} bytes`,
            );
          return new Uint8Array(0);
        }
        if (!response.ok)
          throw new SourceError(`${href} answered HTTP ${response.status} ${response.statusText}`.trimEnd());
        if (response.status === 200 || response.status === 206) versions.check(response, what);
        const progress = (wanted: number) =>
          new ProgressWatch(idleMs, minRate, abort, what, wanted, (message) => new SourceError(message));
        if (response.status === 200) {
          // no Range support: the body is the whole file; read it up to the end of the asked range, no further
          if (contentLength !== undefined) learnSize(contentLength, "Content-Length");
          // a file that declares at most URL_PREFIX_CACHE_BYTES is taken whole, once (its declared size bounds it)
          const small = source.size !== undefined && source.size <= URL_PREFIX_CACHE_BYTES;
          const end = small ? source.size! : Math.min(offset + length, source.size ?? Infinity);
          const keep = end <= URL_PREFIX_CACHE_BYTES;
          const {
            bytes,
            ended,
            seen: got,
          } = await readBody(response, keep ? 0 : offset, keep ? end : end - offset, progress(end), what);
          if (ended && got < end && source.size !== undefined) {
            throw new SourceError(`${href} ended after ${got} of its ${source.size} bytes (${what})`);
          }
          if (ended) learnSize(got, "the end of its body");
          if (keep) prefix = { bytes, complete: ended };
          return keep ? bytes.slice(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length)) : bytes;
        }
        if (response.status !== 206)
          throw new SourceError(`${href} answered HTTP ${response.status} to a Range request for ${what}`);
        const range = /^\s*bytes\s+(\S+)-(\S+)\/(\S+)\s*$/i.exec(response.headers.get("content-range") ?? "");
        if (!range)
          throw new SourceError(
            `${href} answered 206 without a usable Content-Range (${JSON.stringify(response.headers.get("content-range"))})`,
          );
        const first = parseLength(range[1]!, href, "Content-Range")!;
        const last = parseLength(range[2]!, href, "Content-Range")!;
        if (range[3] !== "*") learnSize(parseLength(range[3]!, href, "Content-Range")!, "Content-Range");
        if (first !== offset) throw new SourceError(`${href} answered bytes ${first}.. for a request at ${offset}`);
        if (last < first || (source.size !== undefined && last >= source.size)) {
          throw new SourceError(`${href} answered an impossible Content-Range ${range[1]}-${range[2]}/${range[3]}`);
        }
        const span = last - first + 1;
        if (contentLength !== undefined && contentLength !== span) {
          throw new SourceError(
            `${href} answered a Content-Length of ${contentLength} for the ${span} bytes of its Content-Range ${first}-${last}`,
          );
        }
        const want = Math.min(span, length);
        const { bytes } = await readBody(response, 0, want, progress(want), what);
        if (bytes.length < want)
          throw new SourceError(`${href} ended after ${bytes.length} of the ${want} bytes it announced (${what})`);
        return bytes;
      } catch (error) {
        abort.abort();
        throw error;
      } finally {
        // whatever is left of the body is not wanted: cancel it (an endless body stops here)
        if (!response.bodyUsed && response.body) response.body.cancel().catch(() => {});
      }
    },
  };
  return source;
}

/** A Content-Length or a Content-Range number: digits only, at most 2^53 - 1; undefined when absent. */
function parseLength(text: string | null, href: string, header: string): number | undefined {
  if (text === null) return undefined;
  const trimmed = text.trim();
  const value = /^\d{1,16}$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw new SourceError(`${href} answered an impossible ${header} (${JSON.stringify(text.slice(0, 40))})`);
  return value;
}

/** `promise`, or a SourceError (and the request aborted) when it has not settled within `ms` (0: no limit). */
function idle<T>(promise: Promise<T>, ms: number, abort: AbortController, what: string): Promise<T> {
  if (ms === 0 || ms === Infinity) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new SourceError(`${what} within ${ms / 1000} s (the idle timeout)`));
      abort.abort(); // (after: the race has settled with the timeout, not with the abort's own error)
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Reads a response body: drops its first `skip` bytes, then takes `want` bytes and cancels the rest. `ended`:
 * the body ended (at or before the bytes wanted); `seen`: the bytes taken in, skipped ones included. The waits for
 * the next piece are watched by `progress` (the idle timeout and the least rate).
 */
async function readBody(
  response: Response,
  skip: number,
  want: number,
  progress: ProgressWatch,
  what: string,
): Promise<{ bytes: Uint8Array; ended: boolean; seen: number }> {
  const chunks: Uint8Array[] = [];
  let taken = 0;
  let skipped = 0;
  let ended = false;
  if (!response.body) return { bytes: new Uint8Array(0), ended: true, seen: 0 };
  const reader = response.body.getReader();
  try {
    while (taken < want) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await progress.next(reader.read(), () => skip - skipped + want - taken);
      } catch (cause) {
        if (cause instanceof SourceError) throw cause;
        throw new SourceError(`cannot read ${what}: ${causeText(cause)} (after ${skipped + taken} bytes)`, { cause });
      }
      if (step.done) {
        ended = true;
        break;
      }
      let chunk = bytesOrUndefined(step.value);
      if (!chunk) throw new SourceError(`cannot read ${what}: the body gave ${typeof step.value}, not bytes`);
      if (skipped < skip) {
        const drop = Math.min(skip - skipped, chunk.length);
        skipped += drop;
        chunk = chunk.subarray(drop);
      }
      if (chunk.length === 0) continue;
      if (chunk.length > want - taken) chunk = chunk.subarray(0, want - taken);
      chunks.push(chunk.slice());
      taken += chunk.length;
    }
  } finally {
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  if (chunks.length === 1) return { bytes: chunks[0]!, ended, seen: skipped + taken };
  const bytes = new Uint8Array(taken);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, ended, seen: skipped + taken };
}

/** An error with its causes (fetch says only "fetch failed"; the reason, e.g. ECONNREFUSED, is in its cause). */
function causeText(error: unknown): string {
  const parts: string[] = [];
  for (
    let e = error, depth = 0;
    e !== undefined && e !== null && depth < 4;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    const message = (e as Error).message ?? String(e as unknown);
    parts.push(typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message);
  }
  return parts.join(": ");
}

/** A source's answer as a plain Uint8Array (a source may hand out Node Buffers, whose slice() is a view). */
function plain(bytes: Uint8Array): Uint8Array {
  const out = bytesOrUndefined(bytes);
  if (!out) throw new SourceError(`a ByteSource's read() must return a Uint8Array, not ${typeof bytes}`);
  return out;
}

/**
 * Reads exactly [offset, offset + length), asking again after short reads; TRUNCATED when the source ends
 * first (a source shorter than it said it was).
 */
export async function readExactly(
  source: ByteSource,
  offset: number,
  length: number,
  format: string,
  field?: string,
): Promise<Uint8Array> {
  if (!(length <= MAX_BYTES_IN_ONE_ARRAY)) {
    // (checked before reading: a source that claims a petabyte must not make us fetch, then fail to allocate)
    throw new LimitError(
      format,
      `cannot hold ${length} bytes in one array (at most ${MAX_BYTES_IN_ONE_ARRAY}); the source says it is that large`,
      offset,
      field,
      length,
      MAX_BYTES_IN_ONE_ARRAY,
    );
  }
  const first = plain(await source.read(offset, length));
  if (first.length >= length) return first.length === length ? first : first.subarray(0, length);
  const out = new Uint8Array(length);
  out.set(first);
  let done = first.length;
  while (done < length) {
    const more = plain(await source.read(offset + done, length - done));
    if (more.length === 0) throw new TruncatedError(format, offset + done, field, length - done, 0);
    out.set(more.subarray(0, length - done), done);
    done += more.length;
  }
  return out;
}

/**
 * The bytes of [start, end) of a source in pieces of at most `chunk` bytes (fresh arrays from readExactly: a stream
 * may hold them until written).
 */
export async function* rangeChunks(
  source: ByteSource,
  start: number,
  end: number,
  chunk: number,
  format: string,
  field?: string,
): AsyncGenerator<Uint8Array> {
  for (let at = start; at < end; at += chunk)
    yield await readExactly(source, at, Math.min(chunk, end - at), format, field);
}

/** The source's size, reading its first bytes if that is how it learns it. */
export async function sourceSize(source: ByteSource, probe = 65536): Promise<{ size: number; head?: Uint8Array }> {
  if (source.size !== undefined) return { size: source.size };
  const head = await source.read(0, probe);
  if (source.size === undefined) {
    if (head.length < probe) return { size: head.length, head };
    throw new SourceError(`the size of ${source.name ?? "the source"} is unknown`);
  }
  return { size: source.size, head };
}
