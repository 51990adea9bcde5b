/**
 * Safe outputs for the CLI, as careful Unix tools do them: everything is written inside a hidden temporary folder
 * beside its destination (`.<name>.tensorfile-<pid>-<hex>.partial`) and put into place only when complete, so that
 * an error, Ctrl-C or SIGTERM never leaves a partial file under the output's name, nor the temporary folder.
 *
 * - The temporary folder is created synchronously before it is registered for removal, and writers only create
 *   files inside it (never the folder itself): once a signal handler has removed it, an open still in flight on
 *   the thread pool fails with ENOENT instead of re-creating a file behind the handler's back.
 * - Without --force the result is put in place with link() (which fails if OUT appeared meanwhile) and the
 *   temporary link removed, so that a file created at OUT while we wrote is never replaced and two concurrent
 *   writers to one OUT cannot both win; with --force it is renamed over OUT.
 * - A folder (extract) replaces an existing one by moving the old one aside and the new one in, synchronously; if
 *   the new one cannot be moved in, the old one is moved back. A folder that holds one of the inputs (or the
 *   current folder) is refused, compared by device and inode up the input's real path.
 * - An existing output needs --force; the input is never overwritten (same path, symlink or hard link: compared
 *   by device and inode). Missing parent folders are created (one rule for convert and extract).
 * - Errors name OUT or its folder, never the temporary name.
 */
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, lstatSync, mkdirSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { mkdir, readdir, realpath, rm, stat } from "node:fs/promises";
import { basename, dirname, extname, join, resolve } from "node:path";

/** A usage problem (exit 2) with the output: exists without --force, is the input, holds the input. */
export class OutputRefused extends Error {}

/** Writing OUT, or putting it in place, failed (exit 1); the message names OUT or its folder, not the temporary. */
export class OutputError extends Error {}

/** Temporary folders (and old outputs moved aside): removed on an error exit or a signal. */
const pending = new Set<string>();
let handlersInstalled = false;

/** Removes a tree, again while something (a write finishing on another thread) re-fills it; bounded. */
function removeTreeSync(path: string): void {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // ENOTEMPTY while a file appears: try again
    }
    if (!existsSync(path)) return;
  }
}

function removePendingSync(): void {
  // synchronous: a signal handler has no event loop turns left
  for (const path of pending) removeTreeSync(path);
  pending.clear();
}

function installSignalHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.on(signal, () => {
      removePendingSync();
      process.exit(code);
    });
  }
  process.on("exit", removePendingSync);
}

type Identity = { dev: number; ino: number };

