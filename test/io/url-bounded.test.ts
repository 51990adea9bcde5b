/**
 * fromUrl against a misbehaving HTTP server on 127.0.0.1 (started here, every response bounded, closed after):
 * a server that ignores Range with an endless body, one that cuts a body off, one that stalls (before the
 * headers or halfway through the body), and impossible sizes. The source must take in only what it asked for
 * plus a bounded slack, fail a stalled or cut response with a SourceError after its idle timeout, and turn
 * impossible sizes into errors (never "Invalid typed array length"). The assertions count bytes, not time.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FormatError } from "../../bindings/bytes/errors.js";
import { SourceError, fromUrl, readExactly, sourceSize } from "../../bindings/io/source.js";
import { readFromAny } from "../../bindings/any.js";
import { writeSafetensors } from "../../bindings/export/safetensors.js";
import { cli } from "../helpers/cli.js";
import { randomBytes } from "../helpers/rng.js";

const data = randomBytes(7, 200_000);
const CHUNK = 64 * 1024;
/** The most an "endless" body sends before giving up (so a test of the old behaviour ends, and fails). */
const ENDLESS_CAP = 256 * 1024 * 1024;
/** What the source may take in beyond what it asked for: one network chunk is plenty; allow 1 MiB. */
const SLACK = 1 << 20;

const safetensors = writeSafetensors([
  { name: "w", dtype: "float32", shape: [4], data: new Float32Array([1, 2, 3, 4]) },
]);
let server: Server;
let base = "";
const open = new Set<ServerResponse>();
const endless = { written: 0, closed: Promise.resolve() };
let wholeRequests = 0;

function rangeOf(req: IncomingMessage, size: number): [number, number] {
  const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? "");
  return m ? [Number(m[1]), Math.min(Number(m[2]), size - 1)] : [0, size - 1];
}

