/**
 * extract --force over an existing folder: when the new folder cannot be moved into place, the old one is moved
 * back (never removed), and the error names DIR. The failure is injected into node:fs's renameSync.
 */
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

const failing = vi.hoisted(() => ({ moveInto: undefined as string | undefined }));
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      // the new folder (a hidden temporary) moving to DIR fails as on a busy or vanished target
      if (
        failing.moveInto !== undefined &&
        String(to) === failing.moveInto &&
        /\.tensorfile-.*\.partial$/.test(String(from)) &&
        real.existsSync(join(String(from), "meta.json"))
      ) {
        throw Object.assign(new Error(`EBUSY: resource busy or locked, rename '${String(from)}' -> '${String(to)}'`), {
          code: "EBUSY",
          path: String(from),
          dest: String(to),
        });
      }
      return real.renameSync(from, to);
    },
  };
});

const { cli } = await import("./helpers/cli.js");
const { exampleFiles } = await import("../bindings/examples.js");

const dir = fs.mkdtempSync(join(tmpdir(), "tensorfile-restore-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("extract --force when the new folder cannot be put in place", () => {
  it("moves the old folder back and says so (exit 1, no raw EBUSY)", async () => {
    const input = join(dir, "demo.b2l");
    fs.writeFileSync(input, exampleFiles().find((e) => e.format === "bw2l")!.bytes);
    const out = join(dir, "out");
    fs.mkdirSync(join(out, "deep"), { recursive: true });
    fs.writeFileSync(join(out, "deep", "old.txt"), "old contents");
    failing.moveInto = out;
    const r = await cli("extract", input, out, "--force");
    failing.moveInto = undefined;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`cannot put the new folder in place at ${out}: .*the old ${out} was kept`));
    expect(r.stderr).not.toMatch(/partial|internal error|^EBUSY/);
    expect(fs.readFileSync(join(out, "deep", "old.txt"), "utf8")).toBe("old contents");
    expect(fs.readdirSync(out)).toEqual(["deep"]);
    expect(fs.readdirSync(dir).sort()).toEqual(["demo.b2l", "out"]);
    // and without the failure the same command replaces it
    expect((await cli("extract", input, out, "--force")).code).toBe(0);
    expect(fs.existsSync(join(out, "meta.json"))).toBe(true);
    expect(fs.existsSync(join(out, "deep"))).toBe(false);
  });
});
