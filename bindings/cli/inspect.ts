/**
 * `tensorfile inspect FILE… [--json] [--full]`: the format, version, metadata and a table of tensors of each FILE,
 * from its headers only (a TenniS module also gets the verdict of its ONNX translation).
 */
import { capabilitiesOf } from "../formats/registry.js";
import type { Command } from "./command.js";
import type { InspectResult } from "../formats/types.js";
import {
  type CliIO,
  UsageError,
  errorJson,
  errorLine,
  isInputError,
  jsonText,
  plural,
  print,
  shapeText,
  versionText,
} from "./common.js";
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
  const replacer = (_k: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v);
  if (!full && Array.isArray(value) && value.length > 16) {
    // a long list (a million sections) shown shortened: only its first elements are turned into JSON
    let start = "[";
    for (let i = 0; i < value.length && start.length <= 200; i++)
      start += `${i > 0 ? "," : ""}${JSON.stringify(value[i], replacer) ?? "null"}`;
    const oneLine = start.replace(/\s+/g, " ");
    if (oneLine.length > 100) return `${oneLine.slice(0, 97)}... (--full shows all)`;
  }
  const text = typeof value === "string" ? value : JSON.stringify(value, replacer);
  const oneLine = (text ?? "undefined").replace(/\s+/g, " ");
  if (typeof value === "string" && value === "") return '""';
  return full || oneLine.length <= 100 ? oneLine : `${oneLine.slice(0, 97)}... (--full shows all)`;
}

/** A meta value as a person reads it: tsm's reserved header bytes as bytes, not as one run of hex digits. */
function metaText(format: string, key: string, value: unknown, full: boolean): string {
  const capabilities = capabilitiesOf(format);
  const own = capabilities?.inspectMetaText?.(key, value);
  if (own !== undefined) return own;
  if (key === "onnx" && capabilities?.convertsTo?.includes("onnx")) return onnxVerdictText(value);
  return valueText(value, full);
}

/** A graph input or output as onnx's inspect() gives it. */
interface ValueRow {
  name: string;
  dtype: string | null;
  shape: (number | string | null)[] | null;
  kind?: string;
}

