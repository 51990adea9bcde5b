/**
 * ONNX reading, the graph level: value types and infos, attributes, nodes and graphs (with subgraphs), and the
 * nodes parsed on the first access to `graph.nodes`.
 */
import { LimitError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import {
  ATTRIBUTE_TYPES,
  type OnnxAttribute,
  type OnnxAttributeType,
  type OnnxFrame,
  type OnnxGraph,
  type OnnxNode,
  type OnnxValueInfo,
  type OnnxValueType,
} from "./model.js";
import {
  ATTRIBUTE,
  DIMENSION,
  GRAPH,
  NODE,
  TENSOR_SHAPE,
  TYPE,
  TYPE_MAP,
  TYPE_OPTIONAL,
  TYPE_SEQUENCE,
  TYPE_SPARSE_TENSOR,
  TYPE_TENSOR,
  VALUE_INFO,
} from "./schema.js";
import { ProtoCursor, WIRE_FIXED32, WIRE_LEN, WIRE_VARINT } from "./wire.js";
import { type Context, nested, otherField, recordMessage, repeatedFloat, repeatedInt64 } from "./reader-context.js";
import { parseSparse, parseTensor } from "./reader-tensor.js";
import { scanHi, scanLo, scanNode, scanVarint } from "./reader-scan.js";

function parseShape(ctx: Context, c: ProtoCursor): (number | string | null)[] {
  const shape: (number | string | null)[] = [];
  for (let head = c.next(); head; head = c.next()) {
    if (head.field !== 1) {
      otherField(ctx, c, head, TENSOR_SHAPE);
      continue;
    }
    shape.push(
      nested(ctx, c, head, `${c.path}.dim[${shape.length}]`, (dim) => {
        let value: number | string | null = null;
        for (let h = dim.next(); h; h = dim.next()) {
          if (h.field === 1) {
            dim.expect(h, WIRE_VARINT, "dim_value");
            value = dim.int64(`${dim.path}.dim_value`);
          } else if (h.field === 2) value = dim.text(h, "dim_param");
          else otherField(ctx, dim, h, DIMENSION);
        }
        return value;
      }),
    );
  }
  return shape;
}

function parseTensorType(ctx: Context, c: ProtoCursor, kind: "tensor" | "sparse_tensor"): OnnxValueType {
  const type: OnnxValueType = { kind };
  for (let head = c.next(); head; head = c.next()) {
    if (head.field === 1) {
      c.expect(head, WIRE_VARINT, "elem_type");
      type.elemType = c.int32(`${c.path}.elem_type`);
    } else if (head.field === 2)
      type.shape = nested(ctx, c, head, `${c.path}.shape`, (inner) => parseShape(ctx, inner));
    else otherField(ctx, c, head, kind === "tensor" ? TYPE_TENSOR : TYPE_SPARSE_TENSOR);
  }
  return type;
}

/** TypeProto.Sequence / Optional (field 1 elem_type) and Map (1 key_type, 2 value_type): the kind and what it holds. */
function parseContainerType(ctx: Context, c: ProtoCursor, kind: "sequence" | "map" | "optional"): OnnxValueType {
  const type: OnnxValueType = { kind };
  const message = kind === "sequence" ? TYPE_SEQUENCE : kind === "map" ? TYPE_MAP : TYPE_OPTIONAL;
  for (let head = c.next(); head; head = c.next()) {
    if (kind === "map" && head.field === 1) {
      c.expect(head, WIRE_VARINT, "key_type");
      type.keyType = c.int32(`${c.path}.key_type`);
    } else if ((kind === "map" && head.field === 2) || (kind !== "map" && head.field === 1)) {
      const name = kind === "map" ? "value_type" : "elem_type";
      type.elem = nested(ctx, c, head, `${c.path}.${name}`, (inner) => parseType(ctx, inner));
    } else otherField(ctx, c, head, message);
  }
  return type;
}

const CONTAINER_KINDS: Record<number, "sequence" | "map" | "optional"> = { 4: "sequence", 5: "map", 9: "optional" };

function parseType(ctx: Context, c: ProtoCursor): OnnxValueType {
  let type: OnnxValueType = { kind: "unknown" };
  for (let head = c.next(); head; head = c.next()) {
    const container = CONTAINER_KINDS[head.field];
    if (head.field === 1)
      type = nested(ctx, c, head, `${c.path}.tensor_type`, (inner) => parseTensorType(ctx, inner, "tensor"));
    else if (head.field === 8)
      type = nested(ctx, c, head, `${c.path}.sparse_tensor_type`, (inner) =>
        parseTensorType(ctx, inner, "sparse_tensor"),
      );
    else if (container)
      type = nested(ctx, c, head, `${c.path}.${container}_type`, (inner) => parseContainerType(ctx, inner, container));
    else otherField(ctx, c, head, TYPE); // 6 denotation, 7 opaque_type (onnx-ml)
  }
  return type;
}

function parseValueInfo(ctx: Context, c: ProtoCursor): OnnxValueInfo {
  const info: OnnxValueInfo = { name: "", type: { kind: "unknown" }, docString: "" };
  for (let head = c.next(); head; head = c.next()) {
    if (head.field === 1) info.name = c.text(head, "name");
    else if (head.field === 2) info.type = nested(ctx, c, head, `${c.path}.type`, (inner) => parseType(ctx, inner));
    else if (head.field === 3) info.docString = c.text(head, "doc_string");
    else otherField(ctx, c, head, VALUE_INFO); // 4 metadata_props
  }
  return info;
}

// ------------------------------------------------------------------------------------- nodes and graphs

const TYPE_BY_FIELD: Record<number, OnnxAttributeType> = {
  2: "FLOAT",
  3: "INT",
  4: "STRING",
  5: "TENSOR",
  6: "GRAPH",
  7: "FLOATS",
  8: "INTS",
  9: "STRINGS",
  10: "TENSORS",
  11: "GRAPHS",
  22: "SPARSE_TENSOR",
  23: "SPARSE_TENSORS",
  14: "TYPE_PROTO",
  15: "TYPE_PROTOS",
};

function parseAttribute(ctx: Context, c: ProtoCursor, graphDepth: number): OnnxAttribute {
  const a: OnnxAttribute = { name: "", type: "UNDEFINED" };
  let declared = -1;
  let inferred: OnnxAttributeType = "UNDEFINED";
  const p = c.path;
  for (let head = c.next(); head; head = c.next()) {
    if (TYPE_BY_FIELD[head.field] && inferred === "UNDEFINED") inferred = TYPE_BY_FIELD[head.field]!;
    switch (head.field) {
      case 1:
        a.name = c.text(head, "name");
        break;
      case 20:
        c.expect(head, WIRE_VARINT, "type");
        declared = c.int32(`${p}.type`);
        break;
      case 2:
        c.expect(head, WIRE_FIXED32, "f");
        a.f = c.float(`${p}.f`);
        break;
      case 3:
        c.expect(head, WIRE_VARINT, "i");
        a.i = c.int64(`${p}.i`);
        break;
      case 4:
        a.s = c.text(head, "s");
        break;
      case 5:
        a.t = nested(ctx, c, head, `${p}.t`, (inner) => parseTensor(ctx, inner));
        break;
      case 6:
        a.g = nested(ctx, c, head, `${p}.g`, (inner) => parseGraph(ctx, inner, graphDepth + 1));
        break;
      case 7:
        repeatedFloat(c, head, `${p}.floats`, (a.floats ??= []));
        break;
      case 8:
        repeatedInt64(c, head, `${p}.ints`, (a.ints ??= []));
        break;
      case 9:
        (a.strings ??= []).push(c.text(head, "strings"));
        break;
      case 10: {
        const list = (a.tensors ??= []);
        list.push(nested(ctx, c, head, `${p}.tensors[${list.length}]`, (inner) => parseTensor(ctx, inner)));
        break;
      }
      case 11: {
        const list = (a.graphs ??= []);
        list.push(
          nested(ctx, c, head, `${p}.graphs[${list.length}]`, (inner) => parseGraph(ctx, inner, graphDepth + 1)),
        );
        break;
      }
      case 13:
        a.docString = c.text(head, "doc_string");
        break;
      case 21:
        a.refAttrName = c.text(head, "ref_attr_name");
        break;
      case 22:
        a.sparseTensor = nested(ctx, c, head, `${p}.sparse_tensor`, (inner) => parseSparse(ctx, inner));
        break;
      default:
        otherField(ctx, c, head, ATTRIBUTE); // 14 tp, 15 type_protos, 23 sparse_tensors: known, kept as bytes
    }
  }
  a.type = declared >= 0 && declared < ATTRIBUTE_TYPES.length ? ATTRIBUTE_TYPES[declared]! : inferred;
  return a;
}

function parseNode(ctx: Context, c: ProtoCursor, graphDepth: number): OnnxNode {
  const node: OnnxNode = { name: "", opType: "", domain: "", inputs: [], outputs: [], attributes: [], docString: "" };
  const p = c.path;
  for (let head = c.next(); head; head = c.next()) {
    switch (head.field) {
      case 1:
        node.inputs.push(c.text(head, "input"));
        break;
      case 2:
        node.outputs.push(c.text(head, "output"));
        break;
      case 3:
        node.name = c.text(head, "name");
        break;
      case 4:
        node.opType = c.text(head, "op_type");
        break;
      case 5:
        node.attributes.push(
          nested(ctx, c, head, `${p}.attribute[${node.attributes.length}]`, (inner) =>
            parseAttribute(ctx, inner, graphDepth),
          ),
        );
        break;
      case 6:
        node.docString = c.text(head, "doc_string");
        break;
      case 7:
        node.domain = c.text(head, "domain");
        break;
      default:
        otherField(ctx, c, head, NODE); // 8 overload, 9 metadata_props, 10 device_configurations
    }
  }
  return node;
}

export function parseGraph(ctx: Context, c: ProtoCursor, depth: number): OnnxGraph {
  if (depth > ctx.maxGraphDepth) {
    throw new LimitError(
      ctx.r.format,
      `subgraphs nested deeper than ${ctx.maxGraphDepth}`,
      ctx.frames[ctx.frames.length - 1]?.tagAt,
      c.path,
      depth,
      ctx.maxGraphDepth,
    );
  }
  const g: OnnxGraph = {
    name: "",
    docString: "",
    nodes: [],
    initializers: [],
    sparseInitializers: [],
    inputs: [],
    outputs: [],
    valueInfo: [],
  };
  const p = c.path;
  const bytes = ctx.lazyBytes;
  /** The nodes: parsed, or the offset in `frames` of one whose parse waits for the first access to `nodes`. */
  const nodes: (OnnxNode | number)[] = [];
  const frames: number[] = [];
  for (let head = c.next(); head; head = c.next()) {
    switch (head.field) {
      case 1: {
        if (bytes && head.wire === WIRE_LEN) {
          // the node's frame, and a scan that vouches that parsing it will not fail (else it is parsed now)
          const lengthAt = c.pos;
          const bodyStart = scanVarint(bytes, lengthAt, c.end);
          const length = scanHi === 0 ? scanLo >>> 0 : -1;
          if (
            bodyStart > 0 &&
            length >= 0 &&
            length <= c.end - bodyStart &&
            scanNode(bytes, bodyStart, bodyStart + length, c.depth + 1)
          ) {
            nodes.push(frames.length);
            frames.push(head.tagAt, lengthAt, bodyStart, bodyStart + length);
            c.r.pos = bodyStart + length;
            break;
          }
        }
        nodes.push(nested(ctx, c, head, `${p}.node[${nodes.length}]`, (inner) => parseNode(ctx, inner, depth)));
        break;
      }
      case 2:
        g.name = c.text(head, "name");
        break;
      case 5:
        g.initializers.push(
          nested(ctx, c, head, `${p}.initializer[${g.initializers.length}]`, (inner) => parseTensor(ctx, inner)),
        );
        break;
      case 10:
        g.docString = c.text(head, "doc_string");
        break;
      case 11:
        g.inputs.push(nested(ctx, c, head, `${p}.input[${g.inputs.length}]`, (inner) => parseValueInfo(ctx, inner)));
        break;
      case 12:
        g.outputs.push(nested(ctx, c, head, `${p}.output[${g.outputs.length}]`, (inner) => parseValueInfo(ctx, inner)));
        break;
      case 13:
        g.valueInfo.push(
          nested(ctx, c, head, `${p}.value_info[${g.valueInfo.length}]`, (inner) => parseValueInfo(ctx, inner)),
        );
        break;
      case 15:
        g.sparseInitializers.push(
          nested(ctx, c, head, `${p}.sparse_initializer[${g.sparseInitializers.length}]`, (inner) =>
            parseSparse(ctx, inner),
          ),
        );
        break;
      default:
        otherField(ctx, c, head, GRAPH); // 14 quantization_annotation, 16 metadata_props
    }
  }
  if (frames.length === 0) g.nodes = nodes as OnnxNode[];
  else {
    const later: LazyNodes = {
      ctx,
      frames: ctx.frames.slice(),
      nodes,
      offsets: frames,
      depth,
      cursorDepth: c.depth + 1,
      top: c.top,
      path: p,
    };
    lazyNodes(g, later);
  }
  return g;
}

// --------------------------------------------------------------------------------- nodes parsed on access

/**
 * A graph's nodes as read() found them: the ones already parsed and the frames (tag, length, body start and end
 * offsets, four numbers each) of the ones scanNode vouched for, parsed on the first access to `graph.nodes`.
 */
interface LazyNodes {
  ctx: Context;
  /** The frames enclosing the graph's nodes (the graph's own last). */
  frames: OnnxFrame[];
  nodes: (OnnxNode | number)[];
  offsets: number[];
  /** The graph's subgraph depth (parseNode's). */
  depth: number;
  /** The nodes' cursor depth and the outermost message's end (ProtoCursor's). */
  cursorDepth: number;
  top: number;
  /** The graph's field path. */
  path: string;
}

/** Node's util.inspect hook (a symbol in the global registry): set on a graph whose nodes are not parsed yet. */
const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** The graphs whose nodes wait for their first access, with what parses them. */
const waitingNodes = new WeakMap<object, LazyNodes>();

/** The graph (`object` or one it inherits from) whose nodes wait, or undefined. */
function waitingGraph(object: object): OnnxGraph | undefined {
  for (let o: object | null = object; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    if (waitingNodes.has(o)) return o as OnnxGraph;
  }
  return undefined;
}

/** `nodes` becomes a plain data property of `g` (holding `nodes`), as parseGraph would have made it. */
function settleNodes(g: OnnxGraph, nodes: OnnxNode[]): void {
  waitingNodes.delete(g);
  Reflect.deleteProperty(g, INSPECT);
  Object.defineProperty(g, "nodes", { value: nodes, writable: true, enumerable: true, configurable: true });
}

// the accessor and the inspect hook: one set of functions for every graph (the state is in waitingNodes)
function getNodes(this: OnnxGraph): OnnxNode[] {
  const g = waitingGraph(this);
  if (!g) return [];
  const nodes = parseLaterNodes(waitingNodes.get(g)!);
  settleNodes(g, nodes);
  return nodes;
}
function setNodes(this: OnnxGraph, nodes: OnnxNode[]): void {
  if (waitingNodes.has(this)) settleNodes(this, nodes);
  else Object.defineProperty(this, "nodes", { value: nodes, writable: true, enumerable: true, configurable: true });
}
/** util.inspect's hook: parse, then let util.inspect show the graph as it shows any object (returning `this` does that). */
function inspectNodes(this: OnnxGraph): OnnxGraph {
  void this.nodes;
  return this;
}

/**
 * Makes `graph.nodes` parse its nodes on first access (reading, spreading, JSON.stringify, util.inspect: the
 * object looks the same as one parsed at once), then become a plain data property; assigning it first drops the
 * parse.
 */
export function lazyNodes(g: OnnxGraph, later: LazyNodes): void {
  waitingNodes.set(g, later);
  Object.defineProperty(g, "nodes", { enumerable: true, configurable: true, get: getNodes, set: setNodes });
  Object.defineProperty(g, INSPECT, { enumerable: false, configurable: true, writable: true, value: inspectNodes });
}

function parseLaterNodes(later: LazyNodes): OnnxNode[] {
  const { ctx: readCtx, offsets } = later;
  const r = new ByteReader(readCtx.lazyBytes!, readCtx.r.format);
  const ctx: Context = { ...readCtx, r, unknown: 0, frames: later.frames.slice() };
  return later.nodes.map((entry, i) => {
    if (typeof entry !== "number") return entry;
    const frame: OnnxFrame = {
      tagAt: offsets[entry]!,
      lengthAt: offsets[entry + 1]!,
      lengthBytes: offsets[entry + 2]! - offsets[entry + 1]!,
      bodyStart: offsets[entry + 2]!,
      bodyEnd: offsets[entry + 3]!,
    };
    ctx.frames.push(frame);
    const node = parseNode(
      ctx,
      new ProtoCursor(r, frame.bodyStart, frame.bodyEnd, later.cursorDepth, `${later.path}.node[${i}]`, later.top),
      later.depth,
    );
    ctx.frames.pop();
    recordMessage(node, frame, ctx.origin);
    return node;
  });
}

/**
 * Visits the nodes of `g` while they wait for their first access (its own `nodes`, not one it inherits), in order:
 * a parsed node, or (`node` undefined) the body [start, end) in `bytes` of one scanNode vouched for. False, visiting
 * nothing, once `g.nodes` was read or assigned. Parses nothing (tensors() takes Constants' weights from the bodies:
 * scannedConstant).
 */
export function visitWaitingNodes(
  g: OnnxGraph,
  visit: (node: OnnxNode | undefined, bytes: Uint8Array, start: number, end: number, index: number) => void,
): boolean {
  const later = waitingNodes.get(g);
  if (!later) return false;
  const { offsets } = later;
  const bytes = later.ctx.lazyBytes!;
  later.nodes.forEach((entry, i) => {
    if (typeof entry === "number") visit(undefined, bytes, offsets[entry + 2]!, offsets[entry + 3]!, i);
    else visit(entry, bytes, 0, 0, i);
  });
  return true;
}
