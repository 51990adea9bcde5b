/**
 * TenniS element-wise ops and activations -> ONNX (semantics: the header of onnx-ops.ts).
 */
import { type Translation, type Value, Unconvertible, onnxDType } from "./onnx-context.js";
import { intAttr, MAX_RANK, needOrtType, sameDType, upcast, inputCount, ONNX_CODE } from "./onnx-op-helpers.js";

// ---------------------------------------------------------------------------------------------------------
// element-wise, activations, shapes

export function unary(op: "Relu" | "Sigmoid"): Translation {
  return (ctx, node, inputs, read) => {
    inputCount(inputs, 1, op);
    needOrtType(inputs[0]!, op, node.op);
    ctx.final(op, [read(inputs[0]!)]);
  };
}

function maxRank(inputs: Value[]): number | undefined {
  let rank = 0;
  for (const v of inputs) {
    if (v.rank === undefined) return undefined;
    rank = Math.max(rank, v.rank);
  }
  return rank;
}

/** The static shape of an input or a constant, when every dim is a known number. */
function staticShape(v: Value): number[] | undefined {
  const shape = v.constFields?.length === 1 ? v.constFields[0]!.shape : v.shape;
  return shape?.every((d): d is number => typeof d === "number") ? shape : undefined;
}

/** Numpy broadcasting of static shapes (a `what` error when they do not broadcast, as ONNX refuses the model). */
function broadcast(shapes: number[][], what: string): number[] {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out = Array<number>(rank).fill(1);
  for (const shape of shapes) {
    shape.forEach((d, i) => {
      const k = rank - shape.length + i;
      if (d !== 1 && out[k] !== 1 && out[k] !== d)
        throw new Unconvertible(`${what}: shapes [${shapes.map((s) => s.join(", ")).join("], [")}] do not broadcast`);
      if (d !== 1) out[k] = d;
    });
  }
  return out;
}

export function binary(op: string, nary?: string): Translation {
  return (ctx, node, inputs, read) => {
    if (inputs.length < 2 || (inputs.length > 2 && !nary))
      throw new Unconvertible(`${node.op} takes 2 inputs, this node has ${inputs.length}`);
    let dtype = inputs[0]!.dtype;
    if (inputs.length === 2) {
      // two dtypes: both cast to the one TenniS computes in
      const common = upcast(inputs[0]!.dtype, inputs[1]!.dtype);
      if (!common)
        throw new Unconvertible(
          `${node.op} of ${inputs[0]!.dtype} and ${inputs[1]!.dtype} (TenniS cannot reduce that pair)`,
        );
      dtype = common;
    } else {
      sameDType(inputs, node.op);
    }
    needOrtType({ ...inputs[0]!, dtype }, inputs.length === 2 ? "Arithmetic" : "Sum", node.op);
    const shapes = inputs.map(staticShape);
    const shape = shapes.every((s) => s !== undefined) ? broadcast(shapes as number[][], node.op) : undefined;
    const operands = inputs.map((v) =>
      v.dtype === dtype ? read(v) : ctx.add("Cast", [read(v)], { to: ONNX_CODE[onnxDType(dtype)]! }),
    );
    ctx.final(inputs.length === 2 ? op : nary!, operands);
    return { rank: maxRank(inputs), shape, dtype };
  };
}

export const softmax: Translation = (ctx, node, inputs, read) => {
  inputCount(inputs, 1, "softmax");
  const x = inputs[0]!;
  needOrtType(x, "Softmax", "softmax");
  const dim = intAttr(node, "dim");
  // TenniS (base/base_softmax.cpp) refuses a dim outside [-rank, rank) when it runs; a negative one counts from the end
  if (x.rank !== undefined && (dim < -x.rank || dim >= x.rank))
    throw new Unconvertible(`dim ${dim} is outside [-${x.rank}, ${x.rank}) (TenniS refuses it)`);
  if (x.rank === undefined && Math.abs(dim) > MAX_RANK) throw new Unconvertible(`dim ${dim} is out of range`);
  ctx.final("Softmax", [read(x)], { axis: dim });
};

export const toFloat: Translation = (ctx, _node, inputs, read) => {
  inputCount(inputs, 1, "to_float");
  ctx.final("Cast", [read(inputs[0]!)], { to: 1 });
  return { dtype: "float32" };
};

export const copy: Translation = (ctx, _node, inputs, read) => {
  inputCount(inputs, 1, "_copy");
  ctx.final("Identity", [read(inputs[0]!)]);
};
