/**
 * The editing worker's state: one file opened for editing, the edits made to it, and the edited file.
 *
 * Memory: the page never holds two copies of a model. An `.onnx` file is opened "with holes" from a ByteSource (a
 * File's, or a URL's read with Range requests): its headers are read lazily (onnx.readFrom), every raw_data payload
 * of at least {@link HOLE_BYTES} is left unread (zero pages of one buffer of the file's size, which the OS does not
 * back until they are written), and the rest is read into that buffer, which onnx.read() then parses. write()
 * copies an unchanged message as a view of that buffer, so the edited file is a list of new pieces (the re-encoded
 * messages) and ranges of the original file for everything else: every untouched byte comes from the file as read,
 * and nothing of the weights is copied in JS. Opened from a Blob (a File), the download is a Blob of those pieces
 * and slices of the File; opened from another source, it is streamed in order ({@link EditSession.chunks}), the
 * holes read from the source by ranges as they come, so the file is read about once in all. A precision change
 * reads the holes first (it reads every weight); an `.april` file is read whole (its networks are ONNX models
 * inside it), and its download is built the same way.
 */
import { CAPABILITIES, readingOf } from "../../../bindings/formats/registry.js";
import type { FormatEditing, FormatId, FormatReading } from "../../../bindings/formats/types.js";
import { type ByteSource, SourceError, fromBlob, onnx } from "../../../bindings/index.js";
import { cachingSource } from "../model/caching-source.js";
import {
  type EditOp,
  type EditedFile,
  type NetworkName,
  type PrecisionChoice,
  SCALAR_ATTRIBUTE_TYPES,
  applyEdit,
  attributeText,
  targetModel,
} from "./operations.js";

/** raw_data payloads at least this big are left unread until a precision change needs them. */
export const HOLE_BYTES = 64 * 1024;

/** What the header walk of a file read by ranges keeps of what it read (it reads headers, never payloads). */
const STRUCTURE_CACHE_BYTES = 16 * 1024 * 1024;

/** What the editor shows of one ONNX model (the file's, or one network's of an `.april`). */
export interface ModelSummary {
  metadata: { key: string; value: string }[];
  fields: Record<onnx.OnnxModelField, string>;
  opset: number;
  inputs: ValueSummary[];
  outputs: ValueSummary[];
  nodes: NodeSummary[];
}

export interface ValueSummary {
  name: string;
  dtype: string;
  /** undefined: rank unknown. */
  shape: (number | string | null)[] | undefined;
}

export interface NodeSummary {
  index: number;
  name: string;
  opType: string;
  /** FLOAT, INT and STRING attributes, as text. */
  attributes: { name: string; type: string; value: string }[];
}

/** What the editor shows after each step. */
export interface SessionSummary {
  format: FormatId;
  /** A file that holds networks (`.april`): its own text fields (name, description, language). */
  header?: Record<string, string> | undefined;
  /** A file that holds networks (`.april`): those that read as ONNX models. */
  networks: NetworkName[];
  network: NetworkName | undefined;
  model: ModelSummary | undefined;
  /** The edits in force, one line each. */
  done: string[];
  precision: PrecisionChoice | undefined;
  /** The precision change's report, as lines. */
  report: string[];
  /** Bytes left unread (holes). */
  unread: number;
  /** The original file's size. */
  size: number;
  /** Whether the file is read from a Blob (a File): its download is a Blob of slices of it; else it is streamed. */
  fromBlob: boolean;
}

interface Hole {
  start: number;
  end: number;
}

/** The raw_data payloads (and packed float fields) of at least HOLE_BYTES, anywhere in the model, sorted. */
function payloadHoles(model: onnx.OnnxModel): Hole[] {
  const holes: Hole[] = [];
  const tensor = (t: onnx.OnnxTensor | undefined) => {
    if (!t) return;
    const range = t.storage === "raw_data" ? t.data : t.packed;
    if (range && range.byteLength >= HOLE_BYTES)
      holes.push({ start: range.byteOffset, end: range.byteOffset + range.byteLength });
  };
  const graph = (g: onnx.OnnxGraph | undefined) => {
    if (!g) return;
    for (const t of g.initializers) tensor(t);
    for (const n of g.nodes) {
      for (const a of n.attributes) {
        tensor(a.t);
        for (const t of a.tensors ?? []) tensor(t);
        graph(a.g);
        for (const sub of a.graphs ?? []) graph(sub);
      }
    }
  };
  graph(model.graph);
  holes.sort((a, b) => a.start - b.start);
  // overlapping ranges cannot happen in a valid model, but a hostile one must not make us skip bytes we need
  const merged: Hole[] = [];
  for (const h of holes) {
    const last = merged[merged.length - 1];
    if (last && h.start < last.end) last.end = Math.max(last.end, h.end);
    else merged.push({ ...h });
  }
  return merged;
}

