/**
 * Editing .april files: the header (name, description, language), params and each network's ONNX model (edited
 * with onnx's edits) are written by april.write/writeTo; networks no edit touched stay byte for byte. Checked by
 * reading back and by onnx-proto's decode of the edited network.
 */
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { FIXTURE_TOKENS } from "../helpers/april-builders.js";
import { haveFixtures, readFixture } from "../helpers/fixtures.js";

const { onnx: proto } = onnxProto;

function network(file: april.AprilFile, name: april.NetworkName): Uint8Array {
  const n = file.networks[name];
  if (!(n instanceof Uint8Array)) throw new Error("a range");
  return n;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** An .april whose networks are onnx.create models (a tiny encoder, decoder and joiner). */
function builtApril(): Uint8Array {
  const net = (name: string) =>
    onnx.write(
      onnx.create({
        producerName: name,
        graph: {
          name,
          nodes: [{ name: `${name}_id`, opType: "Identity", inputs: ["x"], outputs: ["y"] }],
          inputs: [{ name: "x", dtype: "float32", shape: ["N", 4] }],
          outputs: [{ name: "y", dtype: "float32", shape: ["N", 4] }],
        },
      }),
    );
  return april.write(
    april.create({
      networks: { encoder: net("enc"), decoder: net("dec"), joiner: net("join") },
      tokens: FIXTURE_TOKENS,
      name: "Built",
      description: "for edits",
    }),
  );
}

function editAndCheck(bytes: Uint8Array): void {
  const file = april.read(bytes);
  expect(same(april.write(file), bytes)).toBe(true);
  april.setField(file, "name", "Renamed model");
  april.setField(file, "description", "édité");
  april.setField(file, "language", "pl");
  april.setField(file, "segment_step", "3");
  const encoder = april.networkModel(file, "encoder");
  onnx.setMetadata(encoder, "edited", "yes");
  const input = encoder.graph!.inputs[0]!.name;
  onnx.renameValue(encoder, input, "features");
  encoder.producerName = "tensorfile";
  const out = april.write(file);
  const again = april.read(out);
  expect([again.name, again.description, again.language, again.params.segmentStep]).toEqual([
    "Renamed model",
    "édité",
    "pl",
    3,
  ]);
  expect(again.tokens).toEqual(file.tokens);
  // the edited network: onnx-proto reads the edits; the others are the bytes they were
  const before = proto.ModelProto.decode(network(april.read(bytes), "encoder"));
  const after = proto.ModelProto.decode(network(again, "encoder"));
  expect(after.producerName).toBe("tensorfile");
  expect(after.metadataProps!.map((p) => [p.key, p.value])).toEqual([
    ...(before.metadataProps ?? []).map((p) => [p.key, p.value]),
    ["edited", "yes"],
  ]);
  expect(after.graph!.input![0]!.name).toBe("features");
  expect(after.graph!.node!.map((n) => n.input)).toEqual(
    before.graph!.node!.map((n) => n.input!.map((i) => (i === input ? "features" : i))),
  );
  for (const name of ["decoder", "joiner"] as const)
    expect(same(network(again, name), network(april.read(bytes), name))).toBe(true);
  expect(again.onnx?.encoder?.metadataProps).toContainEqual({ key: "edited", value: "yes" });
}

describe("april edits", () => {
  it("header, params and a network's ONNX edits are written; the other networks stay byte for byte (fails on main: network edits dropped)", () => {
    editAndCheck(builtApril());
  });

  it.each(["tiny_en-us.april", "tiny_pl.april"])("the same on the reference fixture %s", (name) => {
    if (!haveFixtures()) return;
    editAndCheck(readFixture("april", name));
  });

  it("writeTo gives the same bytes as write for an edited file", async () => {
    const file = april.read(builtApril());
    onnx.setMetadata(april.networkModel(file, "joiner"), "k", "v");
    const chunks: Uint8Array[] = [];
    await april.writeTo(file, (c) => void chunks.push(c.slice()));
    expect(same(Buffer.concat(chunks), april.write(file))).toBe(true);
  });

  it("a network replaced in `networks` is written as given, not its old model", () => {
    const file = april.read(builtApril());
    onnx.setMetadata(april.networkModel(file, "decoder"), "k", "v");
    const replacement = onnx.write(onnx.create({ graph: { name: "other", nodes: [], inputs: [], outputs: [] } }));
    file.networks.decoder = replacement;
    expect(same(network(april.read(april.write(file)), "decoder"), replacement)).toBe(true);
  });

  it("setField refusals change nothing", () => {
    const file = april.read(builtApril());
    expect(() => april.setField(file, "language", "much-too-long")).toThrow(RangeError);
    expect(() => april.setField(file, "token_count", "3")).toThrow(RangeError);
    expect(() => april.setField(file, "segment_step", "x")).toThrow(RangeError);
    expect(() => april.setField(file, "nope", "1")).toThrow(RangeError);
    expect(() => april.networkModel(file, "middle")).toThrow(RangeError);
    expect(same(april.write(file), builtApril())).toBe(true);
  });
});
