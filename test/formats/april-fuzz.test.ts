import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as april from "../../bindings/formats/april.js";
import { fromBytes } from "../../bindings/io/source.js";
import { buildApril, sampleNetworks } from "../helpers/april-builders.js";
import { haveFixtures, readFixture } from "../helpers/fixtures.js";
import { rng } from "../helpers/rng.js";

/** Reads `bytes`; anything but a FormatError fails the test. A file that reads must also write and read back. */
function readOrFormatError(bytes: Uint8Array, label: string): string {
  let file: april.AprilFile;
  try {
    file = april.read(bytes);
  } catch (error) {
    if (isFormatError(error)) return error.code;
    throw new Error(`${label}: ${String(error)}`, { cause: error });
  }
  april.verify(file);
  april.inspect(file);
  april.blobs(file);
  const again = april.read(april.write(file));
  expect(again.tokens, label).toEqual(file.tokens);
  expect(again.params, label).toEqual(file.params);
  expect([again.name, again.description, again.language], label).toEqual([file.name, file.description, file.language]);
  return "ok";
}

function mutate(base: Uint8Array, next: () => number): Uint8Array {
  const bytes = base.slice();
  const flips = 1 + Math.floor(next() * 4);
  for (let k = 0; k < flips; k++) {
    const at = Math.floor(next() * bytes.length);
    // mostly single-bit flips, sometimes a random byte, sometimes 0xff (huge lengths)
    const kind = next();
    bytes[at] = kind < 0.6 ? bytes[at]! ^ (1 << Math.floor(next() * 8)) : kind < 0.85 ? Math.floor(next() * 256) : 0xff;
  }
  return next() < 0.1 ? bytes.subarray(0, Math.floor(next() * bytes.length)) : bytes;
}

function fuzz(base: Uint8Array, seed: number, rounds: number): Map<string, number> {
  const next = rng(seed);
  const seen = new Map<string, number>();
  for (let i = 0; i < rounds; i++) {
    const code = readOrFormatError(mutate(base, next), `seed ${seed} round ${i}`);
    seen.set(code, (seen.get(code) ?? 0) + 1);
  }
  return seen;
}

const corpus: { name: string; bytes: Uint8Array }[] = [
  { name: "builder", bytes: buildApril({ networks: sampleNetworks(2, [40, 30, 20]) }).bytes },
  {
    name: "builder params-first",
    bytes: buildApril({ order: "params-first", networks: sampleNetworks(3, [40, 30, 20]) }).bytes,
  },
];
if (haveFixtures()) {
  corpus.push({ name: "tiny_en-us.april", bytes: readFixture("april", "tiny_en-us.april") });
  corpus.push({ name: "tiny_pl.april", bytes: readFixture("april", "tiny_pl.april") });
}

describe("april fuzzing: only FormatError escapes", () => {
  for (const [index, { name, bytes }] of corpus.entries()) {
    const seed = 0xa9121 + index;
    it(`${name}: 3000 seeded byte flips (seed ${seed})`, () => {
      const seen = fuzz(bytes, seed, 3000);
      // the mutations reach past the header checks: both failures and files that still read occur
      expect(seen.get("ok") ?? 0).toBeGreaterThan(0);
      expect([...seen.keys()].filter((c) => c !== "ok").length).toBeGreaterThan(2);
    });
  }

  it("readFrom() agrees with read() on 300 mutants (seed 77)", async () => {
    const next = rng(77);
    const base = corpus[corpus.length - 1]!.bytes;
    for (let i = 0; i < 300; i++) {
      const bytes = mutate(base, next);
      const eager = (() => {
        try {
          april.read(bytes);
          return "ok";
        } catch (error) {
          if (!isFormatError(error)) throw error;
          return `${error.code} ${error.field} ${error.offset}`;
        }
      })();
      const lazy = await april.readFrom(fromBytes(bytes)).then(
        () => "ok",
        (error: unknown) => {
          if (!isFormatError(error)) throw error;
          return `${error.code} ${error.field} ${error.offset}`;
        },
      );
      expect(lazy, `mutant ${i}`).toBe(eager);
    }
  });

  it("random bytes after the magic (seed 5)", () => {
    const next = rng(5);
    for (let i = 0; i < 2000; i++) {
      const bytes = new Uint8Array(12 + Math.floor(next() * 300));
      bytes.set(new TextEncoder().encode("APRILMDL"));
      for (let j = 8; j < bytes.length; j++) bytes[j] = Math.floor(next() * 256);
      if (next() < 0.5) bytes.set([1, 0, 0, 0], 8);
      readOrFormatError(bytes, `random ${i}`);
    }
  });
});
