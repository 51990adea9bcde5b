/**
 * `tensorfile show FILE TENSOR [--slice SPEC] [--head N] [--json]`: prints one tensor's values the way
 * `print(np.load(...))` does: nested brackets, one width for every number, and a tensor of more than 1,000
 * values summarized by its first and last three entries on each axis. `--slice` takes numpy's basic indexing
 * (`0:4,:`, `-1`, `::2`); `--head N` keeps the first N entries of the first axis. float16, bfloat16 and float8
 * values are printed widened (exactly); int8 with a scale prints its stored steps (the scale is named above).
 */
import type { Command } from "./command.js";
import * as kernels from "../kernels/index.js";
import { bfloat16Bits } from "../bfloat16.js";
import type { DType, NamedTensor, TensorInfo } from "../tensor.js";
import { type CliIO, InputError, UsageError, jsonText, print, shapeText } from "./common.js";
import { openLazy, pickTensor } from "./inputs.js";

export const SHOW_HELP = `tensorfile show FILE TENSOR [--slice SPEC] [--head N] [--json]

Prints the values of one tensor of FILE (any readable format), as numpy prints an array: nested brackets, one
width for every number, and a tensor of more than 1,000 values summarized by the first and last 3 entries of each
axis ("..."). float16, bfloat16 and float8 values are shown widened; int8 with a scale shows its stored steps.
The tensor is loaded whole.
  --slice SPEC  numpy's basic indexing, one item per axis separated by commas: an index (2, -1) drops the axis,
                start:stop:step keeps it (0:4, :, ::2, -3:); axes not named are taken whole
  --head N      only the first N entries of the first axis (after --slice)
  --json        { "name", "dtype", "shape", "slice", "values" } with every selected value (no summary), nested
                by axis; non-finite numbers are the strings "NaN", "Infinity", "-Infinity"; int64 as numbers
                when exact, else strings`;

export const SHOW_OPTIONS = { slice: { type: "string" }, head: { type: "string" }, json: { type: "boolean" } } as const;

export interface ShowCommandOptions {
  slice?: string | undefined;
  head?: string | undefined;
  json?: boolean | undefined;
}

/** numpy's line width (np.get_printoptions()["linewidth"]). */
const LINE_WIDTH = 75;
/** numpy prints an array whole up to this many values (np.get_printoptions()["threshold"]). */
const THRESHOLD = 1000;
/** …and summarized by this many entries at each end of an axis (edgeitems). */
const EDGE_ITEMS = 3;

/**
 * One axis of a selection: the source indices start, start + step, … (count of them), and whether the axis stays
 * (a range) or goes (an index). Kept as a progression, not a list: an axis may have a billion entries.
 */
interface AxisSelection {
  start: number;
  step: number;
  count: number;
  keep: boolean;
}

const ELLIPSIS = Symbol("...");

function parseIndex(text: string, what: string): number | undefined {
  if (text.trim() === "") return undefined;
  if (!/^\s*-?\d+\s*$/.test(text)) throw new UsageError(`--slice: ${what} ${JSON.stringify(text)} is not an integer`);
  return Number(text);
}

/** The axes `spec` selects of `shape` (numpy's basic indexing: integers and start:stop:step ranges). */
export function parseSlice(spec: string | undefined, shape: readonly number[]): AxisSelection[] {
  const items = spec === undefined || spec.trim() === "" ? [] : spec.split(",");
  if (items.length > shape.length)
    throw new UsageError(
      `--slice names ${items.length} axes, but the tensor has ${shape.length} (shape ${shapeText(shape)})`,
    );
  return shape.map((size, axis) => {
    const item = items[axis]?.trim() ?? ":";
    if (!item.includes(":")) {
      const index = parseIndex(item, `axis ${axis} index`);
      if (index === undefined) throw new UsageError(`--slice: axis ${axis} is empty (use : for the whole axis)`);
      const at = index < 0 ? index + size : index;
      if (at < 0 || at >= size)
        throw new UsageError(`--slice: index ${index} is out of range for axis ${axis} of size ${size}`);
      return { start: at, step: 1, count: 1, keep: false };
    }
    const parts = item.split(":");
    if (parts.length > 3) throw new UsageError(`--slice: ${JSON.stringify(item)} has more than start:stop:step`);
    const step = parseIndex(parts[2] ?? "", "step") ?? 1;
    if (step === 0) throw new UsageError("--slice: a step cannot be zero");
    // Python's slice.indices(): clamp start and stop into range, defaults by the step's sign
    const clamp = (value: number | undefined, fallback: number): number => {
      if (value === undefined) return fallback;
      const v = value < 0 ? value + size : value;
      return step > 0 ? Math.min(Math.max(v, 0), size) : Math.min(Math.max(v, -1), size - 1);
    };
    const start = clamp(parseIndex(parts[0]!, "start"), step > 0 ? 0 : size - 1);
    const stop = clamp(parseIndex(parts[1]!, "stop"), step > 0 ? size : -1);
    const count =
      step > 0 ? Math.max(0, Math.ceil((stop - start) / step)) : Math.max(0, Math.ceil((start - stop) / -step));
    return { start, step, count, keep: true };
  });
}

