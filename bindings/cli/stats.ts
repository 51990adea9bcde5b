/**
 * `tensorfile stats FILE [--tensor NAME] [--json]`: per-tensor statistics (kernels.stats) over every tensor of a
 * file of any format, or one. The file is opened lazily (headers only) and each tensor is read and reduced in
 * pieces (16 MiB, or bands of rows, merged with kernels.mergeStats), so memory stays flat whatever the sizes.
 *
 * Values are the tensor's real values: float16, bfloat16 and float8 widened, int8 with a scale and offset
 * dequantized (as `convert --dtype float32` does), SPRAAK G.711 codes decoded. Format-specific dtypes (complex,
 * characters, opaque or packed types) are listed as skipped.
 *
 * --json prints { "format", "tensors": [{ "name", "dtype", "shape", "count", "min", "max", "mean", "std", "nan",
 * "posInf", "negInf", "zeros" }] }. JSON has no NaN or Infinity: a non-finite number is written as the string
 * "NaN", "Infinity" or "-Infinity" (Number() reads each back). min, max, mean and std are "NaN" when a tensor
 * has no finite value. A skipped tensor has "skipped": the reason, and no numbers.
 */
import type { Command } from "./command.js";
import { closestNames } from "../any.js";
import * as kernels from "../kernels/index.js";
import { type LazyTensors, decodeInChunks } from "../export/stream.js";
import { type DType, type DecodeOptions, type TensorInfo, decodedDType, isStandardDType, viewAs } from "../tensor.js";
import { Progress, formatBytes } from "./progress.js";
import {
  type CliIO,
  InputError,
  UsageError,
  errorJson,
  errorLine,
  isInputError,
  jsonText,
  plural,
  print,
  shapeText,
} from "./common.js";
import { fitColumn, tableWidth } from "./columns.js";
import { openLazy } from "./inputs.js";

export const STATS_HELP = `tensorfile stats FILE… [--tensor NAME] [--json]

Per-tensor statistics of the values (float16, bfloat16 and float8 widened, int8 with a scale dequantized): min,
max, mean, std (population), counts of NaN, +Inf and -Inf, and the zeros (the table shows their share of the
count; --json gives both); non-finite values are kept out of min, max, mean and std. Tensors are loaded one at a time. Format-specific dtypes (complex, characters, …) are
skipped. With several FILEs, one section per file and a summary; exit 1 if any failed.
  --tensor NAME  only this tensor
  --json         { "format", "tensors": [{ "name", "dtype", "shape", "count", "min", "max", "mean", "std",
                 "nan", "posInf", "negInf", "zeros", "zeroShare" }] }: nan, posInf, negInf and zeros are
                 counts, zeroShare is zeros / count (0 to 1); non-finite numbers are the strings "NaN", "Infinity",
                 "-Infinity" (min/max/mean/std are "NaN" when a tensor has no finite value)
                 (several FILEs: a JSON array of { "file", … } objects)`;

export const STATS_OPTIONS = { tensor: { type: "string" }, json: { type: "boolean" } } as const;

export interface StatsCommandOptions {
  tensor?: string | undefined;
  json?: boolean | undefined;
}

/** One tensor's line of the report: its statistics, or why it has none. */
interface TensorReport {
  name: string;
  dtype: DType;
  shape: number[];
  stats?: kernels.TensorStats | undefined;
  skipped?: string | undefined;
}

/** A JSON-safe number: non-finite values as the strings "NaN", "Infinity", "-Infinity". */
export function jsonNumber(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

/** How a value of a table cell reads: 6 significant digits, exponent form when very large or small. */
export function numberText(value: number): string {
  if (Number.isNaN(value)) return "-";
  if (!Number.isFinite(value) || value === 0) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-4) return value.toExponential(4).replace(/\.?0+e/, "e");
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(6)));
}

function percentText(part: number, whole: number): string {
  if (whole === 0) return "-";
  const p = (part / whole) * 100;
  return `${p === 0 || p === 100 || p >= 10 ? p.toFixed(p === 0 || p === 100 ? 0 : 1) : p < 0.1 ? p.toFixed(3) : p.toFixed(2)}%`;
}

