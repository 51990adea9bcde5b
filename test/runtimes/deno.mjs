// Deno smoke tests under the `deno` npm package: test/runtimes/deno-smoke.mjs with no permissions, then
// test/runtimes/deno-load-file.mjs with read permission for one temporary folder of files written here.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const denoBin = resolve(dirname(require.resolve("deno/package.json")), "bin.cjs");
const deno = (args) => spawnSync(process.execPath, [denoBin, "run", "--no-prompt", "--node-modules-dir=manual", ...args], {
  cwd: root, stdio: "inherit", env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
});
if (deno(["test/runtimes/deno-smoke.mjs"]).status !== 0) {
  console.error("deno smoke test failed");
  process.exit(1);
}

// loadFile: the examples, plus one file big enough for the arena path (column-major, fp16 widening)
const tf = await import("../../dist/index.js");
const { exampleFiles } = await import("../../dist/examples.js");
const dir = mkdtempSync(join(tmpdir(), "tensorfile-deno-"));
try {
  const files = exampleFiles().map((e) => [e.name, e.bytes]);
  const weights = Float32Array.from({ length: 800 * 700 }, (_, i) => Math.sin(i * 0.01));
  const big = tf.bw2l.create({ config: { criterion: "ctc" }, layers: [{ arch: "L 800 700", params: [{ dims: [800, 700, 1, 1], data: weights }] }] });
  files.push(["big.b2l", tf.bw2l.write(big)], ["big_fp16.b2l", tf.bw2l.write(big, { quantize: "fp16" })]);
  const summary = (tensors) => tensors.map((t) => `${t.name} ${t.dtype} [${t.shape.join(",")}] ${createHash("sha256").update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength)).digest("hex")}`);
  const expected = {};
  for (const [name, bytes] of files) {
    try {
      const any = tf.readAny(bytes);
      expected[name] = { raw: summary(any.tensors()), float32: summary(any.tensors({ dtype: "float32" })) };
      writeFileSync(join(dir, name), bytes);
    } catch {
      // examples that do not read whole are not loadFile's business here
    }
  }
  writeFileSync(join(dir, "expected.json"), JSON.stringify(expected));
  if (deno([`--allow-read=${dir}`, "test/runtimes/deno-load-file.mjs", dir]).status !== 0) {
    console.error("deno loadFile test failed");
    process.exit(1);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
