/**
 * `tensorfile patch MODEL WEIGHTS OUT [--partial] [--force] [--tensor NAME]`: MODEL with the tensors of
 * WEIGHTS put back in, written to OUT (a temporary file renamed into place). WEIGHTS is any readable file of
 * tensors (.safetensors, .npz, .npy with --tensor, or a model of the same kind) or a folder as `extract` writes
 * it (.npy files, a "/" in a name being a subfolder; meta.json, when there, maps names to files; .onnx files are
 * april networks). MODEL is read lazily and OUT streamed (patchTo): one weights tensor in memory at a time.
 * Unknown names (without --partial), dtypes that cannot be stored and shapes that differ: exit 1, nothing written.
 */
import { open, stat, writeFile } from "node:fs/promises";
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import { type AnyLazyFile, formatModule, readFromAny } from "../any.js";
import type { LazyTensorsWithSource } from "../patch.js";
import { capabilitiesOf } from "../formats/registry.js";
import type { FormatId } from "../formats/types.js";
import { type ByteSource, fromFile, readExactly } from "../io/source.js";
import { sameBytes } from "../patch/encode.js";
import { type PatchToResult, patchFrom, patchTo } from "../patch.js";
import { type NamedTensor, type TensorInfo, bytesOf } from "../tensor.js";
import { type PatchError, isPatchError } from "../bytes/errors.js";
import type { Command } from "./command.js";
import { InputError, UsageError, errorLine, isInputError } from "./common.js";
import { openSource } from "./inputs.js";
import { openTensorFolder } from "../folder/open.js";
import { OutputRefused, checkOutput, placeFile, reserveTemporary, writeAtomically } from "./output.js";
import { Progress, type ProgressStream, formatBytes } from "./progress.js";

export const PATCH_HELP = `tensorfile patch MODEL WEIGHTS OUT [--partial] [--force] [--tensor NAME] [--inline-external] [--json]

Writes OUT: MODEL with its tensors replaced by those of WEIGHTS, by name (the names "inspect MODEL" lists).
Everything else in MODEL is kept byte for byte; values are stored as MODEL stores them (column-major, float16,
bw2l v1 int8 with a fresh scale/offset when needed); a .csta stays a SeetaFace6 container.
WEIGHTS is a .safetensors, .npz or .npy file (any readable file of tensors), or a folder as "extract" writes it
(.npy files, a "/" in a name being a subfolder; april networks as encoder.onnx, decoder.onnx, joiner.onnx).
Reports on standard error how many tensors given changed and how many came back unchanged (each compared with
MODEL's: dtype, shape and bytes), and what was kept; --json prints it as one JSON document on standard output
instead. Exit 1, writing nothing, when WEIGHTS names a tensor MODEL does not hold, or holds a tensor of another
shape or of a dtype MODEL cannot store.
  --partial      skip names MODEL does not hold (listed) instead of failing
  --tensor NAME  the name of the one tensor in WEIGHTS (a .npy holds one tensor and no name)
  --force        overwrite an existing OUT (and existing external files beside it)
  --inline-external  an ONNX MODEL with weights in external files: store every one of them in OUT (raw_data),
                 which then needs no other file
  --json         the report as JSON: model, weights, output, format, bytes, unit, changed, unchanged, kept,
                 skipped, requantized, external, inlined
An ONNX MODEL with weights in external files (read from MODEL's folder, or --external-dir DIR): OUT keeps
MODEL's bytes and its external files are written again beside OUT at the same relative locations, replaced
weights overwritten; OUT in MODEL's folder would overwrite MODEL's own external files, which is refused (write
OUT in another folder, or use --inline-external).
OUT must end in MODEL's extension (.tsm <-> .csta also: the module is unwrapped or wrapped as convert does).
Outputs are written in a hidden temporary folder beside OUT and put in place when complete; without --force an
OUT that appears meanwhile is left alone; writing over MODEL or WEIGHTS is refused; missing parent folders are
created. A patch that replaces nothing (no name of WEIGHTS is in MODEL) writes nothing and exits 1.`;

export const PATCH_OPTIONS = {
  partial: { type: "boolean" },
  force: { type: "boolean" },
  tensor: { type: "string" },
  "inline-external": { type: "boolean" },
  json: { type: "boolean" },
} as const;

export interface PatchCommandOptions {
  partial?: boolean | undefined;
  force?: boolean | undefined;
  tensor?: string | undefined;
  "inline-external"?: boolean | undefined;
  json?: boolean | undefined;
}

