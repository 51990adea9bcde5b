/**
 * ByteSource: random access to a file that is not (or need not be) in memory. Readers' `readFrom` parse
 * headers through it with a few small range reads; `loadTensor` reads one tensor's range.
 *
 * - fromBytes(bytes): a Uint8Array already in memory
 * - fromBlob(blob): a browser File/Blob, or Node's fs.openAsBlob(path)
 * - fromFile(path): Node/Deno, a file handle; reads only the ranges asked for (no 2 GB readFile limit)
 * - fromUrl(url, { fetch, headers }): HTTP Range requests; the size comes from Content-Range
 */
import { TruncatedError } from "../errors.js";
import { asBytes, bytesOrUndefined } from "./input.js";

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
    read: async (offset, length) => bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length)),
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
        throw new SourceError(`cannot read bytes ${offset}..${offset + length} of ${name ?? "blob"}: ${String(cause)}`, { cause });
      }
    },
  };
}

interface FileHandleLike {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/**
 * A file on disk (Node, Deno). Reads ranges through one file handle; call `close()` when done. The size is
 * read once: a file that shrinks afterwards gives TRUNCATED errors, one that changes size a SourceError.
 */
export async function fromFile(path: string): Promise<ByteSource & {
  /** The file's size in bytes, read when it was opened. */
  size: number;
  /** Closes the file handle; reads fail afterwards. */
  close(): Promise<void>;
}> {
  if (typeof path !== "string" && !(path as unknown instanceof URL)) {
    throw new TypeError(`tensorfile: fromFile() takes a path (a string), not ${path === null ? "null" : typeof path}; for bytes in memory use fromBytes(), for a browser File fromBlob()`);
  }
  let fs: { open(path: string, flags: string): Promise<FileHandleLike> };
  try {
    // the specifier is a variable so that browser bundlers (esbuild, Vite, Rollup) leave this Node-only import
    // alone instead of failing to resolve it: in a browser it fails here, at run time, with the message below
    const specifier = "node:fs/promises";
    fs = (await import(/* @vite-ignore */ specifier)) as unknown as typeof fs;
  } catch (cause) {
    throw new SourceError("fromFile() needs a file system (Node or Deno); in a browser use fromBlob(file) for a picked or dropped File, or fromUrl(url)", { cause });
  }
  let handle: FileHandleLike;
  try {
    handle = await fs.open(path, "r");
  } catch (cause) {
    throw new SourceError(`cannot open ${path}: ${(cause as Error).message ?? String(cause)}`, { cause });
  }
  const stats = (await handle.stat()) as { size: number; isDirectory?(): boolean };
  if (stats.isDirectory?.()) {
    await handle.close();
    throw new SourceError(`cannot open ${path}: it is a directory, not a file`);
  }
  const size = stats.size;
  return {
    size,
    name: path,
    async read(offset, length) {
      const n = Math.max(0, Math.min(length, size - offset));
      const out = new Uint8Array(n);
      let done = 0;
      while (done < n) {
        let bytesRead: number;
        try {
          ({ bytesRead } = await handle.read(out, done, n - done, offset + done));
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
          ({ bytesRead } = await handle.read(target, done, n - done, offset + done));
        } catch (cause) {
          throw new SourceError(`cannot read bytes ${offset}..${offset + n} of ${path}: ${String(cause)}`, { cause });
        }
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done;
    },
    close: () => handle.close(),
  };
}

/** Options of {@link fromUrl}. */
export interface UrlSourceOptions {
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof globalThis.fetch | undefined;
  /** Extra request headers (an `Authorization` header, say). */
  headers?: Record<string, string> | undefined;
}

/**
 * A file over HTTP(S) read with `Range` requests. The size comes from the first response's Content-Range.
 * A server that ignores Range (200 with the whole body) still works: the body is kept and sliced.
 */
export function fromUrl(url: string | URL, options: UrlSourceOptions = {}): ByteSource {
  const doFetch = options.fetch ?? globalThis.fetch;
  const href = String(url);
  let whole: Uint8Array | undefined;
  const source: ByteSource = {
    size: undefined,
    name: href,
    async read(offset, length) {
      if (whole) return whole.subarray(Math.min(offset, whole.length), Math.min(offset + length, whole.length));
      if (source.size !== undefined) length = Math.max(0, Math.min(length, source.size - offset));
      if (length === 0) return new Uint8Array(0);
      let response: Response;
      try {
        response = await doFetch(href, { headers: { ...options.headers, Range: `bytes=${offset}-${offset + length - 1}` } });
      } catch (cause) {
        throw new SourceError(`cannot fetch ${href}: ${causeText(cause)}`, { cause });
      }
      if (response.status === 416) {
        const total = /\/(\d+)\s*$/.exec(response.headers.get("content-range") ?? "");
        if (total) source.size = Number(total[1]);
        return new Uint8Array(0);
      }
      if (!response.ok) throw new SourceError(`${href} answered HTTP ${response.status} ${response.statusText}`);
      const body = new Uint8Array(await response.arrayBuffer());
      if (response.status === 200) {
        // no Range support: this is the whole file
        whole = body;
        source.size = body.length;
        return body.subarray(Math.min(offset, body.length), Math.min(offset + length, body.length));
      }
      const range = /bytes\s+(\d+)-(\d+)\/(\d+|\*)/i.exec(response.headers.get("content-range") ?? "");
      if (!range) throw new SourceError(`${href} answered 206 without a usable Content-Range`);
      if (range[3] !== "*") {
        const total = Number(range[3]);
        if (source.size !== undefined && total !== source.size) {
          throw new SourceError(`${href} changed size from ${source.size} to ${total} bytes while being read`);
        }
        source.size = total;
      }
      if (Number(range[1]) !== offset) throw new SourceError(`${href} answered bytes ${range[1]}.. for a request at ${offset}`);
      return body.subarray(0, length);
    },
  };
  return source;
}

/** An error with its causes (fetch says only "fetch failed"; the reason, e.g. ECONNREFUSED, is in its cause). */
function causeText(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    const message = (e as Error).message ?? String(e);
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
export async function readExactly(source: ByteSource, offset: number, length: number, format: string, field?: string): Promise<Uint8Array> {
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
