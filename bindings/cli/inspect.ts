/**
 * `tensorfile inspect FILE… [--json] [--full]`: the format, version, metadata and a table of tensors of each FILE,
 * from its headers only (a TenniS module also gets the verdict of its ONNX translation).
 */
import type { InspectResult } from "../formats/types.js";
import { type CliIO, UsageError, errorJson, errorLine, isInputError, jsonText, plural, print, shapeText, versionText } from "./common.js";
import { openLazy } from "./inputs.js";
import { formatBytes } from "./progress.js";
import { onnxVerdictText, tsmOnnxVerdict } from "./tsm-onnx.js";

export const INSPECT_HELP = `tensorfile inspect FILE… [--json] [--full]

Prints the format, version, metadata and a table of tensors (name, dtype, shape, bytes), plus what the format
holds beyond tensors. Reads only the headers, so it is instant on multi-GB files. With several FILEs, one
result per file and a summary; exit 1 if any failed.
  --json   print one JSON object per file: { "format", "version", "meta", "tensors": [{ "name", "dtype", "shape", "byteLength" }], … }
           (several FILEs: a JSON array of { "file", … } objects)
  --full   do not shorten long values to one line of 100 characters`;

export const INSPECT_OPTIONS = { json: { type: "boolean" }, full: { type: "boolean" } } as const;

function valueText(value: unknown, full: boolean): string {
  const text = typeof value === "string" ? value : JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  const oneLine = (text ?? "undefined").replace(/\s+/g, " ");
  if (typeof value === "string" && value === "") return '""';
  return full || oneLine.length <= 100 ? oneLine : `${oneLine.slice(0, 97)}... (--full shows all)`;
}

/** A meta value as a person reads it: tsm's reserved header bytes as bytes, not as one run of hex digits. */
function metaText(format: string, key: string, value: unknown, full: boolean): string {
  if (format === "tsm" && key === "reserved" && typeof value === "string") {
    if (value === "") return "all zero";
    const bytes = value.match(/../g) ?? [];
    return `${bytes.join(" ")} (then zeros)`;
  }
  if (format === "tsm" && key === "onnx") return onnxVerdictText(value);
  return valueText(value, full);
}

function printInspect(io: CliIO, path: string, info: InspectResult, full: boolean): void {
  const out = io.stdout;
  print(out, `file     ${path}`);
  print(out, `format   ${info.format}${versionText(info)}`);
  const metaKeys = Object.keys(info.meta ?? {});
  if (metaKeys.length > 0) {
    print(out, "meta");
    const width = Math.min(28, Math.max(...metaKeys.map((k) => k.length)));
    for (const key of metaKeys) print(out, `  ${key.padEnd(width)}  ${metaText(info.format, key, info.meta[key], full)}`);
  }
  const total = info.tensors.reduce((a, t) => a + t.byteLength, 0);
  print(out, `tensors  ${info.tensors.length} (${formatBytes(total)})`);
  if (info.tensors.length > 0) {
    const rows = info.tensors.map((t) => [t.name, t.dtype, shapeText(t.shape), String(t.byteLength)]);
    const header = ["name", "dtype", "shape", "bytes"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => `  ${cells.map((c, i) => (i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ")}`.trimEnd();
    print(out, line(header));
    for (const r of rows) print(out, line(r));
  }
  for (const key of Object.keys(info)) {
    if (["format", "version", "meta", "tensors"].includes(key)) continue;
    const value = info[key];
    const count = Array.isArray(value) ? ` (${value.length})` : "";
    print(out, `${key}${count}  ${valueText(value, full)}`);
  }
}

export async function inspectCommand(io: CliIO, paths: string[], options: { json?: boolean; full?: boolean }): Promise<number> {
  if (paths.length === 0) throw new UsageError("inspect takes one or more FILEs");
  const many = paths.length > 1;
  const results: unknown[] = [];
  let failed = 0;
  for (const [i, path] of paths.entries()) {
    try {
      const opened = await openLazy(path);
      try {
        const info = opened.module.inspect(opened.file);
        if (opened.format === "tsm") info.meta.onnx = await tsmOnnxVerdict(opened.source);
        if (options.json) {
          if (many) results.push({ file: path, ...info });
          else print(io.stdout, jsonText(info));
        } else {
          if (many && i > 0) print(io.stdout, "");
          printInspect(io, path, info, options.full ?? false);
        }
      } finally {
        await opened.source.close?.();
      }
    } catch (error) {
      if (!isInputError(error)) throw error;
      failed++;
      print(io.stderr, `tensorfile: ${many ? `${path}: ` : ""}${errorLine(error)}`);
      if (options.json && many) results.push({ file: path, error: errorJson(error) });
    }
  }
  if (options.json && many) print(io.stdout, jsonText(results));
  if (many) print(options.json ? io.stderr : io.stdout, `${paths.length - failed} of ${plural(paths.length, "file")} read${failed > 0 ? `, ${failed} failed` : ""}`);
  return failed > 0 ? 1 : 0;
}