/** What run.ts lends the command (from cli/inputs.ts and cli/common.ts). */
export interface PatchCliContext {
  stdout: ProgressStream;
  stderr: ProgressStream;
  openSource(path: string): Promise<ByteSource>;
  /** --external-dir, when given: where MODEL's external data is read from. */
  externalDir?: string | undefined;
  usageError(message: string): Error;
  inputError(message: string): Error;
}

interface OpenedWeights {
  tensors: LazyTensorsWithSource;
  label: string;
  close(): Promise<void>;
}

/** A folder as extract writes it (folder/open.ts: the library's openTensorFolder). */
async function openFolder(dir: string, ctx: PatchCliContext): Promise<OpenedWeights> {
  const tensors = await openTensorFolder(dir).catch((error: unknown) => {
    throw about("WEIGHTS", "", error, ctx);
  });
  return { tensors, label: dir, close: async () => {} };
}

/**
 * An error reading MODEL or WEIGHTS, saying which one is meant ("MODEL m.onnx: onnx: truncated …"); an error that
 * is not about the input (a bug) as it is.
 */
function about(role: "MODEL" | "WEIGHTS", path: string, error: unknown, ctx: PatchCliContext): unknown {
  if (!isInputError(error)) return error;
  const line = errorLine(error);
  return ctx.inputError(`${role} ${path === "" || line.startsWith(path) ? "" : `${path}: `}${line}`);
}

/** A PatchError's message for the command line: the file it speaks of is MODEL, and the API's hint is --partial. */
function patchErrorText(error: PatchError, model: string): string {
  return error.message
    .replace(/^tensorfile: /, "")
    .replace(
      /^this (\S+) file has no tensor named/,
      (_all, format: string) => `MODEL ${model} (${format}) has no tensor named`,
    )
    .replace(/; pass \{ partial: true \} to skip unknown names$/, "; --partial skips the names MODEL does not hold");
}

/** WEIGHTS as a file: any format readFromAny reads, opened lazily; --tensor names (or picks) its tensor. */
async function openWeightsFile(
  path: string,
  ctx: PatchCliContext,
  tensorName: string | undefined,
): Promise<OpenedWeights> {
  const source = await ctx.openSource(path);
  try {
    const opened = await readFromAny(source).catch((error: unknown) => {
      throw about("WEIGHTS", path, error, ctx);
    });
    const infos = opened.tensorInfos();
    let chosen = infos;
    if (tensorName !== undefined) {
      if (infos.length === 1) chosen = [{ ...infos[0]!, name: tensorName }];
      else {
        const found = infos.filter((i) => i.name === tensorName);
        if (found.length === 0)
          throw ctx.inputError(
            `WEIGHTS ${path} has ${infos.length} tensors and none named "${tensorName}" (--tensor names the only tensor of a file, or picks one)`,
          );
        chosen = found;
      }
    } else {
      const unnamed = capabilitiesOf(opened.format)?.unnamedTensor?.(opened.file);
      if (unnamed !== undefined) throw ctx.usageError(`WEIGHTS ${path} is ${unnamed}`);
    }
    if (infos.length === 0) throw ctx.inputError(`WEIGHTS ${path} holds no tensors`);
    const original = new Map(
      chosen.map((c, i) => [c.name, infos[infos.length === 1 ? 0 : infos.indexOf(chosen[i]!)]!]),
    );
    return {
      label: path,
      close: async () => source.close?.(),
      tensors: {
        tensorInfos: () => chosen,
        loadTensor: async (info: TensorInfo) =>
          ({ ...(await opened.loadTensor(original.get(info.name)!)), name: info.name }) as NamedTensor,
        // safetensors/npy tensors stored as the model stores them are copied through without loading them whole
        source,
      },
    };
  } catch (error) {
    await source.close?.();
    throw error;
  }
}

/** A name as listed: JSON-quoted when it is empty or holds a control character or ", " (it would blur the list). */
function listedName(name: string): string {
  return name === "" || /[\u0000-\u001f\u007f]|, /.test(name) ? JSON.stringify(name) : name;
}

