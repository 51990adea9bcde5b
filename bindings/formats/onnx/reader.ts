/**
 * ONNX reading: walks ModelProto → GraphProto → NodeProto/AttributeProto/TensorProto with the strict cursor of
 * wire.ts, building the object model of model.ts. Tensor payloads (raw_data, the typed fields) are only
 * bounds-checked and recorded as ranges, so readFrom() fetches headers only. Every TensorProto is checked: data
 * type known when it carries data, dims non-negative, dims × element size = stored bytes (raw_data, and the typed
 * fields' element counts: packed float/double by their length; varints by counting them in read(), and when the
 * weight is decoded after a lazy open, which fetches no payload), one storage, external locations inside the
 * model's folder.
 *
 * This module holds the entry points (parseModel, parseTensorProto, looksLikeModel); the parsers live beside it:
 * reader-context.ts (shared state and field helpers), reader-tensor.ts, reader-graph.ts (types, attributes, nodes,
 * graphs, nodes parsed on access) and reader-scan.ts (the node scan).
 */
import { CorruptDataError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import { MAX_GRAPH_DEPTH, type OnnxFrame, type OnnxModel, type OnnxTensor } from "./model.js";
import {
  ATTRIBUTE,
  GRAPH,
  type MessageSchema,
  MODEL,
  NODE,
  OPERATOR_SET_ID,
  STRING_STRING_ENTRY,
  TENSOR,
  wireMatches,
} from "./schema.js";
import {
  headVarint,
  MAX_MESSAGE_DEPTH,
  ProtoCursor,
  WIRE_END_GROUP,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_START_GROUP,
  WIRE_VARINT,
} from "./wire.js";
import { type Building, type Context, type VarintCounter, nested, otherField, str } from "./reader-context.js";
import { parseTensor } from "./reader-tensor.js";
import { parseGraph } from "./reader-graph.js";

export { type VarintCounter, messageFrames, messageOrigins } from "./reader-context.js";
export { externalLocationProblem } from "./reader-tensor.js";

/** Parses a ModelProto in [start, end) of the reader's bytes (an .april network passes its range). */
export function parseModel(
  r: ByteReader,
  options: {
    eager: boolean;
    countVarints?: boolean;
    varintCounter?: VarintCounter | undefined;
    start?: number;
    end?: number;
    maxGraphDepth?: number | undefined;
    root?: string;
    onMessage?: ((message: object, frame: OnnxFrame) => void) | undefined;
    /** The bytes being read when they are in memory (read()): write() copies an object's stored message only from them. */
    origin?: Uint8Array | undefined;
    /**
     * The whole input (read()): graphs check their nodes with a scan and parse them on the first access to
     * `graph.nodes` (see lazyNodes). Not with onMessage, which is told every message as it is read.
     */
    lazyNodes?: Uint8Array | undefined;
  },
): OnnxModel {
  const start = options.start ?? 0;
  const end = options.end ?? r.fileSize;
  const ctx: Context = {
    r,
    eager: options.eager,
    countVarints: options.countVarints ?? options.eager,
    varintCounter: options.varintCounter,
    maxGraphDepth: options.maxGraphDepth ?? MAX_GRAPH_DEPTH,
    unknown: 0,
    frames: [],
    onMessage: options.onMessage,
    origin: options.origin ?? r,
    lazyBytes: options.onMessage ? undefined : options.lazyNodes,
  };
  const root = options.root ?? "model";
  const c = new ProtoCursor(r, start, end, 0, root);
  const model: Building<OnnxModel> = {
    irVersion: 0,
    producerName: "",
    producerVersion: "",
    domain: "",
    modelVersion: 0,
    docString: "",
    opsetImports: [],
    metadataProps: [],
    graph: undefined,
    functionCount: 0,
    unknownFieldCount: 0,
    span: { byteOffset: start, byteLength: end - start },
  };
  let sawGraph = false;
  for (let head = c.next(); head; head = c.next()) {
    switch (head.field) {
      case 1:
        c.expect(head, WIRE_VARINT, "ir_version");
        model.irVersion = c.int64(`${root}.ir_version`);
        break;
      case 2:
        model.producerName = str(c, head, `${root}.producer_name`);
        break;
      case 3:
        model.producerVersion = str(c, head, `${root}.producer_version`);
        break;
      case 4:
        model.domain = str(c, head, `${root}.domain`);
        break;
      case 5:
        c.expect(head, WIRE_VARINT, "model_version");
        model.modelVersion = c.int64(`${root}.model_version`);
        break;
      case 6:
        model.docString = str(c, head, `${root}.doc_string`);
        break;
      case 7:
        if (sawGraph) throw new CorruptDataError(r.format, "a second graph", head.tagAt, `${root}.graph`);
        sawGraph = true;
        model.graph = nested(ctx, c, head, `${root}.graph`, (inner) => parseGraph(ctx, inner, 0));
        break;
      case 8:
        model.opsetImports.push(
          nested(ctx, c, head, `${root}.opset_import[${model.opsetImports.length}]`, (inner) => {
            const opset = { domain: "", version: 0 };
            for (let h = inner.next(); h; h = inner.next()) {
              if (h.field === 1) opset.domain = inner.text(h, "domain");
              else if (h.field === 2) {
                inner.expect(h, WIRE_VARINT, "version");
                opset.version = inner.int64(`${inner.path}.version`);
              } else otherField(ctx, inner, h, OPERATOR_SET_ID);
            }
            return opset;
          }),
        );
        break;
      case 14:
        model.metadataProps.push(
          nested(ctx, c, head, `${root}.metadata_props[${model.metadataProps.length}]`, (inner) => {
            const entry = { key: "", value: "" };
            for (let h = inner.next(); h; h = inner.next()) {
              if (h.field === 1) entry.key = inner.text(h, "key");
              else if (h.field === 2) entry.value = inner.text(h, "value");
              else otherField(ctx, inner, h, STRING_STRING_ENTRY);
            }
            return entry;
          }),
        );
        break;
      case 25:
        model.functionCount++;
        otherField(ctx, c, head, MODEL);
        break;
      default:
        otherField(ctx, c, head, MODEL); // 20 training_info, 26 configuration
    }
  }
  model.unknownFieldCount = ctx.unknown;
  return model;
}

/**
 * Parses a bare TensorProto in [start, end) of the reader's bytes (an ONNX test data file, `input_0.pb`) with the
 * checks every weight of a model gets; `root` names it in error paths. Returns the tensor and its unknown fields.
 */
export function parseTensorProto(
  r: ByteReader,
  options: { eager: boolean; countVarints?: boolean; start?: number; end?: number; root?: string },
): { tensor: OnnxTensor; unknownFieldCount: number } {
  const start = options.start ?? 0;
  const end = options.end ?? r.fileSize;
  const ctx: Context = {
    r,
    eager: options.eager,
    countVarints: options.countVarints ?? options.eager,
    varintCounter: undefined,
    maxGraphDepth: MAX_GRAPH_DEPTH,
    unknown: 0,
    frames: [],
    onMessage: undefined,
    origin: r,
    lazyBytes: undefined,
  };
  const c = new ProtoCursor(r, start, end, 0, options.root ?? "tensor");
  // the tensor's own frame: its body is the whole range (typed fields are decoded from it)
  ctx.frames.push({ tagAt: start, lengthAt: start, lengthBytes: 0, bodyStart: start, bodyEnd: end });
  const tensor = parseTensor(ctx, c);
  return { tensor, unknownFieldCount: ctx.unknown };
}

/** Highest IR version detection accepts (ONNX 1.22 writes 13). */
const MAX_IR_VERSION = 32;

/**
 * True when `head` (the first bytes) reads as the start of a ModelProto, in any field order: every field seen (in
 * the head) has a protobuf wire type, the one onnx.proto declares when it is a known field (schema.ts), text fields
 * are UTF-8, the known messages seen (graph, node, tensor, …) hold fields by the same rules, groups close with their
 * own field number, lengths stay inside their messages, and an ir_version (1..32) is among the model's fields in
 * the head next to a known length-delimited field (graph, opset_import, a producer string). Unknown fields (a
 * newer ONNX's) are accepted in the model, graph, node, attribute and tensor, up to number 127. Random bytes and
 * other protobuf messages fail it; a model this is unsure of (its ir_version after the head, an unknown field in a
 * small message) can still be read by name: readFromAny, loadFile and the CLI parse a `.onnx` file as ONNX.
 */
/** Highest number of an unknown field detection accepts (ONNX's messages use 1-26 so far). */
const MAX_UNKNOWN_FIELD = 127;
/**
 * The messages in which detection accepts unknown fields (a newer ONNX's): the large ones. In the small ones
 * (opset_import, key/value entries, types) an unknown field in the head makes detection unsure, as random bytes
 * inside a known message would otherwise pass too easily.
 */
const OPEN_MESSAGES = new Set<MessageSchema>([MODEL, GRAPH, NODE, TENSOR, ATTRIBUTE]);
export function looksLikeModel(head: Uint8Array): boolean {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  let i = 0;
  /** A varint at i: its value (numbers up to 2^53; beyond: MAX_SAFE_INTEGER), undefined past the head, -1 when malformed. */
  const varint = (): number | undefined => {
    const read = headVarint(head, i, Number.MAX_SAFE_INTEGER);
    i = read?.next ?? head.length;
    return read?.value;
  };
  let irVersion = false;
  /** The model's known length-delimited fields (graph, opset_import, producer_name, …) that are not empty. */
  let knownMessages = 0;
  /**
   * Checks fields in [i, end) (end may be past the head) of `message`; false on anything a ModelProto cannot hold.
   * `top`: the ModelProto itself.
   */
  const check = (end: number, message: MessageSchema, top: boolean, depth: number): boolean => {
    const stop = Math.min(end, head.length);
    const groups: number[] = [];
    while (i < stop) {
      const tag = varint();
      if (tag === undefined) return true;
      if (tag < 0 || tag > 0xffffffff) return false;
      const field = Math.floor(tag / 8);
      const wire = tag % 8;
      if (field === 0 || wire > 5) return false;
      // inside a group, fields belong to the unknown group's message: any field number, any wire type
      const spec = groups.length === 0 ? message.fields[field] : undefined;
      if (spec && !wireMatches(spec, wire)) return false;
      if (!spec && groups.length === 0 && (field > MAX_UNKNOWN_FIELD || !OPEN_MESSAGES.has(message))) return false;
      if (wire === WIRE_END_GROUP) {
        if (groups.pop() !== field) return false;
        continue;
      }
      if (wire === WIRE_START_GROUP) {
        groups.push(field);
        if (depth + groups.length > MAX_MESSAGE_DEPTH) return false;
        continue;
      }
      if (wire === WIRE_FIXED32 || wire === WIRE_FIXED64) {
        i += wire === WIRE_FIXED32 ? 4 : 8;
        if (i > end) return false; // past the enclosing message
        continue;
      }
      if (wire === WIRE_VARINT) {
        const value = varint();
        if (value === undefined) return true;
        if (value < 0) return false;
        if (top && spec && field === 1) {
          if (value < 1 || value > MAX_IR_VERSION) return false;
          irVersion = true;
        }
        continue;
      }
      const length = varint();
      if (length === undefined) return true;
      if (length < 0) return false;
      const bodyEnd = i + length;
      if (bodyEnd > end) return false; // longer than the enclosing message
      if (top && spec && groups.length === 0 && length > 0) knownMessages++;
      if (spec?.text) {
        try {
          utf8.decode(head.subarray(i, Math.min(bodyEnd, head.length)), { stream: bodyEnd > head.length });
        } catch {
          return false;
        }
      } else if (spec?.message && wire === WIRE_LEN && !spec.packed) {
        if (depth >= MAX_MESSAGE_DEPTH || !check(bodyEnd, spec.message, false, depth + 1)) return false;
      }
      i = bodyEnd;
    }
    // a message that ends inside the head closes its groups
    return groups.length === 0 || end > head.length;
  };
  return check(Number.POSITIVE_INFINITY, MODEL, true, 0) && irVersion && knownMessages >= 1;
}
