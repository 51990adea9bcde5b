/**
 * tsm: reference fixtures against expected.json / PROVENANCE.md, byte-identical round trips (the real
 * SeetaFace6 files and the .csta container included), builder round trips, the graph view, the uniform view,
 * inspect and verify.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as tsm from "../../bindings/formats/tsm.js";
import type { TsmField, TsmFile } from "../../bindings/formats/tsm.js";
import { detectFormat, readAny } from "../../bindings/any.js";
import * as kernels from "../../bindings/kernels/index.js";
import { bytesOf } from "../../bindings/tensor.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { cloneModule, constNode, field, module, node, richModule, text } from "../helpers/tsm-builders.js";

interface ExpectedField {
  dtype: number;
  shape: number[];
  nbytes: number;
  values?: number[];
  values_re_im?: number[];
  str?: string;
  first4?: number[];
  sha256?: string;
}
interface ExpectedNode {
  index: number;
  op: string;
  name: string;
  inputs: number[];
  param_order: string[];
  params: Record<string, ExpectedField | ExpectedField[]>;
}
interface ExpectedFile {
  file: string;
  size: number;
  sha256_file: string;
  fake: number;
  code: string;
  data_all_zero: boolean;
  inputs: number[];
  outputs: number[];
  node_count: number;
  trailing_bytes: number;
  nodes: ExpectedNode[];
}

const FOLDER = "tennis";
const fixtureNames = (): string[] => listFixtures(FOLDER).filter((n) => n.endsWith(".tsm") || n.endsWith(".csta"));
const expectedFiles = (): ExpectedFile[] =>
  JSON.parse(new TextDecoder().decode(readFixture(FOLDER, "expected.json"))) as ExpectedFile[];

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function raw(f: TsmField): Uint8Array {
  if (!ArrayBuffer.isView(f.data)) throw new Error("not loaded");
  return bytesOf(f.data);
}

/** Element values of a field as plain numbers, computed from its raw little-endian bytes. */
function numbers(f: TsmField): number[] {
  const b = raw(f);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: number[] = [];
  const step: Record<string, [number, (o: number) => number]> = {
    int8: [1, (o) => v.getInt8(o)],
    uint8: [1, (o) => v.getUint8(o)],
    bool: [1, (o) => v.getUint8(o)],
    int16: [2, (o) => v.getInt16(o, true)],
    uint16: [2, (o) => v.getUint16(o, true)],
    int32: [4, (o) => v.getInt32(o, true)],
    uint32: [4, (o) => v.getUint32(o, true)],
    int64: [8, (o) => Number(v.getBigInt64(o, true))],
    uint64: [8, (o) => Number(v.getBigUint64(o, true))],
    float32: [4, (o) => v.getFloat32(o, true)],
    float64: [8, (o) => v.getFloat64(o, true)],
    complex64: [4, (o) => v.getFloat32(o, true)],
    complex128: [8, (o) => v.getFloat64(o, true)],
    float16: [2, (o) => kernels.f16ToF32(Uint16Array.of(v.getUint16(o, true)))[0]!],
  };
  const [size, get] = step[f.dtype]!;
  for (let o = 0; o < b.length; o += size) out.push(get(o));
  return out;
}

function checkField(f: TsmField, want: ExpectedField, where: string): void {
  expect(tsm.tsmDTypeCode(f.dtype), where).toBe(want.dtype);
  expect(f.shape, where).toEqual(want.shape);
  expect(raw(f).byteLength, where).toBe(want.nbytes);
  if (want.str !== undefined) expect(tsm.fieldString(f), where).toBe(want.str);
  if (want.values) expect(numbers(f), where).toEqual(want.values);
  if (want.values_re_im) expect(numbers(f), where).toEqual(want.values_re_im);
  if (want.first4) expect(numbers(f).slice(0, 4), where).toEqual(want.first4);
  if (want.sha256) expect(createHash("sha256").update(raw(f)).digest("hex"), where).toBe(want.sha256);
}

