/**
 * Paths that cannot be read by ranges: a FIFO, a device or a socket has no size to learn ahead (stat says 0, or
 * nothing true) and a FIFO's open waits for a writer. fromFile and openFileAccess (loadFile, openFile) refuse them
 * before opening; the CLI reads them whole as streams (cli/stream-input.ts).
 */

/** What stat says a path is: the questions {@link notRegularFile} asks. */
export interface FileKind {
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}

/**
 * Why a path cannot be read by ranges (its size is not known ahead: a FIFO, a device, a socket), in words; undefined
 * for a regular file or a directory (refused on its own). Such a path is read whole as a stream (the CLI does:
 * cli/stream-input.ts); opening it here could also block until a writer comes (a FIFO).
 */
export function notRegularFile(kind: FileKind): string | undefined {
  if (kind.isFile() || kind.isDirectory()) return undefined;
  const what = kind.isFIFO()
    ? "a FIFO (named pipe)"
    : kind.isCharacterDevice()
      ? "a character device"
      : kind.isBlockDevice()
        ? "a block device"
        : kind.isSocket()
          ? "a socket"
          : "something other than a file";
  return `it is ${what}, not a regular file: its size cannot be known ahead (read it whole as a stream and pass the bytes to readAny, or use the command line, which does)`;
}
