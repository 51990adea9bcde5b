/**
 * SPRAAK writing: the header rendered back line by line (kept lines as they were) and the data encoded in
 * the header's TYPE/FORMAT, gzip re-used when nothing changed.
 */
import { CorruptDataError } from "../../bytes/errors.js";
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { concatBytes, copyBytes } from "../../bytes/input.js";
import * as kernels from "../../kernels/index.js";
import { type TypedArray, bytesOf, decodeRowMajorTensor } from "../../tensor.js";
import { formatF32, formatF64, gzip } from "./codecs.js";
import { type HeaderKind, type SeparatorStyle, renderLine, separatorStyle } from "./header.js";
import { type SpraakFileParts, type SpraakMeta, type SpraakType, TYPE_INFO, describe, hasKey, id } from "./model.js";
import { MAGIC_SPR, effectiveKeys, packedOrigins, textOrigins } from "./reader.js";
import { encodeText } from "./text.js";
import { loaded, matrixInfo } from "./view.js";
import { checkWriterInput } from "../../bytes/arguments.js";

// ------------------------------------------------------------------------------------------------ write

function writeError(detail: string, field: string): never {
  throw new CorruptDataError(id, detail, undefined, field);
}

/** The file's bytes. `write(read(x))` is byte-identical to x; edited headers keep their style. */
export function write(file: SpraakFileParts): Uint8Array {
  checkWriterInput(file, "spraak.write", "a SPRAAK file (from read(), matrix() or list())", {
    arrays: ["lines"],
    objects: ["header", "data"],
  });
  return concatBytes(pieces(file));
}

/**
 * write() into a sink (a function, a WritableStream or a Node Writable): the header, then the data as it is
 * stored (little-endian binary data without a copy). Resolves to the byte count.
 */
export async function writeTo(
  file: SpraakFileParts,
  sink: ByteSink,
  options: { end?: boolean | undefined } = {},
): Promise<number> {
  return writePiecesTo(sink, pieces(file), { end: options.end, caller: "spraak.writeTo" });
}

