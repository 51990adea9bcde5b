/** The uniform view of a BW2L file (tensors, tensorInfos), and inspect / verify / blobs / keyval helpers. */
import { assertEager } from "../../io/lazy.js";
import { uniqueNames } from "../../bytes/names.js";
import { UnsupportedError } from "../../bytes/errors.js";
import {
  type DecodeOptions,
  type NamedTensor,
  type Quantization,
  type TensorInfo,
  bytesOf,
  decodeTensor,
} from "../../tensor.js";
import type { EmbeddedBlob, InspectResult } from "../types.js";
import {
  type Bw2lArray,
  type Bw2lFile,
  type Bw2lKeyvalSection,
  type Bw2lLayer,
  type Bw2lSection,
  DTYPES,
  arrayByteLength,
  arrayLength,
  isArraySection,
  isByteRange,
  peekPayload,
  peekRowMajor,
  isKeyvalSection,
  isLayersSection,
  isRawSection,
  isUtf8Section,
} from "./model.js";
import { hasEscapedBytes } from "./text.js";
import { sectionDataSizes } from "./writer.js";

const FORMAT = "bw2l";
/** The column-major to row-major kernel handles this many axes of extent > 1. */
const MAX_TRANSPOSE_RANK = 8;

/** The sections a reference reader sees: for a repeated name, only the last one (`section_lookup[name] = i`). */
export function effectiveSections(file: Bw2lFile): Bw2lSection[] {
  const last = new Map<string, number>();
  file.sections.forEach((s, i) => last.set(s.name, i));
  return file.sections.filter((s, i) => last.get(s.name) === i);
}

/**
 * The section the reference reader sees under `name`: the last one of that name (a scan from the end, no list
 * of effective sections built: called several times per inspect, on files of a million sections).
 */
function effectiveSection(file: Bw2lFile, name: string): Bw2lSection | undefined {
  for (let i = file.sections.length - 1; i >= 0; i--) if (file.sections[i]!.name === name) return file.sections[i];
  return undefined;
}

/** The last keyval section called `name`. */
function keyvalSection(file: Bw2lFile, name: string): Bw2lKeyvalSection | undefined {
  const s = effectiveSection(file, name);
  return s && isKeyvalSection(s) ? s : undefined;
}

/**
 * A keyval section as a Map, the way the reference reads it: the last of duplicate keys wins and the empty key
 * (which real `flags` sections hold) is left out. `entries` on the section keeps everything.
 */
export function keyvalMap(file: Bw2lFile, sectionName: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const e of keyvalSection(file, sectionName)?.entries ?? []) if (e.key !== "") map.set(e.key, e.value);
  return map;
}

/** The training flags (section `flags`) as a Map. */
export function flags(file: Bw2lFile): Map<string, string> {
  return keyvalMap(file, "flags");
}

/** The model config (section `config`, e.g. criterion) as a Map. */
export function config(file: Bw2lFile): Map<string, string> {
  return keyvalMap(file, "config");
}

function utf8Text(file: Bw2lFile, name: string): string | undefined {
  const s = effectiveSection(file, name);
  return s && isUtf8Section(s) ? s.text : undefined;
}

/** The arch lines (section `arch`), without the newlines. */
export function archLines(file: Bw2lFile): string[] | undefined {
  const text = utf8Text(file, "arch");
  return text === undefined ? undefined : text.split("\n").filter((line, i, all) => line !== "" || i < all.length - 1);
}

/** The tokens (section `tokens`): one per non-empty line, as flashlight's dictionary reads them. */
export function tokens(file: Bw2lFile): string[] | undefined {
  const text = utf8Text(file, "tokens");
  return text === undefined
    ? undefined
    : text
        .split("\n")
        .map((l) => l.replace(/\r$/, ""))
        .filter((l) => l.trim() !== "");
}

interface TensorEntry {
  name: string;
  array: Bw2lArray;
  shape: number[];
  layout: "row-major" | "column-major";
  quantization?: Quantization | undefined;
}

