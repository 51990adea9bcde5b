import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import onnxProto from "onnx-proto";
import * as april from "../../bindings/formats/april.js";
import {
  EXPORTER_PARAMS,
  FIXTURE_TOKENS,
  buildApril,
  paramAt,
  sampleNetworks,
  withI32,
  withU64,
} from "../helpers/april-builders.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { caughtFormatError } from "../helpers/bytes.js";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

function asBytes(value: Uint8Array | { byteOffset: number; byteLength: number }): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new Error("expected bytes, got a range");
  return value;
}

// PROVENANCE.md values
const EXPECTED_PARAMS = {
  batchSize: 1,
  segmentSize: 9,
  segmentStep: 4,
  melFeatures: 80,
  sampleRate: 16000,
  frameShiftMs: 10,
  frameLengthMs: 25,
  roundPow2: 1,
  melLow: 20,
  melHigh: 0,
  snipEdges: 0,
  tokenCount: 10,
  blankTokenId: 0,
};
const { onnx: proto } = onnxProto;

const NETWORK_SHA = {
  encoder: "ce8d3929d6f9bf431a85ae413d0e573b5c02e6208c2fc50770d15da7413869d1",
  decoder: "f8ed2057ddf4e46aa192a4f210989243db04363a40d3678cebe7a9d3deb1c2bc",
  joiner: "e0658be2ed0ee2ec15298922c132696d14c8798d2f5433a9fefb4a6a43992f75",
};
const VALID = [
  {
    file: "tiny_en-us.april",
    size: 1521,
    sha: "282fbd147dbd71de211c83fec410b22f5eb1703b8931eef0b3a9600559501f4b",
    headerSize: 207,
    languageBytes: "656e2d7573000000",
    language: "en-us",
    name: "Tiny Test Model",
    description: "Fixture written by export-april.py export_model(); stub ONNX networks, not a real ASR model.",
    params: { offset: 1384, size: 137 },
    networks: [
      [227, 407],
      [634, 326],
      [960, 424],
    ],
  },
  {
    file: "tiny_pl.april",
    size: 1466,
    sha: "f1aa2c16802a8cbdc996ff00fb4ba4b5e6243010044f04cbcdc64118fc5b2de4",
    headerSize: 152,
    languageBytes: "706c000000000000",
    language: "pl",
    name: "Mały model — test",
    description: "Opis: zażółć gęślą jaźń",
    params: { offset: 1329, size: 137 },
    networks: [
      [172, 407],
      [579, 326],
      [905, 424],
    ],
  },
];
const PARAMS_BLOCK_SHA = "c04cdc9b6e8155e01b256892fd7da3147c47630683d7580c4c19705c42ac4615";

// the invalid/ files share one layout: header 119 bytes (ends at 139), networks at 139, 546, 872, params at 1296
const NEG_PARAMS = 1296;
const INVALID: Record<string, { code: string; field: string; offset: number }> = {
  "bad_magic.april": { code: "BAD_MAGIC", field: "magic", offset: 0 },
  "bad_version_2.april": { code: "UNSUPPORTED_VERSION", field: "version", offset: 8 },
  "bad_model_type_0.april": { code: "UNSUPPORTED", field: "model_type", offset: 63 },
  "bad_model_type_2.april": { code: "UNSUPPORTED", field: "model_type", offset: 63 },
  "params_out_of_bounds.april": { code: "TRUNCATED", field: "params.size", offset: NEG_PARAMS },
  "too_many_networks_9.april": { code: "CORRUPT", field: "network_count", offset: 83 },
  "network_out_of_bounds.april": { code: "TRUNCATED", field: "networks[1].size", offset: 546 },
  "two_networks.april": { code: "CORRUPT", field: "network_count", offset: 83 },
  "params_bad_magic.april": { code: "BAD_MAGIC", field: "params.magic", offset: NEG_PARAMS },
  "params_batch_size_2.april": { code: "CORRUPT", field: "params.batch_size", offset: NEG_PARAMS + 8 },
  "params_mel_low_0.april": { code: "CORRUPT", field: "params.mel_low", offset: NEG_PARAMS + 8 + 8 * 4 },
  "params_blank_out_of_range.april": {
    code: "CORRUPT",
    field: "params.blank_token_id",
    offset: NEG_PARAMS + 8 + 12 * 4,
  },
  "truncated_in_header.april": { code: "TRUNCATED", field: "description", offset: 59 },
};
const QUIRKS: Record<string, RegExp> = {
  "quirk_params_gap_after_joiner.april": /^params start at 1312, not right after the joiner \(1296\)/,
  "quirk_params_before_networks.april": /^params start at 139, not right after the joiner \(1433\)/,
  "quirk_header_extra_bytes.april": /^header_size is 127 but the header is 119 bytes/,
};

