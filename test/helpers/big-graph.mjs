/**
 * Big TenniS graphs for the graph view's tests and benchmark, made with tsm.create: a ResNet-like stack of
 * residual blocks (conv2d + W, add_bias + B, relu, conv2d + W, add_bias + B, add, relu: 11 nodes each) after a
 * `<param>` input, with a pooling + inner_prod head every 40 blocks feeding a concat at the end, so the graph
 * has branches and long edges, not only a chain. Exactly `nodes` nodes (the last ones pad with relus).
 */

/** `tsm` is the library's tsm namespace (from dist/ or the sources). */
export function resnetModule(tsm, nodes, channels = 8) {
  if (!Number.isInteger(nodes) || nodes < 16) throw new RangeError("resnetModule wants at least 16 nodes");
  const weight = new Float32Array(channels * channels * 9).map((_, i) => Math.sin(i));
  const bias = new Float32Array(channels).map((_, i) => i / channels);
  const fc = new Float32Array(10 * channels).map((_, i) => Math.cos(i));
  const list = [{ op: "<param>", name: "input" }];
  const heads = [];
  let last = "input";
  let block = 0;
  const room = (k) => list.length + k <= nodes - 1; // keep one node for the final concat
  while (room(11)) {
    const p = `block${block}`;
    list.push(
      { op: "<const>", name: `${p}/conv_a/weights`, value: { dtype: "float32", shape: [channels, channels, 3, 3], data: weight } },
      { op: "conv2d", name: `${p}/conv_a`, inputs: [last, `${p}/conv_a/weights`] },
      { op: "<const>", name: `${p}/conv_a/bias`, value: { dtype: "float32", shape: [channels], data: bias } },
      { op: "add_bias", name: `${p}/conv_a/add_bias`, inputs: [`${p}/conv_a`, `${p}/conv_a/bias`] },
      { op: "relu", name: `${p}/relu_a`, inputs: [`${p}/conv_a/add_bias`] },
      { op: "<const>", name: `${p}/conv_b/weights`, value: { dtype: "float32", shape: [channels, channels, 3, 3], data: weight } },
      { op: "conv2d", name: `${p}/conv_b`, inputs: [`${p}/relu_a`, `${p}/conv_b/weights`] },
      { op: "<const>", name: `${p}/conv_b/bias`, value: { dtype: "float32", shape: [channels], data: bias } },
      { op: "add_bias", name: `${p}/conv_b/add_bias`, inputs: [`${p}/conv_b`, `${p}/conv_b/bias`] },
      { op: "add", name: `${p}/add`, inputs: [last, `${p}/conv_b/add_bias`] },
      { op: "relu", name: `${p}/out`, inputs: [`${p}/add`] },
    );
    last = `${p}/out`;
    if (block % 40 === 39 && room(3)) {
      list.push(
        { op: "pooling2d", name: `${p}/head/pool`, inputs: [last] },
        { op: "<const>", name: `${p}/head/fc/weights`, value: { dtype: "float32", shape: [10, channels], data: fc } },
        { op: "inner_prod", name: `${p}/head/fc`, inputs: [`${p}/head/pool`, `${p}/head/fc/weights`] },
      );
      heads.push(`${p}/head/fc`);
    }
    block++;
  }
  while (room(1)) {
    list.push({ op: "relu", name: `tail${list.length}`, inputs: [last] });
    last = `tail${list.length - 1}`;
  }
  list.push({ op: "concat", name: "output", inputs: [last, ...heads], params: { dim: { dtype: "int32", shape: [], data: Int32Array.of(1) } } });
  return tsm.create({ nodes: list, inputs: ["input"], outputs: ["output"] });
}