/** Largest single read from the source (a 64 MiB payload is read in four). */
const READ_STEP = 16 * 1024 * 1024;

/** Reads bytes [start, end) of `source` into the same offsets of `buffer`. */
async function readInto(buffer: Uint8Array, source: ByteSource, start: number, end: number): Promise<void> {
  for (let at = start; at < end; at += READ_STEP)
    buffer.set(await readExactly(source, at, Math.min(end, at + READ_STEP)), at);
}

/** Bytes [start, end) of `source`; a source that gives fewer (it shrank since) is an error, not a short file. */
async function readExactly(source: ByteSource, start: number, end: number): Promise<Uint8Array> {
  const bytes = await source.read(start, end - start);
  if (bytes.length !== end - start)
    throw new SourceError(
      `${source.name ?? "the file"} gave ${bytes.length} bytes at ${start} where ${end - start} were expected (did it change?)`,
    );
  return bytes;
}

/**
 * The download's chunks, at most: each is read from the source, copied to the page and written there, and is
 * garbage after; small ones keep what waits for the collector small.
 */
const STREAM_STEP = 4 * 1024 * 1024;

/** One piece of the edited file: new bytes, or a range of the original file. */
type Piece = Uint8Array | Hole;

function dtypeOf(type: onnx.OnnxValueType): string {
  if (type.kind === "tensor" || type.kind === "sparse_tensor") {
    if (type.elemType === undefined) return "?";
    return onnx.DATA_TYPES[type.elemType]?.dtype ?? onnx.dataTypeName(type.elemType).toLowerCase();
  }
  return type.kind;
}

function summarize(model: onnx.OnnxModel): ModelSummary {
  const graph = model.graph;
  const initializers = new Set(graph?.initializers.map((t) => t.name) ?? []);
  const value = (v: onnx.OnnxValueInfo): ValueSummary => ({
    name: v.name,
    dtype: dtypeOf(v.type),
    shape: v.type.shape ? [...v.type.shape] : undefined,
  });
  return {
    metadata: model.metadataProps.map((e) => ({ key: e.key, value: e.value })),
    fields: {
      producer_name: model.producerName,
      producer_version: model.producerVersion,
      domain: model.domain,
      doc_string: model.docString,
      model_version: String(model.modelVersion),
      graph_name: graph?.name ?? "",
      graph_doc_string: graph?.docString ?? "",
    },
    opset: model.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version ?? 0,
    // an input that is also an initializer is a weight with a default (IR < 4), not something to feed
    inputs: (graph?.inputs ?? []).filter((v) => !initializers.has(v.name)).map(value),
    outputs: (graph?.outputs ?? []).map(value),
    nodes: (graph?.nodes ?? []).map((n, index) => ({
      index,
      name: n.name,
      opType: n.domain ? `${n.domain}.${n.opType}` : n.opType,
      attributes: n.attributes
        .filter((a) => SCALAR_ATTRIBUTE_TYPES.includes(a.type))
        .map((a) => ({ name: a.name, type: a.type, value: attributeText(a) ?? "" })),
    })),
  };
}

