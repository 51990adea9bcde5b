/**
 * ONNX reading, the shared state: the read context, the frame and origin of each message read() built, and the
 * field helpers every message parser uses (nested messages, strings, unknown fields, repeated numbers).
 */
import { CorruptDataError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import type { OnnxFrame } from "./model.js";
import { type MessageSchema, wireMatches } from "./schema.js";
import { type FieldHead, type LenSpan, ProtoCursor, WIRE_FIXED32, WIRE_LEN, WIRE_VARINT } from "./wire.js";

/**
 * Counts the packed varints of [offset, offset + length) without going through the reader's backing (a lazy open
 * of a local file streams a large payload instead of keeping it), or undefined to let the reader read them.
 */
export type VarintCounter = (offset: number, length: number, field: string) => number | undefined;

export interface Context {
  r: ByteReader;
  eager: boolean;
  /** Count the entries of varint-typed fields (reads their payloads): read(), and an .april's lazy open. */
  countVarints: boolean;
  varintCounter: VarintCounter | undefined;
  maxGraphDepth: number;
  unknown: number;
  /** Frames enclosing the message being read (outermost first). */
  frames: OnnxFrame[];
  /** Told every message object read and its frame (edit.ts: the write-time snapshot). */
  onMessage: ((message: object, frame: OnnxFrame) => void) | undefined;
  /** What the frames are offsets of (messageOrigins). */
  origin: object;
  /**
   * The bytes of the whole input when graphs index their nodes and parse them on first access (read(): see
   * scanNode and lazyNodes below); undefined: every node is parsed as it is met.
   */
  lazyBytes: Uint8Array | undefined;
}

/**
 * The frame of every message object read() built (nodes, graphs, attributes, tensors, value infos, types, shapes,
 * opset and metadata entries): write() compares an object with the message at its frame and copies the stored
 * bytes of every message that did not change (edit.ts).
 */
export const messageFrames: Pick<WeakMap<object, OnnxFrame>, "get" | "has"> = {
  get: (message) => messageRecords.get(message)?.frame,
  has: (message) => messageRecords.has(message),
};
/** What each message object was read from (parseModel's `origin`: the bytes read() was given), so a frame is only used with its own bytes. */
export const messageOrigins: Pick<WeakMap<object, object>, "get"> = {
  get: (message) => messageRecords.get(message)?.origin,
};
/** Both, in one map (an entry in a WeakMap costs more than the small object holding the two). */
const messageRecords = new WeakMap<object, { frame: OnnxFrame; origin: object }>();

/** Records the frame and origin of a message object read() built. */
export function recordMessage(message: object, frame: OnnxFrame, origin: object): void {
  messageRecords.set(message, { frame, origin });
}

/** The object read() builds, before it is handed out with its read-only fields. */
export type Building<T> = { -readonly [K in keyof T]: T[K] };

function frameOf(head: FieldHead, span: LenSpan): OnnxFrame {
  return {
    tagAt: head.tagAt,
    lengthAt: span.lengthAt,
    lengthBytes: span.lengthBytes,
    bodyStart: span.start,
    bodyEnd: span.end,
  };
}

/** Reads the nested message of field `head` with `parse`, keeping the frame stack. */
export function nested<T>(
  ctx: Context,
  c: ProtoCursor,
  head: FieldHead,
  field: string,
  parse: (inner: ProtoCursor) => T,
): T {
  if (head.wire !== WIRE_LEN) c.expect(head, WIRE_LEN, field);
  const span = c.len(field);
  const resume = c.pos;
  const frame = frameOf(head, span);
  ctx.frames.push(frame);
  try {
    const message = parse(new ProtoCursor(c.r, span.start, span.end, c.depth + 1, field, c.top));
    if (typeof message === "object" && message !== null) {
      recordMessage(message, frame, ctx.origin);
      ctx.onMessage?.(message, frame);
    }
    return message;
  } finally {
    ctx.frames.pop();
    c.r.pos = resume;
  }
}

export function str(c: ProtoCursor, head: FieldHead, field: string): string {
  c.expect(head, WIRE_LEN, field);
  return c.string(field);
}

function unknownField(ctx: Context, c: ProtoCursor, head: FieldHead): void {
  ctx.unknown++;
  c.skip(head, `${c.path}.field${head.field}`);
}

/**
 * A field of `message` that the object model does not hold. One onnx.proto declares (schema.ts) must have its
 * declared wire type (CORRUPT otherwise, as for the fields read) and, when it is a message, is walked for the
 * fields inside it that are really unknown; one it does not declare is unknown: counted and skipped (a group
 * through its end group).
 */
export function otherField(ctx: Context, c: ProtoCursor, head: FieldHead, message: MessageSchema): void {
  const spec = message.fields[head.field];
  if (!spec) {
    unknownField(ctx, c, head);
    return;
  }
  const field = `${c.path}.${spec.name}`;
  if (!wireMatches(spec, head.wire)) {
    if (spec.packed) c.expectRepeated(head, spec.wire, spec.name);
    else c.expect(head, spec.wire, spec.name);
  }
  const inner = spec.message;
  if (inner && head.wire === WIRE_LEN) {
    nested(ctx, c, head, field, (body) => {
      for (let h = body.next(); h; h = body.next()) otherField(ctx, body, h, inner);
    });
  } else c.skip(head, field);
}

/** A repeated int64 (packed or not), appended to `out`. */
export function repeatedInt64(c: ProtoCursor, head: FieldHead, field: string, out: number[]): void {
  c.expectRepeated(head, WIRE_VARINT, field);
  if (head.wire === WIRE_VARINT) {
    out.push(c.int64(field));
    return;
  }
  const span = c.len(field);
  const resume = c.pos;
  const inner = new ProtoCursor(c.r, span.start, span.end, c.depth + 1, field, c.top);
  while (!inner.done) out.push(inner.int64(field));
  c.r.pos = resume;
}

export function repeatedFloat(c: ProtoCursor, head: FieldHead, field: string, out: number[]): void {
  c.expectRepeated(head, WIRE_FIXED32, field);
  if (head.wire === WIRE_FIXED32) {
    out.push(c.float(field));
    return;
  }
  const span = c.len(field);
  if ((span.end - span.start) % 4 !== 0)
    throw new CorruptDataError(
      c.r.format,
      `packed floats of ${span.end - span.start} bytes (not a multiple of 4)`,
      span.lengthAt,
      field,
    );
  const resume = c.pos;
  c.r.pos = span.start;
  while (c.r.pos < span.end) out.push(c.r.f32(field));
  c.r.pos = resume;
}
