// Generated ~100 MB files of every format for the from-disk and cold-start benches, written with the library's own
// builders (the same shapes as ../shared/peers/gen.mjs, so the numbers compare), into a cache folder reused across
// runs: $TENSORFILE_BENCH_FILES or <tmpdir>/tensorfile-bench-files. `scale` shrinks them (0.1: ~10 MB each).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Deterministic floats in (-scale, scale): xorshift32. */
export function floats(n, seed, scale = 0.1) {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    out[i] = (((s >>> 0) / 4294967296) * 2 - 1) * scale;
  }
  return out;
}

function bytes(n, seed) {
  const words = new Uint32Array(Math.ceil(n / 4));
  let s = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    words[i] = s >>> 0;
  }
  return new Uint8Array(words.buffer, 0, n);
}

/**
 * Writes the files (those not there yet) and returns [{ name, path, format, note }].
 * `tf` is the package namespace (import of dist/index.js).
 */
export function benchFiles(tf, { scale = 1, folder } = {}) {
  const dir = folder ?? process.env.TENSORFILE_BENCH_FILES ?? join(tmpdir(), `tensorfile-bench-files${scale === 1 ? "" : `-${scale}`}`);
  mkdirSync(dir, { recursive: true });
  const { bw2l, april, tsm, primitiv, spraak } = tf;
  const files = [];
  const add = (name, format, note, make) => {
    const path = join(dir, name);
    if (!existsSync(path)) writeFileSync(path, make());
    files.push({ name, path, format, note });
  };
  const N = Math.round(1000 * Math.sqrt(scale));
  const bw2lModel = () => bw2l.create({
    version: 2, flags: { criterion: "ctc" }, config: { criterion: "ctc" }, tokens: ["|", "a", "b"],
    layers: Array.from({ length: 25 }, (_, i) => ({
      arch: `L ${N} ${N}`,
      params: [{ dims: [N, N, 1, 1], data: floats(N * N, i + 1) }, { dims: [N, 1, 1, 1], data: floats(N, 1000 + i) }],
    })),
  });
  let model;
  add("bw2l_v2_fp32.b2l", "bw2l", `25 x (${N}x${N} + ${N}) fp32, column-major`, () => bw2l.write((model ??= bw2lModel())));
  add("bw2l_v2_fp16.b2l", "bw2l", "the same, quantize fp16 (loaded with dtype float32)", () => bw2l.write((model ??= bw2lModel()), { quantize: "fp16" }));
  add("april.april", "april", "networks 60/20/20 % of the size", () => april.write(april.create({
    networks: { encoder: bytes(Math.round(60e6 * scale), 1), decoder: bytes(Math.round(20e6 * scale), 2), joiner: bytes(Math.round(20e6 * scale), 3) },
    tokens: ["<blk>", "<sos/eos>", "<unk>", "▁the"], name: "bench",
  })));
  const E = Math.round((25 * 1024 * 1024 * scale) / 4 / 1600) * 1600;
  const encoder = new TextEncoder();
  const text = (s) => { const data = encoder.encode(s); return { dtype: "char8", shape: [data.length], data }; };
  const node = (op, name, params, inputs) => ({ params: [{ key: "#op", fields: [text(op)] }, { key: "#name", fields: [text(name)] }, ...params], inputs });
  add("tsm.tsm", "tsm", `4 x ${E / 1600}x1600 float32 consts`, () => {
    const nodes = [
      node("<param>", "input", [], []),
      ...[0, 1, 2, 3].map((i) => node("<const>", `weight_${i}`, [{ key: "value", fields: [{ dtype: "float32", shape: [E / 1600, 1600], data: floats(E, 50 + i) }] }], [])),
      node("add", "sum", [], [0, 1, 2, 3, 4]),
    ];
    return tsm.write({ header: { fake: 0, code: tsm.MODULE_CODE, reserved: new Uint8Array(120) }, inputs: [0], outputs: [nodes.length - 1], nodes });
  });
  add("primitiv.model", "primitiv", `25 x (${N}x${N} + ${N}) params, column-major`, () => {
    const entries = [];
    for (let i = 0; i < 25; i++) {
      entries.push([["encoder", `layer${i}`, "w"], primitiv.makeParameter(primitiv.makeTensor([N, N], floats(N * N, 200 + i)))]);
      entries.push([["encoder", `layer${i}`, "b"], primitiv.makeParameter(primitiv.makeTensor([N], floats(N, 300 + i)))]);
    }
    return primitiv.write({ dataType: "model", model: primitiv.makeModel(entries) });
  });
  const P = Math.round(5000 * Math.sqrt(scale));
  add("primitiv.param", "primitiv", `one ${P}x${P} parameter, column-major`, () => primitiv.write({ dataType: "parameter", parameter: primitiv.makeParameter(primitiv.makeTensor([P, P], floats(P * P, 400))) }));
  const frames = Math.round(1048576 * scale);
  const header = { DATA: "TRACK" };
  add("spraak_bin01.trk", "spraak", `${frames} x 24 F32, little-endian`, () => spraak.write(spraak.matrix(floats(frames * 24, 77), { cols: 24, format: "BIN01", data: "TRACK", header })));
  add("spraak_bin10.trk", "spraak", `${frames} x 24 F32, big-endian`, () => spraak.write(spraak.matrix(floats(frames * 24, 77), { cols: 24, format: "BIN10", data: "TRACK", header })));
  return files;
}