describe.skipIf(!haveFixtures())("april: reference fixtures", () => {
  const onnx = {
    encoder: readFixture("april", "onnx", "encoder.onnx"),
    decoder: readFixture("april", "onnx", "decoder.onnx"),
    joiner: readFixture("april", "onnx", "joiner.onnx"),
  };

  it("the onnx/ files are the ones PROVENANCE.md describes", () => {
    for (const name of april.NETWORK_NAMES) expect(sha256(onnx[name])).toBe(NETWORK_SHA[name]);
  });

  for (const v of VALID) {
    describe(v.file, () => {
      const bytes = readFixture("april", v.file);

      it("is the file PROVENANCE.md describes", () => {
        expect(bytes.length).toBe(v.size);
        expect(sha256(bytes)).toBe(v.sha);
      });

      it("reads the header, params and tokens PROVENANCE.md lists", () => {
        const file = april.read(bytes);
        expect(file.version).toBe(1);
        expect(file.headerSize).toBe(v.headerSize);
        expect(file.language).toBe(v.language);
        expect(hex(file.raw!.language)).toBe(v.languageBytes);
        expect(file.name).toBe(v.name);
        expect(file.description).toBe(v.description);
        expect(file.modelType).toBe(1);
        expect(file.layout.headerEnd).toBe(20 + v.headerSize);
        expect(file.layout.params).toEqual(v.params);
        expect(file.layout.networks.map((n) => [n.offset, n.size])).toEqual(v.networks);
        expect(file.params).toEqual(EXPECTED_PARAMS);
        expect(file.tokens).toEqual(["<blk>", "<sos/eos>", "<unk>", " ", "s", " the", " a", "ing", "'", " café"]);
        expect(file.raw!.tokens[9]!.length).toBe(6);
        expect(sha256(bytes.subarray(v.params.offset, v.params.offset + v.params.size))).toBe(PARAMS_BLOCK_SHA);
      });

      it("exposes the networks as zero-copy views equal to onnx/", () => {
        const file = april.read(bytes);
        for (const [i, name] of april.NETWORK_NAMES.entries()) {
          const view = asBytes(file.networks[name]);
          expect(sha256(view)).toBe(NETWORK_SHA[name]);
          expect(view).toEqual(onnx[name]);
          expect(view.buffer).toBe(bytes.buffer);
          expect(view.byteOffset).toBe(bytes.byteOffset + v.networks[i]![0]!);
        }
      });

      it("write(read(x)) is byte-identical", () => {
        expect(hex(april.write(april.read(bytes)))).toBe(hex(bytes));
      });

      it("verify() has nothing to say; tensors() are the networks' weights, equal to onnx-proto's decode of each network", () => {
        const file = april.read(bytes);
        expect(april.verify(file)).toEqual([]);
        const expected = april.NETWORK_NAMES.flatMap((name) => {
          const graph = proto.ModelProto.decode(onnx[name]).graph!;
          return (graph.initializer ?? []).map((t) => ({
            name: `${name}/${t.name}`,
            shape: (t.dims ?? []).map(Number),
            data: Array.from(
              t.floatData?.length ? t.floatData : new Float32Array(new Uint8Array(t.rawData!).slice().buffer),
            ),
          }));
        });
        expect(expected.length).toBeGreaterThan(0);
        const tensors = april.tensors(file);
        expect(
          tensors.map((t) => ({ name: t.name, shape: t.shape, data: Array.from(t.data as Float32Array) })),
        ).toEqual(expected);
        expect(april.tensorInfos(file).map((i) => i.name)).toEqual(expected.map((e) => e.name));
        // each weight's bytes are inside its network's range of the file
        for (const info of april.tensorInfos(file)) {
          const n = april.NETWORK_NAMES.indexOf(info.name.split("/")[0] as april.NetworkName);
          const [offset, size] = v.networks[n]!;
          expect(info.byteOffset).toBeGreaterThanOrEqual(offset!);
          expect(info.byteOffset + info.byteLength).toBeLessThanOrEqual(offset! + size!);
        }
      });

      it("create() with the fixture's content reproduces the reference writer byte for byte", () => {
        const made = april.create({
          networks: onnx,
          tokens: FIXTURE_TOKENS,
          language: v.language,
          name: v.name,
          description: v.description,
        });
        expect(hex(april.write(made))).toBe(hex(bytes));
        expect(made.layout).toEqual(april.read(bytes).layout);
      });

      it("every prefix is TRUNCATED", () => {
        for (let n = 0; n < bytes.length; n++) {
          const error = caughtFormatError(() => april.read(bytes.subarray(0, n)));
          if (error.code !== "TRUNCATED") throw new Error(`prefix ${n}: ${error.message}`);
        }
      });

      it("inspect() is plain JSON with the params, tokens and networks", () => {
        const info = april.inspect(april.read(bytes));
        expect(JSON.parse(JSON.stringify(info))).toEqual(info);
        expect(info).toMatchObject({
          format: "april",
          version: 1,
          tensors: april.tensorInfos(april.read(bytes)).map((i) => ({
            name: i.name,
            dtype: i.dtype,
            shape: i.shape,
            byteLength: 4 * i.shape.reduce((a, b) => a * b, 1),
          })),
          meta: {
            language: v.language,
            name: v.name,
            description: v.description,
            modelType: 1,
            headerSize: v.headerSize,
          },
          params: EXPECTED_PARAMS,
          paramsBlock: v.params,
          tokens: FIXTURE_TOKENS,
          networks: april.NETWORK_NAMES.map((name, i) => ({
            name,
            offset: v.networks[i]![0],
            size: v.networks[i]![1],
          })),
        });
      });

      it("blobs() gives the three networks and params/tokens as JSON", () => {
        const list = april.blobs(april.read(bytes));
        expect(list.map((b) => b.name)).toEqual([
          "encoder.onnx",
          "decoder.onnx",
          "joiner.onnx",
          "params.json",
          "tokens.json",
        ]);
        expect(sha256(asBytes(list[0]!.bytes))).toBe(NETWORK_SHA.encoder);
        expect(sha256(asBytes(list[1]!.bytes))).toBe(NETWORK_SHA.decoder);
        expect(sha256(asBytes(list[2]!.bytes))).toBe(NETWORK_SHA.joiner);
        const text = (b: Uint8Array | object) => new TextDecoder().decode(asBytes(b as Uint8Array));
        expect(JSON.parse(text(list[3]!.bytes))).toEqual(EXPECTED_PARAMS);
        expect(JSON.parse(text(list[4]!.bytes))).toEqual(FIXTURE_TOKENS);
      });
    });
  }

  it("detect() is true for april fixtures (magic intact) and false for other formats' fixtures", () => {
    expect(april.detect(readFixture("april", "tiny_en-us.april"))).toBe(true);
    expect(april.detect(readFixture("april", "tiny_pl.april"))).toBe(true);
    for (const name of listFixtures("april/invalid")) {
      expect(april.detect(readFixture("april", "invalid", name).subarray(0, 64)), name).toBe(
        name !== "bad_magic.april",
      );
    }
    let others = 0;
    for (const folder of ["bw2l", "tennis", "primitiv", "spraak"]) {
      for (const name of listFixtures(folder)) {
        others++;
        expect(april.detect(readFixture(folder, name).subarray(0, 64)), `${folder}/${name}`).toBe(false);
      }
    }
    expect(others).toBeGreaterThan(0);
  });

  it("covers every file in invalid/", () => {
    expect(listFixtures("april/invalid")).toEqual(Object.keys({ ...INVALID, ...QUIRKS }).sort());
  });

  for (const [name, want] of Object.entries(INVALID)) {
    it(`invalid/${name}: ${want.code} at ${want.offset} [${want.field}]`, () => {
      const error = caughtFormatError(() => april.read(readFixture("april", "invalid", name)));
      expect({ code: error.code, field: error.field, offset: error.offset, format: error.format }).toEqual({
        ...want,
        format: "april",
      });
    });
  }

  for (const [name, warning] of Object.entries(QUIRKS)) {
    it(`invalid/${name}: reads, verify() gives exactly one warning, write() re-lays it out for libapril`, () => {
      const bytes = readFixture("april", "invalid", name);
      const file = april.read(bytes);
      const warnings = april.verify(file);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(warning);
      for (const n of april.NETWORK_NAMES) expect(asBytes(file.networks[n])).toEqual(onnx[n]);
      expect(file.tokens).toEqual(FIXTURE_TOKENS);
      expect(file.params).toEqual(EXPECTED_PARAMS);
      expect([file.name, file.description, file.language]).toEqual(["neg", "negative fixture", "en-us"]);

      const rewritten = april.write(file);
      const reference = april.write(
        april.create({ networks: onnx, tokens: FIXTURE_TOKENS, name: "neg", description: "negative fixture" }),
      );
      expect(hex(rewritten)).toBe(hex(reference));
      const again = april.read(rewritten);
      expect(april.verify(again)).toEqual([]);
      expect(again.layout.params.offset).toBe(again.layout.networks[2].offset + again.layout.networks[2].size);
    });
  }
});

