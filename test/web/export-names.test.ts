// The inspector's export of a file whose tensor names .safetensors cannot hold (an empty name, "__metadata__"):
// the .safetensors button says why instead of the view throwing, and the tensor still downloads as .npy.
import { describe, expect, it } from "vitest";
import { fromBytes, onnx, readFromAny } from "../../bindings/index.js";
import { exportNpy, safetensorsNameProblem, safetensorsSize, withSource } from "../../web/src/model/export.js";
import { concat } from "../helpers/bytes.js";
import { parseNpy } from "../helpers/parsers.js";

async function opened(names: string[]) {
  const bytes = onnx.write(
    onnx.create({
      graph: {
        name: "g",
        nodes: [],
        inputs: [],
        outputs: [],
        initializers: names.map((name, i) => ({ name, dtype: "float32", dims: [2], data: [i, -i] })),
      },
    }),
  );
  const source = fromBytes(bytes);
  return { lazy: await readFromAny(source), source };
}

describe("export: names safetensors cannot hold", () => {
  it("an empty name or __metadata__: no size, a reason; other names: a size and no reason", async () => {
    for (const bad of ["", "__metadata__"]) {
      const { lazy } = await opened(["w", bad]);
      expect(safetensorsSize(lazy.tensorInfos(), "onnx")).toBeUndefined();
      expect(safetensorsNameProblem(lazy.tensorInfos())).toMatch(bad === "" ? /empty name/ : /__metadata__/);
    }
    const { lazy } = await opened(["w", "__proto__"]);
    expect(safetensorsSize(lazy.tensorInfos(), "onnx")).toBeGreaterThan(0);
    expect(safetensorsNameProblem(lazy.tensorInfos())).toBeUndefined();
  });

  it("a tensor with an empty name downloads as .npy", async () => {
    const { lazy, source } = await opened(["w", ""]);
    const chunks: Uint8Array[] = [];
    await exportNpy(withSource(lazy, source), lazy.tensorInfos()[1]!, (c) => void chunks.push(c.slice()));
    const npy = parseNpy(concat(...chunks));
    expect(Array.from(new Float32Array(npy.data.slice().buffer))).toEqual([1, -1]);
  });
});
