/**
 * The input-form law on every example file and reference fixture: the same bytes as a plain Uint8Array, a
 * Node Buffer, a Buffer at an odd offset and a Uint8Array view at an odd offset give the same results through
 * every law of fuzz/laws.mjs and are never modified.
 */
import { describe, expect, it } from "vitest";
import * as lib from "../../bindings/index.js";
import { exampleFiles } from "../../bindings/examples.js";
import { checkAnyLaws, checkInputForms } from "../../fuzz/laws.mjs";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";

/** The project runs no timing thresholds in tests: the 1 s per call law is the fuzzers' (fuzz/harness.mjs). */
const UNTIMED = { callLimitMs: Number.POSITIVE_INFINITY };

const examples = exampleFiles().map((e) => ({ label: `example ${e.name}`, bytes: () => e.bytes }));
const FIXTURE_FOLDERS = ["bw2l", "april", "tennis", "primitiv", "spraak"];
const fixtures = haveFixtures()
  ? FIXTURE_FOLDERS.flatMap((folder) =>
      listFixtures(folder)
        .filter((f) => !/\.(json|md|txt)$/.test(f))
        .map((f) => ({ label: `fixture ${folder}/${f}`, bytes: () => readFixture(folder, f) })),
    )
  : [];

describe("every input form gives the same result", () => {
  it.each([...examples, ...fixtures])("$label", async ({ bytes }) => {
    expect(await checkInputForms((input) => checkAnyLaws(lib, input, UNTIMED), bytes(), "any")).toMatch(/\S/);
  });
});