function listText(names: readonly string[]): string {
  const shown = names.slice(0, 30).map(listedName).join(", ");
  return names.length > 30 ? `${shown}, … (${names.length - 30} more)` : shown;
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** OUT's extension: MODEL's own, another of its format's, or .tsm <-> .csta. */
function checkExtension(model: string, output: string, format: FormatId, ctx: PatchCliContext): void {
  const modelExt = extname(model).toLowerCase();
  const outExt = extname(output).toLowerCase();
  const own = [...(formatModule(format) as { extensions: readonly string[] }).extensions];
  if (outExt === modelExt) return;
  const containers = capabilitiesOf(format)?.containers?.extensions ?? [];
  if (own.includes(outExt) && (!containers.includes(outExt) || own.includes(modelExt))) return;
  const allowed = [...new Set([modelExt, ...own].filter(Boolean))];
  throw ctx.usageError(
    `OUT ${output} ends in "${outExt || "(nothing)"}": a patched ${format} model is written as ${allowed.join(" or ")}`,
  );
}

/** A patch that replaced nothing (every WEIGHTS name unknown, with --partial, or no WEIGHTS at all) is a failure: OUT is not written. */
function nothingReplaced<T extends { replaced: readonly string[]; unknown: readonly string[] }>(
  result: T,
  ctx: PatchCliContext,
): T {
  if (result.replaced.length > 0) return result;
  throw ctx.inputError(
    result.unknown.length > 0
      ? `no name of WEIGHTS is in MODEL, so nothing would be replaced (WEIGHTS holds ${listText(result.unknown)}): OUT not written`
      : "WEIGHTS holds no tensors, so nothing would be replaced: OUT not written",
  );
}

/** An external file of OUT being written: its temporary file, put in place once OUT's bytes are all written. */
interface PendingExternal {
  temp: string;
  target: string;
  release(): void;
}

/**
 * Where OUT's external files go (by location): beside OUT at the same relative locations. Checked before anything
 * is written: none may be one of MODEL's own external files (OUT in MODEL's folder), nor MODEL or WEIGHTS; an
 * existing one needs --force.
 */
async function externalTargets(
  model: string,
  weightsPath: string,
  output: string,
  locations: readonly string[],
  ctx: PatchCliContext,
  force: boolean,
): Promise<Map<string, string>> {
  const modelLocal = model !== "-" && !/^https?:\/\//i.test(model);
  const inputFolder = ctx.externalDir ?? (modelLocal ? dirname(resolve(model)) : undefined);
  const targets = new Map<string, string>();
  for (const location of locations) {
    const target = resolve(dirname(resolve(output)), location);
    const input = inputFolder === undefined ? undefined : resolve(inputFolder, location);
    if (input !== undefined && (await sameFileOrPath(input, target))) {
      throw new OutputRefused(
        `OUT's external file ${target} would be MODEL's own external file ${JSON.stringify(location)}: refusing to write over it (write OUT in another folder, or store the weights in OUT with --inline-external)`,
      );
    }
    await checkOutput(target, [model, weightsPath], { force });
    targets.set(location, target);
  }
  return targets;
}

/** True when `a` and `b` are the same file (device and inode) or, when one does not exist, the same path. */
async function sameFileOrPath(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)]);
  if (sa && sb) return sa.dev === sb.dev && sa.ino === sb.ino;
  return resolve(a) === resolve(b);
}

/** The locations of MODEL's external weights (ONNX), in file order without repeats. */
function externalLocations(format: FormatId, infos: readonly TensorInfo[]): string[] {
  const fileOf = capabilitiesOf(format)?.externalFileOf;
  if (!fileOf) return [];
  return [...new Set(infos.map(fileOf).filter((location) => location !== undefined))];
}

/** What `patch --json` prints (docs/cli.md lists the keys). */
export interface PatchReport {
  model: string;
  weights: string;
  output: string;
  format: FormatId;
  /** OUT's size in bytes. */
  bytes: number;
  /** What the names count: "network" (april networks given whole) or "tensor". */
  unit: "tensor" | "network";
  /** Names given whose stored bytes differ from MODEL's, in file order. */
  changed: string[];
  /** Names given that came back with exactly MODEL's bytes. */
  unchanged: string[];
  /** Names of MODEL that WEIGHTS does not hold (left as they were). */
  kept: string[];
  /** Names of WEIGHTS that MODEL does not hold (only with --partial). */
  skipped: string[];
  /** bw2l v1 int8 tensors not given but re-encoded with their layer's new scale and offset. */
  requantized: string[];
  /** The external data files written beside OUT. */
  external: string[];
  /** True with --inline-external. */
  inlined: boolean;
}

