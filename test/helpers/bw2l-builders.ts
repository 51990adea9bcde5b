/**
 * BW2L test builders. Two kinds:
 * - `raw*`: a tiny independent encoder of the byte layout (format notes §2), written from the notes and not from
 *   our writer, for crafted and damaged files (unknown types, dims that disagree, leftovers, huge counts);
 * - `tinyModel` / `randomModel`: models made with our own builder (`bw2l.create`).
 */
import * as bw2l from "../../bindings/formats/bw2l.js";
import { randomNormal, rng } from "./rng.js";
import { concat } from "./bytes.js";

export { concat };

const utf8 = new TextEncoder();

export function u8(v: number): Uint8Array {
  return Uint8Array.of(v);
}

export function u64(v: number | bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(v), true);
  return out;
}

export function f32(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setFloat32(0, v, true);
  return out;
}

const asBytes = (s: string | Uint8Array): Uint8Array => (typeof s === "string" ? utf8.encode(s) : s);

export function shortStr(s: string | Uint8Array): Uint8Array {
  const b = asBytes(s);
  return concat(u8(b.length), b);
}

export function longStr(s: string | Uint8Array): Uint8Array {
  const b = asBytes(s);
  return concat(u64(b.length), b);
}

export interface RawSection {
  name: string | Uint8Array;
  type: string;
  desc?: string;
  data: Uint8Array;
  /** Override the data_length field. */
  dataLength?: number | bigint;
}

export function rawFile(
  version: number,
  name: string | Uint8Array,
  sections: RawSection[],
  trailing?: Uint8Array,
  sectionCount?: number | bigint,
): Uint8Array {
  return concat(
    utf8.encode("BW2L"),
    u8(version),
    shortStr(name),
    u64(sectionCount ?? sections.length),
    ...sections.map((s) =>
      concat(shortStr(s.name), shortStr(s.type), longStr(s.desc ?? ""), u64(s.dataLength ?? s.data.length), s.data),
    ),
    trailing ?? new Uint8Array(0),
  );
}

export function rawArray(
  version: number,
  dtype: string,
  payload: Uint8Array,
  length: number | bigint,
  dims: (number | bigint)[] = [],
): Uint8Array {
  return concat(shortStr(dtype), u64(length), ...(version === 2 ? [u8(dims.length), ...dims.map(u64)] : []), payload);
}

export function rawFloat32Array(version: number, values: number[], dims: number[] = []): Uint8Array {
  return rawArray(version, "fp32", new Uint8Array(Float32Array.from(values).buffer), values.length, dims);
}

export function rawLayers(
  version: number,
  layers: { arch: string; scale?: number; offset?: bigint; params: Uint8Array[] }[],
): Uint8Array {
  return concat(
    u64(layers.length),
    ...layers.map((l) =>
      concat(
        longStr(l.arch),
        ...(version === 1 ? [f32(l.scale ?? 1), u64(BigInt.asUintN(64, l.offset ?? 0n))] : []),
        u64(l.params.length),
        ...l.params,
      ),
    ),
  );
}

export function rawKeyval(entries: [string | Uint8Array, string | Uint8Array][]): Uint8Array {
  return concat(...entries.map(([k, v]) => concat(shortStr(k), longStr(v))));
}

/** The f32 sequence start + step·i computed in float32 (as the fixtures were made). */
export function f32Sequence(start: number, step: number, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++)
    out[i] = Math.fround(Math.fround(Math.fround(i) * Math.fround(step)) + Math.fround(start));
  return out;
}

/** A tiny CTC model like the exporter's (flags with the "" key, config, arch, tokens, 5 layers), made with create(). */
export function tinyModel(version: 1 | 2): bw2l.Bw2lFile {
  return bw2l.create({
    version,
    flags: [
      ["", ""],
      ["criterion", "ctc"],
      ["samplerate", "16000"],
      ["filterbanks", "8"],
    ],
    config: { criterion: "ctc" },
    tokens: ["|", "'", "a", "b", "c", "#"],
    layers: [
      { arch: "V -1 1 8 0" },
      {
        arch: "C 8 4 3 1 -1 1",
        params: [
          { dims: [3, 1, 8, 4], data: f32Sequence(-0.48, 0.01, 96) },
          { dims: [1, 1, 4, 1], data: f32Sequence(-1, 0.5, 4) },
        ],
      },
      { arch: "R" },
      { arch: "RO 2 0 3 1" },
      {
        arch: "L 4 6",
        params: [
          { dims: [6, 4, 1, 1], data: f32Sequence(-1.5, 0.125, 24) },
          { dims: [6, 1, 1, 1], data: f32Sequence(0, 0.25, 6) },
        ],
      },
    ],
    spm: Uint8Array.from({ length: 40 }, (_, i) => i * 3),
  });
}

