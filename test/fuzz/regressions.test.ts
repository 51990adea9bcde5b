/**
 * The regression corpus: every minimized finding of the fuzzers (and the crafted files of issue 14) under
 * fuzz/regressions/<target>/<name>, replayed through the laws of fuzz/laws.mjs: once as a plain aligned
 * Uint8Array (through the format's target and through readAny), once in every input form users pass (Buffer,
 * Buffer at an odd offset, Uint8Array view at an odd offset), which must all give the same result.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodeInChunks } from "../../bindings/export/stream.js";
import * as lib from "../../bindings/index.js";
import { checkAnyLaws, checkFormatLaws, checkInputForms } from "../../fuzz/laws.mjs";

/** The project runs no timing thresholds in tests: the 1 s per call law is the fuzzers' (fuzz/harness.mjs). */
const UNTIMED = { callLimitMs: Number.POSITIVE_INFINITY };

const root = join(dirname(fileURLToPath(import.meta.url)), "../../fuzz/regressions");

const cases = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(root, d.name))
      .sort()
      .map((name) => ({ target: d.name, name, path: join(root, d.name, name) })),
  );

describe("fuzz/regressions", () => {
  it("holds a finding for every format with one", () => {
    expect(cases.length).toBeGreaterThanOrEqual(5);
  });

  describe.each(cases)("$target/$name", ({ target, name, path }) => {
    const bytes = () => new Uint8Array(readFileSync(path));
    const check = (input: Uint8Array) =>
      target === "any" ? checkAnyLaws(lib, input, UNTIMED) : checkFormatLaws(lib, target, input, UNTIMED);

    it("keeps the laws as a plain Uint8Array, through its format and through readAny", async () => {
      expect(await check(bytes())).toMatch(/^(accepted|rejected|\w+ accepted|\w+ rejected)/);
      expect(await checkAnyLaws(lib, bytes(), UNTIMED)).toMatch(/\S/);
    });

    it("gives the same result as a Buffer, at odd offsets, and is never modified", async () => {
      expect(await checkInputForms(check, bytes(), target)).toMatch(/\S/);
    });

    // what the CLI's convert/extract/verify and the streaming writers do with a file on disk: each tensor in
    // pieces (chunks or bands), which must end (a void tensor of 10^18 elements once looped over its chunks)
    // and give the eager bytes
    it("decodes tensor by tensor from a file, in pieces, to the eager bytes", async () => {
      let eager: lib.NamedTensor[];
      try {
        eager = lib.readAny(bytes()).tensors();
      } catch (error) {
        expect(error).toBeInstanceOf(lib.FormatError);
        return;
      }
      const dir = mkdtempSync(join(tmpdir(), "tensorfile-regression-"));
      try {
        writeFileSync(join(dir, name), bytes());
        const opened = await lib.openFile(join(dir, name));
        try {
          const infos = opened.tensorInfos();
          expect(infos.map((i) => i.name)).toEqual(eager.map((t) => t.name));
          for (const [k, info] of infos.entries()) {
            const pieces: Uint8Array[] = [];
            for await (const piece of decodeInChunks(opened, info, {})) pieces.push(piece.slice());
            const got = Buffer.concat(pieces);
            const want = eager[k]!.data;
            expect(got.equals(Buffer.from(want.buffer, want.byteOffset, want.byteLength)), info.name).toBe(true);
          }
        } finally {
          await opened.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
