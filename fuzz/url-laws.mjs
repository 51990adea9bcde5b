// The laws of fromUrl for ANY server behaviour (issue 23), shared by the Jazzer.js target "url" (against dist/)
// and its vitest replay (against bindings/). The fuzzed bytes script a stand-in `fetch`: for each request, a
// status, Content-Range / Content-Length headers (honest, or fuzzed text), and a body (fuzzed bytes in fuzzed
// chunks, an endless body, one that stalls, one that errors midway), or a fetch that rejects or never answers.
//
//   every read(offset, length) resolves with a Uint8Array of at most `length` bytes, or rejects with a
//   SourceError or a FormatError; the source never takes in more body bytes than the read needs (offset + length
//   for a 200, or its declared size when that is at most 16 MiB: it is kept whole; length for a 206) plus
//   SLACK_BYTES; `size`, once known, is a safe integer >= 0 that never changes; readFromAny over the source
//   resolves or rejects with a FormatError or SourceError.
//
// A broken law throws a LawError; any other exception escapes as it is: both are findings.
import { LawError } from "./laws.mjs";

/** What a read may take in beyond what it needs: the stand-in's chunks are at most 4 KiB, so two chunks. */
export const SLACK_BYTES = 8192;
const CHUNK = 4096;
/** fromUrl keeps a 200 answer whole when its Content-Length declares at most this (its prefix cache). */
const WHOLE_BELOW_BYTES = 16 << 20;
const STATUSES = [200, 206, 206, 206, 206, 416, 404, 204, 500, 206];

/** A reader of the fuzzed bytes: numbers and short texts, zeros once they run out. */
function script(data) {
  let at = 0;
  return {
    byte: () => (at < data.length ? data[at++] : 0),
    /** Up to 24 bytes up to a newline, as text (the fuzzer writes header values here). */
    text() {
      let s = "";
      while (at < data.length && data[at] !== 10 && s.length < 24) s += String.fromCharCode(data[at++]);
      at++;
      return s;
    },
    bytes(n) {
      const out = data.subarray(Math.min(at, data.length), Math.min(at + n, data.length));
      at += n;
      return out;
    },
    get done() {
      return at >= data.length;
    },
  };
}

/** A stand-in fetch scripted by the fuzzed bytes; `pulled` counts the body bytes each request handed out. */
function scriptedFetch(s, log) {
  return async (url, init) => {
    const asked = /^bytes=(\d+)-(\d+)$/.exec(init?.headers?.Range ?? "");
    const request = { offset: asked ? Number(asked[1]) : 0, last: asked ? Number(asked[2]) : 0, pulled: 0, status: 0 };
    log.push(request);
    const flags = s.byte();
    if ((flags & 0xc0) === 0xc0) {
      if (flags & 1) return new Promise(() => {}); // never answers
      throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    }
    const status = flags & 0x20 ? 200 + (s.byte() * 2) % 400 : STATUSES[s.byte() % STATUSES.length];
    request.status = status;
    const headers = new Headers();
    if (flags & 2) headers.set("content-range", s.text());
    else if (flags & 4) {
      const total = s.text();
      headers.set("content-range", status === 416 ? `bytes */${total}` : `bytes ${request.offset}-${request.last}/${total}`);
    }
    if (flags & 8) {
      headers.set("content-length", s.text());
      const declared = /^\s*\d{1,16}\s*$/.test(headers.get("content-length") ?? "") ? Number(headers.get("content-length")) : 0;
      request.declared = declared <= WHOLE_BELOW_BYTES ? declared : 0;
    }
    const mode = s.byte() % 5;
    const length = s.byte() * 256 + s.byte();
    const payload = mode === 0 ? s.bytes(length) : new Uint8Array(0);
    const chunkSize = 1 + (s.byte() % CHUNK);
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (mode === 1) {
          // endless, in chunks of at least 1 KiB: a file that declares up to 16 MiB is taken whole, and 16 M
          // one-byte chunks only measure the stand-in's speed (a 10 s libFuzzer timeout), not fromUrl's bounds
          const chunk = new Uint8Array(Math.max(1024, chunkSize)).fill(0x5a);
          request.pulled += chunk.length;
          controller.enqueue(chunk);
          return;
        }
        if ((mode === 2 || mode === 3) && sent >= length % 1024) {
          if (mode === 3) controller.error(new TypeError("terminated"));
          return new Promise(() => {}); // stalls
        }
        const source = mode === 0 ? payload : new Uint8Array(length % 1024).fill(0xa5);
        if (sent >= source.length) return controller.close();
        const chunk = source.slice(sent, sent + chunkSize);
        sent += chunk.length;
        request.pulled += chunk.length;
        controller.enqueue(chunk);
      },
    }, { highWaterMark: 0 });
    const nullBody = status === 204 || status === 205 || status === 304;
    return new Response(nullBody ? null : body, { status, headers });
  };
}

