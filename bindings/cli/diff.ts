/**
 * `tensorfile diff A B [--atol X] [--rtol Y] [--json]`: compares the tensors of two files of any readable
 * formats by name, streaming tensor by tensor (both files opened lazily; one pair in memory at a time).
 * Prints the tensors only in A or B, dtype and shape changes, and per common tensor the differing count, max
 * absolute and relative difference and cosine similarity. Exit 0 when everything is equal within the
 * tolerances, 1 otherwise (and for bad input), 2 on a usage error.
 */
import { type DiffResult, type TensorDiff, diffTensors } from "../diff.js";
import { capabilitiesOf } from "../formats/registry.js";
import type { ByteSource } from "../io/source.js";
import type { TensorInfo } from "../tensor.js";
import type { Command } from "./command.js";
import { UsageError } from "./common.js";
import { openLazy } from "./inputs.js";
import { fitColumn, tableWidth } from "./columns.js";
import { Progress, type ProgressStream } from "./progress.js";

export const DIFF_HELP = `tensorfile diff A B [--atol X] [--rtol Y] [--only-different] [--quiet] [--json]

Compares the tensors of A and B (any two readable files: the five formats, .onnx, .safetensors, .npy, .npz, .pb) by
name, one pair at a time: tensors only in A or only in B, dtype and shape changes, and for every tensor in both the
number of elements that differ, the largest absolute and relative difference and the cosine similarity.
An element is equal when |a - b| <= atol + rtol * |b| (B is the reference); NaN opposite NaN counts as equal.
Values are compared widened (float16, bfloat16 -> float32; float64 and 32/64-bit integers in float64).
An .april file against an .onnx file compares one of its networks (the one the .onnx is named after: encoder,
decoder or joiner; else the one with the most weights of the same name and shape) with it, by the ONNX names.
Two files of one tensor each, one of them a .npy or an ONNX TensorProto .pb, compare those two whatever their names.
Exit status 0 when everything is equal within the tolerances, 1 otherwise. On a terminal, long names are
shortened in the middle to fit the width (COLUMNS); piped, they are printed whole.
  --atol X            absolute tolerance (default 0)
  --rtol Y            relative tolerance (default 0)
  --only-different    list only the tensors that are not equal (the table, and "tensors" in --json)
  --quiet             print nothing: the exit status says equal (0) or different (1)
  --json              print one JSON object: { "a", "b", "atol", "rtol", "equal", "onlyA", "onlyB", "tensors": [{
                      "name", "status", "dtypeA", "dtypeB", "shapeA", "shapeB", "elements", "differing", "maxAbs",
                      "maxRel", "cosine" }] } (an infinite difference is the string "Infinity")`;

/** A lazily opened file as diff uses it. */
type DiffSide = Awaited<ReturnType<DiffCliContext["openLazy"]>>;

/**
 * An .april file against one .onnx network: the april side keeps only that network's weights
 * (`encoder/<name>` …) and the onnx side's names get the same prefix, so `diff model.april encoder.onnx` compares
 * the encoder's weights by their ONNX names. The network is the one the .onnx file is named after
 * (encoder.onnx, my-decoder.onnx …), else the one with the most weights of the same name and shape. Other pairs are returned as given.
 */
export function pairAprilWithOnnx(
  a: DiffSide,
  b: DiffSide,
  pathA: string,
  pathB: string,
): { a: DiffSide; b: DiffSide; note?: string } {
  const embedsB = capabilitiesOf(a.format)?.embeds;
  const embedsA = capabilitiesOf(b.format)?.embeds;
  const aprilFirst = embedsB?.format === b.format;
  if (!aprilFirst && embedsA?.format !== a.format) return { a, b };
  const networks = (aprilFirst ? embedsB : embedsA)!.names;
  const [aprilSide, onnxSide, onnxPath] = aprilFirst ? [a, b, pathB] : [b, a, pathA];
  const onnxShapes = new Map(onnxSide.tensorInfos().map((i) => [i.name, i.shape.join("x")]));
  const base = onnxPath.split(/[\\/]/).pop()!.toLowerCase();
  const shared = (network: string) =>
    aprilSide
      .tensorInfos()
      .filter(
        (i) =>
          i.name.startsWith(`${network}/`) && onnxShapes.get(i.name.slice(network.length + 1)) === i.shape.join("x"),
      ).length;
  const network = networks.find((n) => base.includes(n)) ?? [...networks].sort((x, y) => shared(y) - shared(x))[0]!;
  const prefix = `${network}/`;
  const aprilInfos = aprilSide.tensorInfos().filter((i) => i.name.startsWith(prefix));
  const originals = new Map<TensorInfo, TensorInfo>();
  const onnxInfos = onnxSide.tensorInfos().map((info) => {
    const renamed = { ...info, name: prefix + info.name };
    originals.set(renamed, info);
    return renamed;
  });
  const narrowed: DiffSide = { ...aprilSide, tensorInfos: () => aprilInfos };
  const prefixed: DiffSide = {
    ...onnxSide,
    tensorInfos: () => onnxInfos,
    loadTensor: async (info) => ({ ...(await onnxSide.loadTensor(originals.get(info) ?? info)), name: info.name }),
  };
  const note = `comparing the april file's ${network} network (${aprilInfos.length} weights) with ${onnxPath}`;
  return aprilFirst ? { a: narrowed, b: prefixed, note } : { a: prefixed, b: narrowed, note };
}

