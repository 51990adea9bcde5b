// The welcome page's list of formats comes from the registry: every extension of every format is listed, a format
// registered from this test file is listed with no change to the inspector, and web/index.html keeps no list of its
// own that could go stale (the paragraph is empty until the script fills it).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { READINGS, capabilitiesOf, readingOf, registerFormat } from "../../bindings/formats/registry.js";
import type { FormatCapabilities, FormatId } from "../../bindings/formats/types.js";
import { formatList } from "../../web/src/model/format-list.js";

const listedExtensions = () => formatList().flatMap((f) => f.extensions);

describe("the welcome page's formats", () => {
  it("list every extension of every format in the registry, in its order", () => {
    const extensions = READINGS.flatMap((r) => r.extensions);
    expect(extensions.length).toBeGreaterThan(20);
    expect(listedExtensions()).toEqual(extensions);
    expect(formatList().map((f) => f.name)).toEqual([
      "wav2letter",
      "april-asr",
      "TenniS / SeetaFace6",
      "primitiv",
      "SPRAAK",
      "ONNX",
      undefined,
      undefined,
      undefined,
      "ONNX test data",
    ]);
  });

  it("list a format added to the registry, under its id", () => {
    const id = "toy-list" as FormatId;
    const npy = readingOf("npy")!;
    const capabilities: FormatCapabilities = { id, module: capabilitiesOf("npy")!.module };
    const unregister = registerFormat({ ...npy, id, extensions: [".toy", ".tyy"], detect: () => false }, capabilities);
    try {
      expect(formatList().at(-1)).toEqual({ name: "toy-list", extensions: [".toy", ".tyy"] });
    } finally {
      unregister();
    }
    expect(listedExtensions()).not.toContain(".toy");
  });

  it("are not written into web/index.html by hand", () => {
    const html = readFileSync(resolve(__dirname, "../../web/index.html"), "utf8");
    expect(html).toMatch(/<p class="formats"><\/p>/);
    for (const extension of READINGS.flatMap((r) => r.extensions))
      expect(html, extension).not.toContain(`<code>${extension}`);
  });
});
