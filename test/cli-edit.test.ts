/**
 * `tensorfile edit`: each option read back by onnx-proto (the original's decode with the same edit made by hand),
 * the --json summary, .april header and network edits, and every refusal (exit 1 or 2) writing nothing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import onnxProto from "onnx-proto";
import { afterAll, describe, expect, it, vi } from "vitest";
import * as april from "../bindings/formats/april.js";
import * as onnx from "../bindings/formats/onnx.js";
import { capabilitiesOf } from "../bindings/formats/registry.js";
import { FIXTURE_TOKENS } from "./helpers/april-builders.js";
import { cli } from "./helpers/cli.js";

const { onnx: proto } = onnxProto;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-edit-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const fresh = (name: string) => join(dir, `${counter++}-${name}`);

// onnx-proto's decode as plain data: deep paths are set and compared, so its fields are left untyped
type Plain = Record<string, any>;

function decode(bytes: Uint8Array): Plain {
  return proto.ModelProto.toObject(proto.ModelProto.decode(bytes), { longs: String, bytes: String, defaults: false });
}

function modelBytes(): Uint8Array {
  return onnx.write(
    onnx.create({
      producerName: "tests",
      metadata: { author: "me", license: "MIT" },
      graph: {
        name: "main",
        nodes: [
          { name: "scale", opType: "Mul", inputs: ["x", "w"], outputs: ["h"] },
          { name: "shift", opType: "Add", inputs: ["h", "w"], outputs: ["y"] },
        ],
        initializers: [{ name: "w", dtype: "float32", dims: [3], data: new Float32Array([1, 2, 3]) }],
        inputs: [{ name: "x", dtype: "float32", shape: ["N", 3] }],
        outputs: [{ name: "y", dtype: "float32", shape: ["N", 3] }],
      },
    }),
  );
}

function modelFile(): string {
  const path = fresh("model.onnx");
  writeFileSync(path, modelBytes());
  return path;
}

describe("tensorfile edit", () => {
  it("each option is written as asked and nothing else changes (onnx-proto)", async () => {
    const input = modelFile();
    const out = fresh("out.onnx");
    const r = await cli(
      "edit",
      input,
      out,
      "--set-meta",
      "license=Apache-2.0",
      "--set-meta",
      "new=v",
      "--delete-meta",
      "author",
      "--rename",
      "h=hidden",
      "--rename",
      "x=features",
      "--shape",
      "features=1x3",
      "--shape",
      "y=Bx3",
      "--set",
      "producer_name=edited",
      "--set",
      "model_version=12",
      "--set",
      "doc_string=a doc",
    );
    expect(r.stderr).toMatch(/\nwrote .*out\.onnx \(onnx, [^\n]*\n$/);
    expect(r.code).toBe(0);
    expect(r.stderr.split("\n")).toContain("renamed x -> features (2 places)");
    const expected = decode(modelBytes());
    expected.metadataProps = [
      { key: "license", value: "Apache-2.0" },
      { key: "new", value: "v" },
    ];
    expected.graph.node[0].output = ["hidden"];
    expected.graph.node[1].input = ["hidden", "w"];
    expected.graph.node[0].input = ["features", "w"];
    expected.graph.input[0].name = "features";
    expected.graph.input[0].type.tensorType.shape.dim = [{ dimValue: "1" }, { dimValue: "3" }];
    expected.graph.output[0].type.tensorType.shape.dim = [{ dimParam: "B" }, { dimValue: "3" }];
    Object.assign(expected, { producerName: "edited", modelVersion: "12", docString: "a doc" });
    expect(decode(new Uint8Array(readFileSync(out)))).toEqual(expected);
  });

  it("--json prints a summary of the edits", async () => {
    const out = fresh("out.onnx");
    const r = await cli("edit", modelFile(), out, "--rename", "w=weight", "--set-meta", "k=v", "--json");
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ format: "onnx", output: out, byteLength: readFileSync(out).length });
    expect(summary.edits).toEqual([
      { edit: "set-meta", name: "k", value: "v" },
      { edit: "rename", name: "w", value: "weight", uses: 3 },
    ]);
    expect(onnx.tensorInfos(onnx.read(new Uint8Array(readFileSync(out)))).map((t) => t.name)).toEqual(["weight"]);
  });

  it("--shape removes the declared shapes computed from the value and says which (text and --json)", async () => {
    const input = fresh("vi.onnx");
    writeFileSync(
      input,
      onnx.write(
        onnx.create({
          graph: {
            name: "g",
            nodes: [
              { opType: "Relu", inputs: ["x"], outputs: ["h"] },
              { opType: "Relu", inputs: ["h"], outputs: ["y"] },
            ],
            inputs: [{ name: "x", dtype: "float32", shape: ["N", 3] }],
            outputs: [{ name: "y", dtype: "float32", shape: ["N", "C"] }],
            valueInfo: [{ name: "h", dtype: "float32", shape: ["N", 3] }],
          },
        }),
      ),
    );
    const text = await cli("edit", input, fresh("out.onnx"), "--shape", "x=2x5");
    expect(text.code).toBe(0);
    expect(text.stderr.split("\n")).toContain(
      "shape of x = [2, 5]; declared shape removed from 1 value computed from it (h)",
    );
    const out = fresh("out.onnx");
    const json = await cli("edit", input, out, "--shape", "x=2x5", "--json");
    expect(JSON.parse(json.stdout).edits).toEqual([{ edit: "shape", name: "x", value: [2, 5], droppedShapes: ["h"] }]);
    expect(decode(new Uint8Array(readFileSync(out))).graph.valueInfo).toBeUndefined();
  });

  it("an .april: header fields, params and a network's ONNX edits", async () => {
    const net = (name: string) =>
      onnx.write(
        onnx.create({
          graph: {
            name,
            nodes: [{ opType: "Identity", inputs: ["x"], outputs: ["y"] }],
            inputs: [{ name: "x", dtype: "float32", shape: ["N", 4] }],
            outputs: [{ name: "y", dtype: "float32" }],
          },
        }),
      );
    const bytes = april.write(
      april.create({ networks: { encoder: net("e"), decoder: net("d"), joiner: net("j") }, tokens: FIXTURE_TOKENS }),
    );
    const input = fresh("m.april");
    writeFileSync(input, bytes);
    const out = fresh("out.april");
    const r = await cli(
      "edit",
      input,
      out,
      "--set",
      "name=New name",
      "--set",
      "language=de",
      "--set",
      "samplerate=8000",
      "--set-meta",
      "encoder/k=v",
      "--rename",
      "joiner/x=joint_in",
      "--shape",
      "encoder/x=Tx4",
      "--set",
      "decoder/producer_name=p",
    );
    expect(r.stderr).toMatch(/wrote/);
    expect(r.code).toBe(0);
    const file = april.read(new Uint8Array(readFileSync(out)));
    expect([file.name, file.language, file.params.sampleRate]).toEqual(["New name", "de", 8000]);
    const decoded = (name: april.NetworkName) => decode(file.networks[name] as Uint8Array);
    expect(decoded("encoder").metadataProps).toEqual([{ key: "k", value: "v" }]);
    expect(decoded("encoder").graph.input[0].type.tensorType.shape.dim).toEqual([{ dimParam: "T" }, { dimValue: "4" }]);
    expect(decoded("joiner").graph.input[0].name).toBe("joint_in");
    expect(decoded("joiner").graph.node[0].input).toEqual(["joint_in"]);
    expect(decoded("decoder").producerName).toBe("p");
    for (const [option, code] of [
      ["colour=red", 2],
      ["encoder/name=x", 2],
      ["language=far-too-long", 1],
      ["middle/producer_name=x", 2],
    ] as const) {
      const refused = fresh("refused.april");
      const r2 = await cli("edit", input, refused, "--set", option);
      expect([option, r2.code, existsSync(refused)]).toEqual([option, code, false]);
    }
  });

  const REFUSALS: [string, string[], number, RegExp][] = [
    ["an unknown name", ["--rename", "nope=z"], 1, /no value named "nope"/],
    ["a rename onto an existing name", ["--rename", "x=w"], 1, /already has a value named "w"/],
    ["a shape of another rank", ["--shape", "x=1x2x3"], 1, /rank 2/],
    ["a shape of an unknown value", ["--shape", "nope=1"], 1, /nope/],
    ["deleting an absent key", ["--delete-meta", "nope"], 1, /no metadata key "nope"/],
    ["an unknown field", ["--set", "colour=red"], 2, /--set takes producer_name/],
    ["a field value that cannot be stored", ["--set", "model_version=x"], 1, /model_version takes an integer/],
    ["an option without =", ["--rename", "x"], 2, /--rename takes OLD=NEW/],
    ["no edit at all", [], 2, /at least one/],
    ["an .april-only form on an .onnx", ["--set", "encoder/producer_name=p"], 2, /not "encoder\/producer_name"/],
  ];
  it.each(REFUSALS)("refuses %s, writing nothing", async (_label, options, code, message) => {
    const out = fresh("out.onnx");
    const r = await cli("edit", modelFile(), out, ...options);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(existsSync(out)).toBe(false);
  });

  it("reports a TypeError that is not an edit function's refusal as an internal error, writing nothing", async () => {
    const editing = capabilitiesOf("onnx")?.edit;
    expect(editing).toBeDefined();
    // a bug inside the edit path (not a refusal of the input): it must not pass for the input's fault
    const spy = vi.spyOn(editing!, "setField").mockImplementation(() => {
      throw new TypeError("Cannot read properties of undefined (reading 'graph')");
    });
    try {
      const out = fresh("out.onnx");
      const r = await cli("edit", modelFile(), out, "--set", "producer_name=p");
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/internal error: Cannot read properties of undefined/);
      expect(existsSync(out)).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it("refuses an existing OUT without --force, OUT = MODEL, another extension, a file of another format", async () => {
    const input = modelFile();
    const out = fresh("out.onnx");
    writeFileSync(out, "keep");
    let r = await cli("edit", input, out, "--set-meta", "k=v");
    expect([r.code, readFileSync(out, "utf8")]).toEqual([2, "keep"]);
    r = await cli("edit", input, out, "--set-meta", "k=v", "--force");
    expect(r.code).toBe(0);
    expect(onnx.read(new Uint8Array(readFileSync(out))).metadataProps).toContainEqual({ key: "k", value: "v" });
    r = await cli("edit", input, input, "--set-meta", "k=v", "--force");
    expect(r.code).toBe(2);
    expect(readFileSync(input)).toEqual(Buffer.from(modelBytes()));
    const wrongExt = fresh("out.april");
    r = await cli("edit", input, wrongExt, "--set-meta", "k=v");
    expect([r.code, existsSync(wrongExt)]).toEqual([2, false]);
    const npy = fresh("x.npy");
    writeFileSync(
      npy,
      Buffer.concat([
        Buffer.from("\x93NUMPY\x01\x00v\x00", "latin1"),
        Buffer.from("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }".padEnd(117) + "\n"),
        Buffer.alloc(4),
      ]),
    );
    r = await cli("edit", npy, fresh("y.onnx"), "--set-meta", "k=v");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/edit changes \.onnx and \.april models/);
  });

  it("inspect shows an ONNX model's inputs, outputs and metadata_props on lines of their own; --json only grows", async () => {
    const input = modelFile();
    const r = await cli("inspect", input);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    const at = (line: string) => lines.indexOf(line);
    expect(at("inputs")).toBe(2);
    expect(lines.slice(2, 9)).toEqual([
      "inputs",
      "  x  float32  [N, 3]",
      "outputs",
      "  y  float32  [N, 3]",
      "metadata",
      "  author   me",
      "  license  MIT",
    ]);
    expect(at("inputs")).toBeLessThan(lines.findIndex((l) => l.startsWith("tensors")));
    const json = JSON.parse((await cli("inspect", input, "--json")).stdout);
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining([
        "format",
        "version",
        "meta",
        "tensors",
        "graph",
        "storage",
        "strings",
        "sparseInitializers",
        "externalData",
        "unknownFields",
        "functions",
      ]),
    );
    expect(json.meta.metadataProps).toEqual([
      { key: "author", value: "me" },
      { key: "license", value: "MIT" },
    ]);
    expect(json.inputs).toEqual([{ name: "x", dtype: "float32", shape: ["N", 3] }]);
    expect(json.outputs).toEqual([{ name: "y", dtype: "float32", shape: ["N", 3] }]);
  });

  it("is listed by --help and has its own help", async () => {
    expect((await cli("--help")).stdout).toMatch(/tensorfile edit MODEL OUT/);
    const help = await cli("edit", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--set-meta KEY=VALUE/);
  });
});