describe("april: builder files", () => {
  it("the builder's reference layout equals write(create()) and reads back", () => {
    const networks = sampleNetworks(7, [300, 200, 100]);
    const built = buildApril({ networks, name: "B", description: "built", language: "de" });
    const made = april.create({
      networks: { encoder: networks[0]!, decoder: networks[1]!, joiner: networks[2]! },
      tokens: FIXTURE_TOKENS,
      name: "B",
      description: "built",
      language: "de",
    });
    expect(hex(april.write(made))).toBe(hex(built.bytes));
    const file = april.read(built.bytes);
    expect(file.layout.params).toEqual(built.params);
    expect(file.layout.networks).toEqual(built.networks);
    expect(file.headerSize).toBe(built.headerSize);
    expect(april.verify(file)).toEqual([]);
  });

  it("create() uses export-april.py's defaults, turns ▁ into a space and finds <blk>", () => {
    const networks = { encoder: Uint8Array.of(1), decoder: Uint8Array.of(2), joiner: Uint8Array.of(3) };
    const made = april.create({ networks, tokens: ["<unk>", "<blk>", "▁the", "s"] });
    expect([made.name, made.description, made.language]).toEqual(["Untitled", "No description", "en-us"]);
    expect(made.tokens).toEqual(["<unk>", "<blk>", " the", "s"]);
    const e = EXPORTER_PARAMS;
    expect(made.params).toEqual({
      batchSize: e.batch_size,
      segmentSize: e.segment_size,
      segmentStep: e.segment_step,
      melFeatures: e.mel_features,
      sampleRate: e.samplerate,
      frameShiftMs: e.frame_shift_ms,
      frameLengthMs: e.frame_length_ms,
      roundPow2: e.round_pow2,
      melLow: e.mel_low,
      melHigh: e.mel_high,
      snipEdges: e.snip_edges,
      tokenCount: 4,
      blankTokenId: 1,
    });
    expect(april.verify(made)).toEqual([]);
    const back = april.read(april.write(made));
    expect(back.layout).toEqual(made.layout);
    expect(april.inspect(back)).toEqual(april.inspect(made));
    expect(back.tokens).toEqual(made.tokens);
    expect(back.params).toEqual(made.params);
    expect(april.create({ networks, tokens: ["▁x"], keepSpaceMarker: true }).tokens).toEqual(["▁x"]);
    expect(april.create({ networks, tokens: ["a", "b"] }).params.blankTokenId).toBe(0);
    expect(
      april.create({ networks, tokens: ["a", "b"], params: { sampleRate: 8000, melHigh: 3000 } }).params,
    ).toMatchObject({ sampleRate: 8000, melHigh: 3000 });
  });

  it("builder → read → write → read keeps every field, with UTF-8 everywhere and an 8-byte language", () => {
    const tokens = ["<blk>", " żółw", "日本", "e\u0301", " 🙂", ""];
    const built = buildApril({
      language: "zh-Hant!",
      name: "名前 — name",
      description: "desc\nwith newline",
      tokens,
      params: {
        samplerate: 8000,
        mel_high: 3800,
        segment_size: 12,
        segment_step: 12,
        round_pow2: 0,
        snip_edges: 1,
        blank_token_id: 5,
      },
      networks: sampleNetworks(3, [1, 2, 3]),
    });
    const file = april.read(built.bytes);
    expect(file.language).toBe("zh-Hant!");
    expect(file.name).toBe("名前 — name");
    expect(file.tokens).toEqual(tokens);
    expect(file.params).toMatchObject({
      sampleRate: 8000,
      melHigh: 3800,
      segmentSize: 12,
      segmentStep: 12,
      roundPow2: 0,
      snipEdges: 1,
      blankTokenId: 5,
      tokenCount: 6,
    });
    const written = april.write(file);
    expect(hex(written)).toBe(hex(built.bytes));
    const again = april.read(written);
    expect({ ...again, raw: undefined, networks: undefined }).toEqual({ ...file, raw: undefined, networks: undefined });
  });

  it("bytes that are not valid UTF-8 round-trip untouched, and verify() notes them", () => {
    const built = buildApril({
      name: Uint8Array.of(0x41, 0xff),
      tokens: ["<blk>", Uint8Array.of(0xc3), "b\0c"],
      language: Uint8Array.of(0x65, 0x6e, 0, 0x58, 0, 0, 0, 0),
    });
    const file = april.read(built.bytes);
    expect(file.name).toBe("A\ufffd");
    expect(file.language).toBe("en");
    expect(hex(april.write(file))).toBe(hex(built.bytes));
    expect(april.verify(file)).toEqual([
      "name is not valid UTF-8",
      "token 1 is not valid UTF-8",
      "token 2 contains a NUL byte: libapril cuts it there",
    ]);
    // an edit wins over the stored bytes
    const edited = april.read(april.write({ ...file, name: "fixed", tokens: ["<blk>", "x", "y"], language: "fr" }));
    expect([edited.name, edited.tokens, edited.language]).toEqual(["fixed", ["<blk>", "x", "y"], "fr"]);
  });

  it("write() re-lays out other layouts, and verify() says what libapril would do with them", () => {
    const reference = buildApril().bytes;
    const cases = [
      { spec: { order: "params-first" as const }, warn: [/^params start at/] },
      { spec: { gapBeforeParams: 5 }, warn: [/^params start at/] },
      { spec: { headerExtra: 3 }, warn: [/^header_size is/] },
      { spec: { paramsExtra: 4 }, warn: [/^params.size is \d+ but the params use/] },
      { spec: { trailing: 9 }, warn: [/^9 bytes after the last section/] },
    ];
    for (const { spec, warn } of cases) {
      const file = april.read(buildApril(spec).bytes);
      const warnings = april.verify(file);
      expect(warnings.length, JSON.stringify(spec)).toBe(warn.length);
      warn.forEach((w, i) => expect(warnings[i]).toMatch(w));
      expect(hex(april.write(file)), JSON.stringify(spec)).toBe(hex(reference));
    }
  });

  it("a header_size that disagrees is only a warning (libapril ignores it)", () => {
    const built = buildApril();
    const file = april.read(withU64(built.bytes, built.at.headerSize, 5));
    expect(file.headerSize).toBe(5);
    expect(april.verify(file)).toHaveLength(1);
    expect(hex(april.write(file))).toBe(hex(built.bytes));
  });

  describe("bad entries give the right error and field", () => {
    const built = buildApril();
    const [encoder, decoder, joiner] = built.networks as [
      { offset: number; size: number },
      { offset: number; size: number },
      { offset: number; size: number },
    ];
    const cases: [string, Uint8Array, string, string, number?][] = [
      [
        "a network inside the header",
        withU64(built.bytes, built.at.networks[0]!, built.at.networks[0]! + 8),
        "CORRUPT",
        "networks[0].offset",
        built.at.networks[0],
      ],
      [
        "params inside the header",
        withU64(built.bytes, built.at.paramsOffset, 0),
        "CORRUPT",
        "params.offset",
        built.at.paramsOffset,
      ],
      [
        "overlapping networks",
        withU64(built.bytes, built.at.networks[1]!, encoder.offset + 1),
        "CORRUPT",
        "networks[1].offset",
        built.at.networks[1],
      ],
      [
        "a network overlapping params",
        withU64(
          withU64(built.bytes, built.at.networks[2]! + 8, joiner.size + 2),
          built.at.paramsSize,
          built.params.size - 2,
        ),
        "CORRUPT",
        "networks[2].offset",
        built.at.networks[2],
      ],
      [
        "a network offset past the end",
        withU64(built.bytes, built.at.networks[1]!, 2n ** 63n),
        "TRUNCATED",
        "networks[1].size",
        built.bytes.length,
      ],
      [
        "a network size of 2^64-1",
        withU64(built.bytes, built.at.networks[1]! + 8, 2n ** 64n - 1n),
        "TRUNCATED",
        "networks[1].size",
        decoder.offset,
      ],
      ["a name length of 2^64-1", withU64(built.bytes, 28, 2n ** 64n - 1n), "TRUNCATED", "name", 36],
      [
        "network_count 2^64-1",
        withU64(built.bytes, built.at.networkCount, 2n ** 64n - 1n),
        "CORRUPT",
        "network_count",
        built.at.networkCount,
      ],
      [
        "params.size too small for the tokens",
        withU64(built.bytes, built.at.paramsSize, built.params.size - 1),
        "CORRUPT",
        "params.tokens[9]",
      ],
      ["params.size smaller than the magic", withU64(built.bytes, built.at.paramsSize, 4), "CORRUPT", "params.magic"],
      [
        "a negative token length",
        withI32(built.bytes, built.params.offset + 60, -1),
        "CORRUPT",
        "params.tokens[0].length",
        built.params.offset + 60,
      ],
      [
        "token_count 0",
        withI32(built.bytes, paramAt(built.params.offset, "token_count"), 0),
        "CORRUPT",
        "params.token_count",
        paramAt(built.params.offset, "token_count"),
      ],
      [
        "segment_step > segment_size",
        withI32(built.bytes, paramAt(built.params.offset, "segment_step"), 10),
        "CORRUPT",
        "params.segment_step",
        paramAt(built.params.offset, "segment_step"),
      ],
      [
        "mel_high below mel_low",
        withI32(built.bytes, paramAt(built.params.offset, "mel_high"), 10),
        "CORRUPT",
        "params.mel_high",
      ],
      [
        "frame_shift_ms > frame_length_ms",
        withI32(built.bytes, paramAt(built.params.offset, "frame_shift_ms"), 26),
        "CORRUPT",
        "params.frame_shift_ms",
      ],
      [
        "samplerate 144000",
        withI32(built.bytes, paramAt(built.params.offset, "samplerate"), 144000),
        "CORRUPT",
        "params.samplerate",
      ],
      [
        "mel_features 256",
        withI32(built.bytes, paramAt(built.params.offset, "mel_features"), 256),
        "CORRUPT",
        "params.mel_features",
      ],
      ["an empty file", new Uint8Array(0), "TRUNCATED", "magic", 0],
      ["another format's magic", new TextEncoder().encode("BW2L\x02"), "BAD_MAGIC", "magic", 0],
    ];
    for (const [what, bytes, code, field, offset] of cases) {
      it(what, () => {
        const error = caughtFormatError(() => april.read(bytes));
        expect([error.code, error.field]).toEqual([code, field]);
        if (offset !== undefined) expect(error.offset).toBe(offset);
        expect(error.message.startsWith("april: ")).toBe(true);
      });
    }
  });

  it("an empty network is readable but verify() warns", () => {
    const file = april.read(buildApril({ networks: [new Uint8Array(0), Uint8Array.of(1), Uint8Array.of(2)] }).bytes);
    expect(asBytes(file.networks.encoder).length).toBe(0);
    expect(april.verify(file)).toEqual(["the encoder network is empty: libapril cannot load it"]);
  });

  it("write() refuses what no reader would accept, naming the field", () => {
    const networks = { encoder: Uint8Array.of(1), decoder: Uint8Array.of(2), joiner: Uint8Array.of(3) };
    const base = april.create({ networks, tokens: ["<blk>", "a"] });
    const field = (f: april.AprilFile) => caughtFormatError(() => april.write(f)).field;
    expect(field({ ...base, language: "123456789" })).toBe("language_tag");
    expect(field({ ...base, params: { ...base.params, batchSize: 2 } })).toBe("params.batch_size");
    expect(field({ ...base, params: { ...base.params, melLow: 1.5 } })).toBe("params.mel_low");
    expect(field({ ...base, tokens: ["<blk>"] })).toBe("params.token_count");
    expect(field({ ...base, modelType: 2 })).toBe("model_type");
    expect(() => april.write({ ...base, networks: { ...networks, joiner: { byteOffset: 0, byteLength: 1 } } })).toThrow(
      /loadNetworks/,
    );
    expect(april.create({ networks, tokens: ["a"], language: "12345678" }).language).toBe("12345678");
  });

  it("detect() looks at the magic only and never throws", () => {
    const bytes = buildApril().bytes;
    expect(april.detect(bytes.subarray(0, 8))).toBe(true);
    expect(april.detect(bytes.subarray(0, 7))).toBe(false);
    expect(april.detect(new Uint8Array(0))).toBe(false);
    expect(april.detect(new TextEncoder().encode("APRILMDX"))).toBe(false);
    expect(april.detect(undefined as unknown as Uint8Array)).toBe(false);
  });
});
