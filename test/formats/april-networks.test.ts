/**
 * An .april network is never shown silently without its weights. A network that is valid ONNX with its fields in
 * another order (ir_version last: protobuf allows it) is read like any other: all its weights are listed (they were
 * dropped before: the network was taken for an opaque blob because ir_version did not come first, and verify said
 * "ok"). A network that is not a readable ONNX model makes verify fail (exit 1) naming the network and the parser's
 * reason, inspect prints it, and the API reports it (onnxErrors, april.verifyErrors).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import * as april from "../../bindings/formats/april.js";
import { fromBlob, fromBytes } from "../../bindings/io/source.js";
import { cli } from "../helpers/cli.js";
import { HAVE_FIXTURES, readFixture } from "../helpers/fixtures.js";
import { hostileModel, moveFieldLast } from "../helpers/proto-shuffle.js";

const { onnx: proto } = onnxProto;
const f32 = (values: number[]) => new Uint8Array(new Float32Array(values).buffer);

/** A small network with `count` raw_data weights, written by onnx-proto (ir_version first). */
function network(tag: string, count: number): Uint8Array {
  return proto.ModelProto.encode({
    irVersion: 8,
    producerName: "tests",
    opsetImport: [{ domain: "", version: 17 }],
    graph: {
      name: tag,
      initializer: Array.from({ length: count }, (_, i) => ({
        name: `${tag}_w${i}`,
        dataType: 1,
        dims: [2],
        rawData: f32([i, -i]),
      })),
      node: [{ opType: "Identity", input: [`${tag}_w0`], output: ["out"] }],
      output: [{ name: "out" }],
    },
  }).finish();
}

const TOKENS = ["<blk>", "a", "b"];

function withJoiner(joiner: Uint8Array): Uint8Array {
  return april.write(
    april.create({ networks: { encoder: network("enc", 3), decoder: network("dec", 2), joiner }, tokens: TOKENS }),
  );
}

async function inTemp<T>(bytes: Uint8Array, run: (path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "tensorfile-april-net-"));
  try {
    const path = join(dir, "m.april");
    writeFileSync(path, bytes);
    return await run(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("april: a network in another field order is read; one that is not ONNX is never silently empty", () => {
  it("a joiner with ir_version last and its fields interleaved: every weight is listed (eager, lazy, Blob), verify is ok", async () => {
    const joiner = moveFieldLast(hostileModel(network("join", 4), { shuffle: true }, 7).bytes, 1);
    expect(joiner[0]).not.toBe(0x08);
    const bytes = withJoiner(joiner);
    const file = april.read(bytes);
    expect(file.onnxErrors).toEqual({});
    expect(april.verifyErrors(file)).toEqual([]);
    const names = april.tensors(file).map((t) => t.name);
    expect(names.filter((n) => n.startsWith("joiner/"))).toEqual([
      "joiner/join_w0",
      "joiner/join_w1",
      "joiner/join_w2",
      "joiner/join_w3",
    ]);
    expect(names).toHaveLength(9);
    for (const source of [fromBytes(bytes), fromBlob(new Blob([new Uint8Array(bytes)]))]) {
      const lazy = await april.readFrom(source);
      expect(april.tensorInfos(lazy).map((i) => i.name)).toEqual(names);
    }
    await inTemp(bytes, async (path) => {
      const r = await cli("verify", path);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/9 tensors/);
    });
  });

  for (const [what, joiner, reason] of [
    ["cut short", network("join", 4).subarray(0, 60), /truncated|reaches past|runs past/i],
    ["random bytes", Uint8Array.from({ length: 200 }, (_, i) => (i * 73 + 11) & 0xff), /not an ONNX model/],
  ] as const) {
    it(`a joiner that is ${what}: verify exits 1 naming it and why, inspect warns, the API reports it`, async () => {
      const bytes = withJoiner(joiner);
      const file = april.read(bytes);
      expect(file.onnxErrors?.joiner).toMatch(reason);
      const errors = april.verifyErrors(file);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^the joiner network is not a readable ONNX model: /);
      expect(errors[0]).toMatch(reason);
      expect(
        april
          .tensors(file)
          .map((t) => t.name)
          .some((n) => n.startsWith("joiner/")),
      ).toBe(false);
      const lazy = await april.readFrom(fromBlob(new Blob([new Uint8Array(bytes)])));
      expect(april.verifyErrors(lazy)).toEqual(errors);
      await inTemp(bytes, async (path) => {
        const verified = await cli("verify", path);
        expect(verified.code).toBe(1);
        expect(verified.stderr).toMatch(/error: the joiner network is not a readable ONNX model: /);
        expect(verified.stdout).toMatch(/failed with 1 error/);
        const json = await cli("verify", "--json", path);
        expect(json.code).toBe(1);
        const line = JSON.parse(json.stdout.trim().split("\n")[0]!) as { ok: boolean; errors: string[] };
        expect(line.ok).toBe(false);
        expect(line.errors).toEqual(errors);
        const inspected = await cli("inspect", path);
        expect(inspected.code).toBe(0);
        expect(inspected.stdout).toContain(`warning: ${errors[0]}`);
      });
    });
  }

  it.skipIf(!HAVE_FIXTURES)(
    "the reference tiny_en-us.april with its joiner's fields reordered: every tensor is still listed",
    () => {
      const original = april.read(readFixture("april", "tiny_en-us.april"));
      const networks = original.networks as { encoder: Uint8Array; decoder: Uint8Array; joiner: Uint8Array };
      const reordered = moveFieldLast(hostileModel(networks.joiner, { shuffle: true }, 3).bytes, 1);
      const rebuilt = april.read(
        april.write(
          april.create({
            networks: { ...networks, joiner: reordered },
            tokens: original.tokens,
            params: original.params,
          }),
        ),
      );
      expect(april.tensors(rebuilt).map((t) => t.name)).toEqual(april.tensors(original).map((t) => t.name));
      expect(april.verifyErrors(rebuilt)).toEqual([]);
    },
  );
});