function sizeText(bytes: number): string {
  if (bytes < 10 * 1024) return `${bytes} B`;
  if (bytes < 10 * 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The precision change's report as lines (what `convert --quantize` prints). */
export function reportLines(report: onnx.QuantizeReport, prefix = ""): string[] {
  const ratio =
    report.weightBytesBefore > 0 ? ` (${(report.weightBytesAfter / report.weightBytesBefore).toFixed(2)}x)` : "";
  const lines = [
    `${prefix}${report.mode}: ${report.tensorsConverted} tensors converted; weights ${sizeText(report.weightBytesBefore)} -> ${sizeText(report.weightBytesAfter)}${ratio}`,
  ];
  if (report.mode === "fp16") {
    lines.push(`${prefix}values clamped to ±65504: ${report.clamped}; flushed to zero: ${report.flushed}`);
    lines.push(
      `${prefix}ops computing in float16: ${report.opsFloat16}; Casts added: ${report.nodesAdded}; Cast(to=FLOAT) retargeted to FLOAT16: ${report.castsRetargeted}`,
    );
    if (report.opsKeptFloat32.length > 0)
      lines.push(
        `${prefix}ops left in float32: ${report.opsKeptFloat32.map((o) => `${o.opType} x${o.count} (${o.reason})`).join(", ")}`,
      );
  } else {
    lines.push(
      `${prefix}values flushed to zero: ${report.flushed}; ${report.mode === "bf16" ? "Casts" : "dequantizing nodes"} added: ${report.nodesAdded}`,
    );
  }
  if (report.tensorsKept.length > 0) {
    const reasons = new Map<string, number>();
    for (const k of report.tensorsKept) reasons.set(k.reason, (reasons.get(k.reason) ?? 0) + 1);
    lines.push(`${prefix}float32 tensors left as they are: ${[...reasons].map(([r, n]) => `${n} ${r}`).join("; ")}`);
  }
  for (const note of report.notes) lines.push(`${prefix}note: ${note}`);
  return lines;
}

/** An editable format: its reading functions and its `edit` capability. */
interface EditableFormat {
  id: FormatId;
  reading: FormatReading;
  editing: FormatEditing;
}

/** The editable formats (those with the `edit` capability), in the registry's detection order. */
function editableFormats(): EditableFormat[] {
  return CAPABILITIES.flatMap((c) => {
    const reading = readingOf(c.id);
    return c.edit && reading ? [{ id: c.id, reading, editing: c.edit }] : [];
  });
}

/** One file being edited. */
export class EditSession {
  private edits: { edit: EditOp; line: string }[] = [];
  private precision: PrecisionChoice | undefined;
  private report: string[] = [];
  private target: EditedFile;
  private holes: Hole[];
  network: NetworkName | undefined;

  private constructor(
    private readonly source: ByteSource,
    /** The File the source reads, when it is one: the download is then a Blob of slices of it. */
    private readonly blob: Blob | undefined,
    readonly name: string,
    private readonly bytes: Uint8Array,
    private readonly editable: EditableFormat,
    holes: Hole[],
  ) {
    this.holes = holes;
    this.target = this.fresh();
    this.network = this.networks()[0];
  }

  /**
   * Opens `input` (a file of a format with the `edit` capability: `.onnx`, `.april`), a Blob (a File) or any
   * ByteSource (a URL's, read by ranges), for editing. A file that is one ONNX model is read with holes: its
   * structure by ranges, its large payloads not at all; a file holding networks is read whole.
   */
  static async open(input: Blob | ByteSource, name: string): Promise<EditSession> {
    const blob = input instanceof Blob ? input : undefined;
    const source = blob ? fromBlob(blob, name) : (input as ByteSource);
    const head = await source.read(0, 64);
    const size = source.size;
    if (size === undefined) throw new SourceError(`${name}: the size of the file is not known, it cannot be edited`);
    const format = editableFormats().find((f) => f.reading.detect(head));
    if (!format) throw new RangeError(`${name} is not an ONNX model or an .april file: the editor changes those two`);
    const bytes = new Uint8Array(size);
    if (format.editing.networks) {
      await readInto(bytes, source, 0, size);
      return new EditSession(source, blob, name, bytes, format, []);
    }
    // the structure's reads are many and small, and overlap: remembered while the headers are walked, then dropped
    const lazy = await format.reading.readFrom(blob ? source : cachingSource(source, STRUCTURE_CACHE_BYTES));
    const holes = payloadHoles(format.editing.model(lazy, undefined));
    let at = 0;
    for (const h of holes) {
      await readInto(bytes, source, at, h.start);
      at = h.end;
    }
    await readInto(bytes, source, at, size);
    return new EditSession(source, blob, name, bytes, format, holes);
  }

  get format(): FormatId {
    return this.editable.id;
  }

  private fresh(): { format: FormatId; file: unknown } {
    return { format: this.editable.id, file: this.editable.reading.read(this.bytes) };
  }

  /** The file's networks that read as ONNX models (none for a file that is one model). */
  private networks(): NetworkName[] {
    const { editing } = this.editable;
    const file = this.file;
    return (editing.networks ?? []).filter((n) => {
      try {
        editing.model(file, n);
        return true;
      } catch {
        return false;
      }
    }) as NetworkName[];
  }

  /** The file object being edited. */
  private get file(): unknown {
    return "model" in this.target ? this.target.model : this.target.file;
  }

  /** Reads the holes (a precision change reads every weight). */
  private async fillHoles(): Promise<void> {
    for (const h of this.holes) await readInto(this.bytes, this.source, h.start, h.end);
    this.holes = [];
  }

  /** Applies one edit; a refusal throws and changes nothing (the library's edit functions check before changing). */
  apply(edit: EditOp): string {
    const line = applyEdit(this.target, edit);
    this.edits.push({ edit, line });
    return line;
  }

  /** Converts the whole model (every network of an `.april`) as `convert --quantize` does, then replays the edits. */
  async convert(choice: PrecisionChoice | undefined): Promise<string[]> {
    await this.fillHoles();
    const options = choice ? { mode: choice.mode, keepIO: choice.keepIO } : undefined;
    let next: EditedFile = this.fresh();
    let report: string[] = [];
    if (options) {
      const { quantize } = this.editable.editing;
      if (!quantize) throw new RangeError(`the editor does not change the precision of ${this.format} files`);
      const result = quantize(next.file, options);
      next = { format: this.format, file: result.file };
      report = result.reports.flatMap(({ network, report: r }) =>
        reportLines(r, network === undefined ? "" : `${network}: `),
      );
    }
    // the edits made so far, on the converted model (a refusal now, e.g. a rename onto a name the conversion
    // added, drops that edit and says so)
    const kept: { edit: EditOp; line: string }[] = [];
    for (const e of this.edits) {
      try {
        kept.push({ edit: e.edit, line: applyEdit(next, e.edit) });
      } catch (error) {
        report.push(`edit dropped: ${e.line} (${(error as Error).message})`);
      }
    }
    this.target = next;
    this.edits = kept;
    this.precision = choice;
    this.report = report;
    return report;
  }

  /** Forgets every edit and the precision change. */
  reset(): void {
    this.edits = [];
    this.precision = undefined;
    this.report = [];
    this.target = this.fresh();
  }

  summary(): SessionSummary {
    const { editing } = this.editable;
    const record = this.file as Record<string, unknown>;
    const header = editing.networks
      ? Object.fromEntries(
          editing.fields.flatMap((f) => {
            const value = record[f];
            return typeof value === "string" ? [[f, value]] : [];
          }),
        )
      : undefined;
    let model: ModelSummary | undefined;
    try {
      model = summarize(targetModel(this.target, this.network));
    } catch {
      model = undefined;
    }
    return {
      format: this.format,
      header,
      networks: this.networks(),
      network: this.network,
      model,
      done: this.edits.map((e) => e.line),
      precision: this.precision,
      report: this.report,
      unread: this.holes.reduce((a, h) => a + h.end - h.start, 0),
      size: this.bytes.length,
      fromBlob: this.blob !== undefined,
    };
  }

  get edited(): boolean {
    return this.edits.length > 0 || this.precision !== undefined;
  }

  /**
   * The edited file as pieces in order: new bytes (copies: write() may hand out views of objects the next edit
   * changes), and ranges of the original file for every piece write() copied from the bytes read (so a hole is
   * never read from the buffer: its bytes come from the file).
   */
  private async pieces(): Promise<Piece[]> {
    const pieces: Piece[] = [];
    let range: Hole | undefined;
    const sink = (chunk: Uint8Array) => {
      if (chunk.length === 0) return;
      if (chunk.buffer === this.bytes.buffer) {
        const start = chunk.byteOffset - this.bytes.byteOffset;
        if (range && start === range.end) range.end += chunk.length;
        else {
          range = { start, end: start + chunk.length };
          pieces.push(range);
        }
        return;
      }
      range = undefined;
      pieces.push(chunk.slice());
    };
    await this.editable.editing.writeTo(this.file, sink);
    return pieces;
  }

  /** The edited file as a Blob: its new pieces and slices of the original file (read now when not a Blob). */
  async write(): Promise<Blob> {
    const { blob } = this;
    const parts: BlobPart[] = [];
    if (blob) {
      for (const p of await this.pieces())
        parts.push(p instanceof Uint8Array ? (p as BlobPart) : blob.slice(p.start, p.end));
    } else {
      for await (const chunk of this.chunks()) parts.push(chunk as BlobPart);
    }
    return new Blob(parts, { type: "application/octet-stream" });
  }

  /** The edited file's length in bytes. */
  async byteLength(): Promise<number> {
    return (await this.pieces()).reduce((n, p) => n + (p instanceof Uint8Array ? p.length : p.end - p.start), 0);
  }

  /**
   * The edited file in order, in chunks of at most 4 MiB that own their memory (each can be posted to the page
   * without copying the file's buffer): the bytes read come from the buffer, the holes from the source, by ranges,
   * as they come.
   */
  async *chunks(): AsyncGenerator<Uint8Array> {
    const pieces = await this.pieces();
    for (const p of pieces) {
      if (p instanceof Uint8Array) {
        yield p;
        continue;
      }
      let at = p.start;
      while (at < p.end) {
        const hole = this.holes.find((h) => h.end > at && h.start < p.end);
        const stop = hole ? Math.min(p.end, hole.start > at ? hole.start : hole.end) : p.end;
        const inHole = hole !== undefined && hole.start <= at;
        for (let from = at; from < stop; from += STREAM_STEP) {
          const to = Math.min(stop, from + STREAM_STEP);
          yield inHole ? await readExactly(this.source, from, to) : this.bytes.slice(from, to);
        }
        at = stop;
      }
    }
  }
}