/** The values as numbers or bigints, in row-major order (float16-like dtypes come widened: `loaded` is float32). */
function valueAt(tensor: NamedTensor, index: number): number | bigint | boolean {
  const v = tensor.data[index]!;
  return tensor.dtype === "bool" ? v !== 0 : v;
}

/**
 * Nested arrays of the selected values: an axis kept is a level of nesting, an axis indexed is not. With
 * `summarize`, each kept axis longer than 2 × EDGE_ITEMS holds its first and last EDGE_ITEMS entries around
 * ELLIPSIS (so a summary of a huge tensor builds only a few values).
 */
function select(tensor: NamedTensor, shape: readonly number[], axes: AxisSelection[], summarize: boolean): unknown {
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const walk = (axis: number, base: number): unknown => {
    if (axis === axes.length) return valueAt(tensor, base);
    const { start, step, count, keep } = axes[axis]!;
    if (!keep) return walk(axis + 1, base + start * strides[axis]!);
    const entry = (k: number) => walk(axis + 1, base + (start + k * step) * strides[axis]!);
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => entry(from + k));
    if (summarize && count > 2 * EDGE_ITEMS)
      return [...range(0, EDGE_ITEMS), ELLIPSIS, ...range(count - EDGE_ITEMS, count)];
    return range(0, count);
  };
  return walk(0, 0);
}

/** Rounds a number to a dtype's precision (what "represents uniquely" is measured against). */
type Rounder = (v: number) => number;

const f16Round: Rounder = (v) => kernels.f16ToF32(kernels.f32ToF16(new Float32Array([v])))[0]!;
const bf16Round: Rounder = (v) => {
  // round half to even, as onnx/quantize.ts stores bfloat16 (both through bfloat16.ts)
  const rounded = bfloat16Bits(new Uint32Array(new Float32Array([v]).buffer)[0]!);
  return kernels.bf16ToF32(new Uint16Array([rounded]))[0]!;
};
const ROUNDERS: Partial<Record<DType, Rounder>> = {
  float32: Math.fround,
  float16: f16Round,
  bfloat16: bf16Round,
  float64: (v) => v,
};

/** The fewest significant digits (1 to 17) that give `v` back through `round` (numpy's unique representation). */
function shortestDigits(v: number, round: Rounder): number {
  for (let digits = 1; digits < 17; digits++) if (round(Number(v.toPrecision(digits))) === v) return digits;
  return 17;
}

/**
 * numpy's float formatting (floatmode "maxprec", precision 8): each value with the fewest digits that identify
 * it in its dtype, at most 8 after the point; scientific for the whole array when the magnitudes span more than
 * 1000× or reach 1e8 or go below 1e-4; decimal points aligned.
 */
