/**
 * The summary view's model: what an opened file is (format, version, size, meta, what the format holds beyond
 * tensors, verify warnings with the offsets they name) or why it could not be opened (the FormatError's code,
 * offset, field and message), plus the hex view around an offset.
 */
import { type InspectResult, isFormatError } from "../../../bindings/index.js";
import { formatBytes, valueText } from "./format.js";

export interface Warning {
  text: string;
  /** A byte offset the warning names, for the hex view. */
  offset?: number | undefined;
}

export interface SummaryModel {
  name: string;
  format: string;
  version: string;
  size: number;
  sizeText: string;
  tensorCount: number;
  tensorBytes: number;
  meta: [string, string][];
  /** What the format holds beyond tensors (april networks, tsm nodes, SPRAAK header…): a line and the full JSON. */
  extra: [string, string, string][];
  warnings: Warning[];
}

export interface ErrorModel {
  name: string;
  /** The FormatError code, or SOURCE (network, I/O) / ERROR. */
  code: string;
  offset?: number | undefined;
  field?: string | undefined;
  message: string;
}

/** "1" / ".spr header" / "" as inspect prints it. */
export function versionText(version: InspectResult["version"]): string {
  if (version === null || version === undefined) return "";
  if (typeof version === "string" && version.startsWith(".")) return `${version} header`;
  return String(version);
}

/** A byte offset a verify warning names ("at offset 1296", "params start at 139"), if any. */
export function warningOffset(text: string): number | undefined {
  const match =
    /\bat offset (0x[0-9a-f]+|\d+)\b/i.exec(text) ??
    /\b(?:starts?|begins?) at (\d+)\b/i.exec(text) ??
    /\bat byte (\d+)\b/i.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The summary of an opened file from its inspect() result and verify() warnings. */
export function summaryModel(
  name: string,
  size: number,
  inspected: InspectResult,
  warnings: readonly string[],
  tensorBytes: number,
): SummaryModel {
  const meta = Object.entries(inspected.meta ?? {})
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]): [string, string] => [k, valueText(v)]);
  const extra = Object.keys(inspected)
    .filter((k) => !["format", "version", "meta", "tensors"].includes(k))
    .map((k): [string, string, string] => {
      const v = inspected[k];
      return [Array.isArray(v) ? `${k} (${v.length})` : k, valueText(v, 400), fullJson(v)];
    });
  return {
    name,
    format: inspected.format,
    version: versionText(inspected.version),
    size,
    sizeText: `${formatBytes(size)}${size >= 1024 ? ` (${size} bytes)` : ""}`,
    tensorCount: inspected.tensors.length,
    tensorBytes,
    meta,
    extra,
    warnings: warnings.map((text) => ({ text, offset: warningOffset(text) })),
  };
}

/** Pretty JSON (bigints as digits), cut at 20,000 characters. */
function fullJson(value: unknown): string {
  const text =
    JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2) ?? String(value);
  return text.length > 20_000 ? `${text.slice(0, 20_000)}\n… (${text.length - 20_000} more characters)` : text;
}

/** What the page shows for an error thrown while opening or reading. */
export function errorModel(error: unknown): ErrorModel {
  if (isFormatError(error)) {
    return { name: error.name, code: error.code, offset: error.offset, field: error.field, message: error.message };
  }
  const e = error as { name?: string; message?: string } | undefined;
  const name = e?.name ?? "Error";
  return { name, code: name === "SourceError" ? "SOURCE" : "ERROR", message: e?.message ?? String(error) };
}

export interface HexLine {
  /** Absolute offset of the line's first byte. */
  offset: number;
  /** Two hex digits per byte, "" past the end. */
  hex: string[];
  ascii: string;
  /** Index in the line of the highlighted byte, or -1. */
  mark: number;
}

/** The byte range to show around `offset`: `rows` lines of 16 bytes, starting on a 16-byte boundary. */
export function hexWindow(offset: number, size: number, rows = 12): { start: number; length: number } {
  const line = Math.floor(Math.max(0, Math.min(offset, Math.max(0, size - 1))) / 16);
  const first = Math.max(0, line - Math.floor(rows / 2));
  const start = first * 16;
  return { start, length: Math.max(0, Math.min(rows * 16, size - start)) };
}

/** Hex dump lines of `bytes` (read from absolute offset `start`), marking the byte at `highlight`. */
export function hexLines(bytes: Uint8Array, start: number, highlight?: number): HexLine[] {
  const lines: HexLine[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const chunk = bytes.subarray(at, at + 16);
    const hex = Array.from({ length: 16 }, (_, i) => (i < chunk.length ? chunk[i]!.toString(16).padStart(2, "0") : ""));
    const ascii = Array.from(chunk, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    const offset = start + at;
    const mark = highlight !== undefined && highlight >= offset && highlight < offset + 16 ? highlight - offset : -1;
    lines.push({ offset, hex, ascii, mark });
  }
  return lines;
}
