/**
 * tsm.create: a TenniS module from plain node descriptions, as write()/writeCsta() take it. Each node becomes
 * params `#op`, `#name` (char8 strings), then its attributes in the given order, then a `<const>`'s `value`;
 * inputs and outputs may name nodes or give their indices.
 */
import { bytesOf, dtypeBytes, elementCount, isStandardDType, type DType, type TypedArray } from "../../tensor.js";
import { MODULE_CODE, type TsmField, type TsmModule, type TsmNode, type TsmParam } from "./module.js";
import { tsmDTypeCode } from "./dtypes.js";

/** A field as given: `{ dtype, shape, data }` (a NamedTensor or a TsmField) or a string (stored as char8). */
export type TsmFieldInput =
  | {
      /** The element type. */
      dtype: DType;
      /** The shape (`[]` for a scalar). */
      shape: readonly number[];
      /** The values, row-major. */
      data: TypedArray;
    }
  | string;

/** One node for {@link create}. */
export interface TsmNodeInput {
  /** `<param>` (an input), `<const>`, or an operator name such as `inner_prod`. */
  op: string;
  /** Its `#name` (how other nodes and the module's inputs and outputs refer to it). */
  name: string;
  /** Input nodes, by name or index. */
  inputs?: readonly (string | number)[] | undefined;
  /** Attributes in file order; a value that is an array of fields is a packed tensor. */
  params?: Readonly<Record<string, TsmFieldInput | readonly TsmFieldInput[]>> | undefined;
  /** A `<const>` node's tensor (its `value` param). */
  value?: TsmFieldInput | undefined;
}

/** What {@link create} builds a module from. */
export interface TsmCreateInput {
  /** The nodes, in the order they are stored. */
  nodes: readonly TsmNodeInput[];
  /** Module inputs (node names or indices), in the order the runtime feeds them. */
  inputs: readonly (string | number)[];
  /** Module outputs (node names or indices). */
  outputs: readonly (string | number)[];
}

function field(input: TsmFieldInput, where: string): TsmField {
  if (typeof input === "string") {
    const data = new TextEncoder().encode(input);
    return { dtype: "char8", shape: [data.length], data };
  }
  if (
    typeof input !== "object" ||
    input === null ||
    typeof input.dtype !== "string" ||
    !Array.isArray(input.shape as unknown) ||
    !ArrayBuffer.isView(input.data)
  ) {
    throw new TypeError(`tsm.create: ${where} is a string or { dtype, shape, data } with a typed array`);
  }
  if (tsmDTypeCode(input.dtype) === undefined)
    throw new TypeError(`tsm.create: ${where} has dtype ${input.dtype}, which TenniS cannot store`);
  for (const d of input.shape) {
    if (!Number.isInteger(d) || d < 0 || d > 0xffffffff)
      throw new RangeError(`tsm.create: ${where} has a bad dimension ${d} in [${input.shape.join(", ")}]`);
  }
  const want = elementCount(input.shape) * dtypeBytes(input.dtype);
  if (input.data.byteLength !== want) {
    throw new RangeError(
      `tsm.create: ${where} is ${input.dtype} [${input.shape.join(", ")}], which needs ${want} bytes; its data has ${input.data.byteLength}`,
    );
  }
  return {
    dtype: input.dtype,
    shape: input.shape.slice(),
    data: isStandardDType(input.dtype) ? input.data : bytesOf(input.data),
  };
}

function fields(input: TsmFieldInput | readonly TsmFieldInput[], where: string): TsmField[] {
  if (Array.isArray(input)) {
    if (input.length === 0) throw new RangeError(`tsm.create: ${where} is an empty list of fields`);
    return input.map((f, i) => field(f as TsmFieldInput, `${where}[${i}]`));
  }
  return [field(input as TsmFieldInput, where)];
}

/** A TenniS module that write() (or writeCsta()) takes as it is. */
export function create(input: TsmCreateInput): TsmModule {
  if (typeof input !== "object" || input === null || !Array.isArray(input.nodes as unknown)) {
    throw new TypeError("tsm.create() takes { nodes: [{ op, name, inputs?, params?, value? }, …], inputs, outputs }");
  }
  const indexByName = new Map<string, number>();
  input.nodes.forEach((node, i) => {
    if (typeof node?.op !== "string" || typeof node.name !== "string")
      throw new TypeError(`tsm.create: node ${i} needs an op and a name (strings)`);
    if (indexByName.has(node.name))
      throw new RangeError(`tsm.create: two nodes are named "${node.name}" (${indexByName.get(node.name)} and ${i})`);
    indexByName.set(node.name, i);
  });
  const resolve = (ref: string | number, where: string): number => {
    if (typeof ref === "number") {
      if (!Number.isInteger(ref) || ref < 0 || ref >= input.nodes.length)
        throw new RangeError(`tsm.create: ${where} refers to node ${ref}; there are ${input.nodes.length}`);
      return ref;
    }
    const index = indexByName.get(ref);
    if (index === undefined) throw new RangeError(`tsm.create: ${where} refers to "${ref}", which is no node's name`);
    return index;
  };
  const nodes: TsmNode[] = input.nodes.map((node, i) => {
    const where = `node ${i} (${node.name})`;
    const params: TsmParam[] = [
      { key: "#op", fields: [field(node.op, `${where} #op`)] },
      { key: "#name", fields: [field(node.name, `${where} #name`)] },
    ];
    for (const [key, value] of Object.entries(node.params ?? {}) as [
      string,
      TsmFieldInput | readonly TsmFieldInput[],
    ][]) {
      if (key === "#op" || key === "#name" || (key === "value" && node.value !== undefined))
        throw new RangeError(`tsm.create: ${where} gives ${key} twice`);
      params.push({ key, fields: fields(value, `${where} ${key}`) });
    }
    if (node.value !== undefined) {
      if (node.op !== "<const>")
        throw new RangeError(`tsm.create: ${where} has a value but its op is ${node.op}, not <const>`);
      params.push({ key: "value", fields: fields(node.value, `${where} value`) });
    } else if (node.op === "<const>" && !params.some((p) => p.key === "value")) {
      throw new RangeError(`tsm.create: ${where} is a <const> without a value`);
    }
    const refs: readonly (string | number)[] = node.inputs ?? [];
    return { params, inputs: refs.map((ref, j) => resolve(ref, `${where} input ${j}`)) };
  });
  return {
    header: { fake: 0, code: MODULE_CODE, reserved: new Uint8Array(120) },
    inputs: input.inputs.map((ref, j) => resolve(ref, `module input ${j}`)),
    outputs: input.outputs.map((ref, j) => resolve(ref, `module output ${j}`)),
    nodes,
  };
}