function floatTexts(values: number[], dtype: DType): string[] {
  const round = ROUNDERS[dtype] ?? ((v: number) => v);
  const special = (v: number) => (Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf");
  const magnitudes = values.filter((v) => Number.isFinite(v) && v !== 0).map(Math.abs);
  const max = magnitudes.length > 0 ? Math.max(...magnitudes) : 0;
  const min = magnitudes.length > 0 ? Math.min(...magnitudes) : 0;
  const scientific = max >= 1e8 || (min > 0 && (min < 1e-4 || max / min > 1000));
  const texts = values.map((v) => {
    if (!Number.isFinite(v)) return special(v);
    if (scientific) {
      const digits = Math.min(shortestDigits(v, round), 9);
      const [mantissa, exponent] = v.toExponential(digits - 1).split("e") as [string, string];
      const e = Number(exponent);
      return `${mantissa.includes(".") ? mantissa : `${mantissa}.`}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    }
    // the shortest digits that identify v, unless they run past 8 decimals: then v itself rounded to 8 (once)
    const shortest = Number(v.toPrecision(shortestDigits(v, round)));
    const exact = shortest.toFixed(12).replace(/0+$/, "");
    let text = (exact.length - exact.indexOf(".") - 1 <= 8 ? exact : v.toFixed(8)).replace(/0+$/, "");
    if (Object.is(v, -0)) text = "-0.";
    return text;
  });
  // align: integer parts padded on the left, fractions (or mantissas) on the right, as numpy does; nan and inf
  // take the whole width, right-aligned
  const numeric = texts.filter((t) => t.includes("."));
  const point = (t: string) => t.indexOf(".");
  const left = Math.max(0, ...numeric.map(point));
  const right = Math.max(0, ...numeric.map((t) => (scientific ? t.indexOf("e") : t.length) - t.indexOf(".")));
  return texts.map((t) => {
    if (!t.includes(".")) return t.padStart(left + right);
    const fraction = (scientific ? t.indexOf("e") : t.length) - t.indexOf(".");
    // numpy pads a mantissa with zeros (1.0e-05 beside 2.5e-01), a positional fraction with spaces (0.5  beside 0.25)
    const padded = scientific
      ? `${t.slice(0, t.indexOf("e"))}${"0".repeat(right - fraction)}${t.slice(t.indexOf("e"))}`
      : t + " ".repeat(right - fraction);
    return " ".repeat(left - point(t)) + padded;
  });
}

/** The text numpy prints for nested `value` (ELLIPSIS entries as "..."): brackets and aligned numbers. */
function arrayText(value: unknown, dtype: DType, float: boolean): string {
  const flat: (number | bigint | boolean)[] = [];
  const gather = (v: unknown): void =>
    Array.isArray(v) ? v.forEach(gather) : v === ELLIPSIS ? undefined : void flat.push(v as number);
  gather(value);
  const texts = float
    ? floatTexts(flat as number[], dtype)
    : flat.map((v) => (typeof v === "boolean" ? (v ? "True" : "False") : String(v)));
  const width = texts.reduce((w, t) => Math.max(w, t.length), 1);
  let next = 0;
  const render = (v: unknown, depth: number): string => {
    if (v === ELLIPSIS) return "...";
    if (!Array.isArray(v)) return texts[next++]!.padStart(width);
    const inner = v.map((item) => render(item, depth + 1));
    const levels = depthOf(v);
    if (levels >= 2) return `[${inner.join(`\n${"\n".repeat(levels - 2)}${" ".repeat(depth + 1)}`)}]`;
    // a row: wrapped at numpy's line width, continuation lines under the first entry
    const lines: string[] = [];
    let line = "";
    for (const item of inner) {
      const candidate = line === "" ? item : `${line} ${item}`;
      // numpy's _formatArray: each enclosing level takes one column for its "]", and a row's line (its indent and
      // "[" included) must stay within the width less one
      if (line !== "" && 2 * depth + 1 + candidate.length > LINE_WIDTH - 1) {
        lines.push(line.trimEnd());
        line = item;
      } else {
        line = candidate;
      }
    }
    lines.push(line);
    return `[${lines.join(`\n${" ".repeat(depth + 1)}`)}]`;
  };
  return Array.isArray(value) ? render(value, 0) : float ? scalarText(flat[0] as number, dtype) : texts[0]!;
}

/** A single value as numpy prints a scalar: its shortest digits, Python's repr style (1.0, 0.5, 1e-06). */
function scalarText(v: number, dtype: DType): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  const digits = shortestDigits(v, ROUNDERS[dtype] ?? ((x: number) => x));
  const shortest = Number(v.toPrecision(digits));
  const exponent = shortest === 0 ? 0 : Math.floor(Math.log10(Math.abs(shortest)));
  if (exponent < -4 || exponent >= 16) {
    const [mantissa, e] = shortest.toExponential(digits - 1).split("e") as [string, string];
    return `${mantissa.replace(/\.?0+$/, "")}e${Number(e) < 0 ? "-" : "+"}${String(Math.abs(Number(e))).padStart(2, "0")}`;
  }
  const text = Object.is(v, -0) ? "-0" : String(shortest);
  return text.includes(".") || text.includes("e") ? text : `${text}.0`;
}

/** How many levels of arrays `v` nests (its first entry that is not ELLIPSIS, down). */
function depthOf(v: unknown): number {
  let depth = 0;
  for (let x = v; Array.isArray(x); x = x.find((e) => e !== ELLIPSIS)) depth++;
  return depth;
}

/** JSON has no NaN, Infinity or int64 beyond 2^53: those become strings. */
function jsonValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonValues);
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return value;
}

const FLOAT_DTYPES: readonly DType[] = ["float16", "float32", "float64", "bfloat16", "float8_e4m3", "float8_e5m2"];
const PRINTABLE: readonly DType[] = [
  ...FLOAT_DTYPES,
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
];

/** Runs `tensorfile show`; returns the exit status. */
export async function showCommand(io: CliIO, args: string[], options: ShowCommandOptions): Promise<number> {
  if (args.length !== 2)
    throw new UsageError("show takes a FILE and the name of one of its tensors (tensorfile inspect FILE lists them)");
  const [path, name] = args as [string, string];
  let head: number | undefined;
  if (options.head !== undefined) {
    head = Number(options.head);
    if (!/^\s*\d+\s*$/.test(options.head) || !Number.isSafeInteger(head))
      throw new UsageError(`--head takes a count of entries (0 or more), not ${JSON.stringify(options.head)}`);
  }
  const opened = await openLazy(path);
  try {
    const info: TensorInfo = pickTensor(opened.tensorInfos(), name);
    const axes = parseSlice(options.slice, info.shape);
    if (!PRINTABLE.includes(info.dtype) && !info.decodesToFloat32) {
      throw new InputError(
        `tensor "${info.name}" is ${info.dtype}, which show does not print (it prints real numbers, integers and bool); "tensorfile convert" writes it out`,
      );
    }
    const widen =
      info.decodesToFloat32 === true ||
      (FLOAT_DTYPES.includes(info.dtype) && info.dtype !== "float32" && info.dtype !== "float64");
    const tensor = (await opened.module.loadTensor(
      opened.source,
      info,
      widen ? { dtype: "float32" } : {},
    )) as NamedTensor;
    const firstKept = axes.findIndex((a) => a.keep);
    if (head !== undefined && firstKept >= 0) axes[firstKept]!.count = Math.min(axes[firstKept]!.count, head);
    const shape = axes.filter((a) => a.keep).map((a) => a.count);
    const count = shape.reduce((a, b) => a * b, 1);
    const values = select(tensor, info.shape, axes, !options.json && count > THRESHOLD);
    if (options.json) {
      print(
        io.stdout,
        jsonText({
          name: info.name,
          dtype: info.dtype,
          shape: info.shape,
          slice: options.slice ?? null,
          values: jsonValues(values),
        }),
      );
      return 0;
    }
    const selected = options.slice !== undefined || head !== undefined ? ` -> ${shapeText(shape)}` : "";
    const scale = info.quantization
      ? ` (stored steps; value = (q - ${info.quantization.offset}) * ${info.quantization.scale})`
      : "";
    print(io.stdout, `${info.name}  ${info.dtype}  ${shapeText(info.shape)}${selected}${scale}`);
    print(io.stdout, arrayText(values, info.dtype, widen || FLOAT_DTYPES.includes(info.dtype)));
    return 0;
  } finally {
    await opened.source.close?.();
  }
}

/** The `show` command, as run.ts lists it. */
export const SHOW_COMMAND: Command = {
  name: "show",
  synopsis: "tensorfile show FILE TENSOR [--slice SPEC] [--head N] [--json]",
  help: SHOW_HELP,
  options: SHOW_OPTIONS,
  inputs: "first",
  inputOptions: "all",
  run: (io, positionals, values) => showCommand(io, positionals, values as ShowCommandOptions),
};
