/**
 * Synchronous positioned reads of a local file (Node, Deno) for loadFile: `readInto(target, position)` fills a
 * caller's view (a typed array's bytes or a view of WebAssembly memory) straight from the file, so bytes are
 * copied once, from the page cache into their final place.
 *
 * `node:fs` is imported dynamically through a variable specifier (as fromFile does in io/source.ts): browser
 * bundlers leave it alone and the main entry stays free of static `node:` imports.
 */
import { TruncatedError } from "../bytes/errors.js";
import { type FileKind, notRegularFile } from "./file-kind.js";
import { markRegularFile } from "./regular-file.js";
import { type ByteSource, SourceError } from "./source.js";

/** The part of node:fs used here (Deno's node:fs has the same). */
interface SyncFs {
  openSync(path: string | URL, flags: string | number): number;
  fstatSync(fd: number): { size: number; isDirectory(): boolean; isFile(): boolean };
  statSync(path: string | URL, options: { throwIfNoEntry: false }): FileKind | undefined;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  closeSync(fd: number): void;
}

/** The part of node:buffer used here: memory for results that are read whole (no zero-filling). */
interface BufferModule {
  Buffer: { allocUnsafeSlow(size: number): Uint8Array };
}

let fsModule: Promise<SyncFs> | undefined;
let bufferModule: Promise<BufferModule | undefined> | undefined;

/** node:buffer, or undefined where there is none (its absence only costs zero-filled memory). */
async function nodeBuffer(): Promise<BufferModule | undefined> {
  bufferModule ??= (async () => {
    try {
      const specifier = "node:buffer";
      return (await import(/* @vite-ignore */ specifier)) as BufferModule;
    } catch {
      return undefined;
    }
  })();
  return bufferModule;
}

async function syncFs(): Promise<SyncFs> {
  fsModule ??= (async () => {
    try {
      const specifier = "node:fs";
      return (await import(/* @vite-ignore */ specifier)) as SyncFs;
    } catch (cause) {
      fsModule = undefined;
      throw new SourceError(
        "loadFile() and openFile() need a file system (Node or Deno); in a browser use loadBlob(file) for a picked or dropped File, or readFromAny(fromUrl(url))",
        { cause },
      );
    }
  })();
  return fsModule;
}

/** Largest single read (Node refuses lengths of 2 GiB and more). */
const MAX_READ = 1 << 30;

export interface FileAccess {
  readonly name: string;
  /** The size when opened (a file that shrinks later gives TRUNCATED errors). */
  readonly size: number;
  /** fstat of the opened file said it is a regular file (not a FIFO, device or socket): its folder is a fact. */
  readonly regularFile: boolean;
  /** Fills `target` from the file at `position`, looping over short reads; returns the bytes read (fewer at the end of the file). */
  readInto(target: Uint8Array, position: number): number;
  /** Like readInto, but TRUNCATED (naming `format` and `field`) when the file ends first. */
  readExactlyInto(target: Uint8Array, position: number, format: string, field?: string): void;
  close(): void;
  /**
   * `bytes` of fresh memory for a result that a read will fill completely: Node's uninitialised allocation (as
   * readFileSync uses: the allocator may hand back pages that are already mapped, which costs no page faults), else
   * an ordinary zero-filled array. A plain Uint8Array at offset 0 of its own ArrayBuffer.
   */
  allocateForRead(bytes: number): Uint8Array;
  /** A ByteSource over the same file (for the header parsers and the formats' own loadTensor). */
  source(): ByteSource & { size: number };
}

/**
 * Opens `path` for reading (a SourceError saying why when it cannot: missing, a directory, no file system).
 * `flags`: open(2) flags instead of "r" (external data opens with O_NONBLOCK, so that a FIFO cannot block).
 */
export async function openFileAccess(path: string | URL, fn = "loadFile", flags?: number): Promise<FileAccess> {
  if (typeof path !== "string" && !(path instanceof URL)) {
    throw new TypeError(
      `tensorfile: ${fn}() takes a path (a string or a file: URL), not ${path === null ? "null" : typeof path}; for bytes in memory use readAny(bytes), for a browser File loadBlob(file)`,
    );
  }
  const fs = await syncFs();
  const buffers = await nodeBuffer();
  const name = String(path);
  // (before opening: opening a FIFO waits for a writer)
  const kind = fs.statSync(path, { throwIfNoEntry: false });
  const notRegular = kind && notRegularFile(kind);
  if (notRegular) throw new SourceError(`cannot open ${name}: ${notRegular}`);
  let fd: number;
  try {
    fd = fs.openSync(path, flags ?? "r");
  } catch (cause) {
    throw new SourceError(`cannot open ${name}: ${(cause as Error).message ?? String(cause)}`, { cause });
  }
  let size: number;
  let regularFile: boolean;
  try {
    const stats = fs.fstatSync(fd);
    if (stats.isDirectory()) throw new SourceError(`cannot open ${name}: it is a directory, not a file`);
    size = stats.size;
    regularFile = stats.isFile();
  } catch (error) {
    fs.closeSync(fd);
    throw error instanceof SourceError
      ? error
      : new SourceError(`cannot open ${name}: ${String(error)}`, { cause: error });
  }
  let closed = false;
  const readInto = (target: Uint8Array, position: number): number => {
    let done = 0;
    while (done < target.byteLength) {
      const length = Math.min(MAX_READ, target.byteLength - done);
      let n: number;
      try {
        n = fs.readSync(fd, target, done, length, position + done);
      } catch (cause) {
        throw new SourceError(
          `cannot read bytes ${position + done}..${position + done + length} of ${name}: ${String(cause)}`,
          { cause },
        );
      }
      if (n === 0) break; // the file ended (it shrank since it was opened)
      done += n;
    }
    return done;
  };
  const readSync = (offset: number, length: number): Uint8Array => {
    const out = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
    const n = readInto(out, offset);
    return n === out.length ? out : out.subarray(0, n);
  };
  const access: FileAccess = {
    name,
    size,
    regularFile,
    readInto,
    readExactlyInto(target, position, format, field) {
      const n = readInto(target, position);
      if (n < target.byteLength) throw new TruncatedError(format, position + n, field, target.byteLength - n, 0);
    },
    allocateForRead(bytes) {
      if (!buffers) return new Uint8Array(bytes);
      const memory = buffers.Buffer.allocUnsafeSlow(bytes);
      return new Uint8Array(memory.buffer, memory.byteOffset, bytes);
    },
    close() {
      if (!closed) {
        closed = true;
        fs.closeSync(fd);
      }
    },
    source() {
      const source = {
        size,
        name,
        read: async (offset, length) => readSync(offset, length),
        readSync,
        // ByteSource.readInto (issue 15: patch and diff read into reused or WebAssembly memory)
        readInto: async (target, offset) => readInto(target, offset),
        close: async () => access.close(),
      } satisfies ByteSource;
      return regularFile ? markRegularFile(source, path) : source;
    },
  };
  return access;
}
