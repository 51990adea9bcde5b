/**
 * tsm on damaged input: crafted damage gives the right code, offset and field,
 * and seeded random byte flips let nothing but FormatError escape (and whatever still reads writes back
 * byte for byte).
 */
import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as tsm from "../../bindings/formats/tsm.js";
import {
  type CstaContainer,
  type StaValue,
  STA_CODE,
  writeCstaBytes,
  xorObfuscation,
} from "../../bindings/formats/tsm/csta.js";
import { ByteWriter } from "../../bindings/bytes/byte-writer.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { rng } from "../helpers/rng.js";
import { constNode, field, module, node, param, patchU32, richModule, text } from "../helpers/tsm-builders.js";

const FOLDER = "tennis";
const SMALL = 64 * 1024;

function errorOf(fn: () => unknown): { code?: string; offset?: number; field?: string; message?: string } {
  try {
    fn();
  } catch (error) {
    if (!isFormatError(error)) throw error;
    return error;
  }
  throw new Error("expected a FormatError, nothing was thrown");
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

describe("tsm crafted damage: clear FormatErrors where the reference readers crash or read garbage", () => {
  const base = () =>
    module(
      [
        node("<param>", "x"),
        constNode("w", field("float32", [2], Float32Array.of(1, 2))),
        node("add", "y", [param("dim", field("int32", [], Int32Array.of(1)))], [0, 1]),
      ],
      [0],
      [2],
    );
  const bytes = tsm.write(base());
  const w = tsm.read(bytes).nodes[1]!.params[2]!.fields[0]!;
  const payload = w.byteOffset!;
  const dimAt = payload - 4;
  const ndimsAt = dimAt - 4;
  const dtypeAt = ndimsAt - 1;

  it("a node index out of range (the C++ reader segfaults): CORRUPT at the index", () => {
    const file = base();
    file.nodes[2]!.inputs = [0, 7];
    const damaged = tsm.write(file);
    expect(errorOf(() => tsm.read(damaged))).toMatchObject({
      code: "CORRUPT",
      field: "node[2].inputs[1]",
      offset: damaged.length - 4,
    });
    const out = base();
    out.outputs = [3];
    expect(errorOf(() => tsm.read(tsm.write(out)))).toMatchObject({
      code: "CORRUPT",
      field: "outputs[0]",
      offset: 128 + 4 + 4 + 4,
    });
  });

  it("a missing #op or #name, or one that is not a char8 string: CORRUPT", () => {
    const noOp = base();
    noOp.nodes[1]!.params.splice(0, 1);
    expect(errorOf(() => tsm.read(tsm.write(noOp)))).toMatchObject({ code: "CORRUPT", field: "node[1].#op" });
    const noName = base();
    noName.nodes[2]!.params.splice(1, 1);
    expect(errorOf(() => tsm.read(tsm.write(noName)))).toMatchObject({ code: "CORRUPT", field: "node[2].#name" });
    const intName = base();
    intName.nodes[0]!.params[1] = param("#name", field("int32", [1], Int32Array.of(5)));
    expect(errorOf(() => tsm.read(tsm.write(intName)))).toMatchObject({ code: "CORRUPT", field: "node[0].#name" });
    const packedOp = base();
    packedOp.nodes[0]!.params[0] = param("#op", text("<param>"), text("x"));
    expect(errorOf(() => tsm.read(tsm.write(packedOp)))).toMatchObject({ code: "CORRUPT", field: "node[0].#op" });
  });

  it("an unknown dtype code: UNSUPPORTED at the dtype byte", () => {
    expect(bytes[dtypeAt]).toBe(10);
    const damaged = bytes.slice();
    damaged[dtypeAt] = 33;
    expect(errorOf(() => tsm.read(damaged))).toMatchObject({
      code: "UNSUPPORTED",
      offset: dtypeAt,
      field: "node[1].value.dtype",
    });
  });

  it("a payload past the end and counts that cannot fit: TRUNCATED before anything is allocated", () => {
    expect(errorOf(() => tsm.read(patchU32(bytes, dimAt, 1e9)))).toMatchObject({
      code: "TRUNCATED",
      offset: payload,
      field: "node[1].value.data",
    });
    expect(errorOf(() => tsm.read(patchU32(bytes, dimAt, 0xffffffff)))).toMatchObject({
      code: "TRUNCATED",
      field: "node[1].value.data",
    });
    expect(errorOf(() => tsm.read(patchU32(bytes, ndimsAt, 0xfffffff0)))).toMatchObject({
      code: "TRUNCATED",
      offset: ndimsAt + 4,
      field: "node[1].value.ndims",
    });
    const nodesCountAt = 128 + 8 + 8;
    expect(errorOf(() => tsm.read(patchU32(bytes, nodesCountAt, 0xffffffff)))).toMatchObject({
      code: "TRUNCATED",
      field: "nodes.count",
    });
    expect(errorOf(() => tsm.read(patchU32(bytes, 128, 0x40000000)))).toMatchObject({
      code: "TRUNCATED",
      field: "inputs.count",
    });
    const firstParamsAt = nodesCountAt + 4;
    expect(errorOf(() => tsm.read(patchU32(bytes, firstParamsAt, 0x7fffffff)))).toMatchObject({
      code: "TRUNCATED",
      field: "node[0].params.count",
    });
    expect(errorOf(() => tsm.read(patchU32(bytes, firstParamsAt + 4, 0x7fffffff)))).toMatchObject({
      code: "TRUNCATED",
      field: "node[0].param[0].key",
    });
  });

  it("a wrong module code: BAD_MAGIC at offset 4", () => {
    const e = errorOf(() => tsm.read(patchU32(bytes, 4, 0x12345678)));
    expect(e).toMatchObject({ code: "BAD_MAGIC", offset: 4, field: "header.code" });
    expect(e.message).toContain("0x19910929");
  });

  const dict = (entries: [string, StaValue][]): StaValue => ({
    type: "dict",
    entries: entries.map(([key, value]) => ({ key, value })),
  });
  const slot: StaValue = { type: "binary", bytes: { byteOffset: 0, byteLength: 0 } };
  const container = (root: StaValue, modulePath = ["backbone", "tsm"], staCode = STA_CODE): CstaContainer => ({
    staCode,
    root,
    modulePath,
    tail: new Uint8Array(0),
  });

  it(".csta damage: wrong STA code, no module, unknown item type, runaway nesting, a module cut short", () => {
    const ok = container(dict([["backbone", dict([["tsm", slot]])]]));
    expect(tsm.read(writeCstaBytes(ok, bytes)).nodes.length).toBe(3);
    expect(
      errorOf(() => tsm.read(writeCstaBytes(container(ok.root, ["backbone", "tsm"], 0x11111111), bytes))),
    ).toMatchObject({ code: "BAD_MAGIC", offset: 4, field: "csta.code" });
    const elsewhere = container(dict([["model", slot]]), ["model"]);
    expect(errorOf(() => tsm.read(writeCstaBytes(elsewhere, bytes)))).toMatchObject({
      code: "CORRUPT",
      field: 'csta["backbone"]["tsm"]',
    });
    // a hand-made payload with item type 9
    const raw = new ByteWriter();
    raw
      .bytes(Uint8Array.of(0x66, 0x61, 0x73, 0x74))
      .u32(STA_CODE)
      .u8(6)
      .u32(1)
      .u32(1)
      .bytes(Uint8Array.of(0x61))
      .u8(9);
    while ((raw.length - 4) % 16 !== 0) raw.u8(0);
    const typeNine = raw.finish().slice();
    xorObfuscation(typeNine, 0, typeNine.length);
    expect(errorOf(() => tsm.read(typeNine))).toMatchObject({
      code: "CORRUPT",
      offset: 4 + 4 + 1 + 4 + 4 + 1,
      field: 'csta["a"].type',
    });
    let deep: StaValue = { type: "int", value: 1 };
    for (let i = 0; i < 100; i++) deep = { type: "list", items: [deep] };
    const nested = container(
      dict([
        ["backbone", dict([["tsm", slot]])],
        ["deep", deep],
      ]),
    );
    expect(errorOf(() => tsm.read(writeCstaBytes(nested, bytes)))).toMatchObject({ code: "LIMIT" });
    expect(errorOf(() => tsm.read(writeCstaBytes(ok, bytes.subarray(0, bytes.length - 4))))).toMatchObject({
      code: "TRUNCATED",
      field: "node[2].inputs.count",
    });
  });
});

describe("tsm seeded byte-flip fuzzing", () => {
  function fuzz(bytes: Uint8Array, seed: number, rounds: number, skipStart = 0): { read: number; failed: number } {
    const next = rng(seed);
    let read = 0;
    let failed = 0;
    for (let round = 0; round < rounds; round++) {
      const damaged = bytes.slice();
      const flips = 1 + Math.floor(next() * 4);
      for (let k = 0; k < flips; k++) {
        const at = skipStart + Math.floor(next() * (bytes.length - skipStart));
        damaged[at] = next() < 0.5 ? damaged[at]! ^ (1 << Math.floor(next() * 8)) : Math.floor(next() * 256);
      }
      let file: tsm.TsmFile;
      try {
        file = tsm.read(damaged);
      } catch (error) {
        if (!isFormatError(error)) throw new Error(`seed ${seed} round ${round}: ${String(error)}`, { cause: error });
        failed++;
        continue;
      }
      read++;
      // whatever reads must write back byte for byte, and the views must not throw anything but FormatErrors
      expect(sameBytes(tsm.write(file), damaged), `seed ${seed} round ${round}`).toBe(true);
      for (const view of [
        () => tsm.tensors(file),
        () => tsm.inspect(file),
        () => tsm.verify(file),
        () => tsm.graph(file),
        () => tsm.blobs(file),
      ]) {
        try {
          view();
        } catch (error) {
          if (!isFormatError(error)) throw new Error(`seed ${seed} round ${round}: ${String(error)}`, { cause: error });
        }
      }
    }
    return { read, failed };
  }

  it.runIf(haveFixtures())("reference fixtures: only FormatError escapes (seeds 1..)", () => {
    let seed = 1;
    let failures = 0;
    for (const name of listFixtures(FOLDER).filter((n) => n.endsWith(".tsm") || n.endsWith(".csta"))) {
      const bytes = readFixture(FOLDER, name);
      const rounds = bytes.length > SMALL ? 20 : 250;
      failures += fuzz(bytes, seed++, rounds).failed;
      failures += fuzz(bytes, seed++, rounds, 128).failed; // flips past the header
    }
    expect(failures).toBeGreaterThan(0); // the damage is real: many flips must be caught
  });

  it("builder module and its .csta: only FormatError escapes (seed 101, 102)", () => {
    const built = richModule();
    const a = fuzz(tsm.write(built), 101, 600);
    const b = fuzz(tsm.writeCsta(built), 102, 300);
    expect(a.failed + b.failed).toBeGreaterThan(0);
    expect(a.read + b.read).toBeGreaterThan(0);
  });
});
