/**
 * TenniS module -> ONNX model (opset 17 by default), op by op (the translations are in onnx-ops.ts and onnx-ops-*.ts).
 *
 *   <param>  -> a graph input (TenniS name; #dtype, else float32; #shape, when declared)
 *   <const>  -> an initializer (raw_data in the field's own dtype), created only when an ONNX node reads it
 *   other    -> one or more standard ONNX nodes; the last one is named after the TenniS node and writes the
 *               value of the TenniS node's name (made unique with ":<index>" when two nodes share a name)
 *   outputs  -> graph outputs, named as in TenniS
 *
 * Only the nodes the module outputs need are translated (as TenniS runs them). A node whose op (or whose
 * attributes) we cannot express exactly makes the whole conversion fail with TsmOnnxUnsupportedError, listing
 * every such op with the names of the nodes that use it: no partial model is ever returned.
 */
import { UnsupportedError } from "../../bytes/errors.js";
import type { DType } from "../../tensor.js";
import {
  ONNX_DTYPES,
  type OnnxNodeInput,
  type OnnxTensorInput,
  type OnnxValueInfoInput,
  create,
  createPieces,
} from "../../formats/onnx/builder.js";
import { type TsmGraph, type TsmGraphNode, buildGraph } from "../../formats/tsm/graph.js";
import { type TsmModule, isLoaded } from "../../formats/tsm/module.js";
import { OnnxContext, Unconvertible, type Value, onnxDType } from "./onnx-context.js";
import { TRANSLATIONS } from "./onnx-ops.js";
import { ownValue } from "../../bytes/names.js";

/** Options of tsm.toOnnx(), toOnnxPieces() and onnxSupport(). */
export interface ToOnnxOptions {
  /** The ONNX opset (default 17; 13 to 21 are accepted: every op and attribute used means the same in that range). */
  opset?: number | undefined;
  /**
   * Dtype and shape of graph inputs the module does not declare, by TenniS input name. A dtype other than a
   * declared `#dtype` makes the graph input that dtype, cast to the declared one (as TenniS casts its inputs); a
   * shape for an input that declares one must agree with it (a RangeError otherwise).
   * Shapes: a number, a symbolic name or null per dim.
   */
  inputs?:
    | Record<
        string,
        {
          /** The input's element type. */
          dtype?: DType | undefined;
          /** The input's dims: a number, a symbolic name or null (unknown) each. */
          shape?: (number | string | null)[] | undefined;
        }
      >
    | undefined;
  /** ModelProto.producer_name (default "tensorfile"). */
  producerName?: string | undefined;
}

/** One op that keeps a module from converting to ONNX, with the nodes that use it. */
export interface OnnxBlocker {
  /** The TenniS op name (e.g. `"shape_index_patch"`). */
  op: string;
  /** Names of the nodes with this op that cannot be converted. */
  nodes: string[];
  /** Why, when the op itself is supported but these nodes' attributes or inputs are not. */
  reasons: string[];
}

/** The module cannot be converted exactly: `blockers` lists each op with the nodes using it. */
export class TsmOnnxUnsupportedError extends UnsupportedError {
  override name = "TsmOnnxUnsupportedError";
  /** @param blockers each op with the nodes using it */
  constructor(
    /** Each op that blocks the conversion, with the nodes using it. */
    readonly blockers: OnnxBlocker[],
  ) {
    super("tsm", `cannot convert to ONNX: ${describeBlockers(blockers)}`);
  }
}

/** The blockers in one line of words, as the CLI prints them. */
export function describeBlockers(blockers: readonly OnnxBlocker[]): string {
  const names = (nodes: readonly string[]) => nodes.map((n) => JSON.stringify(n)).join(", ");
  return blockers
    .map((b) =>
      b.reasons.length
        ? `${b.op}: ${[...new Set(b.reasons)].join("; ")}`
        : `${b.op} (op not supported; used by ${names(b.nodes)})`,
    )
    .join("; ");
}

/** The ops tsm.toOnnx translates. */
export const SUPPORTED_OPS: readonly string[] = ["<param>", "<const>", ...Object.keys(TRANSLATIONS)].sort();

interface Plan {
  graph: TsmGraph;
  order: TsmGraphNode[];
}

