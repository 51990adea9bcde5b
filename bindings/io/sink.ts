/**
 * Where bytes are written: a sink is a function `(chunk) => void | Promise<void>` (awaited before the next chunk), a
 * WHATWG `WritableStream<Uint8Array>` (written through its writer, honouring backpressure, closed at the end unless
 * `end` is false) or a Node `Writable` (`write()` with backpressure ('drain'), `end()` at the end). Every format's
 * writeTo and the streaming safetensors/npy writers (export/stream.ts) write through {@link writePiecesTo} and
 * {@link sinkWriter}; the interface of a lazily read file, {@link LazyTensors}, lives here too, below the formats
 * and the code that streams from them.
 */
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";
import type { ByteSource } from "./source.js";

/** A Node Writable, as far as these writers use it (so the types need no @types/node). */
export interface NodeWritableLike {
  /** Writes a chunk; false asks the writer to wait for "drain". */
  write(chunk: Uint8Array, callback?: (error?: Error | null) => void): boolean;
  /** Ends the stream. */
  end(callback?: () => void): unknown;
  /** Listens once for drain, error, finish or close. */
  once(event: "drain" | "error" | "finish" | "close", listener: (...args: unknown[]) => void): unknown;
  /** Removes a listener added with `once`. */
  removeListener(event: "drain" | "error" | "finish" | "close", listener: (...args: unknown[]) => void): unknown;
  /** Called when writing fails and `end` is true (the stream is not left open). */
  destroy?(error?: Error): unknown;
}

/**
 * Where the streaming writers send their bytes: a function (awaited when it returns a promise), a web
 * `WritableStream` or a Node `Writable` (backpressure honoured).
 */
export type ByteSink = ((chunk: Uint8Array) => void | Promise<void>) | WritableStream<Uint8Array> | NodeWritableLike;

/**
 * What a streaming writer loads tensors from: readFromAny()'s result, or anything with the same two methods. With
 * its `source` too (openFile() gives it), large tensors stored plainly are streamed in chunks instead of whole,
 * and large column-major ones in bands of rows (when the source has readInto: local files, bytes).
 */
export interface LazyTensors {
  /** Where each tensor is (no bytes read). */
  tensorInfos(): TensorInfo[];
  /** Reads and decodes one tensor. */
  loadTensor(info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor>;
  /** The file's source, when known: large tensors are then streamed in chunks or bands instead of loaded whole. */
  source?: ByteSource | undefined;
}

export interface SinkWriter {
  write(chunk: Uint8Array): Promise<void>;
  finish(): Promise<void>;
  abort(error: unknown): Promise<void>;
}

function isNodeWritable(sink: unknown): sink is NodeWritableLike {
  return (
    typeof sink === "object" &&
    sink !== null &&
    typeof (sink as NodeWritableLike).write === "function" &&
    typeof (sink as NodeWritableLike).once === "function" &&
    typeof (sink as NodeWritableLike).end === "function"
  );
}

function isWebWritable(sink: unknown): sink is WritableStream<Uint8Array> {
  return typeof sink === "object" && sink !== null && typeof (sink as WritableStream).getWriter === "function";
}

export function sinkWriter(sink: ByteSink, end: boolean, caller: string): SinkWriter {
  if (typeof sink === "function") {
    return {
      write: async (chunk) => {
        await sink(chunk);
      },
      finish: async () => {},
      abort: async () => {},
    };
  }
  if (isWebWritable(sink)) {
    const writer = sink.getWriter();
    return {
      async write(chunk) {
        await writer.ready;
        void writer.write(chunk).catch(() => undefined); // failures surface through ready/close
      },
      async finish() {
        if (end) await writer.close();
        else {
          await writer.ready;
          writer.releaseLock();
        }
      },
      async abort(error) {
        await writer.abort(error).catch(() => undefined);
      },
    };
  }
  if (isNodeWritable(sink)) {
    let failure: unknown;
    const onError = (error: unknown) => {
      failure ??= error;
    };
    sink.once("error", onError);
    const waitFor = (event: "drain" | "finish" | "close") =>
      new Promise<void>((resolve, reject) => {
        const done = () => {
          sink.removeListener("error", fail);
          resolve();
        };
        const fail = (error: unknown) => {
          sink.removeListener(event, done);
          reject(error as Error);
        };
        sink.once(event, done);
        sink.once("error", fail);
      });
    return {
      async write(chunk) {
        if (failure !== undefined) throw failure as Error;
        if (!sink.write(chunk)) await waitFor("drain");
      },
      async finish() {
        if (failure !== undefined) throw failure as Error;
        if (end) {
          const finished = Promise.race([waitFor("finish"), waitFor("close")]);
          sink.end();
          await finished;
        }
        sink.removeListener("error", onError);
      },
      async abort() {
        sink.removeListener("error", onError);
        if (end) sink.destroy?.(); // no error argument: that would emit an unhandled "error"
      },
    };
  }
  throw new TypeError(
    `tensorfile: ${caller}() writes into a function (chunk) => void, a WritableStream or a Node Writable; got ${sink === null ? "null" : typeof sink}`,
  );
}

/**
 * Sends pieces to a sink in order (what each format's writeTo does with its writer's segments); resolves to the
 * byte count. The pieces are views of the file's own payloads, not copies, or iterables of chunks made as the sink
 * takes them (a payload transposed band by band).
 */
export async function writePiecesTo(
  sink: ByteSink,
  pieces: readonly (Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>)[],
  options: { end?: boolean | undefined; caller: string },
): Promise<number> {
  const writer = sinkWriter(sink, options.end ?? true, options.caller);
  let written = 0;
  try {
    for (const piece of pieces) {
      if (piece instanceof Uint8Array) {
        await writer.write(piece);
        written += piece.length;
        continue;
      }
      for await (const chunk of piece) {
        await writer.write(chunk);
        written += chunk.length;
      }
    }
    await writer.finish();
  } catch (error) {
    await writer.abort(error);
    throw error;
  }
  return written;
}