/** The text report of a patch, a line each (standard error). */
function reportLines(r: PatchReport): string[] {
  const lines = [
    `${count(r.changed.length, r.unit)} changed, ${r.unchanged.length} given back unchanged${r.kept.length > 0 ? `, ${r.kept.length} not in WEIGHTS kept as ${r.kept.length === 1 ? "it was" : "they were"}` : ""}`,
  ];
  if (r.changed.length > 0) lines.push(`changed:   ${listText(r.changed)}`);
  if (r.unchanged.length > 0) lines.push(`unchanged: ${listText(r.unchanged)}`);
  if (r.kept.length > 0) lines.push(`kept:      ${listText(r.kept)}`);
  if (r.requantized.length > 0)
    lines.push(`re-quantized with their layer's new scale and offset: ${listText(r.requantized)}`);
  if (r.skipped.length > 0)
    lines.push(
      `skipped   ${count(r.skipped.length, "name")} the ${r.format} MODEL does not hold (--partial): ${listText(r.skipped)}`,
    );
  for (const target of r.external) lines.push(`wrote ${target} (an external data file of ${r.output})`);
  if (r.inlined) lines.push(`stored the external weights in ${r.output}`);
  lines.push(`wrote ${r.output} (${r.format}, ${formatBytes(r.bytes)})`);
  return lines;
}

/** Equal dtype, shape and bytes. */
function sameTensor(a: NamedTensor, b: NamedTensor): boolean {
  return (
    a.dtype === b.dtype &&
    a.shape.length === b.shape.length &&
    a.shape.every((d, i) => d === b.shape[i]) &&
    sameBytes(bytesOf(a.data), bytesOf(b.data))
  );
}

/**
 * The names of `replaced` whose tensor (or april network) in OUT, as written, equals MODEL's: loaded from both one
 * at a time and compared (dtype, shape, bytes). A name that cannot be found on both sides counts as changed.
 */
async function unchangedNames(
  model: AnyLazyFile,
  modelSource: ByteSource,
  output: string,
  replaced: readonly string[],
): Promise<Set<string>> {
  const same = new Set<string>();
  if (replaced.length === 0) return same;
  const outSource = await fromFile(output);
  try {
    const out = await readFromAny(outSource);
    const modelInfos = new Map(model.tensorInfos().map((i) => [i.name, i]));
    const outInfos = new Map(out.tensorInfos().map((i) => [i.name, i]));
    const embeds = capabilitiesOf(model.format)?.embeds;
    for (const name of replaced) {
      const a = modelInfos.get(name);
      const b = outInfos.get(name);
      if (a !== undefined && b !== undefined) {
        if (sameTensor(await model.loadTensor(a), await out.loadTensor(b))) same.add(name);
      } else if (embeds !== undefined && out.format === model.format) {
        // an embedded model replaced whole (an april network): compare its stored bytes
        const ea = embeds.location(model.file, name);
        const eb = embeds.location(out.file, name);
        if (ea === undefined || eb === undefined || ea.size !== eb.size) continue;
        const bytesA = await readExactly(modelSource, ea.offset, ea.size, model.format, name);
        if (sameBytes(bytesA, await readExactly(outSource, eb.offset, eb.size, model.format, name))) same.add(name);
      }
    }
  } finally {
    await outSource.close();
  }
  return same;
}

