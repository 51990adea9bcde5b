// The inspector asks the registry's capabilities, never a format id: the graph view's document from the `graph`
// capability (the same graphs as the per-format builders it replaces: TenniS, one ONNX model, april's networks with
// an unreadable one), the "Export ONNX" button from `convertsTo`, the speech view from `speechFrames`, the SPRAAK
// segments from `segmentList`; and a format the inspector has never heard of gets each of them from its
// capabilities alone. The editor opens, edits and writes through the `edit` capability, a toy format too.
import { describe, expect, it } from "vitest";
import { capabilitiesOf, readingOf, registerFormat } from "../../bindings/formats/registry.js";
import type { FormatCapabilities, FormatGraph, FormatId } from "../../bindings/formats/types.js";
import { april, fromBytes, onnx, readFromAny, spraak, tsm } from "../../bindings/index.js";
import { editable } from "../../web/src/editor/editor-view.js";
import { applyEdit } from "../../web/src/editor/operations.js";
import { EditSession } from "../../web/src/editor/session.js";
import { aprilGraphDocument, onnxGraphDocument } from "../../web/src/model/graph-onnx.js";
import { tsmGraphDocument } from "../../web/src/model/graph-tsm.js";
import { graphDocumentFrom, hasGraph } from "../../web/src/ui/graph/document.js";
import { OnnxExport } from "../../web/src/ui/graph/onnx-export.js";
import { matMulNetwork } from "../helpers/april-builders.js";

const floats = (n: number) => Float32Array.from({ length: n }, (_, i) => i / 8);

const net = matMulNetwork;

/** The graph capability of the format `bytes` are read as (lazily, as the inspector opens them). */
async function graphOf(bytes: Uint8Array): Promise<{ format: string; file: unknown; graph: FormatGraph | undefined }> {
  const lazy = await readFromAny(fromBytes(bytes));
  return { format: lazy.format, file: lazy.file, graph: capabilitiesOf(lazy.format)?.graph?.(lazy.file) };
}

describe("the graph view's document, from the graph capability", () => {
  it("is the ONNX builder's document for an .onnx model", async () => {
    const { file, graph } = await graphOf(net("m"));
    expect(graph?.kind).toBe("onnx");
    expect(graphDocumentFrom(graph!)).toEqual(onnxGraphDocument(file as onnx.OnnxModel));
  });

  it("is april's three networks, an unreadable one drawn as its error", async () => {
    const bytes = april.write(
      april.create({
        networks: { encoder: net("enc"), decoder: net("dec"), joiner: Uint8Array.of(0xff, 0xff, 0xff, 0x0f) },
        tokens: ["<blk>", "a"],
      }),
    );
    const { file, graph } = await graphOf(bytes);
    const document = graphDocumentFrom(graph!);
    expect(document).toEqual(aprilGraphDocument(file as april.AprilFile, april.NETWORK_NAMES));
    expect(document.graphs.map((g) => g.name)).toEqual(["encoder", "decoder", "joiner"]);
    expect(document.graphs[2]!.error).toBe((file as april.AprilFile).onnxErrors!.joiner);
    expect(document.graphs[2]!.nodes).toEqual([]);
  });

  it("is the TenniS graph of a .tsm module", async () => {
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "x" },
        { op: "<const>", name: "b", value: { dtype: "float32", shape: [4], data: floats(4) } },
        { op: "add_bias", name: "out", inputs: ["x", "b"] },
      ],
      inputs: ["x"],
      outputs: ["out"],
    });
    const { file, graph } = await graphOf(tsm.write(module));
    expect(graph?.kind).toBe("tsm");
    expect(graphDocumentFrom(graph!)).toEqual(tsmGraphDocument(tsm.graph(file as tsm.TsmFile)));
  });

  it("exists only for the formats with the capability", () => {
    expect(["tsm", "onnx", "april"].map(hasGraph)).toEqual([true, true, true]);
    expect(["bw2l", "primitiv", "spraak", "safetensors", "npy", "npz", "onnx-tensor", "nope"].some(hasGraph)).toBe(
      false,
    );
    expect(hasGraph(undefined)).toBe(false);
  });
});

