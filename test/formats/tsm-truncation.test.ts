/**
 * tsm truncation: every prefix of every reference fixture is TRUNCATED (a prefix of a TenniS module is never
 * a valid module: the graph must be complete, and a .csta's tree ends inside its last 16-byte block).
 */
import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as tsm from "../../bindings/formats/tsm.js";
import { readModule } from "../../bindings/formats/tsm/module.js";
import { ByteReader } from "../../bindings/bytes/byte-reader.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { rng } from "../helpers/rng.js";

const FOLDER = "tennis";
const SMALL = 64 * 1024;

function expectTruncated(fn: () => unknown, where: string): void {
  try {
    fn();
  } catch (error) {
    if (!isFormatError(error)) throw error;
    if (error.code !== "TRUNCATED") expect.fail(`${where}: ${error.message}`);
    return;
  }
  expect.fail(`${where}: read without error`);
}

/** [start, end) of every payload of a read() result. */
function payloadRanges(file: tsm.TsmModule): [number, number][] {
  const out: [number, number][] = [];
  for (const n of file.nodes)
    for (const p of n.params)
      for (const f of p.fields) if (f.data.byteLength > 0) out.push([f.byteOffset!, f.byteOffset! + f.data.byteLength]);
  return out;
}

describe.skipIf(!haveFixtures())("tsm truncation of the reference fixtures", () => {
  const names = () => listFixtures(FOLDER).filter((n) => n.endsWith(".tsm") || n.endsWith(".csta"));

  it("every prefix of every small fixture is TRUNCATED", () => {
    let checked = 0;
    for (const name of names()) {
      const bytes = readFixture(FOLDER, name);
      if (bytes.length > SMALL) continue;
      for (let n = 0; n < bytes.length; n++) expectTruncated(() => tsm.read(bytes.subarray(0, n)), `${name}[0..${n})`);
      checked++;
    }
    expect(checked).toBe(7);
  });

  it("the big modules: every prefix cut outside a payload (header-only parse), payload cuts and samples through read()", () => {
    for (const name of names()) {
      const bytes = readFixture(FOLDER, name);
      if (bytes.length <= SMALL || name.endsWith(".csta")) continue;
      const payloads = payloadRanges(tsm.read(bytes));
      const inPayload = new Uint8Array(bytes.length);
      for (const [a, b] of payloads) inPayload.fill(1, a + 1, b); // a cut at the start of a payload counts as metadata
      for (let n = 0; n < bytes.length; n++) {
        if (inPayload[n]) continue;
        expectTruncated(() => readModule(new ByteReader(bytes.subarray(0, n), "tsm"), true), `${name}[0..${n}) lazy`);
      }
      const next = rng(bytes.length);
      const cuts = payloads.flatMap(([a, b]) => [a + 1, (a + b) >> 1, b - 1]);
      for (let i = 0; i < 100; i++) cuts.push(Math.floor(next() * bytes.length));
      for (const n of cuts) expectTruncated(() => tsm.read(bytes.subarray(0, n)), `${name}[0..${n})`);
    }
  });

  it("the .csta: every prefix of its head and end, and seeded samples, are TRUNCATED", () => {
    const bytes = readFixture(FOLDER, "seetaface6_face_landmarker_pts5.csta");
    const cuts: number[] = [];
    for (let n = 0; n < 1024; n++) cuts.push(n, bytes.length - 1 - n);
    const next = rng(7);
    for (let i = 0; i < 200; i++) cuts.push(Math.floor(next() * bytes.length));
    for (const n of cuts) expectTruncated(() => tsm.read(bytes.subarray(0, n)), `csta[0..${n})`);
  });
});
