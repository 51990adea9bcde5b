/**
 * The lazy-read driver for ONNX (and the networks of an .april file). The synchronous parser of reader.ts runs
 * over a backing that holds only the ranges fetched so far, with small reads after every jump (4 KiB for sources
 * with readSync, 16 KiB for the others): a protobuf model is a run of small headers between payloads the parser
 * skips, so a 1 GiB model with 1,000 initializers opens reading well under 1 MiB plus a few KiB per initializer.
 * Sequential reads grow (to 8 MiB) for long runs of graph structure.
 *
 * Sources that read synchronously (local files) are read on the spot and the parser runs once. For the others
 * (URLs, Blobs, custom sources) a parser that meets bytes not fetched yet could only stop and start again from the
 * beginning, once per header: quadratic in the number of weights. So they get a header walk first: an async pass
 * over the protobuf wire structure (walkHeaders) that descends into the messages the parser reads, fetches the
 * fields it reads and passes over payloads (raw_data, typed data, unknown fields) without fetching them; the parser
 * then runs once over what it fetched. The walk only fetches: it decides nothing, and stops quietly at anything
 * malformed, which the parser then reports with its offset (a restart fetches what the walk did not foresee).
 */
import { LimitError, TruncatedError } from "../../bytes/errors.js";
import { type ByteBacking, NeedBytes } from "../../bytes/byte-reader.js";
import { bytesOrUndefined } from "../../bytes/input.js";
import { markLazy } from "../../io/lazy.js";
import { type ByteSource, SourceError, readExactly, sourceSize } from "../../io/source.js";
import type { VarintCounter } from "./reader.js";
import { ATTRIBUTE, GRAPH, type MessageSchema, MODEL, NODE, SPARSE_TENSOR, TENSOR, wireMatches } from "./schema.js";
import { PackedVarintCounter, readVarintAt, varintValue } from "./wire.js";

/** After a jump: sources that read synchronously (local files) take small reads; others fewer, larger ones. */
const JUMP_CHUNK_SYNC = 4 * 1024;
const JUMP_CHUNK_ASYNC = 16 * 1024;
const MAX_CHUNK = 8 * 1024 * 1024;
const MAX_FETCHES = 1_000_000;
/** Varint payloads over this size are counted in windows of COUNT_WINDOW, not kept (sources with readSync). */
const COUNT_STREAM_MIN = 1024 * 1024;
const COUNT_WINDOW = 4 * 1024 * 1024;

interface Chunk {
  start: number;
  bytes: Uint8Array;
}

/** Counters of the lazy opens in this module (internal: tests check that the parser runs once). */
export const LAZY_READ_STATS = { parses: 0, walks: 0 };

/** The fetched chunks, sorted by start: a lookup is a binary search (a model may need a million of them). */
class ChunkList {
  private readonly chunks: Chunk[] = [];
  private hit: Chunk | undefined;
  /** The chunk added last (read order, for the sequential-read heuristic). */
  newest: Chunk | undefined;

  find(offset: number, length: number): Chunk | undefined {
    const fits = (c: Chunk) => offset >= c.start && offset + length <= c.start + c.bytes.length;
    if (this.hit && fits(this.hit)) return this.hit;
    const list = this.chunks;
    let lo = 0;
    let hi = list.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.start <= offset) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // chunks may overlap: a few before the last one starting at or before offset may hold the range
    for (let i = at; i >= 0 && i > at - 8; i--) {
      if (fits(list[i]!)) return (this.hit = list[i]!);
    }
    return undefined;
  }

  add(chunk: Chunk): void {
    const list = this.chunks;
    if (list.length === 0 || list[list.length - 1]!.start <= chunk.start) list.push(chunk);
    else {
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (list[mid]!.start <= chunk.start) lo = mid + 1;
        else hi = mid;
      }
      list.splice(lo, 0, chunk);
    }
    this.newest = chunk;
    this.hit = chunk;
  }
}