describe.skipIf(!haveFixtures())("tsm reference fixtures", () => {
  it("match expected.json node by node, param by param", () => {
    const all = expectedFiles();
    expect(all.length).toBe(10);
    for (const want of all) {
      const bytes = readFixture(FOLDER, want.file);
      expect(bytes.length).toBe(want.size);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(want.sha256_file);
      const file = tsm.read(bytes);
      expect(file.container).toBeUndefined();
      expect(file.header.fake).toBe(want.fake);
      expect(`0x${file.header.code.toString(16)}`).toBe(want.code);
      expect(file.header.reserved.every((b) => b === 0)).toBe(want.data_all_zero);
      expect(file.inputs).toEqual(want.inputs);
      expect(file.outputs).toEqual(want.outputs);
      expect(file.nodes.length).toBe(want.node_count);
      expect(file.trailing?.byteLength ?? 0).toBe(want.trailing_bytes);
      const g = tsm.graph(file);
      for (const wn of want.nodes) {
        const n = file.nodes[wn.index]!;
        const where = `${want.file} node ${wn.index}`;
        expect(g.nodes[wn.index]!.op, where).toBe(wn.op);
        expect(g.nodes[wn.index]!.name, where).toBe(wn.name);
        expect(n.inputs, where).toEqual(wn.inputs);
        expect(
          n.params.map((p) => p.key),
          where,
        ).toEqual(wn.param_order);
        for (const [key, wantValue] of Object.entries(wn.params)) {
          const p = n.params.find((q) => q.key === key)!;
          const list = Array.isArray(wantValue) ? wantValue : [wantValue];
          expect(p.fields.length, `${where} ${key}`).toBe(list.length);
          list.forEach((wf, k) => checkField(p.fields[k]!, wf, `${where} ${key}[${k}]`));
        }
      }
    }
  });

  it("keep the SeetaFace6 reserved header bytes (AA 02 02 20 20, then zeros)", () => {
    for (const name of [
      "seetaface6_face_landmarker_pts5.tsm",
      "seetaface6_mask_detector.tsm",
      "seetaface6_quality_lbn.tsm",
    ]) {
      const { reserved } = tsm.read(readFixture(FOLDER, name)).header;
      expect(Array.from(reserved.subarray(0, 5))).toEqual([0xaa, 0x02, 0x02, 0x20, 0x20]);
      expect(reserved.subarray(5).every((b) => b === 0)).toBe(true);
    }
  });

  it("read the .csta container: its tree as metadata and the embedded module (= the extracted .tsm)", () => {
    const csta = readFixture(FOLDER, "seetaface6_face_landmarker_pts5.csta");
    const extracted = readFixture(FOLDER, "seetaface6_face_landmarker_pts5.tsm");
    const file = tsm.read(csta);
    expect(file.container).toBeDefined();
    const meta = tsm.cstaMeta(file)!;
    expect(meta.global).toEqual({ input: { channels: 1, format: "HWC", height: 112, width: 112 }, number: 5 });
    expect(meta["#signed"]).toEqual({ user_key: "EOTXJCWF" });
    expect((meta.pre_processor as { op: string }[]).map((s) => s.op)).toEqual([
      "resize",
      "force_gray",
      "to_float",
      "to_chw",
    ]);
    expect((meta.pre_processor as { size?: number[] }[])[0]!.size).toEqual([112, 112]);
    expect(meta.backbone).toEqual({ tsm: { binary: extracted.length } });
    expect(Array.from(file.container!.padding!)).toEqual(new Array(12).fill(12));
    expect(tsm.inspect(file).meta.csta).toEqual(meta);
    // the module inside is the extracted file
    const { container: _container, ...inner } = file;
    expect(sameBytes(tsm.write(inner), extracted)).toBe(true);
    const [blob] = tsm.blobs(file);
    expect(blob!.name).toBe("module.tsm");
    expect(sameBytes(blob!.bytes as Uint8Array, extracted)).toBe(true);
    expect(tsm.blobs(tsm.read(extracted))).toEqual([]);
    // same tensors as the extracted module
    const a = tsm.tensors(file);
    const b = tsm.tensors(tsm.read(extracted));
    expect(a.map((t) => t.name)).toEqual(b.map((t) => t.name));
    a.forEach((t, i) => expect(sameBytes(bytesOf(t.data), bytesOf(b[i]!.data))).toBe(true));
  });

  it("write(read(x)) is byte-identical for every fixture, .csta included", () => {
    const names = fixtureNames();
    expect(names.length).toBe(11);
    for (const name of names) {
      const bytes = readFixture(FOLDER, name);
      expect(sameBytes(tsm.write(tsm.read(bytes)), bytes), name).toBe(true);
    }
  });

  it("writeCsta packs a module back into the fixture's container byte for byte", () => {
    const csta = readFixture(FOLDER, "seetaface6_face_landmarker_pts5.csta");
    const container = tsm.read(csta).container!;
    const module = tsm.read(readFixture(FOLDER, "seetaface6_face_landmarker_pts5.tsm"));
    expect(sameBytes(tsm.writeCsta(module, { container }), csta)).toBe(true);
  });

  it("detect: true for its own fixtures, false for every other format's files", () => {
    for (const name of fixtureNames()) {
      const head = readFixture(FOLDER, name).subarray(0, 64);
      expect(tsm.detect(head), name).toBe(true);
      expect(detectFormat(head), name).toBe("tsm");
    }
    for (const folder of ["bw2l", "april", "primitiv", "spraak"]) {
      for (const sub of [folder, `${folder}/invalid`]) {
        for (const name of listFixtures(sub))
          expect(tsm.detect(readFixture(sub, name).subarray(0, 64)), `${sub}/${name}`).toBe(false);
      }
    }
    expect(tsm.detect(new Uint8Array(0))).toBe(false);
    expect(tsm.detect(Uint8Array.of(0x66, 0x61, 0x73, 0x74, 1, 2, 3, 4))).toBe(false); // "fast" but no STA code
  });

  it("the graph view: ops, attributes as plain values (0-d and [1] scalars alike), inputs resolved, forward refs", () => {
    const cnn = tsm.graph(tsm.read(readFixture(FOLDER, "small_cnn.tsm")));
    const conv = cnn.byName.get("conv1")!;
    expect(conv.op).toBe("conv2d");
    expect(conv.attrs.padding).toEqual([
      [0, 0],
      [0, 0],
      [1, 1],
      [1, 1],
    ]);
    expect(conv.attrs.format).toBe("NCHW");
    expect(conv.attrs.padding_value).toBe(0); // int64 0-d
    expect(cnn.byName.get("prob")!.attrs.smooth).toBe(true); // bool 0-d
    expect(cnn.byName.get("prob")!.attrs.dim).toBe(1);
    const input = cnn.byName.get("input")!;
    expect(input.op).toBe("<param>");
    expect(input.shape).toEqual([1, 3, 8, 8]);
    expect(input.dtype).toBe("float32");
    expect(cnn.inputs.map((n) => n.name)).toEqual(["input"]);
    expect(cnn.outputs.map((n) => n.name)).toEqual(["prob"]);
    expect(conv.inputs[0]!.name).toBe("input");
    expect(input.consumers).toContain(conv);

    const cpp = tsm.graph(tsm.read(readFixture(FOLDER, "cpp_built.tsm")));
    expect(cpp.byName.get("y")!.attrs.dim).toBe(1); // int32 [1]
    expect(cpp.byName.get("ip")!.attrs.transpose).toBe(false); // bool [1]
    expect(cpp.byName.get("x")!.dtype).toBe("float32"); // #dtype [1]
    expect(cpp.byName.get("x")!.shape).toEqual([1, 4]);

    const tiny = tsm.graph(tsm.read(readFixture(FOLDER, "tiny_add.tsm")));
    expect(tiny.byName.get("d")!.inputs.map((n) => n.name)).toEqual(["a", "b", "c"]); // c comes later in the file
    expect(tiny.inputs.map((n) => n.name)).toEqual(["b", "a"]);
    const c = tiny.byName.get("c")!;
    expect(Array.from(c.value![0]!.data as Float32Array)).toEqual([1.5, -2, 3.25]);

    const dtypes = tsm.graph(tsm.read(readFixture(FOLDER, "dtypes.tsm")));
    const packed = dtypes.byName.get("packed_all")!.attrs;
    expect(packed.s_utf8).toBe("名前-name");
    expect(packed.py_int).toBe(7);
    expect(packed.py_float).toBe(0.5);
    expect(packed.int_list).toEqual([1, 2, 3]);
    expect(packed.packed).toEqual([[1, 2], "abc", [[0.5]]]);
    expect(packed.packed_empty).toEqual([]);
    expect(dtypes.byName.get("packed_all")!.inputs.length).toBe(17);

    const resaved = tsm.graph(tsm.read(readFixture(FOLDER, "cpp_resaved_dtypes.tsm")));
    expect(resaved.byName.get("packed_all")!.attrs.packed_empty).toEqual([
      { dtype: "void", shape: [], bytes: new Uint8Array(0) },
      "abc",
      [[0.5]],
    ]);
  });

  it("the uniform view: <const> values by #name, stored shapes, float16 raw or widened", () => {
    const file = tsm.read(readFixture(FOLDER, "dtypes.tsm"));
    const byName = new Map(tsm.tensors(file).map((t) => [t.name, t]));
    expect(byName.size).toBe(16);
    expect(byName.get("const_scalar_f32")!.shape).toEqual([]);
    expect(Array.from(byName.get("const_scalar_f32")!.data as Float32Array)).toEqual([2.5]);
    expect(byName.get("const_empty_f32")!.shape).toEqual([0, 3]);
    expect(byName.get("const_i32")!.data).toBeInstanceOf(Int32Array);
    expect(Array.from(byName.get("const_i32")!.data as Int32Array)).toEqual([-2147483648, -3, 4, 2147483647]);
    expect(Array.from(byName.get("const_u64")!.data as BigUint64Array)).toEqual([0n, 4n, 10n ** 19n, 2n ** 64n - 1n]);
    const half = byName.get("const_f16")!;
    expect(half.dtype).toBe("float16");
    expect(half.data).toBeInstanceOf(Uint16Array);
    const wide = tsm.tensors(file, { dtype: "float32" }).find((t) => t.name === "const_f16")!;
    expect(wide.dtype).toBe("float32");
    expect(Array.from(wide.data as Float32Array).slice(0, 3)).toEqual([1, -2.5, 65504]);
    expect(byName.get("const_c64")!.dtype).toBe("complex64");
    expect(byName.get("const_c64")!.data).toBeInstanceOf(Uint8Array);
    expect(byName.get("const_bool")!.dtype).toBe("bool");

    const cnn = tsm.tensors(tsm.read(readFixture(FOLDER, "small_cnn.tsm")));
    const bias = cnn.find((t) => t.name === "_const_conv1_bias_bias")!;
    expect(Array.from(bias.data as Float32Array)).toEqual(
      [0.4206953, -0.46087822, 0.31995732, -0.50722045].map(Math.fround),
    );
    expect(readAny(readFixture(FOLDER, "small_cnn.tsm")).tensors().length).toBe(4);
  });

  it("inspect: ops and counts, nodes, JSON-able", () => {
    const info = tsm.inspect(tsm.read(readFixture(FOLDER, "darknet_tiny_yolo.tsm")));
    expect(info.format).toBe("tsm");
    expect(info.ops).toMatchObject({
      "<const>": 20,
      conv2d: 6,
      add_bias: 6,
      prelu: 4,
      pooling2d_v2: 2,
      _copy: 3,
      yolo: 2,
      yolo_poster: 1,
    });
    expect((info.nodes as unknown[]).length).toBe(49);
    expect(info.inputs).toEqual([{ index: 48, name: "_input", shape: [1, 3, 32, 32] }]);
    expect(info.outputs).toEqual([{ index: 12, name: "yolo" }]);
    expect(info.tensors.length).toBe(20);
    expect(JSON.parse(JSON.stringify(info))).toEqual(info);
    const quality = tsm.inspect(tsm.read(readFixture(FOLDER, "seetaface6_quality_lbn.tsm")));
    expect((quality.outputs as { name: string }[]).map((o) => o.name)).toEqual(["fc8_light", "fc8_blur", "fc8_noise"]);
    expect(quality.meta.reserved).toBe("aa02022020");
  });

  it("verify: quiet on reference files except the C++ 0-field packed hazard", () => {
    for (const name of fixtureNames()) {
      const warnings = tsm.verify(tsm.read(readFixture(FOLDER, name)));
      if (name === "dtypes.tsm")
        expect(warnings).toEqual([expect.stringContaining("packed_empty has 0 fields right after a packed param")]);
      else expect(warnings, name).toEqual([]);
    }
  });
});