/** The narrow floats kernels.stats widens itself (their data is the raw bits). */
const NARROW_FLOATS: readonly DType[] = ["bfloat16", "float8_e4m3", "float8_e5m2"];

/** Why a dtype has no statistics (undefined: it has). */
function skipReason(info: TensorInfo): string | undefined {
  if (info.decodesToFloat32) return undefined;
  if (isStandardDType(info.dtype) || NARROW_FLOATS.includes(info.dtype)) return undefined;
  return `${info.dtype} is not a real-valued dtype`;
}

function reportJson(r: TensorReport): Record<string, unknown> {
  const base = { name: r.name, dtype: r.dtype, shape: r.shape };
  if (!r.stats) return { ...base, skipped: r.skipped };
  const s = r.stats;
  return {
    ...base,
    count: s.count,
    min: jsonNumber(s.min),
    max: jsonNumber(s.max),
    mean: jsonNumber(s.mean),
    std: jsonNumber(s.std),
    nan: s.nan,
    posInf: s.posInf,
    negInf: s.negInf,
    zeros: s.zeros,
    zeroShare: s.count === 0 ? 0 : s.zeros / s.count,
  };
}

function printTable(io: CliIO, path: string, format: string, reports: TensorReport[], totalBytes: number): void {
  print(io.stdout, `file     ${path}`);
  print(io.stdout, `format   ${format}`);
  print(io.stdout, `tensors  ${reports.length} (${formatBytes(totalBytes)})`);
  if (reports.length === 0) return;
  const header = ["name", "dtype", "shape", "min", "max", "mean", "std", "NaN", "±Inf", "zeros"];
  const rows = reports.map((r) => {
    const s = r.stats;
    if (!s) return [r.name, r.dtype, shapeText(r.shape), `(skipped: ${r.skipped})`];
    const inf = s.posInf === 0 && s.negInf === 0 ? "0" : `+${s.posInf} -${s.negInf}`;
    return [
      r.name,
      r.dtype,
      shapeText(r.shape),
      numberText(s.min),
      numberText(s.max),
      numberText(s.mean),
      numberText(s.std),
      String(s.nan),
      inf,
      percentText(s.zeros, s.count),
    ];
  });
  fitColumn([header, ...rows], 0, tableWidth(io.stdout)); // shortens the names in place
  const widths = header.map((h, i) =>
    rows.reduce((w, r) => (r.length > 4 || i < 3 ? Math.max(w, r[i]?.length ?? 0) : w), h.length),
  ); // (no spread)
  const numeric = (i: number) => i >= 3;
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (cells.length === 4 && i === 3 ? c : numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ")}`.trimEnd();
  print(io.stdout, line(header));
  for (const r of rows) print(io.stdout, line(r));
}

export async function statsCommand(io: CliIO, args: string[], options: StatsCommandOptions): Promise<number> {
  if (args.length !== 1) throw new UsageError("stats takes one FILE");
  const [path] = args as [string];
  const opened = await openLazy(path);
  try {
    let infos = opened.module.tensorInfos(opened.file);
    const lazy: LazyTensors = {
      source: opened.source,
      tensorInfos: () => infos,
      loadTensor: (info, decode) => opened.module.loadTensor(opened.source, info, decode),
    };
    if (options.tensor !== undefined) {
      const found = infos.find((i) => i.name === options.tensor);
      if (!found) {
        const close = closestNames(
          options.tensor,
          infos.map((i) => i.name),
        );
        throw new InputError(
          `no tensor named "${options.tensor}"${close.length > 0 ? `; the closest: ${close.join(", ")}` : " (the file holds no tensors)"}`,
        );
      }
      infos = [found];
    }
    const totalBytes = infos.reduce((a, i) => a + i.byteLength, 0);
    const progress = new Progress(io.stderr, "stats", totalBytes);
    const reports: TensorReport[] = [];
    try {
      for (const info of infos) {
        const report: TensorReport = { name: info.name, dtype: info.dtype, shape: info.shape };
        const reason = skipReason(info);
        if (reason) {
          report.skipped = reason;
        } else {
          // G.711 codes decode to float32 values; int8 with a scale is reduced as its dequantized values
          const decode: DecodeOptions = info.decodesToFloat32 ? { dtype: "float32" } : {};
          // read and reduced in pieces (16 MiB, or a band of rows) merged as they come: memory stays flat
          // however large the tensor (as convert and verify stream it)
          const dtype = decodedDType(info, decode);
          const q = dtype === "int8" ? info.quantization : undefined;
          const options = { dtype, scale: q?.scale, offset: q?.offset };
          let stats: kernels.TensorStats | undefined;
          for await (const piece of decodeInChunks(lazy, info, decode)) {
            const part = kernels.stats(viewAs(dtype, piece) as kernels.StatsData, options);
            stats = stats ? kernels.mergeStats(stats, part) : part;
          }
          report.stats = stats ?? kernels.stats(viewAs(dtype, new Uint8Array(0)) as kernels.StatsData, options);
        }
        reports.push(report);
        progress.advance(info.byteLength, info.name);
      }
    } finally {
      progress.finish();
    }
    if (options.json) {
      print(io.stdout, jsonText({ format: opened.format, tensors: reports.map(reportJson) }));
    } else {
      printTable(io, path, opened.format, reports, totalBytes);
      if (infos.length === 0)
        print(io.stderr, `tensorfile: ${path} holds no tensors ("tensorfile extract" writes what it holds)`);
    }
    return 0;
  } finally {
    await opened.source.close?.();
  }
}

/**
 * `stats FILE…`: one section per file (as inspect prints them); a file that fails is reported and counted, the
 * others still done; exit 1 if any failed. With --json and several FILEs: a JSON array of { "file", … } objects.
 */
export async function statsFiles(io: CliIO, paths: string[], options: StatsCommandOptions): Promise<number> {
  if (paths.length === 0) throw new UsageError("stats takes one or more FILEs");
  if (paths.length === 1) return statsCommand(io, paths, options);
  const results: unknown[] = [];
  let failed = 0;
  let sections = 0;
  for (const path of paths) {
    let json = "";
    let started = false;
    // a blank line between sections, written with a section's first line (a file that fails prints none)
    const section = (text: string) => {
      if (!started && sections++ > 0) io.stdout.write("\n");
      started = true;
      return io.stdout.write(text);
    };
    // the table is fitted to the real standard output's terminal (columns.ts), so its isTTY and width go along
    const fileIo: CliIO = {
      stdout: {
        isTTY: !options.json && io.stdout.isTTY === true,
        columns: io.stdout.columns,
        write: options.json ? (text: string) => (json += text) : section,
      },
      stderr: io.stderr,
    };
    try {
      await statsCommand(fileIo, [path], options);
      if (options.json) results.push({ file: path, ...(JSON.parse(json) as object) });
    } catch (error) {
      if (!isInputError(error)) throw error;
      failed++;
      print(io.stderr, `tensorfile: ${path}: ${errorLine(error)}`);
      if (options.json) results.push({ file: path, error: errorJson(error) });
    }
  }
  if (options.json) print(io.stdout, jsonText(results));
  print(
    options.json ? io.stderr : io.stdout,
    `${paths.length - failed} of ${plural(paths.length, "file")} read${failed > 0 ? `, ${failed} failed` : ""}`,
  );
  return failed > 0 ? 1 : 0;
}

/** The `stats` command, as run.ts lists it. */
export const STATS_COMMAND: Command = {
  name: "stats",
  synopsis: "tensorfile stats FILE… [--tensor NAME] [--json]",
  help: STATS_HELP,
  options: STATS_OPTIONS,
  inputs: "all",
  inputOptions: "all",
  run: (io, positionals, values) => statsFiles(io, positionals, values as StatsCommandOptions),
};