/** True for the formats that hold one tensor whose name the file may not carry (a .npy's is always `array`). */
function isOneTensorFormat(format: string): boolean {
  return capabilitiesOf(format)?.unnamedTensor !== undefined;
}

/**
 * Two files of one tensor each, one of them a one-tensor format (.npy, .pb), under different names: B's tensor is
 * compared with A's under A's name, so `diff output_0.pb result.npy` compares the values. Other pairs as given.
 */
export function pairSingleTensors(a: DiffSide, b: DiffSide): { a: DiffSide; b: DiffSide; note?: string } {
  const [infoA, infoB] = [a.tensorInfos(), b.tensorInfos()];
  if (infoA.length !== 1 || infoB.length !== 1 || infoA[0]!.name === infoB[0]!.name) return { a, b };
  if (!isOneTensorFormat(a.format) && !isOneTensorFormat(b.format)) return { a, b };
  const original = infoB[0]!;
  const renamed = { ...original, name: infoA[0]!.name };
  const note = `comparing the one tensor of each file: "${infoA[0]!.name}" in A with "${original.name}" in B`;
  return {
    a,
    b: {
      ...b,
      tensorInfos: () => [renamed],
      loadTensor: async (info) => ({ ...(await b.loadTensor(info === renamed ? original : info)), name: info.name }),
    },
    note,
  };
}

export const DIFF_OPTIONS = {
  atol: { type: "string" },
  rtol: { type: "string" },
  json: { type: "boolean" },
  "only-different": { type: "boolean" },
  quiet: { type: "boolean" },
} as const;

export interface DiffCommandOptions {
  atol?: string | undefined;
  rtol?: string | undefined;
  json?: boolean | undefined;
  "only-different"?: boolean | undefined;
  quiet?: boolean | undefined;
}

/** What run.ts lends the command (its sources and its error classes, from cli/inputs.ts and cli/common.ts). */
export interface DiffCliContext {
  stdout: ProgressStream;
  stderr: ProgressStream;
  openLazy(path: string): Promise<{
    source: ByteSource;
    format: string;
    tensorInfos(): TensorInfo[];
    loadTensor(info: TensorInfo): Promise<import("../tensor.js").NamedTensor>;
  }>;
  usageError(message: string): Error;
}

function tolerance(text: string | undefined, name: string, ctx: DiffCliContext): number {
  if (text === undefined) return 0;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0)
    throw ctx.usageError(`--${name} takes a number >= 0 (such as 1e-6), not ${JSON.stringify(text)}`);
  return value;
}

function number(value: number | null): string {
  if (value === null) return "-";
  if (value === 0) return "0";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  const abs = Math.abs(value);
  return abs >= 1e-4 && abs < 1e6 ? String(Number(value.toPrecision(4))) : value.toExponential(3);
}

function cosineText(value: number | null): string {
  if (value === null) return "-";
  if (value === 1) return "1";
  return value.toFixed(6).replace(/\.?0+$/, "");
}

function shapeText(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

function row(t: TensorDiff): string[] {
  const dtype = t.dtypeA === t.dtypeB ? t.dtypeA : `${t.dtypeA} -> ${t.dtypeB}`;
  const shape = t.status === "shape" ? `${shapeText(t.shapeA)} -> ${shapeText(t.shapeB)}` : shapeText(t.shapeA);
  const differing = t.differing === null ? "-" : `${t.differing}/${t.elements}`;
  return [t.name, t.status, dtype, shape, differing, number(t.maxAbs), number(t.maxRel), cosineText(t.cosine)];
}

function table(rows: string[][], width: number | undefined): string[] {
  const header = ["name", "status", "dtype", "shape", "differing", "max abs", "max rel", "cosine"];
  const all = [header, ...rows];
  fitColumn(all, 0, width);
  const widths = header.map((_, i) => all.reduce((w, r) => Math.max(w, r[i]!.length), 0)); // (no spread: any count)
  const right = new Set([4, 5, 6, 7]);
  return all.map((r) =>
    `  ${r.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ")}`.trimEnd(),
  );
}

function listText(names: readonly string[]): string {
  const shown = names.slice(0, 20).join(", ");
  return names.length > 20 ? `${shown}, … (${names.length - 20} more)` : shown;
}

function jsonSafe(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v)),
  );
}