function isExpectedError(lib, error) {
  return error instanceof lib.SourceError || (lib.isFormatError ? lib.isFormatError(error) : error instanceof lib.FormatError);
}

/** Runs the laws for one fuzzed input; returns a one-line summary. */
export async function checkUrlLaws(lib, data, { idleTimeoutMs = 1 } = {}) {
  const s = script(data);
  const log = [];
  const source = lib.fromUrl("http://fuzz.invalid/model", { fetch: scriptedFetch(s, log), idleTimeoutMs });
  let knownSize;
  const checkSize = (what) => {
    if (source.size === undefined) {
      if (knownSize !== undefined) throw new LawError("url", "size never changes", `${what}: forgot ${knownSize}`);
      return;
    }
    if (!Number.isSafeInteger(source.size) || source.size < 0) throw new LawError("url", "size is a safe integer >= 0", `${what}: ${source.size}`);
    if (knownSize !== undefined && knownSize !== source.size) throw new LawError("url", "size never changes", `${what}: ${knownSize} then ${source.size}`);
    knownSize = source.size;
  };
  const outcomes = [];
  for (let i = 0; i < 3; i++) {
    const offset = s.byte() * 97;
    const length = 1 + s.byte() * 61;
    const before = log.length;
    const sizeBefore = source.size;
    let result;
    try {
      result = await source.read(offset, length);
    } catch (error) {
      if (!isExpectedError(lib, error)) throw error;
      outcomes.push("error");
      checkSize("after a failed read");
      continue;
    }
    if (!(result instanceof Uint8Array) || result.length > length) {
      throw new LawError("url", "a read gives at most the asked bytes", `read(${offset}, ${length}) gave ${result?.length}`);
    }
    for (const request of log.slice(before)) {
      // a 200 (Range ignored) is read up to the end of the asked range, or whole when it declares a small size
      // (the size may be known from an earlier answer, or declared by this one)
      const known = sizeBefore !== undefined && sizeBefore <= WHOLE_BELOW_BYTES ? sizeBefore : 0;
      const needed = request.status === 200 ? Math.max(offset + length, request.declared ?? 0, known) : length;
      if (request.pulled > needed + SLACK_BYTES) {
        throw new LawError("url", "bounded reads", `read(${offset}, ${length}) took in ${request.pulled} body bytes of an HTTP ${request.status}`);
      }
    }
    checkSize(`after read(${offset}, ${length})`);
    if (knownSize !== undefined && result.length > 0 && offset + result.length > knownSize) {
      throw new LawError("url", "reads stay inside the size", `read(${offset}, ${length}) gave ${result.length} bytes of a ${knownSize}-byte file`);
    }
    outcomes.push(result.length);
  }
  let opened = "no readFromAny";
  if (!s.done || data.length % 2 === 0) {
    try {
      const file = await lib.readFromAny(source);
      opened = `read as ${file.format}`;
    } catch (error) {
      if (!isExpectedError(lib, error)) throw error;
      opened = `readFromAny: ${error.name}`;
    }
  }
  return `${log.length} requests, reads ${outcomes.join(" ")}, ${opened}`;
}