function printInspect(io: CliIO, path: string, info: InspectResult, full: boolean): void {
  const out = io.stdout;
  print(out, `file     ${path}`);
  print(out, `format   ${info.format}${versionText(info)}`);
  // an ONNX model's inputs and outputs (name, dtype, shape) and metadata_props, each on a line of its own
  const shown = new Set(["format", "version", "meta", "tensors"]);
  const capabilities = capabilitiesOf(info.format);
  for (const key of capabilities?.inspectTables ?? []) {
    const values = info[key];
    if (!Array.isArray(values)) continue;
    shown.add(key);
    print(out, `${key}${values.length === 0 ? "  (none)" : ""}`);
    const rows = (values as ValueRow[]).map((v) => [
      v.name,
      v.dtype ?? v.kind ?? "?",
      v.shape === null ? "(rank unknown)" : `[${v.shape.map((d) => d ?? "?").join(", ")}]`,
    ]);
    const widths = [0, 1].map((c) => rows.reduce((w, r) => Math.max(w, r[c]!.length), 0));
    for (const r of rows) print(out, `  ${r[0]!.padEnd(widths[0]!)}  ${r[1]!.padEnd(widths[1]!)}  ${r[2]}`.trimEnd());
  }
  const metadataKey = capabilities?.inspectMetadataKey;
  const metadata =
    metadataKey !== undefined && Array.isArray(info.meta?.[metadataKey])
      ? (info.meta[metadataKey] as { key: string; value: string }[])
      : undefined;
  if (metadata) {
    print(out, `metadata${metadata.length === 0 ? "  (none)" : ""}`);
    const width = Math.min(
      28,
      metadata.reduce((w, e) => Math.max(w, e.key.length), 0),
    );
    for (const e of metadata) print(out, `  ${e.key.padEnd(width)}  ${valueText(e.value, full)}`);
  }
  const metaKeys = Object.keys(info.meta ?? {}).filter((k) => !(metadata && k === metadataKey));
  if (metaKeys.length > 0) {
    print(out, "meta");
    const width = Math.min(
      28,
      metaKeys.reduce((w, k) => Math.max(w, k.length), 0),
    ); // (no spread: any count)
    for (const key of metaKeys)
      print(out, `  ${key.padEnd(width)}  ${metaText(info.format, key, info.meta[key], full)}`);
  }
  const total = info.tensors.reduce((a, t) => a + t.byteLength, 0);
  print(out, `tensors  ${info.tensors.length} (${formatBytes(total)})`);
  if (info.tensors.length > 0) {
    // (no table of rows held: widths in a first pass, then the lines written in batches; a million tensors)
    const header = ["name", "dtype", "shape", "bytes"];
    const widths = header.map((h) => h.length);
    for (const t of info.tensors) {
      widths[0] = Math.max(widths[0]!, t.name.length);
      widths[1] = Math.max(widths[1]!, t.dtype.length);
      widths[2] = Math.max(widths[2]!, shapeText(t.shape).length);
      widths[3] = Math.max(widths[3]!, String(t.byteLength).length);
    }
    const line = (name: string, dtype: string, shape: string, bytes: string) =>
      `  ${name.padEnd(widths[0]!)}  ${dtype.padEnd(widths[1]!)}  ${shape.padEnd(widths[2]!)}  ${bytes.padStart(widths[3]!)}`.trimEnd();
    print(out, line("name", "dtype", "shape", "bytes"));
    let batch = "";
    for (const t of info.tensors) {
      batch += `${line(t.name, t.dtype, shapeText(t.shape), String(t.byteLength))}\n`;
      if (batch.length >= 65536) {
        out.write(batch);
        batch = "";
      }
    }
    if (batch !== "") out.write(batch);
  }
  for (const key of Object.keys(info)) {
    if (shown.has(key)) continue;
    const value = info[key];
    const count = Array.isArray(value) ? ` (${value.length})` : "";
    print(out, `${key}${count}  ${valueText(value, full)}`);
  }
}

export async function inspectCommand(
  io: CliIO,
  paths: string[],
  options: { json?: boolean; full?: boolean },
): Promise<number> {
  if (paths.length === 0) throw new UsageError("inspect takes one or more FILEs");
  if (options.json && options.full)
    throw new UsageError(
      "--full shows long values whole in the text output; --json never shortens them: give one of them",
    );
  const many = paths.length > 1;
  const results: unknown[] = [];
  let failed = 0;
  for (const [i, path] of paths.entries()) {
    try {
      const opened = await openLazy(path);
      try {
        const info = opened.module.inspect(opened.file);
        // what the file holds but could not be read (an april network that is not ONNX): said, not only listed
        const problems = opened.module.verifyErrors?.(opened.file) ?? [];
        if (capabilitiesOf(opened.format)?.convertsTo?.includes("onnx"))
          info.meta.onnx = await tsmOnnxVerdict(opened.source);
        if (options.json) {
          if (many) results.push({ file: path, ...info });
          else print(io.stdout, jsonText(info));
          for (const problem of problems) print(io.stderr, `tensorfile: ${many ? `${path}: ` : ""}warning: ${problem}`);
        } else {
          if (many && i > 0) print(io.stdout, "");
          printInspect(io, path, info, options.full ?? false);
          for (const problem of problems) print(io.stdout, `warning: ${problem}`);
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
  if (many)
    print(
      options.json ? io.stderr : io.stdout,
      `${paths.length - failed} of ${plural(paths.length, "file")} read${failed > 0 ? `, ${failed} failed` : ""}`,
    );
  return failed > 0 ? 1 : 0;
}

/** The `inspect` command, as run.ts lists it. */
export const INSPECT_COMMAND: Command = {
  name: "inspect",
  synopsis: "tensorfile inspect FILE… [--json] [--full]",
  help: INSPECT_HELP,
  options: INSPECT_OPTIONS,
  inputs: "all",
  inputOptions: "all",
  run: (io, positionals, values) => inspectCommand(io, positionals, values as { json?: boolean; full?: boolean }),
};