describe("the capabilities the other views ask", () => {
  it("offer Export ONNX for the formats that convert to ONNX only", () => {
    expect(OnnxExport.offeredFor("tsm")).toBe(true);
    expect(["onnx", "april", "bw2l", "nope", undefined].some((f) => OnnxExport.offeredFor(f))).toBe(false);
  });

  it("give the speech view to SPRAAK only", () => {
    expect(capabilitiesOf("spraak")?.speechFrames).toBe(true);
    for (const id of ["bw2l", "april", "tsm", "primitiv", "onnx", "safetensors", "npy", "npz", "onnx-tensor"])
      expect(capabilitiesOf(id)?.speechFrames, id).toBeUndefined();
  });

  it("read a SPRAAK LIST file's segments, and no segments from a SPRAAK matrix", async () => {
    const seg = ".spr\nDATA SEG\nDIM1 2\nDIM2 1\nTIMEBASE DISCRETE\n#\nsx313 h# 0 10\n- s 10 25\n";
    const list = await readFromAny(fromBytes(new TextEncoder().encode(seg)));
    expect(capabilitiesOf(list.format)?.segmentList?.(list.file)).toEqual({
      keys: expect.objectContaining({ DATA: "SEG", TIMEBASE: "DISCRETE" }) as unknown,
      entries: ["sx313 h# 0 10", "- s 10 25"],
    });
    const matrix = spraak.write(
      spraak.matrix([
        [1, 2, 3],
        [4, 5, 6],
      ]),
    );
    const track = await readFromAny(fromBytes(matrix));
    expect(track.format).toBe("spraak");
    expect(capabilitiesOf(track.format)?.segmentList?.(track.file)).toBeUndefined();
  });
});

describe("a format the inspector does not know by name", () => {
  it("gets the graph view and Export ONNX from its capabilities alone", () => {
    const id = "toy-graph" as FormatId;
    const onnxReading = readingOf("onnx")!;
    const onnxCapabilities = capabilitiesOf("onnx")!;
    const capabilities: FormatCapabilities = {
      id,
      module: onnxCapabilities.module,
      graph: (file) => ({ kind: "onnx-networks", networks: [{ name: "only", model: file as onnx.OnnxModel }] }),
      convertsTo: ["onnx"],
    };
    expect(hasGraph(id)).toBe(false);
    const unregister = registerFormat({ ...onnxReading, id, detect: () => false }, capabilities);
    try {
      expect(hasGraph(id)).toBe(true);
      expect(OnnxExport.offeredFor(id)).toBe(true);
      const document = graphDocumentFrom(capabilities.graph!(onnx.read(net("t"))));
      expect(document.graphs.map((g) => g.name)).toEqual(["only"]);
      expect(document.graphs[0]!.nodes.some((n) => n.name === "t_mm")).toBe(true);
    } finally {
      unregister();
    }
    expect(hasGraph(id)).toBe(false);
  });
});

describe("the editor, from the edit capability", () => {
  const model = () => onnx.read(net("e"));

  it("opens the formats with the capability only", () => {
    expect(["onnx", "april"].every(editable)).toBe(true);
    expect(["bw2l", "tsm", "spraak", "safetensors", "onnx-tensor", "nope", undefined].some(editable)).toBe(false);
  });

  it("refuses a file's own fields on a file that is one model, and an edit of a format without the capability", () => {
    const target = { format: "onnx" as const, model: model() };
    expect(() => applyEdit(target, { op: "april-field", field: "name", value: "x" })).toThrow(RangeError);
    expect(() => applyEdit({ format: "bw2l", file: {} }, { op: "set-meta", key: "k", value: "v" })).toThrow(
      /does not change bw2l files/,
    );
  });

  it("edits a format it does not know by name, through that format's capability", async () => {
    const id = "toy-edit" as FormatId;
    const onnxReading = readingOf("onnx")!;
    const onnxCapabilities = capabilitiesOf("onnx")!;
    const detect = (head: Uint8Array) => onnxReading.detect(head);
    const unregister = registerFormat(
      { ...onnxReading, id, detect },
      { id, module: onnxCapabilities.module, edit: onnxCapabilities.edit },
      "bw2l",
    );
    try {
      expect(editable(id)).toBe(true);
      const bytes = net("e");
      const session = await EditSession.open(new Blob([bytes as BlobPart]), "e.toy");
      expect(session.format).toBe(id);
      session.apply({ op: "set-meta", key: "who", value: "toy" });
      const edited = onnx.read(new Uint8Array(await (await session.write()).arrayBuffer()));
      expect(edited.metadataProps).toEqual([{ key: "who", value: "toy" }]);
      expect(session.summary().header).toBeUndefined();
    } finally {
      unregister();
    }
    expect(editable(id)).toBe(false);
  });
});