function pieces(file: SpraakFileParts): Uint8Array[] {
  const { keys } = effectiveKeys(file.kind, file.header, file.external);
  const { meta } = describe(keys, file.kind, (key) => ({ offset: undefined, field: key }), id);
  const headerBytes =
    file.kind === "none" ? new Uint8Array(0) : encodeText(renderHeader(file), file.encoding, id, "header");
  let dataBytes = encodeData(file, meta);
  if (meta.compress === "gzip") dataBytes = reuseOrGzip(file.data, dataBytes);
  const parts = [headerBytes, ...(Array.isArray(dataBytes) ? dataBytes : [dataBytes])];
  return file.gzip ? [reuseOrGzip(file, concatBytes(parts))] : parts;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  if (a === b) return true;
  const n = a.length;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = n >>> 2;
    const wa = new Uint32Array(a.buffer, a.byteOffset, words);
    const wb = new Uint32Array(b.buffer, b.byteOffset, words);
    for (let w = 0; w < words; w++) if (wa[w] !== wb[w]) return false;
    i = words * 4;
  }
  for (; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

function reuseOrGzip(owner: object, plain: Uint8Array | Uint8Array[]): Uint8Array {
  const bytes = Array.isArray(plain) ? concatBytes(plain) : plain;
  const origin = packedOrigins.get(owner);
  if (origin && sameBytes(origin.plain, bytes)) return origin.packed;
  return gzip(bytes);
}

/** Header text: magic, lines (unchanged ones verbatim, edited ones in their own style), new keys, end line. */
export function renderHeader(file: SpraakFileParts): string {
  const kind = file.kind as HeaderKind;
  const style: SeparatorStyle = separatorStyle(file.lines, kind === "key" ? "\t" : "align");
  const header = file.header;
  const lastIndex = new Map<string, number>();
  file.lines.forEach((line, i) => {
    if (line.key !== "") lastIndex.set(line.key, i);
  });
  const out: string[] = [];
  if (file.magicLine !== null || kind === "spr") out.push(file.magicLine ?? MAGIC_SPR);
  const rendered: string[] = [];
  let insertAt = 0; // new keys go after the last key line, before trailing padding
  file.lines.forEach((line, i) => {
    if (line.key === "") {
      rendered.push(line.raw ?? line.value);
      return;
    }
    if (!hasKey(header, line.key)) return; // deleted
    const value = lastIndex.get(line.key) === i ? String(header[line.key]) : line.value;
    rendered.push(
      line.raw !== undefined && value === line.value
        ? line.raw
        : renderLine(kind, line.key, value, style, line.raw, writeError),
    );
    insertAt = rendered.length;
  });
  const fresh: string[] = [];
  for (const [key, value] of Object.entries(header)) {
    if (!lastIndex.has(key)) fresh.push(renderLine(kind, key, String(value), style, undefined, writeError));
  }
  // (no spread into splice/push: a header of a million lines would overflow the call stack)
  for (let i = 0; i < rendered.length; i++) {
    if (i === insertAt) for (const line of fresh) out.push(line);
    out.push(rendered[i]!);
  }
  if (insertAt >= rendered.length) for (const line of fresh) out.push(line);
  const endLine = file.endLine ?? "#";
  if (kind === "spr" ? endLine !== "#" : !/^#+$/.test(endLine))
    writeError(`end line ${JSON.stringify(endLine)} is not ${kind === "spr" ? '"#"' : "a line of '#'"}`, "endLine");
  out.push(endLine);
  return out.join("\n") + "\n";
}

function encodeData(file: SpraakFileParts, meta: SpraakMeta): Uint8Array | Uint8Array[] {
  const data = file.data;
  const layout = data.layout === "MATRIX" ? "MATRIX" : data.layout;
  if (meta.layout !== layout && !(layout === "CUSTOM" && meta.type === "CUSTOM")) {
    writeError(`the header says LAYOUT ${meta.layout} (TYPE ${meta.type}) but the data is ${data.layout}`, "LAYOUT");
  }
  if (data.layout === "LIST") {
    for (const entry of data.entries)
      if (entry.includes("\n")) writeError("a LIST entry contains a line break", "data");
    const text = data.entries.join("\n") + (data.finalNewline && data.entries.length > 0 ? "\n" : "");
    return encodeText(text, file.encoding, id, "data");
  }
  if (data.layout === "CUSTOM") return loaded(data.bytes, "the data");
  const type = meta.type;
  if (type !== data.type) writeError(`the header says TYPE ${type} but the data is ${data.type}`, "TYPE");
  if (meta.dim1 !== -1 && meta.dim1 !== data.rows)
    writeError(`the header says DIM1 ${meta.dim1} but the data has ${data.rows} rows`, "DIM1");
  if (meta.dim2 !== -1 && meta.dim2 !== data.cols)
    writeError(`the header says DIM2 ${meta.dim2} but the data has ${data.cols} columns`, "DIM2");
  const size = TYPE_INFO[data.type].bytes;
  const count = data.rows * data.cols;
  if (meta.format === "ASCII") {
    if (data.encoding === "ascii") {
      if (data.values.length !== count)
        writeError(`${data.values.length} values for ${data.rows} x ${data.cols}`, "data");
      const origin = textOrigins.get(data);
      if (
        origin &&
        origin.type === data.type &&
        origin.rows === data.rows &&
        origin.cols === data.cols &&
        sameBytes(origin.snapshot, bytesOf(data.values))
      ) {
        return origin.text;
      }
      return encodeText(formatAscii(data.values, data.type, data.rows, data.cols), "latin1", id, "data");
    }
    if (data.trailing && loaded(data.trailing, "the trailing data").length > 0) {
      writeError("bytes after the last whole row (DIM1 -1) cannot be written as ASCII", "data.trailing");
    }
    const values = decodeRowMajorTensor(
      loaded(data.bytes, "the data"),
      matrixInfo(data.type, data.rows, data.cols, 0, data.byteOrder),
      {},
      id,
    ).data;
    return encodeText(formatAscii(values, data.type, data.rows, data.cols), "latin1", id, "data");
  }
  const order = meta.format === "BIN10" ? "be" : "le";
  let stored: Uint8Array;
  let storedOrder: "le" | "be";
  const parts: Uint8Array[] = [];
  if (data.encoding === "binary") {
    stored = loaded(data.bytes, "the data");
    storedOrder = data.byteOrder;
    if (data.trailing) parts.push(loaded(data.trailing, "the trailing data"));
  } else {
    stored = bytesOf(data.values);
    storedOrder = "le";
  }
  if (stored.length !== count * size)
    writeError(`${stored.length} data bytes for ${data.rows} x ${data.cols} ${data.type}`, "data");
  if (storedOrder !== order && size > 1) {
    stored = copyBytes(stored);
    kernels.byteSwap(stored, size as 2 | 4 | 8);
  }
  return parts.length > 0 ? [stored, ...parts] : stored;
}

function formatAscii(values: TypedArray, type: SpraakType, rows: number, cols: number): string {
  const format = type === "F32" ? formatF32 : type === "F64" ? formatF64 : (v: number | bigint) => String(v);
  const lines = new Array<string>(rows);
  const row = new Array<string>(cols);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) row[j] = format(values[i * cols + j]! as number);
    lines[i] = row.join(" ");
  }
  return rows === 0 ? "" : lines.join("\n") + "\n";
}