class SmallChunkCache implements ByteBacking {
  bytesRead = 0;
  fetches = 0;
  private readonly chunks = new ChunkList();
  private next: number;
  private readonly jump: number;

  constructor(
    private readonly source: ByteSource,
    readonly size: number,
    private readonly format: string,
  ) {
    this.jump = source.readSync ? JUMP_CHUNK_SYNC : JUMP_CHUNK_ASYNC;
    this.next = this.jump;
  }

  window(offset: number, length: number): { bytes: Uint8Array; start: number } {
    const chunk = this.chunks.find(offset, length);
    if (chunk) return chunk;
    if (this.source.readSync) {
      const end = this.chunkEnd(offset, length);
      const got = bytesOrUndefined(this.source.readSync(offset, end - offset));
      if (!got) throw new SourceError(`a ByteSource's readSync() must return a Uint8Array`);
      if (got.length < end - offset)
        throw new TruncatedError(this.format, offset + got.length, undefined, end - offset - got.length, 0);
      return this.add(offset, got);
    }
    throw new NeedBytes(offset, length);
  }

  private chunkEnd(offset: number, length: number): number {
    if (offset + length > this.size)
      throw new TruncatedError(this.format, offset, undefined, length, Math.max(0, this.size - offset));
    const last = this.chunks.newest;
    const sequential = last !== undefined && offset >= last.start && offset <= last.start + last.bytes.length;
    this.next = sequential ? Math.min(MAX_CHUNK, this.next * 2) : this.jump;
    if (++this.fetches > MAX_FETCHES)
      throw new LimitError(this.format, `gave up after ${MAX_FETCHES} range reads`, offset);
    return Math.min(this.size, offset + Math.max(length, this.next));
  }

  add(start: number, bytes: Uint8Array): Chunk {
    const chunk = { start, bytes };
    this.chunks.add(chunk);
    this.bytesRead += bytes.length;
    return chunk;
  }

  async load(offset: number, length: number): Promise<void> {
    const end = this.chunkEnd(offset, length);
    this.add(offset, await readExactly(this.source, offset, end - offset, this.format));
  }

  /**
   * The number of packed varints in [offset, offset + length), read in windows that are not kept, for a large
   * payload of a source that reads synchronously; undefined otherwise (the parser reads it through the cache).
   */
  countVarints(offset: number, length: number, field: string): number | undefined {
    const readSync = this.source.readSync;
    if (!readSync || length <= COUNT_STREAM_MIN || offset + length > this.size) return undefined;
    const counter = new PackedVarintCounter(this.format, field);
    for (let at = offset; at < offset + length; at += COUNT_WINDOW) {
      const n = Math.min(COUNT_WINDOW, offset + length - at);
      const got = bytesOrUndefined(readSync.call(this.source, at, n));
      if (!got) throw new SourceError(`a ByteSource's readSync() must return a Uint8Array`);
      if (got.length < n) throw new TruncatedError(this.format, at + got.length, field, n - got.length, 0);
      this.bytesRead += n;
      counter.feed(got, at);
    }
    return counter.finish(offset + length);
  }

  /** The loaded chunk holding [offset, offset + length), or undefined when it is not loaded (nothing fetched). */
  loaded(offset: number, length: number): Chunk | undefined {
    return this.chunks.find(offset, length);
  }

  /** The loaded chunk holding [offset, offset + length), fetched first when needed. */
  async ensure(offset: number, length: number): Promise<Chunk> {
    return this.chunks.find(offset, length) ?? (await this.load(offset, length), this.chunks.find(offset, length)!);
  }
}

// ------------------------------------------------------------------------------------------- header walk

/**
 * What the parser does with a message's length-delimited fields: descends into them (a nested plan), reads their
 * bytes ("read": strings, packed dims and attribute lists, value infos, external-data entries) or passes over
 * them (absent: payloads and unknown fields). Varint and fixed-width fields are always read.
 */
