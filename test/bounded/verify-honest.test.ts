/**
 * verify says what it actually read: an april file's network payloads are not read (only their headers), so
 * "N bytes read and checked" with N the file size was untrue (a 20 GiB sparse file "checked" in 0.1 s).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as april from "../../bindings/formats/april.js";
import { cli } from "../helpers/cli.js";

describe("verify reports the bytes it read", () => {
  it("an april file with 3 MiB of networks: fewer bytes read than the file holds, and it says so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-verify-"));
    try {
      const net = (n: number, fill: number) => new Uint8Array(n).fill(fill);
      const bytes = april.write(
        april.create({
          networks: { encoder: net(1 << 20, 1), decoder: net(1 << 20, 2), joiner: net(1 << 20, 3) },
          tokens: ["<blk>", "a", "b"],
        }),
      );
      const path = join(dir, "m.april");
      writeFileSync(path, bytes);
      const result = await cli("verify", path);
      // blobs that are not ONNX: libapril cannot load them, and verify says so (exit 1), naming each network
      expect(result.code).toBe(1);
      for (const name of ["encoder", "decoder", "joiner"])
        expect(result.stderr).toMatch(
          new RegExp(`error: the ${name} network is not a readable ONNX model: not an ONNX model`),
        );
      const said = /(\d+) of its (\d+) bytes read and checked/.exec(result.stdout);
      expect(said, result.stdout).not.toBeNull();
      expect(Number(said![2])).toBe(bytes.length);
      expect(Number(said![1])).toBeLessThan(bytes.length - 2 * (1 << 20)); // the networks are not read
      expect(result.stdout).not.toMatch(new RegExp(`, ${bytes.length} bytes read and checked`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
