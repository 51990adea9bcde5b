/**
 * A small, independent .april assembler for tests (it does not use bindings/formats/april.ts), with knobs for
 * the layouts the reference writer never makes: params before the networks, gaps, extra header bytes, a
 * params.size larger than the block, trailing bytes. It follows export-april.py's byte layout:
 *   "APRILMDL" u32 version, u64 header_size, 8-byte language, u64+name, u64+description, u32 model_type,
 *   u64 params offset/size, u64 network_count, {u64 offset, u64 size} × count, then the blocks.
 */
import { randomBytes } from "./rng.js";
import { concat } from "./bytes.js";
import * as onnx from "../../bindings/formats/onnx.js";

export const PARAM_NAMES = [
  "batch_size",
  "segment_size",
  "segment_step",
  "mel_features",
  "samplerate",
  "frame_shift_ms",
  "frame_length_ms",
  "round_pow2",
  "mel_low",
  "mel_high",
  "snip_edges",
  "token_count",
  "blank_token_id",
] as const;
export type ParamName = (typeof PARAM_NAMES)[number];

/** export-april.py's values (token_count follows the tokens unless overridden). */
export const EXPORTER_PARAMS: Record<Exclude<ParamName, "token_count">, number> = {
  batch_size: 1,
  segment_size: 9,
  segment_step: 4,
  mel_features: 80,
  samplerate: 16000,
  frame_shift_ms: 10,
  frame_length_ms: 25,
  round_pow2: 1,
  mel_low: 20,
  mel_high: 0,
  snip_edges: 0,
  blank_token_id: 0,
};

/** The token list of the reference fixtures, as the exporter stores it ("▁" already a space). */
export const FIXTURE_TOKENS = ["<blk>", "<sos/eos>", "<unk>", " ", "s", " the", " a", "ing", "'", " café"];

export interface AprilSpec {
  version?: number;
  /** Text (UTF-8, NUL-padded to 8) or the exact 8 bytes. */
  language?: string | Uint8Array;
  name?: string | Uint8Array;
  description?: string | Uint8Array;
  modelType?: number;
  params?: Partial<Record<ParamName, number>>;
  tokens?: (string | Uint8Array)[];
  /** encoder, decoder, joiner. */
  networks?: Uint8Array[];
  /** "reference": header, encoder, decoder, joiner, params. "params-first": header, params, networks. */
  order?: "reference" | "params-first";
  /** Zero bytes after the network table, counted in header_size (libapril ignores header_size). */
  headerExtra?: number;
  /** Zero bytes between the last network and the params (reference order only). */
  gapBeforeParams?: number;
  /** Extra bytes at the end of the params block, counted in params.size. */
  paramsExtra?: number;
  /** Bytes after everything. */
  trailing?: number;
}

export interface BuiltApril {
  bytes: Uint8Array;
  headerSize: number;
  /** Offset of each header field, for mutation tests. */
  at: {
    version: number;
    headerSize: number;
    language: number;
    modelType: number;
    paramsOffset: number;
    paramsSize: number;
    networkCount: number;
    networks: number[];
  };
  params: { offset: number; size: number };
  networks: { offset: number; size: number }[];
}

const utf8 = (text: string | Uint8Array): Uint8Array =>
  typeof text === "string" ? new TextEncoder().encode(text) : text;

/**
 * A small real ONNX network for an .april file: `in` (1x4) MatMul `<tag>.weight` (4x3, values i/8) gives `out` (1x3),
 * its node named `<tag>_mm` and its graph `<tag>-graph`.
 */
export function matMulNetwork(tag: string): Uint8Array {
  return onnx.write(
    onnx.create({
      graph: {
        name: `${tag}-graph`,
        inputs: [{ name: "in", dtype: "float32", shape: [1, 4] }],
        outputs: [{ name: "out", dtype: "float32", shape: [1, 3] }],
        initializers: [
          {
            name: `${tag}.weight`,
            dtype: "float32",
            dims: [4, 3],
            data: Float32Array.from({ length: 12 }, (_, i) => i / 8),
          },
        ],
        nodes: [{ name: `${tag}_mm`, opType: "MatMul", inputs: ["in", `${tag}.weight`], outputs: ["out"] }],
      },
    }),
  );
}

/** Three small "networks" (random bytes; the reader treats them as opaque). */
export function sampleNetworks(seed = 1, sizes: number[] = [97, 61, 43]): Uint8Array[] {
  return sizes.map((n, i) => randomBytes(seed * 31 + i, n));
}

function le(bytes: number, value: number | bigint, signed = false): Uint8Array {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  if (bytes === 4 && signed) view.setInt32(0, Number(value), true);
  else if (bytes === 4) view.setUint32(0, Number(value), true);
  else view.setBigUint64(0, BigInt(value), true);
  return out;
}