interface WalkPlan {
  [field: number]: WalkPlan | "read" | undefined;
}
/**
 * The plan of a ModelProto. TensorProto: 1 dims, 8 name, 12 doc_string, 13 external_data (3 segment, 6 string_data,
 * 9 raw_data, 16 metadata and the typed data 4/5/7/10/11 are passed over, but for `varintPayloads`: the varint-typed
 * int32_data, int64_data and uint64_data, read when the parser counts their entries).
 */
function modelPlan(varintPayloads: boolean): WalkPlan {
  const tensor: WalkPlan = varintPayloads
    ? { 1: "read", 5: "read", 7: "read", 8: "read", 11: "read", 12: "read", 13: "read" }
    : { 1: "read", 8: "read", 12: "read", 13: "read" };
  const sparse: WalkPlan = { 1: tensor, 2: tensor, 3: "read" };
  const graph: WalkPlan = { 2: "read", 5: tensor, 10: "read", 11: "read", 12: "read", 13: "read", 15: sparse };
  const attribute: WalkPlan = {
    1: "read",
    4: "read",
    5: tensor,
    6: graph,
    7: "read",
    8: "read",
    9: "read",
    10: tensor,
    11: graph,
    13: "read",
    21: "read",
    22: sparse,
  };
  const node: WalkPlan = { 1: "read", 2: "read", 3: "read", 4: "read", 5: attribute, 6: "read", 7: "read" };
  graph[1] = node;
  const model: WalkPlan = { 2: "read", 3: "read", 4: "read", 6: "read", 7: graph, 8: "read", 14: "read" };
  // the other messages onnx.proto declares (training_info, functions, metadata_props, …): walked for their tags
  const memo = new Map<MessageSchema, WalkPlan>();
  for (const [plan, message] of [
    [tensor, TENSOR],
    [sparse, SPARSE_TENSOR],
    [graph, GRAPH],
    [attribute, ATTRIBUTE],
    [node, NODE],
    [model, MODEL],
  ] as const) {
    for (const [number, spec] of Object.entries(message.fields)) {
      if (spec?.message && plan[Number(number)] === undefined) plan[Number(number)] = tagsPlan(spec.message, memo);
    }
  }
  return model;
}

/** The plan of a message the parser passes over field by field (schema.ts: known, not held): into its messages. */
function tagsPlan(message: MessageSchema, memo: Map<MessageSchema, WalkPlan>): WalkPlan {
  const known = memo.get(message);
  if (known) return known;
  const plan: WalkPlan = {};
  memo.set(message, plan);
  for (const [number, spec] of Object.entries(message.fields))
    if (spec?.message) plan[Number(number)] = tagsPlan(spec.message, memo);
  return plan;
}
/** The two walk plans, built on the first walk (not at import: issue 34's cold import). */
let modelWalks: { plain: WalkPlan; varints: WalkPlan } | undefined;
/** The walk stops descending here (the parser's own limits are lower and report it). */
const MAX_WALK_DEPTH = 128;

/**
 * Fetches the bytes the parser will read in the ModelProto at [start, end), passing over payloads. Returns false
 * where it stopped early at something malformed (the parser then reports it).
 */
