/**
 * A tiny protobuf codec for tests, independent of the library: it splits an encoded ONNX message into its fields
 * (descending into the message-typed fields it is told about), and writes fields back with fresh lengths. With it
 * the tests write models as protobuf allows but exporters rarely do: fields in any order (repeated fields keep their
 * relative order, as protobuf requires), and unknown fields of every wire type, groups included, in every message.
 */
import { rng } from "./rng.js";

/** One field: a varint / fixed value as bytes (`raw`: the payload as stored), a nested message, or a group. */
export interface PField {
  n: number;
  wire: number;
  /** The payload bytes (varint bytes, 4/8 fixed bytes, or a length-delimited body that is not a known message). */
  raw?: Uint8Array;
  /** A known nested message's fields (wire 2). */
  children?: PField[];
  /** The message type of `children`. */
  type?: string;
  /** A group's fields (wire 3; the end-group tag is written after them). */
  group?: PField[];
}

/** Which fields of each ONNX message (the ones the tests use) are messages, and of which type. */
export const ONNX_MESSAGES: Record<string, Record<number, string>> = {
  Model: { 7: "Graph", 8: "Opset", 14: "Entry" },
  Graph: { 1: "Node", 5: "Tensor", 11: "ValueInfo", 12: "ValueInfo", 13: "ValueInfo", 15: "Sparse" },
  Node: { 5: "Attribute" },
  Attribute: { 5: "Tensor", 6: "Graph", 10: "Tensor", 11: "Graph", 22: "Sparse" },
  Tensor: { 13: "Entry" },
  Sparse: { 1: "Tensor", 2: "Tensor" },
  ValueInfo: { 2: "Type" },
  Type: { 1: "TensorType", 8: "TensorType" },
  TensorType: { 2: "Shape" },
  Shape: { 1: "Dim" },
  Dim: {},
  Opset: {},
  Entry: {},
};

function varintBytes(value: bigint): Uint8Array {
  const out: number[] = [];
  let v = BigInt.asUintN(64, value);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Uint8Array.from(out);
}

function readVarint(bytes: Uint8Array, at: number): { value: bigint; next: number } {
  let value = 0n;
  for (let k = 0; k < 10; k++) {
    const b = bytes[at + k]!;
    value |= BigInt(b & 0x7f) << BigInt(7 * k);
    if ((b & 0x80) === 0) return { value, next: at + k + 1 };
  }
  throw new Error("test codec: bad varint");
}

/** The fields of a message of type `type` (nested known messages split too). */
export function splitFields(bytes: Uint8Array, type: string, messages = ONNX_MESSAGES): PField[] {
  const out: PField[] = [];
  let at = 0;
  const stack: PField[][] = [out];
  while (at < bytes.length) {
    const tag = readVarint(bytes, at);
    at = tag.next;
    const n = Number(tag.value >> 3n);
    const wire = Number(tag.value & 7n);
    const into = stack[stack.length - 1]!;
    if (wire === 0) {
      const v = readVarint(bytes, at);
      into.push({ n, wire, raw: bytes.slice(at, v.next) });
      at = v.next;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      into.push({ n, wire, raw: bytes.slice(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const length = readVarint(bytes, at);
      const body = bytes.slice(length.next, length.next + Number(length.value));
      at = length.next + Number(length.value);
      const sub = stack.length === 1 ? messages[type]?.[n] : undefined;
      into.push(sub ? { n, wire, type: sub, children: splitFields(body, sub, messages) } : { n, wire, raw: body });
    } else if (wire === 3) {
      const group: PField = { n, wire, group: [] };
      into.push(group);
      stack.push(group.group!);
    } else if (wire === 4) {
      stack.pop();
    } else throw new Error(`test codec: wire type ${wire}`);
  }
  return out;
}

/** The encoded bytes of `fields` (lengths computed afresh). */
export function joinFields(fields: readonly PField[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of fields) {
    parts.push(varintBytes(BigInt(f.n) * 8n + BigInt(f.wire)));
    if (f.wire === 3) {
      parts.push(joinFields(f.group ?? []));
      parts.push(varintBytes(BigInt(f.n) * 8n + 4n));
    } else if (f.wire === 2) {
      const body = f.children ? joinFields(f.children) : f.raw!;
      parts.push(varintBytes(BigInt(body.length)), body);
    } else parts.push(f.raw!);
  }
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Unknown fields of every wire type (numbers 90-99: no ONNX message declares them), a nested group included. */
export function unknownFields(seed: number): PField[] {
  const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) & 0xff);
  return [
    { n: 99, wire: 0, raw: varintBytes(BigInt(seed) * 1_000_003n) },
    { n: 98, wire: 1, raw: bytes(8) },
    { n: 97, wire: 2, raw: bytes(seed % 5) },
    { n: 96, wire: 5, raw: bytes(4) },
    {
      n: 95,
      wire: 3,
      group: [
        { n: 1, wire: 0, raw: varintBytes(7n) },
        { n: 2, wire: 2, raw: bytes(3) },
        {
          n: 3,
          wire: 3,
          group: [
            { n: 4, wire: 5, raw: bytes(4) },
            { n: 5, wire: 1, raw: bytes(8) },
          ],
        },
      ],
    },
  ];
}

export interface Hostile {
  /** Interleave the fields of every message at random (each field number's own order kept). */
  shuffle?: boolean;
  /** Insert {@link unknownFields} at random places in every message. */
  unknown?: boolean;
}

/** `fields` rewritten as `how` says, with `seed`; returns the number of unknown fields inserted. */
export function rewrite(fields: PField[], how: Hostile, seed: number): { fields: PField[]; unknownInserted: number } {
  const next = rng(seed);
  let inserted = 0;
  const visit = (list: PField[]): PField[] => {
    let out = list.map((f) => (f.children ? { ...f, children: visit(f.children) } : f));
    if (how.unknown) {
      for (const u of unknownFields(Math.floor(next() * 1000))) {
        out.splice(Math.floor(next() * (out.length + 1)), 0, u);
        inserted++;
      }
    }
    if (how.shuffle) {
      // a random interleaving of the per-number queues: repeated fields keep their order
      const queues = new Map<number, PField[]>();
      for (const f of out) queues.set(f.n, [...(queues.get(f.n) ?? []), f]);
      const shuffled: PField[] = [];
      const numbers = [...queues.keys()];
      while (numbers.length > 0) {
        const k = Math.floor(next() * numbers.length);
        const q = queues.get(numbers[k]!)!;
        shuffled.push(q.shift()!);
        if (q.length === 0) numbers.splice(k, 1);
      }
      out = shuffled;
    }
    return out;
  };
  return { fields: visit(fields), unknownInserted: inserted };
}

/** An encoded ONNX ModelProto rewritten as `how` says. */
export function hostileModel(
  bytes: Uint8Array,
  how: Hostile,
  seed: number,
): { bytes: Uint8Array; unknownInserted: number } {
  const { fields, unknownInserted } = rewrite(splitFields(bytes, "Model"), how, seed);
  return { bytes: joinFields(fields), unknownInserted };
}

/** An encoded ModelProto with its top-level field `n` moved to the end (e.g. ir_version after the graph). */
export function moveFieldLast(bytes: Uint8Array, n: number): Uint8Array {
  const fields = splitFields(bytes, "Model");
  return joinFields([...fields.filter((f) => f.n !== n), ...fields.filter((f) => f.n === n)]);
}
