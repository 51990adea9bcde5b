/**
 * Safe outputs for the CLI, as careful Unix tools do them: everything is written to a temporary file (or folder)
 * beside its destination and renamed into place only when complete, so that an error, Ctrl-C or SIGTERM never
 * leaves a partial file under the output's name. An existing output needs --force; the input is never
 * overwritten (same path, symlink or hard link: compared by device and inode). Missing parent folders are
 * created (one rule for convert and extract).
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/** A usage problem (exit 2) with the output: exists without --force, or is the input. */
export class OutputRefused extends Error {}

const pending = new Set<string>();
let handlersInstalled = false;

function removePendingSync(): void {
  // synchronous: a signal handler has no event loop turns left
  for (const path of pending) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // best effort: the process is ending
    }
  }
  pending.clear();
}

function installSignalHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    process.on(signal, () => {
      removePendingSync();
      process.exit(code);
    });
  }
  process.on("exit", removePendingSync);
}

async function identity(path: string): Promise<{ dev: number; ino: number } | undefined> {
  try {
    const s = await stat(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

/**
 * Checks that `output` may be written: not one of `inputs` (by device and inode, or by path when it does not
 * exist yet), and, unless `force`, not an existing file (or, for a folder, not a non-empty one).
 */
export async function checkOutput(output: string, inputs: readonly string[], options: { force: boolean; folder?: boolean }): Promise<void> {
  const target = await identity(output);
  for (const input of inputs) {
    if (input === "-" || /^https?:\/\//i.test(input)) continue;
    const source = await identity(input);
    const same = target && source ? target.dev === source.dev && target.ino === source.ino : resolve(input) === resolve(output);
    if (same) throw new OutputRefused(`${output} is the input ${input}: refusing to write over it (write to another name, then rename)`);
  }
  if (!target || options.force) return;
  if (options.folder) {
    const s = await stat(output);
    if (!s.isDirectory()) throw new OutputRefused(`${output} exists and is not a folder (use --force to replace it)`);
    if ((await readdir(output)).length === 0) return;
    throw new OutputRefused(`${output} is not empty (use --force to replace its contents)`);
  }
  throw new OutputRefused(`${output} exists (use --force to overwrite it)`);
}

function temporaryName(path: string): string {
  return join(dirname(path), `.${basename(path)}.tensorfile-${process.pid}-${randomBytes(4).toString("hex")}.partial`);
}

/**
 * A temporary name beside `path` for an output written elsewhere (convert --out-dir's worker threads write it and
 * rename it into place): until `release()`, an error exit or a signal removes it.
 */
export function reserveTemporary(path: string): { temp: string; release(): void } {
  installSignalHandlers();
  const temp = temporaryName(path);
  pending.add(temp);
  return { temp, release: () => pending.delete(temp) };
}

/**
 * Runs `write(tempPath)` and renames the result to `path` when it resolves; on failure (or a signal) the
 * temporary file or folder is removed and `path` is left as it was.
 */
export async function writeAtomically<T>(path: string, write: (tempPath: string) => Promise<T>, options: { folder?: boolean } = {}): Promise<T> {
  installSignalHandlers();
  await mkdir(dirname(resolve(path)), { recursive: true });
  const temp = temporaryName(path);
  pending.add(temp);
  try {
    if (options.folder) await mkdir(temp);
    const result = await write(temp);
    if (options.folder) {
      // a folder cannot be renamed over a non-empty one: move the old one aside first (checkOutput allowed it)
      const old = await identity(path);
      if (old) {
        const aside = temporaryName(path);
        pending.add(aside);
        await rename(path, aside);
        await rename(temp, path);
        await rm(aside, { recursive: true, force: true });
        pending.delete(aside);
      } else {
        await rename(temp, path);
      }
    } else {
      await rename(temp, path);
    }
    pending.delete(temp);
    return result;
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    pending.delete(temp);
    throw error;
  }
}
