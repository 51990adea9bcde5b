/**
 * What the TenniS -> ONNX translations share: the node/initializer collector (OnnxContext), what is known about
 * each value (Value), and the one error a translation throws when it cannot be exact (Unconvertible).
 */
import { type DType, bytesOf, viewAs } from "../../tensor.js";
import type { OnnxAttributeValue, OnnxDTypeName, OnnxNodeInput, OnnxTensorInput } from "../../formats/onnx/builder.js";
import type { TsmGraphNode } from "../../formats/tsm/graph.js";
import { type TsmField, isLoaded } from "../../formats/tsm/module.js";

/** A translation cannot express this node exactly. */
export class Unconvertible extends Error {}

/** The ONNX dtypes TenniS tensors can map to. */
const ONNX_OF: Partial<Record<DType, OnnxDTypeName>> = {
  float32: "float32",
  float16: "float16",
  float64: "float64",
  int8: "int8",
  uint8: "uint8",
  int16: "int16",
  uint16: "uint16",
  int32: "int32",
  uint32: "uint32",
  int64: "int64",
  uint64: "uint64",
  bool: "bool",
};

export function onnxDType(dtype: DType): OnnxDTypeName {
  const name = ONNX_OF[dtype];
  if (!name) throw new Unconvertible(`dtype ${dtype} has no ONNX tensor type`);
  return name;
}

/** What a translation knows about a value. */
export interface Value {
  /** The ONNX value name, once it exists (a <const> gets one when first read). */
  name: string;
  dtype: DType;
  /** Rank when known. */
  rank?: number | undefined;
  /** Static shape of a <param> as declared (dims may be null/strings). */
  shape?: (number | string | null)[] | undefined;
  /** The stored value of a <const> (all fields). */
  constFields?: TsmField[] | undefined;
  /** yolo: the activated map plus its classes/mask/anchors (only yolo_poster may read it). */
  yolo?: { map: string; classes: number; mask: number[]; anchors: number[] } | undefined;
  /** _onnx_pooling2d_padding: the static padding and auto_pad (only pooling2d_v2 may read it). */
  poolPadding?: { autoPad: string; padding: number[] } | undefined;
  /** The TenniS node that made it. */
  node: TsmGraphNode;
}

export class OnnxContext {
  readonly nodes: OnnxNodeInput[] = [];
  readonly initializers: OnnxTensorInput[] = [];
  private readonly used = new Set<string>();
  private counter = 0;
  /** The TenniS node being translated. */
  current!: TsmGraphNode;
  /** The ONNX value name the current node's result must have. */
  out = "";
  constructor(readonly opset: number) {}

  private readonly nodeNames = new Set<string>();

  /** A node name not used yet (ONNX runtimes refuse two nodes of one name): `name`, else `name:1`, `name:2`… */
  private nodeName(name: string): string {
    let unique = name;
    for (let k = 1; this.nodeNames.has(unique); k++) unique = `${name}:${k}`;
    this.nodeNames.add(unique);
    return unique;
  }

  /** Values made once and read by every node that needs the same thing (key -> name, index of the node making it). */
  private readonly sharedValues = new Map<string, { name: string; node: number }>();

  /** Forgets the nodes after `count` (a translation that failed half-way), and the shared values they made. */
  truncate(count: number): void {
    for (const node of this.nodes.splice(count)) this.nodeNames.delete(node.name!);
    for (const [key, value] of this.sharedValues) if (value.node >= count) this.sharedValues.delete(key);
  }

  /** The value `make` returns (it must add exactly the nodes of that value), made once per `key`. */
  shared(key: string, make: () => string): string {
    const known = this.sharedValues.get(key);
    if (known) return known.name;
    const node = this.nodes.length;
    const name = make();
    this.sharedValues.set(key, { name, node });
    return name;
  }

  reserve(name: string): string {
    let unique = name;
    for (let k = 1; this.used.has(unique); k++) unique = `${name}:${k}`;
    this.used.add(unique);
    return unique;
  }

  private fresh(hint: string): string {
    return this.reserve(`${this.current.name}/${hint}_${this.counter++}`);
  }

  /** An intermediate node; returns its output name. */
  add(opType: string, inputs: readonly string[], attributes?: Record<string, OnnxAttributeValue>): string {
    return this.addN(opType, inputs, 1, attributes)[0]!;
  }

  /** An intermediate node with `count` outputs. */
  addN(
    opType: string,
    inputs: readonly string[],
    count: number,
    attributes?: Record<string, OnnxAttributeValue>,
  ): string[] {
    const names = Array.from({ length: count }, () => this.fresh(opType));
    this.nodes.push({
      name: this.nodeName(`${this.current.name}/${opType}_${this.counter++}`),
      opType,
      inputs,
      outputs: names,
      attributes,
    });
    return names;
  }

  /** The node that produces the TenniS node's value: named after it (unique), writing `this.out`. */
  final(opType: string, inputs: readonly string[], attributes?: Record<string, OnnxAttributeValue>): string {
    this.nodes.push({ name: this.nodeName(this.current.name), opType, inputs, outputs: [this.out], attributes });
    return this.out;
  }

  /** A constant initializer. */
  tensor(dtype: OnnxDTypeName, dims: number[], data: OnnxTensorInput["data"], hint = "const"): string {
    const name = this.fresh(hint);
    this.initializers.push({ name, dtype, dims, data });
    return name;
  }

  int64(values: readonly number[], scalar = false): string {
    for (const v of values) if (!Number.isSafeInteger(v)) throw new Unconvertible(`${v} is not an integer setting`);
    return this.tensor(
      "int64",
      scalar ? [] : [values.length],
      values.map((v) => BigInt(v)),
    );
  }

  float(values: readonly number[], scalar = false): string {
    return this.tensor("float32", scalar ? [] : [values.length], new Float32Array(values));
  }
}

/** Reads a TenniS attribute as a flat list of numbers. */
export function numbers(value: unknown, what: string): number[] {
  const out: number[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "number") out.push(v);
    else if (typeof v === "bigint") out.push(Number(v));
    else if (typeof v === "boolean") out.push(v ? 1 : 0);
    else if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) out.push(Number(v));
    else throw new Unconvertible(`${what} is not numeric`);
  };
  walk(value);
  return out;
}

function fieldNumbers(field: TsmField): number[] {
  if (!isLoaded(field.data)) throw new Unconvertible("a constant was not loaded (use read(), not readFrom())");
  // typed by the field's dtype whatever array holds the bytes (a caller may hand in a raw Uint8Array view)
  const typed = viewAs(field.dtype, bytesOf(field.data));
  return Array.from(typed as ArrayLike<number | bigint>, (v) => Number(v));
}

/** The numbers of a <const> value (its single field). */
export function constNumbers(value: Value, what: string): number[] {
  if (!value.constFields || value.constFields.length !== 1)
    throw new Unconvertible(`${what} must be a <const> (it comes from ${value.node.op} "${value.node.name}")`);
  return fieldNumbers(value.constFields[0]!);
}

export interface Translation {
  (ctx: OnnxContext, node: TsmGraphNode, inputs: Value[], read: (v: Value) => string): Partial<Value> | void;
}