function plan(module: TsmModule): Plan {
  const graph = buildGraph(module);
  const order: TsmGraphNode[] = [];
  const state = new Uint8Array(graph.nodes.length); // 0 new, 1 visiting, 2 done
  for (const root of graph.outputs) {
    const stack: [TsmGraphNode, number][] = [[root, 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [node, next] = top;
      if (next === 0) {
        if (state[node.index] === 2) {
          stack.pop();
          continue;
        }
        if (state[node.index] === 1 && next === 0) {
          throw new UnsupportedError(
            "tsm",
            `cannot convert to ONNX: the graph has a cycle through node "${node.name}"`,
          );
        }
        state[node.index] = 1;
      }
      if (next < node.inputs.length) {
        top[1] = next + 1;
        const input = node.inputs[next]!;
        if (state[input.index] === 1)
          throw new UnsupportedError(
            "tsm",
            `cannot convert to ONNX: the graph has a cycle through node "${input.name}"`,
          );
        if (state[input.index] === 0) stack.push([input, 0]);
      } else {
        state[node.index] = 2;
        order.push(node);
        stack.pop();
      }
    }
  }
  return { graph, order };
}

/** A shape given for an input that declares one may only name what the declaration leaves open. */
function checkShapeOverride(
  name: string,
  given: readonly (number | string | null)[],
  declared: readonly (number | null)[],
): void {
  const agrees =
    given.length === declared.length &&
    given.every((d, i) => declared[i] === null || typeof d !== "number" || d === declared[i]);
  if (!agrees) {
    const show = (dims: readonly (number | string | null)[]) => `[${dims.map((d) => d ?? "?").join(", ")}]`;
    throw new RangeError(
      `tsm.toOnnx: options.inputs gives "${name}" the shape ${show(given)}, which the module's declared shape ${show(declared)} does not allow`,
    );
  }
}

interface Translated {
  nodes: OnnxNodeInput[];
  initializers: OnnxTensorInput[];
  inputs: OnnxValueInfoInput[];
  outputs: OnnxValueInfoInput[];
}

function translate(module: TsmModule, options: ToOnnxOptions): Translated {
  const opset = options.opset ?? 17;
  if (!Number.isInteger(opset) || opset < 13 || opset > 21)
    throw new RangeError(`tsm.toOnnx: opset ${opset} is not supported (13 to 21)`);
  const { graph, order } = plan(module);
  const ctx = new OnnxContext(opset);
  const values = new Map<number, Value>();
  const failed = new Set<number>();
  const blockers = new Map<string, OnnxBlocker>();
  const block = (node: TsmGraphNode, reason?: string): void => {
    let b = blockers.get(node.op);
    if (!b) blockers.set(node.op, (b = { op: node.op, nodes: [], reasons: [] }));
    b.nodes.push(node.name);
    if (reason) b.reasons.push(`${node.name}: ${reason}`);
    failed.add(node.index);
  };

  // names: graph inputs, then graph outputs, keep their TenniS names
  const valueName = new Map<number, string>();
  for (const n of graph.inputs) if (!valueName.has(n.index)) valueName.set(n.index, ctx.reserve(n.name));
  for (const n of graph.outputs) if (!valueName.has(n.index)) valueName.set(n.index, ctx.reserve(n.name));

  for (const name of Object.keys(options.inputs ?? {})) {
    if (!graph.inputs.some((n) => n.name === name)) {
      throw new RangeError(
        `tsm.toOnnx: options.inputs names "${name}", which is not a module input (inputs: ${graph.inputs.map((n) => JSON.stringify(n.name)).join(", ")})`,
      );
    }
  }
  const graphInputs: OnnxValueInfoInput[] = [];
  const reachableParams = new Set(order.filter((n) => n.op === "<param>").map((n) => n.index));
  for (const n of graph.inputs) {
    if (!reachableParams.has(n.index)) continue;
    const override = ownValue(options.inputs, n.name);
    // TenniS casts what is fed to an input to its declared #dtype; without one, the input is what is fed
    const declared = n.dtype === "void" ? undefined : n.dtype;
    const fed = override?.dtype ?? declared ?? "float32";
    const dtype = declared ?? fed;
    // TenniS writes -1 for a dim it does not fix: ONNX says that with an unnamed dim
    const declaredShape = n.shape?.map((d) => (d >= 0 ? d : null));
    if (override?.shape && declaredShape) checkShapeOverride(n.name, override.shape, declaredShape);
    const shape = override?.shape ?? declaredShape;
    try {
      const inputName = valueName.get(n.index)!;
      graphInputs.push({ name: inputName, dtype: onnxDType(fed), ...(shape ? { shape } : {}) });
      let name = inputName;
      if (fed !== dtype) {
        // the graph input takes the dtype asked for, and the module reads it as its declared dtype, as TenniS does
        ctx.current = n;
        name = ctx.add("Cast", [inputName], { to: ONNX_DTYPES[onnxDType(dtype)] });
      }
      values.set(n.index, { name, dtype, rank: shape?.length, shape, node: n });
    } catch (e) {
      if (!(e instanceof Unconvertible)) throw e;
      block(n, e.message);
    }
  }

  const read = (v: Value): string => {
    if (v.name) return v.name;
    if (v.constFields) {
      if (v.constFields.length !== 1)
        throw new Unconvertible(`<const> "${v.node.name}" is packed (${v.constFields.length} fields)`);
      const field = v.constFields[0]!;
      if (!isLoaded(field.data))
        throw new Unconvertible(`<const> "${v.node.name}" was not loaded (use read(), not readFrom())`);
      const name = valueName.get(v.node.index) ?? ctx.reserve(v.node.name);
      valueName.set(v.node.index, name);
      const data = field.data as ArrayBufferView;
      ctx.initializers.push({
        name,
        dtype: onnxDType(field.dtype),
        dims: field.shape.slice(),
        data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      });
      v.name = name;
      return name;
    }
    if (v.yolo) throw new Unconvertible(`the output of yolo "${v.node.name}" can only feed yolo_poster`);
    if (v.poolPadding)
      throw new Unconvertible(
        `the output of _onnx_pooling2d_padding "${v.node.name}" can only feed pooling2d_v2's padding`,
      );
    throw new Unconvertible(`value of "${v.node.name}" is not available`);
  };

  for (const node of order) {
    if (node.op === "<param>") {
      if (!values.has(node.index) && !failed.has(node.index)) block(node, "a <param> that is not a module input");
      continue;
    }
    if (node.op === "<const>") {
      const fields = node.value;
      if (!fields) {
        block(node, "<const> without a value");
        continue;
      }
      const first = fields[0];
      values.set(node.index, {
        name: "",
        dtype: first?.dtype ?? "void",
        rank: first?.shape.length,
        constFields: fields,
        node,
      });
      continue;
    }
    if (node.inputs.some((i) => failed.has(i.index))) {
      failed.add(node.index);
      continue;
    }
    const translation = ownValue(TRANSLATIONS, node.op); // (an op named "constructor" is not Object)
    if (!translation) {
      block(node);
      continue;
    }
    ctx.current = node;
    ctx.out = valueName.get(node.index) ?? ctx.reserve(node.name);
    valueName.set(node.index, ctx.out);
    const inputs = node.inputs.map((i) => values.get(i.index)!);
    const mark = { nodes: ctx.nodes.length, inits: ctx.initializers.length };
    try {
      const result = translation(ctx, node, inputs, read) ?? {};
      const x = inputs[0];
      const made: Value = { name: ctx.out, dtype: x?.dtype ?? "float32", rank: x?.rank, node, ...result };
      // a yolo map / a pooling padding is only for its one kind of consumer (they read it from `yolo` / `poolPadding`)
      if (made.yolo || made.poolPadding) made.name = "";
      values.set(node.index, made);
    } catch (e) {
      if (!(e instanceof Unconvertible)) throw e;
      ctx.truncate(mark.nodes);
      ctx.initializers.length = mark.inits;
      block(node, e.message);
    }
  }
  const outputs: OnnxValueInfoInput[] = [];
  for (const n of graph.outputs) {
    const v = values.get(n.index);
    if (!v || failed.has(n.index)) continue;
    try {
      const name = read(v);
      if (outputs.some((o) => o.name === name)) continue;
      outputs.push({ name, dtype: onnxDType(v.dtype) });
    } catch (e) {
      if (!(e instanceof Unconvertible)) throw e;
      block(n, e.message);
    }
  }
  if (blockers.size > 0) throw new TsmOnnxUnsupportedError([...blockers.values()]);
  return { nodes: ctx.nodes, initializers: ctx.initializers, inputs: graphInputs, outputs };
}

function model(module: TsmModule, options: ToOnnxOptions) {
  const t = translate(module, options);
  return {
    irVersion: 8,
    opsetImports: [{ domain: "", version: options.opset ?? 17 }],
    producerName: options.producerName ?? "tensorfile",
    docString: "converted from a TenniS module by tensorfile (tsm.toOnnx)",
    graph: { name: "tennis", nodes: t.nodes, initializers: t.initializers, inputs: t.inputs, outputs: t.outputs },
  };
}

/** The ONNX model (ModelProto bytes) of a TenniS module; throws TsmOnnxUnsupportedError when it cannot be exact. */
export function toOnnx(module: TsmModule, options: ToOnnxOptions = {}): Uint8Array {
  return create(model(module, options));
}

/** toOnnx() as pieces (the weights are not copied once more), e.g. for writePiecesTo. */
export function toOnnxPieces(module: TsmModule, options: ToOnnxOptions = {}): Uint8Array[] {
  return createPieces(model(module, options));
}

/** Whether toOnnx() would succeed, and if not which ops (and nodes) block it. Nothing is built beyond the check. */
export function onnxSupport(
  module: TsmModule,
  options: ToOnnxOptions = {},
): {
  /** True when toOnnx() would succeed. */
  convertible: boolean;
  /** The ops (and nodes) that block it; empty when convertible. */
  blockers: OnnxBlocker[];
} {
  try {
    translate(module, options);
    return { convertible: true, blockers: [] };
  } catch (e) {
    if (e instanceof TsmOnnxUnsupportedError) return { convertible: false, blockers: e.blockers };
    if (e instanceof UnsupportedError)
      return { convertible: false, blockers: [{ op: "(graph)", nodes: [], reasons: [e.detail] }] };
    throw e;
  }
}