/** Writes 64 KiB chunks (with backpressure) until `cap` bytes or the client goes away. */
function pour(res: ServerResponse, cap: number, counter: { written: number }): void {
  const chunk = Buffer.alloc(CHUNK, 0x5a);
  const more = (): void => {
    while (counter.written < cap && !res.destroyed) {
      counter.written += CHUNK;
      if (!res.write(chunk)) return void res.once("drain", more);
    }
    if (!res.destroyed) res.end();
  };
  more();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    const path = req.url ?? "";
    if (path === "/endless") {
      // ignores Range: 200 and a body that never ends (until the cap)
      endless.written = 0;
      endless.closed = new Promise((resolve) => res.on("close", resolve));
      res.writeHead(200);
      pour(res, ENDLESS_CAP, endless);
      return;
    }
    if (path === "/endless-206") {
      // answers the asked range in its headers, then sends far more than it
      const [start] = rangeOf(req, 1e12);
      endless.written = 0;
      endless.closed = new Promise((resolve) => res.on("close", resolve));
      res.writeHead(206, { "content-range": `bytes ${start}-${start + 99}/1000000000000` });
      pour(res, ENDLESS_CAP, endless);
      return;
    }
    if (path === "/whole") {
      // ignores Range, declares its (small) length: read once, kept
      wholeRequests++;
      res.writeHead(200, { "content-length": safetensors.length }).end(Buffer.from(safetensors));
      return;
    }
    if (path === "/silent") return; // never answers (closed by afterEach-like cleanup below)
    const [start, end] = rangeOf(req, data.length);
    const body = Buffer.from(data.subarray(start, end + 1));
    const half = body.subarray(0, body.length >> 1);
    if (path === "/stall") {
      res.writeHead(206, { "content-range": `bytes ${start}-${end}/${data.length}`, "content-length": body.length });
      res.write(half); // and then nothing
      return;
    }
    if (path === "/cut") {
      res.writeHead(206, { "content-range": `bytes ${start}-${end}/${data.length}`, "content-length": body.length });
      res.write(half, () => res.destroy());
      return;
    }
    if (path === "/cut-200") {
      res.writeHead(200, { "content-length": data.length });
      res.write(Buffer.from(data.subarray(0, 1000)), () => res.destroy());
      return;
    }
    if (path === "/short-length") {
      // Content-Length disagrees with the Content-Range
      res.writeHead(206, {
        "content-range": `bytes ${start}-${end}/${data.length}`,
        "content-length": Math.max(0, body.length - 1),
      });
      res.end(body.subarray(0, Math.max(0, body.length - 1)));
      return;
    }
    const total = /^\/total\/(.*)$/.exec(path);
    if (total) {
      // a real safetensors file whose Content-Range total is whatever the path says
      const [s, e] = rangeOf(req, safetensors.length);
      res.writeHead(206, { "content-range": `bytes ${s}-${e}/${decodeURIComponent(total[1]!)}` });
      res.end(Buffer.from(safetensors.subarray(s, e + 1)));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** globalThis.fetch, counting the body bytes the source actually takes in. */
function countingFetch(counter: { taken: number }): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counter.taken += chunk.length;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

describe("fromUrl: bounded reads from a misbehaving server", () => {
  it("a server that ignores Range with an endless body: takes in the asked bytes plus bounded slack, and stops the body", async () => {
    const counter = { taken: 0 };
    const source = fromUrl(`${base}/endless`, { fetch: countingFetch(counter), idleTimeoutMs: 10_000 });
    const head = await source.read(0, 1000);
    expect(head.length).toBe(1000);
    expect(head.every((b) => b === 0x5a)).toBe(true);
    await endless.closed; // the body was cancelled: the server saw the connection go
    expect(counter.taken).toBeLessThanOrEqual(1000 + SLACK);
    expect(endless.written).toBeLessThan(ENDLESS_CAP);

    counter.taken = 0;
    const later = await source.read(3_000_000, 5000);
    expect(later.length).toBe(5000);
    await endless.closed;
    expect(counter.taken).toBeLessThanOrEqual(3_005_000 + SLACK);
    // its size stays unknown (the body never ended): asking for it is an error, not an endless read
    expect(source.size).toBeUndefined();
    await expect(sourceSize(source)).rejects.toThrow(SourceError);
  });

  it("a server that ignores Range but declares a small size: the file is fetched once and kept", async () => {
    const opened = await readFromAny(fromUrl(`${base}/whole`));
    const tensor = await opened.loadTensor("w");
    expect(Array.from(tensor.data as Float32Array)).toEqual([1, 2, 3, 4]);
    expect(wholeRequests).toBe(1);
  });

  it("a 206 that sends far more than its range: only the range is taken in", async () => {
    const counter = { taken: 0 };
    const source = fromUrl(`${base}/endless-206`, { fetch: countingFetch(counter), idleTimeoutMs: 10_000 });
    const part = await source.read(10, 100);
    expect(part.length).toBe(100);
    await endless.closed;
    expect(counter.taken).toBeLessThanOrEqual(100 + SLACK);
  });

  it("a body that stalls halfway fails with a SourceError after the idle timeout", async () => {
    const source = fromUrl(`${base}/stall`, { idleTimeoutMs: 300 });
    const error = await source.read(0, 100_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect(String((error as Error).message)).toMatch(/idle timeout/);
  });

  it("a server that never answers fails with a SourceError after the idle timeout", async () => {
    const error = await fromUrl(`${base}/silent`, { idleTimeoutMs: 300 })
      .read(0, 10)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect(String((error as Error).message)).toMatch(/no answer .* idle timeout/);
  });

  it("a body cut off halfway (206 or 200) fails with a SourceError", async () => {
    await expect(fromUrl(`${base}/cut`, { idleTimeoutMs: 10_000 }).read(0, 100_000)).rejects.toThrow(SourceError);
    await expect(fromUrl(`${base}/cut-200`, { idleTimeoutMs: 10_000 }).read(0, 100_000)).rejects.toThrow(SourceError);
    await expect(fromUrl(`${base}/short-length`, { idleTimeoutMs: 10_000 }).read(0, 1000)).rejects.toThrow(
      /Content-Length/,
    );
  });

  it("impossible sizes are errors: negative, not a number, beyond 2^53, a petabyte the caller reads whole", async () => {
    for (const total of ["-5", "abc", "1e3", "99999999999999999999", "0x10", ""]) {
      const error = await fromUrl(`${base}/total/${encodeURIComponent(total)}`)
        .read(0, 10)
        .catch((e: unknown) => e);
      expect(error, total).toBeInstanceOf(SourceError);
    }
    // 10^15: a size a file could have; reading it whole is refused up front with a LIMIT error
    const source = fromUrl(`${base}/total/1000000000000000`);
    expect((await sourceSize(source)).size).toBe(1e15);
    const error = await readExactly(source, 0, 1e15, "t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).code).toBe("LIMIT");
    // a reader over it asks for bytes the server does not have: a clear error
    const opened = await readFromAny(fromUrl(`${base}/total/1000000000000000`)).catch((e: unknown) => e);
    if (opened instanceof Error) expect(opened.message).not.toMatch(/Invalid typed array length/);
  });

  it("the CLI: --timeout applies to URL inputs; impossible sizes are not internal errors", async () => {
    const stalled = await cli("inspect", `${base}/stall`, "--timeout", "0.3");
    expect(stalled.code).toBe(1);
    expect(stalled.stderr).toMatch(/idle timeout/);
    for (const command of ["inspect", "verify", "stats"]) {
      const result = await cli(command, `${base}/total/1000000000000000`, "--timeout", "5");
      expect(result.stderr, command).not.toMatch(/internal error/);
      expect(result.code, command).toBe(1);
    }
    for (const value of ["--timeout=-1", "--timeout=0", "--timeout=abc", "--timeout=1e99"]) {
      const bad = await cli("inspect", `${base}/stall`, value);
      expect(bad.code, value).toBe(2);
      expect(bad.stderr, value).toMatch(/--timeout takes a number of seconds/);
    }
  });
});
