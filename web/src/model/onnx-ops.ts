/**
 * A small table of the common ONNX operators' schema facts (inputs, outputs, attributes with their types, as the
 * operator schemas at onnx.ai state them; `?` marks an optional input, `…` a variadic one), for the node panel,
 * and the link to an op's documentation on onnx.ai. Not the whole schema: ops not listed get the link only.
 */

export interface OpSignature {
  inputs: readonly string[];
  outputs: readonly string[];
  /** `name: TYPE` */
  attributes: readonly string[];
}

const sig = (inputs: string, outputs: string, attributes = ""): OpSignature => ({
  inputs: inputs ? inputs.split(" ") : [],
  outputs: outputs ? outputs.split(" ") : [],
  attributes: attributes ? attributes.split(", ") : [],
});

const UNARY = sig("X", "Y");
const BINARY = sig("A B", "C");

export const ONNX_OP_SIGNATURES: Readonly<Record<string, OpSignature>> = {
  Abs: UNARY,
  Neg: UNARY,
  Exp: UNARY,
  Log: UNARY,
  Sqrt: UNARY,
  Reciprocal: UNARY,
  Sigmoid: UNARY,
  Tanh: UNARY,
  Relu: UNARY,
  Erf: UNARY,
  Sin: sig("input", "output"),
  Cos: sig("input", "output"),
  Not: UNARY,
  Floor: UNARY,
  Ceil: UNARY,
  Add: BINARY,
  Sub: BINARY,
  Mul: BINARY,
  Div: BINARY,
  Equal: BINARY,
  Less: BINARY,
  Greater: BINARY,
  And: BINARY,
  Or: BINARY,
  Pow: sig("X Y", "Z"),
  MatMul: sig("A B", "Y"),
  Gemm: sig("A B C?", "Y", "alpha: FLOAT, beta: FLOAT, transA: INT, transB: INT"),
  Conv: sig(
    "X W B?",
    "Y",
    "auto_pad: STRING, dilations: INTS, group: INT, kernel_shape: INTS, pads: INTS, strides: INTS",
  ),
  ConvTranspose: sig(
    "X W B?",
    "Y",
    "auto_pad: STRING, dilations: INTS, group: INT, kernel_shape: INTS, output_padding: INTS, output_shape: INTS, pads: INTS, strides: INTS",
  ),
  BatchNormalization: sig(
    "X scale B input_mean input_var",
    "Y running_mean? running_var?",
    "epsilon: FLOAT, momentum: FLOAT, training_mode: INT",
  ),
  LayerNormalization: sig("X Scale B?", "Y Mean? InvStdDev?", "axis: INT, epsilon: FLOAT, stash_type: INT"),
  InstanceNormalization: sig("input scale B", "output", "epsilon: FLOAT"),
  Softmax: sig("input", "output", "axis: INT"),
  LeakyRelu: sig("X", "Y", "alpha: FLOAT"),
  Clip: sig("input min? max?", "output"),
  Cast: sig("input", "output", "saturate: INT, to: INT (a data type)"),
  Reshape: sig("data shape", "reshaped", "allowzero: INT"),
  Transpose: sig("data", "transposed", "perm: INTS"),
  Flatten: sig("input", "output", "axis: INT"),
  Squeeze: sig("data axes?", "squeezed"),
  Unsqueeze: sig("data axes", "expanded"),
  Concat: sig("inputs…", "concat_result", "axis: INT"),
  Split: sig("input split?", "outputs…", "axis: INT, num_outputs: INT"),
  Slice: sig("data starts ends axes? steps?", "output"),
  Gather: sig("data indices", "output", "axis: INT"),
  Shape: sig("data", "shape", "end: INT, start: INT"),
  Expand: sig("input shape", "output"),
  Tile: sig("input repeats", "output"),
  Pad: sig("data pads constant_value? axes?", "output", "mode: STRING"),
  Where: sig("condition X Y", "output"),
  ReduceMean: sig("data axes?", "reduced", "keepdims: INT, noop_with_empty_axes: INT"),
  ReduceSum: sig("data axes?", "reduced", "keepdims: INT, noop_with_empty_axes: INT"),
  MaxPool: sig(
    "X",
    "Y Indices?",
    "auto_pad: STRING, ceil_mode: INT, dilations: INTS, kernel_shape: INTS, pads: INTS, storage_order: INT, strides: INTS",
  ),
  AveragePool: sig(
    "X",
    "Y",
    "auto_pad: STRING, ceil_mode: INT, count_include_pad: INT, dilations: INTS, kernel_shape: INTS, pads: INTS, strides: INTS",
  ),
  GlobalAveragePool: sig("X", "Y"),
  Resize: sig(
    "X roi? scales? sizes?",
    "Y",
    "antialias: INT, axes: INTS, coordinate_transformation_mode: STRING, mode: STRING, nearest_mode: STRING",
  ),
  LSTM: sig(
    "X W R B? sequence_lens? initial_h? initial_c? P?",
    "Y? Y_h? Y_c?",
    "activations: STRINGS, clip: FLOAT, direction: STRING, hidden_size: INT, layout: INT",
  ),
  GRU: sig(
    "X W R B? sequence_lens? initial_h?",
    "Y? Y_h?",
    "activations: STRINGS, clip: FLOAT, direction: STRING, hidden_size: INT, layout: INT, linear_before_reset: INT",
  ),
  Constant: sig(
    "",
    "output",
    "value: TENSOR, value_float: FLOAT, value_floats: FLOATS, value_int: INT, value_ints: INTS, value_string: STRING, value_strings: STRINGS",
  ),
  ConstantOfShape: sig("input", "output", "value: TENSOR"),
  If: sig("cond", "outputs…", "else_branch: GRAPH, then_branch: GRAPH"),
  Loop: sig("M? cond? v_initial…", "v_final_and_scan_outputs…", "body: GRAPH"),
  Scan: sig(
    "initial_state_and_scan_inputs…",
    "final_state_and_scan_outputs…",
    "body: GRAPH, num_scan_inputs: INT, scan_input_axes: INTS, scan_input_directions: INTS, scan_output_axes: INTS, scan_output_directions: INTS",
  ),
  QuantizeLinear: sig("x y_scale y_zero_point?", "y", "axis: INT, block_size: INT, output_dtype: INT, saturate: INT"),
  DequantizeLinear: sig("x x_scale x_zero_point?", "y", "axis: INT, block_size: INT"),
};

/** The op's page on onnx.ai (ops of the default domain; undefined for other domains). */
export function onnxOpDocUrl(opType: string, domain = ""): string | undefined {
  if (domain !== "" && domain !== "ai.onnx") return undefined;
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(opType)) return undefined;
  return `https://onnx.ai/onnx/operators/onnx__${opType}.html`;
}

/** The listed signature of a default-domain op, or undefined. */
export function onnxOpSignature(opType: string, domain = ""): OpSignature | undefined {
  if (domain !== "" && domain !== "ai.onnx") return undefined;
  return Object.hasOwn(ONNX_OP_SIGNATURES, opType) ? ONNX_OP_SIGNATURES[opType] : undefined;
}