export function paramsBlock(spec: AprilSpec): Uint8Array {
  const tokens = (spec.tokens ?? FIXTURE_TOKENS).map(utf8);
  const values: Record<ParamName, number> = { ...EXPORTER_PARAMS, token_count: tokens.length, ...spec.params };
  const parts: Uint8Array[] = [Uint8Array.of(0x50, 0x41, 0x52, 0x41, 0x4d, 0x53, 0, 0)];
  for (const name of PARAM_NAMES) parts.push(le(4, values[name], true));
  for (const t of tokens) parts.push(le(4, t.length, true), t);
  parts.push(new Uint8Array(spec.paramsExtra ?? 0));
  return concat(...parts);
}

export function buildApril(spec: AprilSpec = {}): BuiltApril {
  const networks = spec.networks ?? sampleNetworks();
  const language =
    typeof spec.language === "string" || spec.language === undefined ? utf8(spec.language ?? "en-us") : spec.language;
  const languageTag = new Uint8Array(8);
  languageTag.set(language.subarray(0, 8));
  const name = utf8(spec.name ?? "Untitled");
  const description = utf8(spec.description ?? "No description");
  const params = paramsBlock(spec);
  const tableBytes = 8 + 8 + name.length + 8 + description.length + 4 + 16 + 8 + 16 * networks.length;
  const headerSize = tableBytes + (spec.headerExtra ?? 0);
  const headerEnd = 20 + headerSize;

  const blocks: { which: "params" | number; bytes: Uint8Array; gap: number }[] =
    spec.order === "params-first"
      ? [{ which: "params", bytes: params, gap: 0 }, ...networks.map((bytes, i) => ({ which: i, bytes, gap: 0 }))]
      : [
          ...networks.map((bytes, i) => ({ which: i, bytes, gap: 0 })),
          { which: "params" as const, bytes: params, gap: spec.gapBeforeParams ?? 0 },
        ];
  let cursor = headerEnd;
  const placed = new Map<"params" | number, { offset: number; size: number }>();
  const body: Uint8Array[] = [];
  for (const block of blocks) {
    body.push(new Uint8Array(block.gap), block.bytes);
    cursor += block.gap;
    placed.set(block.which, { offset: cursor, size: block.bytes.length });
    cursor += block.bytes.length;
  }
  const paramsEntry = placed.get("params")!;
  const networkEntries = networks.map((_, i) => placed.get(i)!);

  const header: Uint8Array[] = [
    utf8("APRILMDL"),
    le(4, spec.version ?? 1),
    le(8, headerSize),
    languageTag,
    le(8, name.length),
    name,
    le(8, description.length),
    description,
    le(4, spec.modelType ?? 1),
    le(8, paramsEntry.offset),
    le(8, paramsEntry.size),
    le(8, networks.length),
    ...networkEntries.flatMap((e) => [le(8, e.offset), le(8, e.size)]),
    new Uint8Array(spec.headerExtra ?? 0),
  ];
  const modelType = 20 + 8 + 8 + name.length + 8 + description.length;
  const bytes = concat(...header, ...body, new Uint8Array(spec.trailing ?? 0).fill(0x5a));
  return {
    bytes,
    headerSize,
    at: {
      version: 8,
      headerSize: 12,
      language: 20,
      modelType,
      paramsOffset: modelType + 4,
      paramsSize: modelType + 12,
      networkCount: modelType + 20,
      networks: networks.map((_, i) => modelType + 28 + 16 * i),
    },
    params: paramsEntry,
    networks: networkEntries,
  };
}

/** Little-endian patches on a copy. */
export function withU64(bytes: Uint8Array, offset: number, value: number | bigint): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setBigUint64(offset, BigInt(value), true);
  return out;
}

export function withI32(bytes: Uint8Array, offset: number, value: number): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setInt32(offset, value, true);
  return out;
}

/** Offset of a params field inside the block at `paramsOffset`. */
export function paramAt(paramsOffset: number, name: ParamName): number {
  return paramsOffset + 8 + 4 * PARAM_NAMES.indexOf(name);
}

/**
 * The metadata of a huge .april without its networks: the header (with entries for networks of the given
 * sizes, laid out as the reference writer does) and the params block, for a sparse virtual file.
 */
export function virtualApril(
  networkSizes: number[],
  spec: AprilSpec = {},
): {
  size: number;
  header: Uint8Array;
  params: Uint8Array;
  paramsOffset: number;
  networks: { offset: number; size: number }[];
} {
  const skeleton = buildApril({ ...spec, networks: networkSizes.map(() => new Uint8Array(0)) });
  const headerEnd = 20 + skeleton.headerSize;
  let header: Uint8Array = skeleton.bytes.slice(0, headerEnd);
  let at = headerEnd;
  const networks = networkSizes.map((size, i) => {
    header = withU64(withU64(header, skeleton.at.networks[i]!, at), skeleton.at.networks[i]! + 8, size);
    const entry = { offset: at, size };
    at += size;
    return entry;
  });
  const params = paramsBlock(spec);
  header = withU64(header, skeleton.at.paramsOffset, at);
  return { size: at + params.length, header, params, paramsOffset: at, networks };
}
