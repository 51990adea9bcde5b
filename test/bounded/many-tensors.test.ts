/**
 * Work linear in the number of tensors (issue 23): loading tensor after tensor of a lazily opened file must not
 * list every tensor again each time (verify was quadratic: 10,000 empty tensors took 65 s), and inspect of a file
 * with more tensors than a call's arguments can hold (> ~125,000) must print its table, not overflow the stack
 * (`Math.max(...rows)`). Work is counted (how often the tensor list is read), not timed.
 */
import { describe, expect, it } from "vitest";
import { readFromAny } from "../../bindings/any.js";
import { fromBytes } from "../../bindings/io/source.js";
import { cli } from "../helpers/cli.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A safetensors file of `n` empty F32 tensors, written by hand (header JSON + 8-byte length). */
function manyEmpty(n: number): Uint8Array {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`"t${i}":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}`);
  let json = `{${parts.join(",")}}`;
  json += " ".repeat((8 - (json.length % 8)) % 8);
  const out = new Uint8Array(8 + json.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  return out;
}

describe("work linear in the number of tensors", () => {
  it("loadTensor(info) of a readFromAny() result does not list the tensors again per tensor", async () => {
    const n = 2000;
    const opened = await readFromAny(fromBytes(manyEmpty(n)));
    const infos = opened.tensorInfos();
    expect(infos.length).toBe(n);
    const file = opened.file as { tensors: unknown[] };
    const tensors = file.tensors;
    let listed = 0;
    Object.defineProperty(file, "tensors", { get: () => (listed++, tensors), configurable: true });
    for (const info of infos) expect((await opened.loadTensor(info)).data.byteLength).toBe(0);
    expect(listed).toBe(0); // before: once per tensor (n times), each listing all n
    // by name it looks the name up (once per call), still correct
    expect((await opened.loadTensor("t1999")).name).toBe("t1999");
  });

  it("inspect prints the table of 150,000 tensors (no call-stack overflow), and verify reads them all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-many-"));
    try {
      const path = join(dir, "many.safetensors");
      writeFileSync(path, manyEmpty(150_000));
      const inspect = await cli("inspect", path);
      expect(inspect.stderr).toBe("");
      expect(inspect.code).toBe(0);
      expect(inspect.stdout).toContain("t149999");
      expect(inspect.stdout.split("\n").filter((l) => /^\s+t\d+\s/.test(l)).length).toBe(150_000);
      const verify = await cli("verify", path);
      expect(verify.code).toBe(0);
      expect(verify.stdout).toMatch(/150000 tensors/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