/** Runs `tensorfile patch`; returns the exit status. */
export async function patchCommand(
  ctx: PatchCliContext,
  args: string[],
  options: PatchCommandOptions,
): Promise<number> {
  if (args.length !== 3) throw ctx.usageError("patch takes MODEL, WEIGHTS and OUT");
  const [model, weightsPath, output] = args as [string, string, string];
  if (output === "-")
    throw ctx.usageError("OUT must be a file (the patched model is written to a temporary file and renamed)");
  await checkOutput(output, [model, weightsPath], { force: options.force ?? false });
  const modelSource = await ctx.openSource(model);
  try {
    const head = await readFromAny(modelSource).catch((error: unknown) => {
      throw about("MODEL", model, error, ctx);
    });
    const format = head.format as FormatId;
    checkExtension(model, output, format, ctx);
    let isFolder = false;
    try {
      isFolder = !/^https?:\/\//i.test(weightsPath) && weightsPath !== "-" && (await stat(weightsPath)).isDirectory();
    } catch {
      isFolder = false;
    }
    if (isFolder && options.tensor !== undefined)
      throw ctx.usageError("--tensor names the tensor of a WEIGHTS file; a folder's files are named by their paths");
    const inline = options["inline-external"] === true;
    const locations = externalLocations(format, head.tensorInfos());
    if (inline && locations.length === 0)
      throw ctx.usageError("--inline-external stores an ONNX model's external weights in OUT, and MODEL has none");
    const targets = inline
      ? new Map<string, string>()
      : await externalTargets(model, weightsPath, output, locations, ctx, options.force ?? false);
    const pending: PendingExternal[] = [];
    const externalSink =
      targets.size === 0
        ? undefined
        : (location: string) => {
            const target = targets.get(location)!;
            mkdirSync(dirname(target), { recursive: true });
            const reserved = reserveTemporary(target);
            pending.push({ temp: reserved.temp, target, release: reserved.release });
            return createWriteStream(reserved.temp);
          };
    const weights = isFolder
      ? await openFolder(weightsPath, ctx)
      : await openWeightsFile(weightsPath, ctx, options.tensor);
    try {
      const outExt = extname(output).toLowerCase();
      const containers = capabilitiesOf(format)?.containers;
      const rewrap =
        containers !== undefined && outExt !== extname(model).toLowerCase() && containers.extensions.includes(outExt)
          ? containers
          : undefined;
      let result: PatchToResult;
      try {
        result = await writeAtomically(
          output,
          async (temp) => {
            if (rewrap) {
              const patched = await patchFrom(modelSource, weights.tensors, {
                opened: head,
                partial: options.partial ?? false,
              });
              const bytes = rewrap.rewrap(patched.bytes, outExt);
              await writeFile(temp, bytes);
              return nothingReplaced({ ...patched, byteLength: bytes.length }, ctx);
            }
            const progress = new Progress(ctx.stderr, "patch", modelSource.size ?? 0);
            const handle = await open(temp, "w");
            try {
              const patched = await patchTo(
                modelSource,
                weights.tensors,
                async (chunk) => {
                  for (let done = 0; done < chunk.length;)
                    done += (await handle.write(chunk, done, chunk.length - done)).bytesWritten;
                  progress.advance(chunk.length);
                },
                {
                  opened: head,
                  partial: options.partial ?? false,
                  reuseChunks: true,
                  inlineExternal: inline,
                  externalSink,
                },
              ).then((result) => nothingReplaced(result, ctx)); // each chunk is written before the next
              // OUT's external files, complete: put in place before OUT itself
              for (const file of pending) placeFile(file.temp, file.target, options.force ?? false);
              return patched;
            } finally {
              progress.finish();
              await handle.close();
              for (const file of pending) file.release();
            }
          },
          { force: options.force ?? false },
        );
      } catch (error) {
        // the checks of the patch (names, dtypes, shapes: a PatchError) are about the input: exit 1
        if (isPatchError(error)) throw ctx.inputError(patchErrorText(error, model));
        throw error;
      }
      // what came back as it was: each replaced tensor (or april network) compared with MODEL's, in OUT as written
      const unchanged = await unchangedNames(head, modelSource, output, result.replaced);
      const changed = result.replaced.filter((name) => !unchanged.has(name));
      const report: PatchReport = {
        model,
        weights: weightsPath,
        output,
        format,
        bytes: result.byteLength,
        // april: whole networks, or weights of its networks (encoder/<name>…)
        unit:
          capabilitiesOf(format)?.embeds !== undefined && result.replaced.every((n) => !n.includes("/"))
            ? "network"
            : "tensor",
        changed,
        unchanged: result.replaced.filter((name) => unchanged.has(name)),
        kept: result.kept,
        skipped: result.unknown,
        requantized: result.requantized,
        external: [...targets.values()],
        inlined: inline,
      };
      if (options.json) ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else for (const line of reportLines(report)) ctx.stderr.write(`${line}\n`);
      return 0;
    } finally {
      await weights.close();
    }
  } finally {
    await modelSource.close?.();
  }
}

/** The `patch` command, as run.ts lists it. */
export const PATCH_COMMAND: Command = {
  name: "patch",
  synopsis: "tensorfile patch MODEL WEIGHTS OUT [--partial] [--force] [--tensor NAME] [--inline-external] [--json]",
  help: PATCH_HELP,
  options: PATCH_OPTIONS,
  inputs: "first",
  inputOptions: "all",
  run: (io, positionals, values, { externalDir }) =>
    patchCommand(
      {
        ...io,
        openSource,
        externalDir,
        usageError: (m) => new UsageError(m),
        inputError: (m) => new InputError(m),
      },
      positionals,
      values as PatchCommandOptions,
    ),
};