async function walkHeaders(cache: SmallChunkCache, start: number, end: number, plan: WalkPlan): Promise<boolean> {
  end = Math.min(end, cache.size);
  if (end <= start) return false;
  // (an .april network may be any blob: the walk stops where the parser does, at the first model field with a wrong
  // wire type, or at the first thing that is not protobuf)
  // (every step takes the loaded bytes as they are and awaits only a fetch: an await per varint made a walk over
  // loaded bytes slower than the parse it prepares)
  /**
   * Reads the varint at `at` (below `limit`) from the loaded bytes, fetching them first when needed: its length in
   * bytes (its bits in varintValue), or 0 when it is malformed.
   */
  const varintAt = async (at: number, limit: number): Promise<number> => {
    if (at >= limit) return 0;
    const n = Math.min(10, limit - at);
    const chunk = cache.loaded(at, n) ?? (await cache.ensure(at, n));
    return Math.max(
      0,
      readVarintAt(chunk.bytes, at - chunk.start, Math.min(limit, chunk.start + chunk.bytes.length) - chunk.start),
    );
  };
  /** The value of the varint varintAt read last, or -1 beyond 2^53. */
  const value = (): number => {
    const v = (varintValue.lo >>> 0) + (varintValue.hi >>> 0) * 2 ** 32;
    return v <= Number.MAX_SAFE_INTEGER ? v : -1;
  };
  const walk = async (from: number, to: number, plan: WalkPlan, depth: number): Promise<boolean> => {
    let pos = from;
    while (pos < to) {
      const tagBytes = await varintAt(pos, to);
      const tag = value();
      if (tagBytes === 0 || tag < 0 || tag > 0xffffffff) return false;
      const field = Math.floor(tag / 8);
      const wire = tag % 8;
      if (field === 0) return false;
      const spec = depth === 0 ? MODEL.fields[field] : undefined;
      if (spec && !wireMatches(spec, wire)) return false;
      pos += tagBytes;
      if (wire === 0) {
        // a value, not a length: any varint of up to 10 bytes (a negative int64, `axis=-1`, is 10 bytes long)
        const n = await varintAt(pos, to);
        if (n === 0) return false;
        pos += n;
      } else if (wire === 1 || wire === 5) {
        const n = wire === 1 ? 8 : 4;
        if (n > to - pos) return false;
        if (!cache.loaded(pos, n)) await cache.ensure(pos, n);
        pos += n;
      } else if (wire === 2) {
        const lengthBytes = await varintAt(pos, to);
        const length = value();
        if (lengthBytes === 0 || length < 0 || length > to - pos - lengthBytes) return false;
        const body = pos + lengthBytes;
        pos = body + length;
        const kind = plan[field];
        // a field whose bytes are all loaded already has nothing to fetch (a node, say, inside the last read)
        if (kind === undefined || length === 0 || cache.loaded(body, length)) continue;
        if (kind === "read") await cache.ensure(body, length);
        else if (depth >= MAX_WALK_DEPTH || !(await walk(body, pos, kind, depth + 1))) return false;
      } else if (wire !== 3 && wire !== 4) return false; // a group's tags (3 start, 4 end): its fields follow as fields
    }
    return true;
  };
  return walk(start, end, plan, 0);
}

/** Where the ModelProtos are and what the parser reads of them, for the header walk. */
export interface WalkOptions {
  /** [start, end) byte ranges of the ModelProtos (default: the whole source). */
  models?: readonly { start: number; end: number }[];
  /** The parser counts varint-typed entries (parseModel's countVarints): fetch those payloads too. */
  varintPayloads?: boolean;
}

/**
 * Runs `parse` over the source's bytes, fetching (small) ranges as it reads them, until it completes; sources that
 * cannot be read synchronously get the header walk first.
 */
export async function parseSmallChunks<T>(
  source: ByteSource,
  format: string,
  parse: (backing: ByteBacking, countVarints: VarintCounter) => T,
  walk: WalkOptions = {},
): Promise<T> {
  const { size, head } = await sourceSize(source);
  const cache = new SmallChunkCache(source, size, format);
  if (head) cache.add(0, head);
  if (!source.readSync) {
    modelWalks ??= { plain: modelPlan(false), varints: modelPlan(true) };
    const plan = walk.varintPayloads ? modelWalks.varints : modelWalks.plain;
    for (const range of walk.models ?? [{ start: 0, end: size }]) {
      LAZY_READ_STATS.walks++;
      await walkHeaders(cache, range.start, range.end, plan);
    }
  }
  for (;;) {
    LAZY_READ_STATS.parses++;
    try {
      return markLazy(parse(cache, (offset, length, field) => cache.countVarints(offset, length, field)));
    } catch (error) {
      if (!(error instanceof NeedBytes)) throw error;
      await cache.load(error.offset, error.length);
    }
  }
}