async function identity(path: string): Promise<Identity | undefined> {
  try {
    const s = await stat(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

const sameFile = (a: Identity, b: Identity) => a.dev === b.dev && a.ino === b.ino;

/** Whether the folder `folder` is `path` or one of its ancestors (by device and inode, up `path`'s real path). */
async function holds(folder: Identity, path: string): Promise<boolean> {
  let at: string;
  try {
    at = await realpath(path);
  } catch {
    return false;
  }
  for (;;) {
    const id = await identity(at);
    if (id && sameFile(id, folder)) return true;
    const up = dirname(at);
    if (up === at) return false;
    at = up;
  }
}

const isLocalPath = (input: string) => input !== "-" && !/^https?:\/\//i.test(input);

/**
 * Checks that `output` may be written: not one of `inputs` (by device and inode, or by path when it does not
 * exist yet), for a folder not one that holds an input or the current folder, for a file not an existing folder,
 * and, unless `force`, not an existing file (or, for a folder, not a non-empty one).
 */
export async function checkOutput(
  output: string,
  inputs: readonly string[],
  options: { force: boolean; folder?: boolean },
): Promise<void> {
  const target = await identity(output);
  for (const input of inputs) {
    if (!isLocalPath(input)) continue;
    const source = await identity(input);
    const same = target && source ? sameFile(target, source) : resolve(input) === resolve(output);
    if (same)
      throw new OutputRefused(
        `${output} is the input ${input}: refusing to write over it (write to another name, then rename)`,
      );
    if (options.folder && target && (await holds(target, input))) {
      throw new OutputRefused(
        `${output} holds the input ${input}: refusing to replace that folder (extract into a new folder)`,
      );
    }
  }
  if (!target) return;
  const isFolder = (await stat(output)).isDirectory();
  if (options.folder) {
    if (isFolder && (await holds(target, process.cwd()))) {
      throw new OutputRefused(
        `${output} is the current folder or holds it: refusing to replace it (extract into a new folder)`,
      );
    }
  } else if (isFolder) {
    throw new OutputRefused(`${output} is a folder: OUT must be a file name`);
  }
  if (options.force) return;
  if (options.folder) {
    if (!isFolder) throw new OutputRefused(`${output} exists and is not a folder (use --force to replace it)`);
    if ((await readdir(output)).length === 0) return;
    throw new OutputRefused(`${output} is not empty (use --force to replace its contents)`);
  }
  throw new OutputRefused(`${output} exists (use --force to overwrite it)`);
}

/** A hidden name beside `path` (the base name shortened so that the whole stays within a file name's limit). */
function temporaryName(path: string): string {
  let base = basename(path);
  while (Buffer.byteLength(base) > 120) base = base.slice(0, -1);
  return join(dirname(path), `.${base}.tensorfile-${process.pid}-${randomBytes(4).toString("hex")}.partial`);
}

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EROFS: "the file system is read-only",
  EISDIR: "it is a folder",
  ENOTDIR: "a part of its path is not a folder",
  ENOENT: "its folder is gone or cannot hold new files",
  ENAMETOOLONG: "the name is too long",
  EEXIST: "it appeared meanwhile",
  ENOTEMPTY: "a non-empty folder appeared there meanwhile",
  EBUSY: "it is in use (a mount point?)",
  EXDEV: "it is on another device",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  EIO: "an input/output error",
  EFBIG: "the file is too large for the file system",
};

/** How the reasons read for a file being read (the others are about an output). */
const INPUT_REASONS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of its path is not a folder",
};

/** The reason of a file-system error, in words (the code in brackets for searching). */
export function fsReason(error: unknown, role: "input" | "output" = "output"): string {
  const code = String((error as NodeJS.ErrnoException)?.code ?? "");
  const words = (role === "input" ? INPUT_REASONS[code] : undefined) ?? REASONS[code];
  if (words) return `${words} (${code})`;
  return ((error as Error)?.message ?? String(error)).replace(/^[A-Z]+: /, "");
}

const isErrno = (error: unknown): error is NodeJS.ErrnoException =>
  /^E[A-Z]+$/.test(String((error as NodeJS.ErrnoException)?.code ?? ""));

/** A file-system error about the temporary (or OUT) as an OutputError naming OUT; other errors as they are. */
function asOutputError(error: unknown, output: string, temp: string): unknown {
  if (!isErrno(error)) return error;
  const paths = [error.path, (error as { dest?: unknown }).dest]
    .filter((p): p is string => typeof p === "string")
    .map((p) => resolve(p));
  const about =
    paths.some((p) => p === resolve(output) || p.startsWith(resolve(temp))) ||
    String(error.message).includes(basename(temp));
  if (!about) return error;
  const code = error.code;
  const where = code === "EACCES" || code === "EPERM" || code === "EROFS" ? ` in the folder ${dirname(output)}` : "";
  return new OutputError(`cannot write ${output}: ${fsReason(error)}${where}`);
}

/** Creates the temporary folder beside `target` synchronously, registered before any await. */
function createTemporaryFolder(target: string, output: string): string {
  installSignalHandlers();
  const temp = temporaryName(target);
  pending.add(temp);
  try {
    mkdirSync(temp);
  } catch (error) {
    pending.delete(temp);
    throw asOutputError(error, output, temp);
  }
  return temp;
}

/**
 * A temporary file beside `path` for an output written elsewhere (convert --out-dir's worker threads write it and
 * put it in place with `placeFile`): `temp` is inside a hidden folder that `release()` (or an error exit or a
 * signal) removes.
 */
export function reserveTemporary(path: string): { temp: string; release(): void } {
  const folder = createTemporaryFolder(resolve(path), path);
  return {
    temp: join(folder, `out${extname(path)}`),
    release: () => {
      removeTreeSync(folder);
      pending.delete(folder);
    },
  };
}

/**
 * Puts the complete file `temp` at `output`, synchronously: renamed over it with `force`, otherwise linked (which
 * fails if OUT appeared meanwhile; `temp` is then left for its caller to remove). Throws OutputError.
 */
export function placeFile(temp: string, output: string, force: boolean): void {
  try {
    if (force) {
      renameSync(temp, output);
      return;
    }
    try {
      linkSync(temp, output);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // file systems without hard links: check, then rename (not atomic, the best they allow)
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS" && code !== "EMLINK")
        throw error;
      if (existsSync(output)) throw Object.assign(new Error("exists"), { code: "EEXIST", path: output });
      renameSync(temp, output);
      return;
    }
    unlinkSync(temp);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new OutputError(
        `${output} appeared while it was being written: left as it is, nothing written (use --force to overwrite it)`,
      );
    }
    throw asOutputError(error, output, temp);
  }
}

