/**
 * The CLI on ONNX TensorProto files (.pb): inspect, verify, stats, convert to .npy/.safetensors, diff (two .pb,
 * a .pb against a .npy), patch a model with a .pb as WEIGHTS; a .pb whose head detection does not recognise is
 * read by its name and refused with the parser's error, never "unknown format"; ONNX's own test data when
 * Debian's libonnx-testdata is installed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import onnxProto from "onnx-proto";
import { afterAll, describe, expect, it } from "vitest";
import { readAny } from "../bindings/any.js";
import { writeNpy } from "../bindings/export/npy.js";
import * as onnx from "../bindings/formats/onnx.js";
import { cli } from "./helpers/cli.js";
import { parseNpy, parseSafetensors } from "./helpers/parsers.js";

const { onnx: proto } = onnxProto;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-cli-pb-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

function tensorProto(name: string, values: Float32Array, dims: number[], typed = false): Uint8Array {
  const t = typed
    ? { name, dataType: 1, dims, floatData: Array.from(values) }
    : { name, dataType: 1, dims, rawData: new Uint8Array(values.buffer.slice(0)) };
  return proto.TensorProto.encode(proto.TensorProto.create(t)).finish();
}

const values = Float32Array.from({ length: 6 }, (_, i) => i * 0.5 - 1);
const other = Float32Array.from(values, (v, i) => (i === 4 ? v + 0.25 : v));

describe("CLI: ONNX TensorProto (.pb) files", () => {
  const a = write("input_0.pb", tensorProto("x", values, [2, 3]));
  const typed = write("typed.pb", tensorProto("x", values, [2, 3], true));
  const b = write("output_0.pb", tensorProto("x", other, [2, 3]));
  const unnamed = write(
    "unnamed.pb",
    proto.TensorProto.encode(proto.TensorProto.create({ dataType: 7, dims: [2], int64Data: [5, -6] })).finish(),
  );

  it("inspect names the format, the tensor and its data type; --json too", async () => {
    const r = await cli("inspect", a);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("format   onnx-tensor");
    expect(r.stdout).toMatch(/x\s+float32\s+\[2, 3\]\s+24/);
    const json = JSON.parse((await cli("inspect", unnamed, "--json")).stdout);
    expect(json.format).toBe("onnx-tensor");
    expect(json.tensors).toEqual([{ name: "tensor", dtype: "int64", shape: [2], byteLength: 16 }]);
    expect(json.meta).toMatchObject({ name: "", dataType: "INT64", dims: [2] });
  });

  it("verify and stats read the tensor", async () => {
    const v = await cli("verify", typed);
    expect(v.code, v.stderr + v.stdout).toBe(0);
    const s = await cli("stats", a, "--json");
    expect(s.code, s.stderr).toBe(0);
    const stats = JSON.parse(s.stdout);
    const row = (Array.isArray(stats) ? stats[0] : stats).tensors?.[0] ?? stats;
    expect(JSON.stringify(row)).toContain('"min":-1');
    expect(JSON.stringify(row)).toContain('"max":1.5');
  });

  it("convert to .npy and .safetensors gives the values, named by the proto", async () => {
    const npy = join(dir, "x.npy");
    const r = await cli("convert", typed, npy);
    expect(r.code, r.stderr).toBe(0);
    const parsed = parseNpy(readFileSync(npy));
    expect(parsed.descr).toBe("<f4");
    expect(parsed.shape).toEqual([2, 3]);
    expect(Array.from(new Float32Array(new Uint8Array(parsed.data).buffer))).toEqual(Array.from(values));
    const st = join(dir, "x.safetensors");
    expect((await cli("convert", unnamed, st)).code).toBe(0);
    const header = parseSafetensors(readFileSync(st));
    expect(header.tensors).toEqual([expect.objectContaining({ name: "tensor", dtype: "I64", shape: [2] })]);
    expect(Array.from(new BigInt64Array(new Uint8Array(header.tensors[0]!.bytes).buffer))).toEqual([5n, -6n]);
    // a re-encode as .pb is refused: an input format
    const again = await cli("convert", a, join(dir, "again.pb"));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("onnx-tensor is read, never written");
  });

  it("diff: two .pb files, and a .pb against a .npy", async () => {
    const same = await cli("diff", a, typed);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    const different = await cli("diff", a, b, "--json");
    expect(different.code).toBe(1);
    expect(different.stdout).toContain('"x"');
    const npy = write("x-values.npy", writeNpy({ name: "x", dtype: "float32", shape: [2, 3], data: other }));
    // the .npy's one tensor is "array": each file holds one, so they are compared
    const vsNpy = await cli("diff", b, npy);
    expect(vsNpy.code, vsNpy.stdout + vsNpy.stderr).toBe(0);
    expect(vsNpy.stdout).toContain('comparing the one tensor of each file: "x" in A with "array" in B');
    expect(vsNpy.stdout).toContain("1 tensor in both: 1 equal");
    const json = JSON.parse((await cli("diff", npy, a, "--json")).stdout);
    expect(json.tensors).toEqual([expect.objectContaining({ name: "array", status: "different", differing: 1 })]);
  });

  it("patch: a model's weight replaced from a .pb WEIGHTS file", async () => {
    const model = write(
      "model.onnx",
      onnx.write(
        onnx.create({
          graph: {
            name: "g",
            nodes: [{ opType: "Add", inputs: ["in", "x"], outputs: ["out"] }],
            initializers: [{ name: "x", dtype: "float32", dims: [2, 3], data: values }],
            inputs: [{ name: "in", dtype: "float32", shape: [2, 3] }],
            outputs: [{ name: "out", dtype: "float32", shape: [2, 3] }],
          },
        }),
      ),
    );
    const out = join(dir, "patched.onnx");
    const r = await cli("patch", model, b, out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("1 tensor changed, 0 given back unchanged\nchanged:   x\n");
    const [x] = readAny(new Uint8Array(readFileSync(out))).tensors();
    expect(Array.from(x!.data as Float32Array)).toEqual(Array.from(other));
    // a TensorProto without a name needs --tensor, as a .npy does
    const nameless = write(
      "nameless.pb",
      proto.TensorProto.encode(
        proto.TensorProto.create({ dataType: 1, dims: [2, 3], floatData: Array.from(values) }),
      ).finish(),
    );
    const refused = await cli("patch", model, nameless, join(dir, "refused.onnx"));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "a TensorProto without a name: give the tensor's name in the model with --tensor NAME",
    );
    const named = await cli("patch", out, nameless, join(dir, "back.onnx"), "--tensor", "x");
    expect(named.code, named.stderr).toBe(0);
    expect(readFileSync(join(dir, "back.onnx")).equals(readFileSync(model))).toBe(true);
  });

  it("a .pb detection does not recognise is read by name: the parser's error, exit 1, never unknown format", async () => {
    // a SequenceProto of two tensors (ONNX test data keeps sequence inputs in .pb files)
    const inner = tensorProto("t", values, [6]);
    const field = (n: number, body: Uint8Array) => [(n << 3) | 2, body.length, ...body];
    const seq = write(
      "seq.pb",
      Uint8Array.from([
        ...field(1, new TextEncoder().encode("seq")),
        0x10,
        0x01,
        ...field(3, inner),
        ...field(3, inner),
      ]),
    );
    const r = await cli("inspect", seq);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('this is an ONNX SequenceProto "seq" (elem_type TENSOR, 2 values), not a TensorProto');
    expect(r.stderr).not.toContain("internal error");
    // fields out of the canonical order: not detected by content, read by name
    const odd = write("odd.pb", Uint8Array.of(0x4a, 0x04, 0, 0, 0x80, 0x3f, 0x10, 0x01));
    const inspected = await cli("inspect", odd, "--json");
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(JSON.parse(inspected.stdout).tensors).toEqual([
      { name: "tensor", dtype: "float32", shape: [], byteLength: 4 },
    ]);
    expect((await cli("verify", odd)).code).toBe(0);
    // truncated: the parser's error with its offset and field
    const cut = write("cut.pb", readFileSync(a).subarray(0, 20));
    const t = await cli("inspect", cut);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/onnx-tensor: .* \[tensor\.raw_data\]/);
    // the same bytes under another name: unknown format, as before
    const bin = write("odd.bin", Uint8Array.of(0x4a, 0x04, 0, 0, 0x80, 0x3f, 0x10, 0x01));
    expect((await cli("inspect", bin)).stderr).toContain("unknown format");
  });
});

const TESTDATA = "/usr/share/libonnx-testdata/data/node";

describe.skipIf(!existsSync(TESTDATA))("CLI: ONNX's test data (libonnx-testdata)", () => {
  it("inspect and convert an input_0.pb, and diff a test's output_0.pb against itself converted to .npy", async () => {
    const test = join(TESTDATA, "test_abs", "test_data_set_0");
    const input = join(test, "input_0.pb");
    const r = await cli("inspect", input, "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      format: "onnx-tensor",
      tensors: [{ name: "x", dtype: "float32", shape: [3, 4, 5] }],
    });
    const npy = join(dir, "abs-out.npy");
    expect((await cli("convert", join(test, "output_0.pb"), npy)).code).toBe(0);
    const d = await cli("diff", join(test, "output_0.pb"), npy);
    expect(d.code, d.stdout).toBe(0);
    // a sequence input: refused saying what it is
    const seq = await cli("inspect", join(TESTDATA, "test_sequence_insert_at_back", "test_data_set_0", "input_0.pb"));
    expect(seq.code).toBe(1);
    expect(seq.stderr).toContain("SequenceProto");
  });
});
