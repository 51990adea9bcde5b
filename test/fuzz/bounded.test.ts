/**
 * Bounded work (issue 14): crafted files whose declared dims, counts or nesting are far larger than the bytes
 * present. Every reader's work must follow the bytes, so each file either reads (and keeps every law of
 * fuzz/laws.mjs: tensors, inspect, verify, blobs, the write/read fixpoint, lazy reads) or is a FormatError,
 * and none of them runs long or allocates much (the laws check 1 s and 64 MB + 16x the input per call).
 */
import { describe, expect, it } from "vitest";
import * as lib from "../../bindings/index.js";
import * as tsm from "../../bindings/formats/tsm.js";
import type { CstaContainer, StaValue } from "../../bindings/formats/tsm.js";
import { checkFormatLaws } from "../../fuzz/laws.mjs";
import { buildApril, paramAt, withI32, withU64 } from "../helpers/april-builders.js";
import { longStr, rawArray, rawFile, rawKeyval, rawLayers, u64 } from "../helpers/bw2l-builders.js";
import { concat } from "../helpers/bytes.js";
import { bytes as mpBytes, mp } from "../helpers/primitiv-builders.js";
import { constNode, field, module, node, param } from "../helpers/tsm-builders.js";

/** The project runs no timing thresholds in tests: the 1 s per call law is the fuzzers' (fuzz/harness.mjs). */
const UNTIMED = { callLimitMs: Number.POSITIVE_INFINITY };

const laws = (format: string, bytes: Uint8Array) => checkFormatLaws(lib, format, bytes, UNTIMED);
const encoder = new TextEncoder();
const U32_MAX = 0xffffffff;

describe("tsm: work follows the bytes", () => {
  const withAttr = (...fields: ReturnType<typeof field>[]) =>
    tsm.write(module([node("<param>", "x"), node("relu", "y", [param("attr", ...fields)], [0])], [0], [1]));

  it("an attribute of shape [4294967295, 0] (0 elements) reads, inspects and verifies without nesting 2^32 arrays", async () => {
    const bytes = withAttr(field("float32", [U32_MAX, 0], new Float32Array(0)));
    expect(await laws("tsm", bytes)).toMatch(/^accepted/);
    const attr = tsm.graph(tsm.read(bytes)).nodes[1]!.attrs.attr;
    expect(attr).toMatchObject({ dtype: "float32", shape: [U32_MAX, 0] });
  });

  it("three huge leading dims before a 0, and [2, 0] still nests as [[], []]", async () => {
    expect(await laws("tsm", withAttr(field("int32", [U32_MAX, U32_MAX, U32_MAX, 0], new Int32Array(0))))).toMatch(
      /^accepted/,
    );
    const small = withAttr(field("int32", [2, 0], new Int32Array(0)));
    expect(tsm.graph(tsm.read(small)).nodes[1]!.attrs.attr).toEqual([[], []]);
  });

  it("<const> values of shapes [4294967295, 0] and [0, 4294967295, 4294967295] decode to empty tensors of those shapes", async () => {
    const bytes = tsm.write(
      module(
        [
          node("<param>", "x"),
          constNode("a", field("float32", [U32_MAX, 0], new Float32Array(0))),
          constNode("b", field("float16", [0, U32_MAX, U32_MAX], new Uint16Array(0))),
        ],
        [0],
        [0],
      ),
    );
    expect(await laws("tsm", bytes)).toMatch(/^accepted/);
    expect(tsm.tensors(tsm.read(bytes), { dtype: "float32" }).map((t) => [t.name, t.shape, t.data.length])).toEqual([
      ["a", [U32_MAX, 0], 0],
      ["b", [0, U32_MAX, U32_MAX], 0],
    ]);
  });

  it("a 10,000-dim shape of 1s (deep nesting) stays opaque, not 10,000 nested arrays", async () => {
    const shape = new Array<number>(10_000).fill(1);
    const bytes = withAttr(field("float32", shape, Float32Array.of(1.5)));
    expect(await laws("tsm", bytes)).toMatch(/^accepted/);
    expect(tsm.graph(tsm.read(bytes)).nodes[1]!.attrs.attr).toMatchObject({ dtype: "float32" });
  });

  it("node, input and field counts of 2^32-1 with no bytes behind them are FormatErrors", async () => {
    const base = tsm.write(module([node("<param>", "x")], [0], [0]));
    // header 128 bytes | inputs n u32 | ... : inflate the input count, the output count, the node count
    for (const at of [128, 136, 144]) {
      const bytes = base.slice();
      new DataView(bytes.buffer).setUint32(at, U32_MAX, true);
      expect(await laws("tsm", bytes)).toMatch(/^rejected (TRUNCATED|CORRUPT|LIMIT)/);
    }
  });

  it("many tiny nodes with repeated names read in one pass", async () => {
    const nodes = [
      node("<param>", "x"),
      ...Array.from({ length: 3000 }, () => constNode("same", field("float32", [0], new Float32Array(0)))),
    ];
    const file = module(nodes, [0], [0]);
    const bytes = tsm.write(file);
    expect(await laws("tsm", bytes)).toMatch(/^accepted/);
    expect(tsm.verify(tsm.read(bytes)).filter((w) => w.includes("repeats")).length).toBe(2999);
  });

  it("a .csta whose tree repeats the module's path: the module goes into the slot read picked, the other binary stays", async () => {
    const moduleFile = module(
      [node("<param>", "x"), constNode("w", field("float32", [2], Float32Array.of(1, 2)))],
      [0],
      [0],
    );
    const other = encoder.encode("another binary at backbone.tsm, 41 bytes!");
    const slot: StaValue = { type: "binary", bytes: { byteOffset: 0, byteLength: 0 } };
    const backbone = (value: StaValue): StaValue => ({ type: "dict", entries: [{ key: "tsm", value }] });
    const entries = [
      { key: "backbone", value: backbone(slot) },
      { key: "backbone", value: backbone({ type: "binary", bytes: other }) },
    ];
    const container: CstaContainer = {
      staCode: tsm.STA_CODE,
      root: { type: "dict", entries },
      modulePath: ["backbone", "tsm"],
      tail: new Uint8Array(0),
    };
    const written = tsm.writeCsta(moduleFile, { container });
    const read = tsm.read(written);
    const second = tsm.staLookup(read.container!.root, ["backbone"]) as StaValue;
    expect(second.type).toBe("dict");
    expect(tsm.write(read)).toEqual(written);
    const repeated = (read.container!.root as Extract<StaValue, { type: "dict" }>).entries[1]!.value as Extract<
      StaValue,
      { type: "dict" }
    >;
    expect(repeated.entries[0]!.value).toEqual({ type: "binary", bytes: other });
    expect(tsm.blobs(read).map((b) => b.name)).toEqual(["module.tsm", "csta/backbone/tsm.bin"]);
    expect(await laws("tsm", written)).toMatch(/^accepted/);
  });
});