/** Puts the complete folder `temp` at `output` (see the top); throws OutputError, the old folder kept. */
function placeFolder(temp: string, output: string, target: string, force: boolean): string | undefined {
  let old: ReturnType<typeof lstatSync> | undefined;
  try {
    old = lstatSync(target);
  } catch {
    old = undefined;
  }
  if (!old || !force) {
    // absent, or (checked) an empty folder: rename() replaces only an empty folder, atomically
    try {
      renameSync(temp, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR" || code === "EISDIR") {
        throw new OutputError(
          `${output} appeared or was filled while extracting: left as it is, nothing written (use --force to replace it)`,
        );
      }
      throw new OutputError(`cannot put the new folder in place at ${output}: ${fsReason(error)}`);
    }
    return undefined;
  }
  const aside = temporaryName(target);
  try {
    renameSync(target, aside);
  } catch (error) {
    throw new OutputError(`cannot replace ${output}: ${fsReason(error)}; it was left as it is`);
  }
  try {
    renameSync(temp, target);
  } catch (error) {
    try {
      renameSync(aside, target);
    } catch (restoreError) {
      throw new OutputError(
        `cannot put the new folder in place at ${output} (${fsReason(error)}), nor move the old one back (${fsReason(restoreError)}): the old one is at ${aside}`,
      );
    }
    throw new OutputError(
      `cannot put the new folder in place at ${output}: ${fsReason(error)}; the old ${output} was kept`,
    );
  }
  pending.add(aside); // the old folder, now replaced: removed below (or by a signal handler)
  return aside;
}

/**
 * Runs `write(tempPath)` and puts the result at `path` when it resolves; on failure (or a signal) the temporary
 * file or folder is removed and `path` is left as it was. `force`: replace an existing `path` (checked before by
 * checkOutput); without it, a `path` that appears meanwhile is never replaced.
 */
export async function writeAtomically<T>(
  path: string,
  write: (tempPath: string) => Promise<T>,
  options: { folder?: boolean; force?: boolean } = {},
): Promise<T> {
  const target = resolve(path);
  try {
    await mkdir(dirname(target), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOTDIR")
      throw new OutputError(`cannot write ${path}: ${dirname(path)} (or a folder above it) is a file, not a folder`);
    throw new OutputError(`cannot create the folder ${dirname(path)} for ${path}: ${fsReason(error)}`);
  }
  const temp = createTemporaryFolder(target, path);
  const inner = options.folder ? temp : join(temp, `out${extname(path)}`);
  try {
    const result = await write(inner);
    if (options.folder) {
      const aside = placeFolder(temp, path, target, options.force ?? false);
      if (aside) {
        await rm(aside, { recursive: true, force: true });
        pending.delete(aside);
      }
    } else {
      placeFile(inner, path, options.force ?? false);
    }
    return result;
  } catch (error) {
    throw asOutputError(error, path, temp);
  } finally {
    await rm(temp, { recursive: true, force: true }).catch(() => removeTreeSync(temp));
    pending.delete(temp);
  }
}

/** The output rules a command that writes one file OUT ends its --help with (convert, edit). */
export const OUTPUT_RULES = `Outputs are written to a hidden temporary file beside OUT and put in place when complete (Ctrl-C leaves
nothing behind); an existing OUT needs --force, and without it an OUT that appears while writing is left alone
(exit 1); writing over the input is refused (exit 2); missing parent folders are created.`;

/** The same for a command that writes a folder DIR (extract). */
export const FOLDER_OUTPUT_RULES = `DIR is written as a hidden temporary folder beside DIR and put in place when complete (Ctrl-C leaves nothing
behind); a non-empty DIR needs --force, and without it a DIR that appears while writing is left alone (exit 1);
replacing a DIR that holds the input or the current folder is refused (exit 2); missing parent folders are
created.`;
