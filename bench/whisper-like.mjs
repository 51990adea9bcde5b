// A whisper-like transformer encoder made with onnx.create, for the graph benches (issue 36): decomposed LayerNorm,
// attention with Reshape/Transpose, GELU, residual Adds (long edges, like PyTorch's exports), and negative integer
// attributes (axes = [-1], axis = -1) as real exports have them. About 50 ONNX nodes per layer.
/** A whisper-like encoder of about `target` ONNX nodes (≈ 50 per layer). */
export function whisperLikeBytes(onnx, target) {
  const nodes = [];
  const initializers = [];
  let k = 0;
  const weight = (dims) => {
    const name = `w${initializers.length}`;
    initializers.push({ name, dtype: "float32", dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)) });
    return name;
  };
  const op = (opType, inputs, attributes) => {
    const out = `v${k++}`;
    nodes.push({ name: `${opType}_${k}`, opType, inputs, outputs: [out], ...(attributes ? { attributes } : {}) });
    return out;
  };
  const layerNorm = (x) => {
    const mean = op("ReduceMean", [x], { axes: [-1] });
    const d = op("Sub", [x, mean]);
    const v = op("ReduceMean", [op("Pow", [d, weight([])])], { axes: [-1] });
    const n = op("Div", [d, op("Sqrt", [op("Add", [v, weight([])])])]);
    return op("Add", [op("Mul", [n, weight([4])]), weight([4])]);
  };
  const linear = (x) => op("Add", [op("MatMul", [x, weight([4, 4])]), weight([4])]);
  const heads = (x) => op("Transpose", [op("Reshape", [x, weight([4])])], { perm: [0, 2, 1, 3] });
  let x = op("Conv", ["mel", weight([4, 4, 3]), weight([4])]);
  x = op("Add", [op("Transpose", [x], { perm: [0, 2, 1] }), weight([4, 4])]);
  while (nodes.length + 52 <= target) {
    const h = layerNorm(x);
    const q = heads(linear(h));
    const kk = heads(linear(h));
    const v = heads(linear(h));
    const scores = op(
      "Softmax",
      [op("Mul", [op("MatMul", [q, op("Transpose", [kk], { perm: [0, 1, 3, 2] })]), weight([])])],
      { axis: -1 },
    );
    const attended = op("Reshape", [op("Transpose", [op("MatMul", [scores, v])], { perm: [0, 2, 1, 3] }), weight([3])]);
    x = op("Add", [x, linear(attended)]);
    const m = linear(layerNorm(x));
    const gelu = op("Mul", [
      op("Mul", [m, op("Add", [op("Erf", [op("Div", [m, weight([])])]), weight([])])]),
      weight([]),
    ]);
    x = op("Add", [x, linear(gelu)]);
  }
  while (nodes.length < target - 1) x = op("Relu", [x]);
  nodes.push({ name: "final", opType: "Identity", inputs: [layerNorm(x)], outputs: ["out"] });
  return onnx.write(
    onnx.create({
      graph: {
        name: `whisper-${target}`,
        inputs: [{ name: "mel", dtype: "float32", shape: [1, 80, 3000] }],
        outputs: [{ name: "out", dtype: "float32", shape: [1, 1500, 4] }],
        initializers,
        nodes,
      },
    }),
  );
}