function product(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

/** The contract's logical shape: v2 the stored dims (when they hold the data; else [len]), v1 [len]. */
function logicalShape(array: Bw2lArray, version: number): number[] {
  const length = arrayLength(array);
  if (version === 2 && array.dims && array.dims.length > 0 && product(array.dims) === length) return array.dims.slice();
  return [length];
}

function entry(name: string, array: Bw2lArray, version: number, layer?: Bw2lLayer): TensorEntry {
  const e: TensorEntry = {
    name,
    array,
    shape: logicalShape(array, version),
    layout: version === 2 ? "column-major" : "row-major",
  };
  if (layer && version === 1 && array.dtype === "i8")
    e.quantization = { scale: layer.scale ?? 1, offset: Number(layer.offset ?? 0n) };
  return e;
}

/** Every tensor: `<layers section>.<i>.<j>` (so `layers.<i>.<j>`) for layer params, the section name for arrays. */
function tensorEntries(file: Bw2lFile): TensorEntry[] {
  const out: TensorEntry[] = [];
  for (const s of effectiveSections(file)) {
    if (isArraySection(s)) out.push(entry(s.name, s.array, file.version));
    else if (isLayersSection(s)) {
      s.layers.forEach((layer, i) =>
        layer.params.forEach((p, j) => out.push(entry(`${s.name}.${i}.${j}`, p, file.version, layer))),
      );
    }
  }
  return out;
}

function infoOf(e: TensorEntry, byteOffset: number): TensorInfo {
  const info: TensorInfo = {
    name: e.name,
    dtype: DTYPES[e.array.dtype].standard,
    shape: e.shape,
    byteOffset,
    byteLength: arrayByteLength(e.array),
    byteOrder: "le",
    layout: e.layout,
    format: "bw2l",
  };
  if (e.quantization) info.quantization = e.quantization;
  return info;
}

/** Where each tensor is in the file, for read() and readFrom() results (not for built or dequantized files). */
export function tensorInfos(file: Bw2lFile): TensorInfo[] {
  return tensorEntries(file).map((e) => {
    const payload = peekPayload(e.array);
    const offset = "data" in payload && isByteRange(payload.data) ? payload.data.byteOffset : e.array.byteOffset;
    if (offset === undefined) {
      throw new TypeError(
        `bw2l: tensor ${e.name} was not read from a file (no byte offset); tensorInfos describes read() and readFrom() results`,
      );
    }
    return infoOf(e, offset);
  });
}

/**
 * The info decodeTensor gets: axes of extent 1 dropped (they do not change the element order in either layout),
 * so ranks up to 255 work as long as at most 8 axes are longer than 1.
 */
export function decodableInfo(info: TensorInfo): TensorInfo {
  const squeezed = info.shape.filter((d) => d !== 1);
  if (info.layout === "column-major" && squeezed.length > MAX_TRANSPOSE_RANK) {
    throw new UnsupportedError(
      FORMAT,
      `tensor ${info.name} has ${squeezed.length} axes longer than 1; at most ${MAX_TRANSPOSE_RANK} can be reordered`,
      info.byteOffset,
      info.name,
    );
  }
  return squeezed.length === info.shape.length ? info : { ...info, shape: squeezed };
}

/** The uniform view: row-major data for the contract shapes. Needs a read() result (payloads loaded). */
export function tensors(file: Bw2lFile, options: DecodeOptions = {}): NamedTensor[] {
  assertEager(file, FORMAT);
  return tensorEntries(file).map((e) => {
    // an array create() keeps row-major until written: its tensor is a copy of that data (no transpose and back)
    const rowMajor = e.layout === "column-major" ? peekRowMajor(e.array) : undefined;
    if (rowMajor) {
      const info = { ...infoOf(e, 0), layout: "row-major" as const };
      const tensor = decodeTensor(bytesOf(rowMajor.rowMajor), decodableInfo(info), { ...options, copy: true }, FORMAT);
      tensor.shape = e.shape.slice();
      return tensor;
    }
    // decoded once from the stored bytes (an unaligned payload is not copied first)
    const payload = peekPayload(e.array);
    if ("data" in payload && !ArrayBuffer.isView(payload.data)) {
      throw new TypeError(`bw2l: tensor ${e.name} is not loaded (a readFrom() result); use loadTensor`);
    }
    const stored = "stored" in payload ? payload.stored : bytesOf(payload.data as ArrayBufferView);
    const info = infoOf(e, e.array.byteOffset ?? 0);
    const tensor = decodeTensor(stored, decodableInfo(info), options, FORMAT);
    tensor.shape = e.shape.slice();
    return tensor;
  });
}

function jsonNumber(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : String(value);
}

/** What `tensorfile inspect --json` prints. */
export function inspect(file: Bw2lFile): InspectResult {
  const sizes = sectionDataSizes(file);
  const cfg = config(file);
  const flg = flags(file);
  const toks = tokens(file);
  const arch = archLines(file);
  const layersSection = effectiveSection(file, "layers");
  const meta: Record<string, unknown> = { name: file.name };
  // the wav2letter loader takes the criterion from config (what verify checks); flags' copy is shown apart
  const criterion = cfg.get("criterion");
  const flagsCriterion = flg.get("criterion");
  if (criterion !== undefined) meta.criterion = criterion;
  if (flagsCriterion !== undefined && flagsCriterion !== criterion) meta.flagsCriterion = flagsCriterion;
  if (cfg.has("quantization")) meta.quantization = cfg.get("quantization");
  if (toks) meta.tokenCount = toks.length;
  if (layersSection && isLayersSection(layersSection)) meta.layerCount = layersSection.layers.length;
  const describeArray = (a: Bw2lArray) => {
    const row: Record<string, unknown> = { dtype: a.dtype, length: arrayLength(a) };
    if (a.dims) row.dims = a.dims.slice();
    return row;
  };
  const result: InspectResult = {
    format: "bw2l",
    version: file.version,
    meta,
    tensors: tensorEntries(file).map((e) => ({
      name: e.name,
      dtype: DTYPES[e.array.dtype].standard,
      shape: e.shape.slice(),
      byteLength: arrayByteLength(e.array),
    })),
    sections: file.sections.map((s, i) => {
      const row: Record<string, unknown> = { name: s.name, type: s.type, size: sizes[i] };
      if (s.desc !== "") row.desc = s.desc;
      if (s.dataOffset !== undefined) row.offset = s.dataOffset;
      return row;
    }),
    keyval: Object.fromEntries(
      file.sections.filter(isKeyvalSection).map((s) => [s.name, s.entries.map((e) => [e.key, e.value])]),
    ),
  };
  if (arch) result.arch = arch;
  if (layersSection && isLayersSection(layersSection)) {
    result.layers = layersSection.layers.map((layer) => {
      const row: Record<string, unknown> = { arch: layer.arch };
      if (layer.scale !== undefined) row.scale = layer.scale;
      if (layer.offset !== undefined) row.offset = jsonNumber(layer.offset);
      row.params = layer.params.map(describeArray);
      return row;
    });
  }
  if (file.trailing) result.trailingBytes = file.trailing.byteLength;
  return result;
}

/** Warnings: what the reference reader or wav2letter loader would refuse or misread, and oddities we accept. */
export function verify(file: Bw2lFile): string[] {
  const warnings: string[] = [];
  const seen = new Map<string, number>();
  file.sections.forEach((s, i) => {
    const previous = seen.get(s.name);
    if (previous !== undefined) {
      warnings.push(
        `sections[${i}] repeats the name ${JSON.stringify(s.name)} of sections[${previous}]; the reference reader uses only the last one`,
      );
    }
    seen.set(s.name, i);
    if (!isUtf8Section(s) && !isKeyvalSection(s) && !isArraySection(s) && !isLayersSection(s) && s.type !== "data") {
      warnings.push(
        `sections[${i}] (${JSON.stringify(s.name)}) has the unknown type ${JSON.stringify(s.type)}; kept as raw bytes`,
      );
    }
  });
  // (field names are built only for a string that is not valid UTF-8: a million sections have 3 million strings)
  const utf8Warnings: string[] = [];
  const checkText = (field: () => string, text: string): void => {
    if (hasEscapedBytes(text)) utf8Warnings.push(`${field()} is not valid UTF-8 (kept byte for byte)`);
  };
  checkText(() => "name", file.name);
  file.sections.forEach((s, i) => {
    checkText(() => `sections[${i}].name`, s.name);
    checkText(() => `sections[${i}].type`, s.type);
    checkText(() => `sections[${i}].desc`, s.desc);
    if (isUtf8Section(s)) checkText(() => `sections[${i}].text`, s.text);
    if (isKeyvalSection(s)) {
      const keys = new Set<string>();
      s.entries.forEach((e, k) => {
        checkText(() => `sections[${i}].entries[${k}].key`, e.key);
        checkText(() => `sections[${i}].entries[${k}].value`, e.value);
        if (keys.has(e.key))
          warnings.push(
            `sections[${i}] (${JSON.stringify(s.name)}) repeats the key ${JSON.stringify(e.key)}; the reference reader keeps the last value`,
          );
        keys.add(e.key);
      });
    }
    if (isLayersSection(s)) s.layers.forEach((l, k) => checkText(() => `sections[${i}].layers[${k}].arch`, l.arch));
  });
  for (const w of utf8Warnings) warnings.push(w);

  const checkArray = (a: Bw2lArray, field: string) => {
    if (a.dtype === "fp16")
      warnings.push(`${field} is fp16, which the reference reader cannot read (it loses its place in the file)`);
    if (file.version === 2 && a.dims && a.dims.length > 0 && product(a.dims) !== arrayLength(a)) {
      warnings.push(
        `${field} has ${arrayLength(a)} elements but dims [${a.dims.join(", ")}] hold ${product(a.dims)}; its shape is taken as [${arrayLength(a)}]`,
      );
    }
  };
  file.sections.forEach((s, i) => {
    if (isArraySection(s)) checkArray(s.array, `sections[${i}].array`);
    if (isLayersSection(s)) {
      s.layers.forEach((layer, k) => {
        const at = `sections[${i}].layers[${k}]`;
        layer.params.forEach((p, j) => checkArray(p, `${at}.params[${j}]`));
        if (file.version === 1 && (!Object.is(layer.scale ?? 1, 1) || (layer.offset ?? 0n) !== 0n)) {
          warnings.push(`${at} has scale ${layer.scale} and offset ${layer.offset}: the reference loader ignores them`);
        }
        const nonFloat = layer.params.filter((p) => p.dtype !== "fp32");
        if (s.name === "layers" && nonFloat.length > 0) {
          warnings.push(
            `${at} has ${nonFloat.map((p) => p.dtype).join(", ")} params; the wav2letter loader accepts only fp32`,
          );
        }
      });
    }
  });

  const layers = effectiveSection(file, "layers");
  if (layers && isLayersSection(layers)) {
    for (const needed of ["flags", "config", "arch", "tokens"]) {
      if (!effectiveSection(file, needed)) warnings.push(`no ${needed} section: the wav2letter loader needs one`);
    }
    const criterion = config(file).get("criterion");
    if (keyvalSection(file, "config") && criterion !== "ctc" && criterion !== "asg") {
      const inFlags = flags(file).get("criterion");
      const hint =
        inFlags !== undefined ? ` (flags say ${JSON.stringify(inFlags)}, but the loader reads config's)` : "";
      warnings.push(
        `config criterion ${JSON.stringify(criterion ?? null)}: the wav2letter loader accepts only ctc and asg${hint}`,
      );
    }
    const arch = archLines(file);
    if (arch && arch.length !== layers.layers.length) {
      warnings.push(`${arch.length} arch lines but ${layers.layers.length} layers`);
    } else if (arch) {
      layers.layers.forEach((l, k) => {
        if (l.arch !== arch[k])
          warnings.push(
            `layers[${k}].arch ${JSON.stringify(l.arch)} differs from arch line ${k} ${JSON.stringify(arch[k])}`,
          );
      });
    }
  }
  if (file.trailing)
    warnings.push(`${file.trailing.byteLength} bytes after the last section (ignored by the reference reader; kept)`);
  return warnings;
}

/** A file name from a section name: path separators and other unsafe characters become "_". */
function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[\u0000-\u001f/\\:*?"<>|\u007f]/g, "_")
    .replace(/^\.+/, (dots) => "_".repeat(dots.length));
  return cleaned === "" ? "_" : cleaned;
}

/**
 * `data` sections (such as `spm`) as `<section name>.bin`; sections whose names are made alike by the cleaning
 * (`a/b` and `a_b`) get `#2`, … (bytes/names.ts uniqueNames), so that each blob has its own name.
 */
export function blobs(file: Bw2lFile): EmbeddedBlob[] {
  const data = effectiveSections(file).filter((s) => s.type === "data" && isRawSection(s));
  const names = uniqueNames(data.map((s) => `${safeFileName(s.name)}.bin`));
  return data.map((s, i) => ({ name: names[i]!, bytes: (s as { data: EmbeddedBlob["bytes"] }).data }));
}
