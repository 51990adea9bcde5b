// `tensorfile diff model.april NETWORK.onnx`: one april network against an .onnx file, by the ONNX names.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { april, onnx } from "../bindings/index.js";
import { cli } from "./helpers/cli.js";

function network(name: string, inputs: number, outputs: number, bias = 0.5): Uint8Array {
  return onnx.write(
    onnx.create({
      graph: {
        name,
        nodes: [
          { name: "matmul", opType: "MatMul", inputs: ["x", "W"], outputs: ["xW"] },
          { name: "add", opType: "Add", inputs: ["xW", "b"], outputs: ["y"] },
        ],
        initializers: [
          {
            name: "W",
            dtype: "float32",
            dims: [inputs, outputs],
            data: Float32Array.from({ length: inputs * outputs }, (_, i) => i / 10),
          },
          { name: "b", dtype: "float32", dims: [outputs], data: new Float32Array(outputs).fill(bias) },
        ],
        inputs: [{ name: "x", dtype: "float32", shape: ["N", inputs] }],
        outputs: [{ name: "y", dtype: "float32", shape: ["N", outputs] }],
      },
    }),
  );
}

const dir = mkdtempSync(join(tmpdir(), "tensorfile-diff-april-onnx-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const encoder = network("encoder", 4, 3);
const decoder = network("decoder", 3, 3);
const joiner = network("joiner", 3, 2);
writeFileSync(
  join(dir, "model.april"),
  april.write(april.create({ tokens: ["<blk>", "a"], networks: { encoder, decoder, joiner } })),
);
writeFileSync(join(dir, "encoder.onnx"), encoder);
writeFileSync(join(dir, "joiner.onnx"), joiner);
writeFileSync(join(dir, "decoder-edited.onnx"), network("decoder", 3, 3, 0.75));
writeFileSync(join(dir, "net.onnx"), joiner); // named after no network: matched by its weights' names and shapes

describe("diff of an .april file against one .onnx network", () => {
  it("compares the network the .onnx is named after, by its ONNX names (equal: exit 0)", async () => {
    const r = await cli("diff", join(dir, "model.april"), join(dir, "encoder.onnx"));
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("comparing the april file's encoder network (2 weights)");
    expect(r.stdout).toMatch(/encoder\/W\s+equal/);
    expect(r.stdout).toMatch(/encoder\/b\s+equal/);
    expect(r.stdout).not.toContain("only in");
    expect(r.code).toBe(0);
  });

  it("works either way round, and finds an edited weight (exit 1)", async () => {
    const r = await cli("diff", join(dir, "decoder-edited.onnx"), join(dir, "model.april"), "--json");
    const result = JSON.parse(r.stdout);
    expect(r.code).toBe(1);
    const byName = Object.fromEntries(result.tensors.map((t: { name: string; status: string }) => [t.name, t.status]));
    expect(byName).toEqual({ "decoder/W": "equal", "decoder/b": "different" });
    expect(result.tensors.find((t: { name: string }) => t.name === "decoder/b").maxAbs).toBeCloseTo(0.25, 6);
  });

  it("picks the network by weights of the same name and shape when the file name says none", async () => {
    const r = await cli("diff", join(dir, "model.april"), join(dir, "net.onnx"));
    // every network has W and b; only the joiner's are [3, 2] and [2]
    expect(r.stdout).toContain("comparing the april file's joiner network");
    expect(r.stdout).toMatch(/joiner\/W\s+equal/);
    expect(r.code).toBe(0);
  });
});