describe("bw2l: work follows the bytes", () => {
  it("a section count of 2^64-1 with no sections is a FormatError", async () => {
    expect(await laws("bw2l", rawFile(2, "m", [], undefined, 2n ** 64n - 1n))).toMatch(/^rejected/);
  });

  it("an array of dims [2^40, 0, 2^40] (0 elements) reads without touching 2^40 of anything", async () => {
    const array = rawArray(2, "fp32", new Uint8Array(0), 0, [2n ** 40n, 0, 2n ** 40n]);
    const bytes = rawFile(2, "m", [{ name: "huge", type: "array", desc: "", data: array }]);
    expect(await laws("bw2l", bytes)).toMatch(/^accepted|^rejected/);
  });

  it("a layer count and a param count of 2^64-1 are FormatErrors", async () => {
    const layers = concat(u64(2n ** 64n - 1n));
    expect(await laws("bw2l", rawFile(1, "m", [{ name: "layers", type: "layers", desc: "", data: layers }]))).toMatch(
      /^rejected/,
    );
    const params = concat(u64(1), longStr("arch"), new Uint8Array(12), u64(2n ** 64n - 1n));
    expect(await laws("bw2l", rawFile(1, "m", [{ name: "layers", type: "layers", desc: "", data: params }]))).toMatch(
      /^rejected/,
    );
  });

  it("20,000 empty keyval entries with one repeated key, and 5,000 tiny sections", async () => {
    const keyval = rawKeyval(Array.from({ length: 20_000 }, () => ["k", ""] as [string, string]));
    expect(await laws("bw2l", rawFile(2, "m", [{ name: "config", type: "keyval", desc: "", data: keyval }]))).toMatch(
      /^accepted/,
    );
    const sections = Array.from({ length: 5000 }, (_, i) => ({
      name: i % 2 ? "same" : "x",
      type: "data",
      desc: "",
      data: new Uint8Array(0),
    }));
    expect(await laws("bw2l", rawFile(2, "m", sections))).toMatch(/^accepted/);
    expect(
      await laws(
        "bw2l",
        rawFile(1, "m", [
          {
            name: "l",
            type: "layers",
            desc: "",
            data: rawLayers(
              1,
              Array.from({ length: 2000 }, () => ({ arch: "", params: [] })),
            ),
          },
        ]),
      ),
    ).toMatch(/^accepted/);
  });
});