function summaryLine(result: DiffResult, atol: number, rtol: number): string {
  const counts = new Map<string, number>();
  for (const t of result.tensors) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
  const parts = ["equal", "different", "dtype", "shape"]
    .filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${s === "dtype" ? "with another dtype" : s === "shape" ? "with another shape" : s}`);
  const only = [
    result.onlyA.length > 0 ? `${result.onlyA.length} only in A` : "",
    result.onlyB.length > 0 ? `${result.onlyB.length} only in B` : "",
  ].filter(Boolean);
  const n = result.tensors.length;
  return `${n} tensor${n === 1 ? "" : "s"} in both${n > 0 ? `: ${parts.join(", ")}` : ""}${only.length > 0 ? `; ${only.join(", ")}` : ""} (atol ${atol}, rtol ${rtol}): ${result.equal ? "equal" : "different"}`;
}

/** Runs `tensorfile diff`; returns the exit status. */
export async function diffCommand(ctx: DiffCliContext, args: string[], options: DiffCommandOptions): Promise<number> {
  if (args.length !== 2) throw ctx.usageError("diff takes two files, A and B");
  const [pathA, pathB] = args as [string, string];
  const atol = tolerance(options.atol, "atol", ctx);
  const rtol = tolerance(options.rtol, "rtol", ctx);
  if (options.quiet && options.json)
    throw ctx.usageError("--quiet prints nothing and --json prints a report: give one of them");
  const openedA = await ctx.openLazy(pathA);
  try {
    const openedB = await ctx.openLazy(pathB);
    try {
      const april = pairAprilWithOnnx(openedA, openedB, pathA, pathB);
      const { a, b, note } = april.note === undefined ? pairSingleTensors(april.a, april.b) : april;
      const namesB = new Map(b.tensorInfos().map((i) => [i.name, i]));
      const total = a
        .tensorInfos()
        .reduce((n, i) => n + (namesB.has(i.name) ? i.byteLength + namesB.get(i.name)!.byteLength : 0), 0);
      const progress = new Progress(options.quiet ? { isTTY: false, write: () => true } : ctx.stderr, "diff", total);
      let result: DiffResult;
      try {
        result = await diffTensors(a, b, { atol, rtol, onProgress: (p) => progress.advance(p.bytes, p.name) });
      } finally {
        progress.finish();
      }
      const out = (text: string) => ctx.stdout.write(`${text}\n`);
      if (options.quiet) return result.equal ? 0 : 1;
      const listed = options["only-different"] ? result.tensors.filter((t) => t.status !== "equal") : result.tensors;
      if (options.json) {
        out(JSON.stringify(jsonSafe({ a: pathA, b: pathB, atol, rtol, ...result, tensors: listed }), null, 2));
        return result.equal ? 0 : 1;
      }
      if (note !== undefined) out(note);
      out(`A  ${pathA} (${a.format}, ${a.tensorInfos().length} tensors)`);
      out(`B  ${pathB} (${b.format}, ${b.tensorInfos().length} tensors)`);
      if (result.onlyA.length > 0) out(`only in A (${result.onlyA.length}): ${listText(result.onlyA)}`);
      if (result.onlyB.length > 0) out(`only in B (${result.onlyB.length}): ${listText(result.onlyB)}`);
      if (listed.length > 0) for (const line of table(listed.map(row), tableWidth(ctx.stdout))) out(line);
      out(summaryLine(result, atol, rtol));
      return result.equal ? 0 : 1;
    } finally {
      await openedB.source.close?.();
    }
  } finally {
    await openedA.source.close?.();
  }
}

/** The `diff` command, as run.ts lists it. */
export const DIFF_COMMAND: Command = {
  name: "diff",
  synopsis: "tensorfile diff A B [--atol X] [--rtol Y] [--only-different] [--quiet] [--json]",
  help: DIFF_HELP,
  options: DIFF_OPTIONS,
  inputs: "first",
  inputOptions: "all",
  run: (io, positionals, values) =>
    diffCommand({ ...io, openLazy, usageError: (m) => new UsageError(m) }, positionals, values as DiffCommandOptions),
};
