/** ByteSource.readInto (fromBytes, fromFile): bytes into a caller's buffer, short only at the end. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fromBytes, fromFile } from "../../bindings/io/source.js";
import { randomBytes } from "../helpers/rng.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-readinto-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("ByteSource.readInto", () => {
  const bytes = randomBytes(3, 10_000);
  const path = join(dir, "f.bin");
  writeFileSync(path, bytes);

  it.each(["fromBytes", "fromFile"] as const)("%s reads into a view at any offset, short at the end", async (kind) => {
    const source = kind === "fromBytes" ? fromBytes(bytes) : await fromFile(path);
    const target = new Uint8Array(5000).fill(7);
    const view = target.subarray(3, 3 + 1234);
    expect(await source.readInto!(view, 4321)).toBe(1234);
    expect(Buffer.from(view).equals(Buffer.from(bytes.subarray(4321, 4321 + 1234)))).toBe(true);
    expect(target[2]).toBe(7);
    expect(target[3 + 1234]).toBe(7);
    expect(await source.readInto!(target, 9000)).toBe(1000);
    expect(Buffer.from(target.subarray(0, 1000)).equals(Buffer.from(bytes.subarray(9000)))).toBe(true);
    expect(await source.readInto!(target, 20_000)).toBe(0);
    await source.close?.();
  });
});
