// Runtime smoke check shared by the Node (import and require), Deno and browser tests: runs every kernel on
// both backends over seeded random data and compares the WASM results with the TS twins bit for bit.
// Usage: `await smoke(tensorfile)` with the package namespace; returns a list of check names, throws on failure.
export async function smoke(tf) {
  const { kernels } = tf;
  const checks = [];
  if (!kernels.wasmAvailable()) throw new Error("WebAssembly kernels unavailable in this runtime");
  let seed = 12345;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const words = (n) => Uint32Array.from({ length: n }, () => Math.floor(random() * 4294967296));
  const same = (a, b, what) => {
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    if (x.length !== y.length) throw new Error(`${what}: lengths differ`);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) throw new Error(`${what}: byte ${i} differs`);
    checks.push(what);
  };
  const both = (fn) => {
    kernels.setBackend("js");
    const a = fn();
    kernels.setBackend("wasm");
    const b = fn();
    kernels.setBackend("auto");
    return [a, b];
  };
  const n = 100_003;
  const halves = new Uint16Array(words(n / 2 + 1).buffer, 0, n);
  same(...both(() => kernels.f16ToF32(halves)), "f16ToF32");
  const floats = new Float32Array(n).map(() => (random() - 0.5) * 1000);
  same(...both(() => kernels.f32ToF16(floats)), "f32ToF16");
  const q = new Int8Array(words(n).buffer, 0, n);
  same(...both(() => kernels.dequantizeI8(q, 0.02, -3)), "dequantizeI8");
  same(...both(() => kernels.quantizeI8(floats, 4, 1)), "quantizeI8");
  for (const width of [2, 4, 8]) {
    const bytes = new Uint8Array(words(n + 1).buffer);
    same(...both(() => kernels.byteSwap(bytes.slice(), width)), `byteSwap${width * 8}`);
  }
  const matrix = new Float32Array(words(300 * 517).buffer);
  same(...both(() => kernels.transpose(matrix, 300, 517)), "transpose");
  same(...both(() => kernels.columnToRowMajor(matrix, [3, 100, 11, 47])), "columnToRowMajor");
  // a format round trip through the public API: write a bw2l model, read it whole and lazily
  const weights = new Float32Array(12 * 8).map((_, i) => Math.sin(i));
  const bytes = tf.bw2l.write(tf.bw2l.create({
    config: { criterion: "ctc" },
    layers: [{ arch: "L 8 12", params: [{ dims: [12, 8, 1, 1], data: weights }] }],
  }));
  const any = tf.readAny(bytes);
  if (any.format !== "bw2l") throw new Error(`readAny said ${any.format}`);
  const [tensor] = any.tensors();
  same(tensor.data, weights, "bw2l write/readAny");
  const sources = [["fromBytes", tf.fromBytes(bytes)]];
  if (typeof Blob === "function") sources.push(["fromBlob", tf.fromBlob(new Blob([bytes]))]);
  for (const [label, source] of sources) {
    const lazy = await tf.readFromAny(source);
    const [info] = lazy.tensorInfos();
    same((await lazy.loadTensor(info)).data, weights, `readFromAny(${label}) + loadTensor`);
  }
  return checks;
}