describe("tsm builder round trips", () => {
  it("builder -> write -> read gives the same module, every dtype included", () => {
    const built = richModule();
    const bytes = tsm.write(built);
    const back = tsm.read(bytes);
    const strip = (f: TsmFile) => ({
      ...f,
      nodes: f.nodes.map((n) => ({
        ...n,
        params: n.params.map((p) => ({ ...p, fields: p.fields.map(({ byteOffset: _, ...rest }) => rest) })),
      })),
    });
    expect(strip(back)).toEqual(strip(built));
    expect(sameBytes(tsm.write(back), bytes)).toBe(true);
    // tensors: the packed const splits into #name/k, scalars keep their stored shape
    const names = tsm.tensors(back).map((t) => t.name);
    expect(names).toContain("c_packed/0");
    expect(names).toContain("c_packed/2");
    expect(names).not.toContain("c_packed");
    const t = new Map(tsm.tensors(back).map((x) => [x.name, x]));
    expect(t.get("c_scalar0d")!.shape).toEqual([]);
    expect(t.get("c_scalar1")!.shape).toEqual([1]);
    expect(t.get("c_packed/1")!.dtype).toBe("char8");
    expect(
      tsm.fieldString(
        back.nodes.find((n) => tsm.graph(back).nodes[back.nodes.indexOf(n)]!.name === "c_char8")!.params[2]!.fields[0]!,
      ),
    ).toBe("héllo");
    const g = tsm.graph(back);
    const op = g.byName.get("packed_all")!;
    expect(op.attrs).toMatchObject({
      format: "NCHW",
      dim: 1,
      axis: -2,
      smooth: true,
      epsilon: 1e-5,
      name_utf8: "名前-name",
      packed: [[1, 2], "abc"],
      packed_empty: [],
    });
    expect(op.attrs.padding).toEqual([
      [0, 0],
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    expect(op.inputs[1]!.name).toBe("late");
    expect(g.byName.get("c_char16")!.value![0]!.dtype).toBe("char16");
    expect(tsm.fieldValue(g.byName.get("c_char16")!.value![0]!)).toBe("AB");
    expect(tsm.fieldValue(g.byName.get("c_char32")!.value![0]!)).toBe("C");
    expect(tsm.fieldValue(g.byName.get("c_i64")!.value![0]!)).toEqual([-(2n ** 63n), 2n ** 63n - 1n]);
    expect(tsm.fieldValue(g.byName.get("c_f16")!.value![0]!)).toEqual([1, -2.5, 65504]);
    expect(JSON.parse(JSON.stringify(tsm.inspect(back)))).toEqual(tsm.inspect(back));
    expect(tsm.verify(back)).toEqual([
      expect.stringContaining("dtype ptr"),
      expect.stringContaining("packed_empty has 0 fields"),
    ]);
  });

  it("keeps non-UTF-8 param keys and trailing bytes exactly", () => {
    const file = module([node("<param>", "x"), constNode("w", field("float32", [1], Float32Array.of(1)))], [0], [0]);
    file.nodes[1]!.params.push({ key: "\ufffd", keyBytes: Uint8Array.of(0xff, 0xfe), fields: [text("v")] });
    file.trailing = Uint8Array.of(9, 8, 7);
    const bytes = tsm.write(file);
    const back = tsm.read(bytes);
    expect(back.nodes[1]!.params[3]!.keyBytes).toEqual(Uint8Array.of(0xff, 0xfe));
    expect(back.trailing).toEqual(Uint8Array.of(9, 8, 7));
    expect(sameBytes(tsm.write(back), bytes)).toBe(true);
    expect(tsm.verify(back)).toEqual([expect.stringContaining("3 bytes after the graph")]);
  });

  it("writeCsta: a new container with PKCS#7 padding that reads back to the same module", () => {
    const built = richModule();
    const csta = tsm.writeCsta(built);
    expect(Array.from(csta.subarray(0, 4))).toEqual([0x66, 0x61, 0x73, 0x74]);
    expect(tsm.detect(csta)).toBe(true);
    expect((csta.length - 4) % 16).toBe(0);
    const back = tsm.read(csta);
    expect(sameBytes(tsm.write({ ...back, container: undefined }), tsm.write(built))).toBe(true);
    expect(tsm.cstaMeta(back)).toEqual({ backbone: { tsm: { binary: tsm.write(built).length } } });
    expect(tsm.verify(back).filter((w) => w.includes("padding"))).toEqual([]);
    expect(sameBytes(tsm.write(back), csta)).toBe(true);
    // a tree with other entries round-trips them
    const container = back.container!;
    const root = container.root as Extract<tsm.StaValue, { type: "dict" }>;
    root.entries.push(
      {
        key: "global",
        value: {
          type: "dict",
          entries: [
            { key: "width", value: { type: "int", value: -3 } },
            { key: "scale", value: { type: "float", value: 0.5 } },
          ],
        },
      },
      {
        key: "flags",
        value: {
          type: "list",
          items: [
            { type: "bool", value: 1 },
            { type: "nil", pad: 0 },
            { type: "string", value: "ü" },
            { type: "binary", bytes: Uint8Array.of(1, 2) },
          ],
        },
      },
    );
    const again = tsm.read(tsm.writeCsta(built, { container }));
    expect(tsm.cstaMeta(again)).toMatchObject({
      global: { width: -3, scale: 0.5 },
      flags: [true, null, "ü", { binary: 2 }],
    });
    expect(tsm.blobs(again).map((b) => b.name)).toEqual(["module.tsm", "csta/flags/3.bin"]);
  });

  it("the writer refuses what it cannot write, with FormatErrors", () => {
    const bad = cloneModule(module([constNode("w", field("float32", [3], Float32Array.of(1, 2)))], [], [0]));
    expect(() => tsm.write(bad)).toThrowError(
      expect.objectContaining({ code: "CORRUPT", field: "node[0].value.data" }),
    );
    const unknown = module([constNode("w", field("float32", [1], Float32Array.of(1)))], [], [0]);
    unknown.nodes[0]!.params[2]!.fields[0]!.dtype = "nonsense" as never;
    expect(() => tsm.write(unknown)).toThrowError(expect.objectContaining({ code: "UNSUPPORTED" }));
  });
});