/**
 * A model with `layers` linear layers of normally distributed float32 weights, about `bytes` bytes in all (used
 * for multi-MB round trips). Weights are [out, in, 1, 1] with out×in ≈ bytes / 4 / layers.
 */
export function randomModel(version: 1 | 2, bytes: number, layers: number, seed: number): bw2l.Bw2lFile {
  const next = rng(seed);
  const perLayer = Math.max(1, Math.floor(bytes / 4 / layers));
  const inner = 64;
  const out = Math.max(1, Math.floor(perLayer / inner));
  return bw2l.create({
    version,
    flags: { criterion: "ctc", seed: String(seed) },
    config: { criterion: "ctc" },
    tokens: ["|", "a", "b", "#"],
    layers: Array.from({ length: layers }, (_, i) => ({
      arch: `L ${inner} ${out}`,
      params: [
        { dims: [out, inner, 1, 1], data: randomNormal(seed + i, out * inner, 0.1) },
        { dims: [out, 1, 1, 1], data: randomNormal(seed + 1000 + i, out, Math.fround(next())) },
      ],
    })),
  });
}

/**
 * A virtual model file of about `totalBytes` (may be GBs) for lazy-read tests: a real header and metadata, a
 * `layers` section with two huge fp32 conv/linear weights and small biases, and a `transitions` array, each
 * small part as a piece at its offset and the big payloads left to the sparse source's zeros.
 */
export function sparseModel(totalBytes: number): {
  size: number;
  pieces: { offset: number; bytes: Uint8Array }[];
  metadataBytes: number;
  bigLength: number;
} {
  const version = 2;
  const bigLength = Math.floor(totalBytes / 2 / 4);
  const pieces: { offset: number; bytes: Uint8Array }[] = [];
  let offset = 0;
  const put = (bytes: Uint8Array) => {
    pieces.push({ offset, bytes });
    offset += bytes.length;
  };
  const gap = (n: number) => (offset += n);
  const bias = (n: number) =>
    rawFloat32Array(
      version,
      Array.from({ length: n }, (_, i) => i + 0.5),
      [n, 1, 1, 1],
    );
  const meta = [
    {
      name: "flags",
      type: "keyval",
      data: rawKeyval([
        ["", ""],
        ["criterion", "ctc"],
      ]),
    },
    { name: "config", type: "keyval", data: rawKeyval([["criterion", "ctc"]]) },
    { name: "arch", type: "utf8", data: utf8.encode("C 8 4 3 1 -1 1\nR\nL 4 6\n") },
    { name: "tokens", type: "utf8", data: utf8.encode("a\nb\n#\n") },
  ];
  const headerOf = (name: string, type: string, length: number) =>
    concat(shortStr(name), shortStr(type), longStr(""), u64(length));
  const bigHeader = (dims: number[]) => concat(shortStr("fp32"), u64(bigLength), u8(dims.length), ...dims.map(u64));
  const conv = bigHeader([bigLength, 1, 1, 1]);
  const linear = bigHeader([bigLength, 1, 1, 1]);
  const b1 = bias(4);
  const b2 = bias(6);
  const layer = (arch: string, paramCount: number) => concat(longStr(arch), u64(paramCount));
  const l0 = layer("C 8 4 3 1 -1 1", 2);
  const l1 = layer("R", 0);
  const l2 = layer("L 4 6", 2);
  const layersLength =
    8 +
    l0.length +
    conv.length +
    bigLength * 4 +
    b1.length +
    l1.length +
    l2.length +
    linear.length +
    bigLength * 4 +
    b2.length;
  const transitions = rawFloat32Array(version, [1, 2, 3, 4], [2, 2, 1, 1]);

  put(concat(utf8.encode("BW2L"), u8(version), shortStr("sparse"), u64(meta.length + 2)));
  for (const s of meta) put(concat(headerOf(s.name, s.type, s.data.length), s.data));
  put(concat(headerOf("layers", "layers", layersLength), u64(3), l0, conv));
  gap(bigLength * 4);
  put(concat(b1, l1, l2, linear));
  gap(bigLength * 4);
  put(concat(b2, headerOf("transitions", "array", transitions.length), transitions));
  const metadataBytes = pieces.reduce((n, p) => n + p.bytes.length, 0);
  return { size: offset, pieces, metadataBytes, bigLength };
}
