/**
 * The laws of the fuzz target "url" (fuzz/url-laws.mjs: fromUrl against a stand-in fetch scripted by the bytes)
 * over the seed scripts and fast-check's random scripts, against bindings/. A script that breaks a law (more
 * bytes taken in than asked plus the slack, a size that changes, a non-SourceError/FormatError escaping) throws.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lib from "../../bindings/index.js";
import { checkUrlLaws } from "../../fuzz/url-laws.mjs";

const text = (s: string) => [...new TextEncoder().encode(s)];

describe("fuzz target url: fromUrl's laws", () => {
  it("keeps them for hand-written scripts: honest 206, 200 without Range, endless, stalled, 416, petabyte totals", async () => {
    const scripts = [
      [4, 1, ...text("300\n"), 0, 0, 200, ...new Array(200).fill(7), 64, 0, 3, 0, 2],
      [8, 0, ...text("500\n"), 0, 1, 244, ...new Array(500).fill(9), 255, 1, 0, 5, 9],
      [0, 0, 1, 0, 0, 100, 0, 3, 0, 1, 0],
      [12, 1, ...text("1000000000000000\n"), ...text("100\n"), 2, 0, 50, 10, 0, 1, 0, 2],
      [4, 5, ...text("10\n"), 0, 0, 0, 1, 50, 1],
      [0xc1, 0, 0, 0xc0, 1, 2, 3],
      // a finding of the fuzzer (a law too strict: a 200 after a 416 told the size, read whole as it is small)
      [...Buffer.from("MDAFMTA5OTk5ChCbL9ObLwAAAADTAP8A/yH/", "base64")],
    ];
    for (const script of scripts) expect(await checkUrlLaws(lib, Uint8Array.from(script))).toMatch(/requests/);
  });

  it("keeps them for random scripts (endless bodies take in at most the asked bytes plus the slack)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        expect(await checkUrlLaws(lib, bytes)).toMatch(/requests/);
      }),
      { numRuns: 300 },
    );
  });
});