describe("april: work follows the bytes", () => {
  it("a token count of 2^31-1 with no tokens, and huge network sizes, are FormatErrors", async () => {
    const built = buildApril();
    const tokens = withI32(built.bytes, paramAt(built.params.offset, "token_count"), 0x7fffffff);
    expect(await laws("april", tokens)).toMatch(/^rejected/);
    const network = withU64(built.bytes, built.at.networks[0]! + 8, 2n ** 64n - 1n);
    expect(await laws("april", network)).toMatch(/^rejected/);
    const count = withU64(built.bytes, built.at.networkCount, 2n ** 64n - 1n);
    expect(await laws("april", count)).toMatch(/^rejected|^accepted/);
  });

  it("10,000 empty tokens read", async () => {
    const built = buildApril({ tokens: Array.from({ length: 10_000 }, () => "") });
    expect(await laws("april", built.bytes)).toMatch(/^accepted/);
  });
});

describe("primitiv: work follows the bytes", () => {
  it("a model of 2^32-1 parameters, a map of 2^32-1 configs and a stats count of 2^32-1, with no bytes behind, are FormatErrors", async () => {
    expect(await laws("primitiv", mpBytes(mp.header(0x300), mp.u32(U32_MAX)))).toMatch(/^rejected/);
    expect(await laws("primitiv", mpBytes(mp.header(0x400), mp.map(U32_MAX, "32")))).toMatch(/^rejected/);
    expect(await laws("primitiv", mpBytes(mp.header(0x200), mp.tensor([1], [1]), mp.u32(U32_MAX)))).toMatch(
      /^rejected/,
    );
  });

  it("a shape array of 2^32-1 dims, and dims whose product overflows, are FormatErrors", async () => {
    expect(await laws("primitiv", mpBytes(mp.header(0x0), mp.array(U32_MAX, "32")))).toMatch(/^rejected/);
    expect(
      await laws("primitiv", mpBytes(mp.header(0x100), mp.shape([U32_MAX, U32_MAX, U32_MAX]), mp.bin([]))),
    ).toMatch(/^rejected/);
  });

  it("3,000 empty optimizer configs with distinct keys read", async () => {
    const n = 3000;
    const uint = [
      ...mp.map(n, "16"),
      ...Array.from({ length: n }, (_, i) => [...mp.str(`k${i}`), ...mp.u32(i)]).flat(),
    ];
    expect(await laws("primitiv", mpBytes(mp.header(0x400), uint, mp.map(0)))).toMatch(/^accepted/);
  });
});

describe("spraak: work follows the bytes", () => {
  const spr = (header: string, data: Uint8Array = new Uint8Array(0)) =>
    concat(encoder.encode(`.spr\n${header}#\n`), data);

  it("DIM1 of 4294967295 with DIM2 0, and DIM1 0 with a huge DIM2, read or refuse without allocating", async () => {
    for (const dims of [
      "DIM1\t4294967295\nDIM2\t0\n",
      "DIM1\t0\nDIM2\t4294967295\n",
      "DIM1\t99999999999999999999\nDIM2\t0\n",
    ]) {
      expect(await laws("spraak", spr(`${dims}TYPE\tF32\nFORMAT\tBIN01\nLAYOUT\tMATRIX\n`))).toMatch(
        /^accepted|^rejected/,
      );
    }
  });

  it("DIM1 -1 over ASCII with 50,000 tiny numbers, and 20,000 header lines with one repeated key", async () => {
    const ascii = encoder.encode("0 ".repeat(50_000));
    expect(await laws("spraak", spr("DIM1\t-1\nDIM2\t1\nTYPE\tF32\nFORMAT\tASCII\nLAYOUT\tMATRIX\n", ascii))).toMatch(
      /^accepted/,
    );
    const lines = "K\tv\n".repeat(20_000);
    expect(await laws("spraak", spr(`${lines}DIM1\t0\nDIM2\t1\nTYPE\tF32\nFORMAT\tBIN01\nLAYOUT\tMATRIX\n`))).toMatch(
      /^accepted|^rejected/,
    );
  });
});
