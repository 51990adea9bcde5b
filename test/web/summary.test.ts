// The summary view's model on every file: format, version, size and warnings as the library reports them; for
// every damaged fixture the FormatError's code, offset and field, and a hex view that marks that offset.
import { describe, expect, it } from "vitest";
import { type FormatModule, formatModule, fromBytes, isFormatError, readFromAny } from "../../bindings/index.js";
import { errorModel, hexLines, hexWindow, summaryModel, warningOffset } from "../../web/src/model/summary.js";
import { HAVE_FIXTURES, readFixture } from "../helpers/fixtures.js";
import { invalidFiles, readableFiles } from "./corpus.js";

describe("summary of readable files", () => {
  for (const { label, bytes } of readableFiles()) {
    it(label, async () => {
      const lazy = await readFromAny(fromBytes(bytes));
      const module = formatModule(lazy.format) as unknown as FormatModule<unknown, unknown, unknown>;
      const inspected = module.inspect(lazy.file);
      const warnings = module.verify(lazy.file);
      const infos = lazy.tensorInfos();
      const s = summaryModel(
        label,
        bytes.length,
        inspected,
        warnings,
        infos.reduce((a, i) => a + i.byteLength, 0),
      );
      expect(s.format).toBe(lazy.format);
      expect(s.size).toBe(bytes.length);
      expect(s.tensorCount).toBe(infos.length);
      expect(s.warnings.map((w) => w.text)).toEqual(warnings);
      expect(s.meta.map(([k]) => k)).toEqual(
        Object.entries(inspected.meta)
          .filter(([, v]) => v !== null && v !== undefined)
          .map(([k]) => k),
      );
      for (const w of s.warnings) if (w.offset !== undefined) expect(w.offset).toBeLessThanOrEqual(bytes.length);
    });
  }
});

describe("errors of damaged files", () => {
  for (const { label, bytes } of invalidFiles()) {
    it(label, async () => {
      let thrown: unknown;
      try {
        const lazy = await readFromAny(fromBytes(bytes));
        // some "invalid" fixtures are readable quirks: then verify warns instead
        const module = formatModule(lazy.format) as unknown as FormatModule<unknown, unknown, unknown>;
        expect(module.verify(lazy.file).length).toBeGreaterThan(0);
        return;
      } catch (error) {
        thrown = error;
      }
      expect(isFormatError(thrown)).toBe(true);
      const model = errorModel(thrown);
      const e = thrown as { code: string; offset?: number; field?: string; message: string };
      expect(model).toMatchObject({ code: e.code, offset: e.offset, field: e.field, message: e.message });
      if (model.offset !== undefined) {
        const window = hexWindow(model.offset, bytes.length);
        const lines = hexLines(bytes.subarray(window.start, window.start + window.length), window.start, model.offset);
        const marked = lines.filter((l) => l.mark >= 0);
        if (model.offset < bytes.length) {
          expect(marked.length).toBe(1);
          expect(marked[0]!.offset + marked[0]!.mark).toBe(model.offset);
          expect(marked[0]!.hex[marked[0]!.mark]).toBe(bytes[model.offset]!.toString(16).padStart(2, "0"));
        }
      }
    });
  }

  it("a non-format error is SOURCE or ERROR with its message", () => {
    const source = Object.assign(new Error("tensorfile: example.com answered HTTP 404"), { name: "SourceError" });
    expect(errorModel(source)).toMatchObject({ code: "SOURCE", message: source.message });
    expect(errorModel("boom")).toMatchObject({ code: "ERROR", message: "boom" });
  });
});

describe("hex view", () => {
  it("16 bytes a line from a 16-byte boundary, printable ASCII, the end of the file respected", () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i + 30);
    const window = hexWindow(70, bytes.length);
    expect(window.start % 16).toBe(0);
    expect(window.start + window.length).toBeLessThanOrEqual(100);
    const lines = hexLines(bytes.subarray(window.start, window.start + window.length), window.start, 70);
    expect(lines.every((l, i) => l.offset === window.start + 16 * i)).toBe(true);
    const last = lines.at(-1)!;
    expect(last.hex.filter((x) => x !== "").length).toBe(100 - last.offset);
    expect(lines[0]!.ascii).toBe(
      String.fromCharCode(
        ...Array.from(bytes.subarray(window.start, window.start + 16), (b) => (b >= 32 && b < 127 ? b : 46)),
      ),
    );
    expect(hexWindow(5, 0)).toEqual({ start: 0, length: 0 });
  });

  it("warnings that name an offset link to it", () => {
    expect(warningOffset("params start at 139, not right after the joiner (1433): libapril reads params there")).toBe(
      139,
    );
    expect(warningOffset("x at offset 1296 (0x510) [y]")).toBe(1296);
    expect(warningOffset("layers[0] has scale 1 and offset 0: the reference loader ignores them")).toBeUndefined();
  });

  it.runIf(HAVE_FIXTURES)("the april quirk fixtures' warnings point into the file", async () => {
    const bytes = readFixture("april", "invalid", "quirk_params_before_networks.april");
    const lazy = await readFromAny(fromBytes(bytes));
    const warnings = formatModule("april").verify(lazy.file as never);
    const offsets = warnings.map(warningOffset).filter((o) => o !== undefined);
    expect(offsets.length).toBeGreaterThan(0);
    for (const o of offsets) expect(o).toBeLessThan(bytes.length);
  });
});
