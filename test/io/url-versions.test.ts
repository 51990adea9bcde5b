/**
 * fromUrl against a local server whose file changes while it is read (ETag or Last-Modified changes, with or
 * without If-Range support), one that ignores Range, one without validators, and one that trickles its body. A
 * change is a SourceError naming the URL, never a model mixed from two versions; a trickle fails like a stall.
 * Every response is bounded (the trickle stops by itself); the assertions count bytes and requests, not time.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFromAny } from "../../bindings/any.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { SourceError, fromUrl } from "../../bindings/io/source.js";
import { cli } from "../helpers/cli.js";
import { type TensorSpec, buildModel, le } from "../helpers/onnx-models.js";

/** A model read in several ranges (2,048-float weights: more than one 16 KiB header read), version `v`. */
function model(v: number): Uint8Array {
  const initializers: TensorSpec[] = [];
  for (let i = 0; i < 12; i++)
    initializers.push({ name: `w${i}`, dataType: 1, dims: [2048], raw: le(new Float32Array(2048).fill(v * 100 + i)) });
  return buildModel({ graph: { initializers } });
}
const versions = [model(1), model(2)];
if (versions[0]!.length !== versions[1]!.length) throw new Error("the two versions must have the same size");

/** The server's state per route: which version it serves, and after how many requests it switches. */
const state = {
  version: 0,
  requests: 0,
  switchAfter: Infinity,
  ifRangeSeen: [] as (string | undefined)[],
  trickleSent: 0,
};
function reset(switchAfter = Infinity): void {
  Object.assign(state, { version: 0, requests: 0, switchAfter, ifRangeSeen: [], trickleSent: 0 });
}

let server: Server;
let base = "";
const open = new Set<ServerResponse>();

function rangeOf(req: IncomingMessage, size: number): [number, number] | undefined {
  const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? "");
  return m ? [Number(m[1]), Math.min(Number(m[2]), size - 1)] : undefined;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    const route = (req.url ?? "").split("?")[0]!;
    state.requests++;
    state.ifRangeSeen.push(req.headers["if-range"] as string | undefined);
    if (state.requests > state.switchAfter) state.version = 1;
    const bytes = versions[state.version]!;
    const etag = `"v${state.version + 1}"`;
    const lastModified = new Date(Date.UTC(2026, 0, 1 + state.version)).toUTCString();
    const validators: Record<string, string> =
      route === "/etag" || route === "/etag-no-if-range" || route === "/ignores-range"
        ? { etag }
        : route === "/last-modified"
          ? { "last-modified": lastModified }
          : route === "/weak-etag"
            ? { etag: `W/${etag}`, "last-modified": lastModified }
            : {};
    const range = rangeOf(req, bytes.length);
    const ifRange = req.headers["if-range"] as string | undefined;
    const honoursIfRange = route !== "/etag-no-if-range";
    const current = [etag, lastModified];
    if (route === "/trickle") {
      // 206 for the asked range, then one byte every 50 ms, at most 200 bytes (then it ends the body early)
      const [start, end] = range ?? [0, bytes.length - 1];
      res.writeHead(206, {
        "content-range": `bytes ${start}-${end}/${bytes.length}`,
        "content-length": end - start + 1,
      });
      let at = start;
      const timer = setInterval(() => {
        if (res.destroyed || at > end || at - start >= 200) {
          clearInterval(timer);
          res.destroy();
          return;
        }
        state.trickleSent++;
        res.write(Buffer.from(bytes.subarray(at, at + 1)));
        at++;
      }, 50);
      res.on("close", () => clearInterval(timer));
      return;
    }
    if (
      route === "/ignores-range" ||
      !range ||
      (honoursIfRange && ifRange !== undefined && !current.includes(ifRange))
    ) {
      res.writeHead(200, { ...validators, "content-length": bytes.length }).end(Buffer.from(bytes));
      return;
    }
    const [start, end] = range;
    res.writeHead(206, {
      ...validators,
      "content-range": `bytes ${start}-${end}/${bytes.length}`,
      "content-length": end - start + 1,
    });
    res.end(Buffer.from(bytes.subarray(start, end + 1)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The first float of every weight, opened and loaded through one source. */
async function firstFloats(url: string): Promise<number[]> {
  const source = fromUrl(url, { idleTimeoutMs: 10_000 });
  const opened = await readFromAny(source);
  const out: number[] = [];
  for (const info of opened.tensorInfos()) out.push((await opened.loadTensor(info)).data[0] as number);
  return out;
}

describe("fromUrl: a file that changes while it is read is a SourceError, never a mix", () => {
  for (const route of ["/etag", "/etag-no-if-range", "/last-modified", "/weak-etag"]) {
    it(`${route}: unchanged, it reads whole; changed after the open, loading a weight fails naming the URL`, async () => {
      reset();
      expect(await firstFloats(`${base}${route}`)).toEqual(Array.from({ length: 12 }, (_, i) => 100 + i));
      reset();
      const source = fromUrl(`${base}${route}`, { idleTimeoutMs: 10_000 });
      const model = await onnx.readFrom(source);
      state.version = 1;
      state.switchAfter = 0;
      const error = await onnx.loadTensor(source, onnx.tensorInfos(model)[5]!).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SourceError);
      expect((error as Error).message).toContain(`${base}${route} changed while being read`);
    });
  }

  it("a change in the middle of a lazy open (after its first request): the open fails, it does not mix versions", async () => {
    for (const route of ["/etag", "/etag-no-if-range", "/last-modified"]) {
      reset(1);
      const error = await onnx.readFrom(fromUrl(`${base}${route}`, { idleTimeoutMs: 10_000 })).catch((e: unknown) => e);
      expect(state.requests, route).toBeGreaterThan(1);
      expect(error, route).toBeInstanceOf(SourceError);
      expect((error as Error).message).toMatch(/changed while being read/);
    }
  });

  it("If-Range carries the strong ETag, else Last-Modified (never a weak ETag); nothing when there is no validator", async () => {
    const ifRangeOf = async (route: string) => {
      reset();
      await firstFloats(`${base}${route}`);
      expect(state.ifRangeSeen[0]).toBeUndefined();
      return new Set(state.ifRangeSeen.slice(1));
    };
    expect(await ifRangeOf("/etag")).toEqual(new Set(['"v1"']));
    expect(await ifRangeOf("/last-modified")).toEqual(new Set([new Date(Date.UTC(2026, 0, 1)).toUTCString()]));
    expect(await ifRangeOf("/weak-etag")).toEqual(new Set([new Date(Date.UTC(2026, 0, 1)).toUTCString()]));
    expect(await ifRangeOf("/none")).toEqual(new Set([undefined]));
    // ifRange: false sends none (the browser default: the header would need a CORS preflight)
    reset();
    const source = fromUrl(`${base}/etag`, { ifRange: false });
    await source.read(0, 10);
    await source.read(100, 10);
    expect(state.ifRangeSeen).toEqual([undefined, undefined]);
  });

  it("a server that ignores Range (200 with the whole body and the same ETag) reads as before; a file kept whole from one answer stays that version", async () => {
    reset();
    expect(await firstFloats(`${base}/ignores-range`)).toEqual(Array.from({ length: 12 }, (_, i) => 100 + i));
    reset();
    const source = fromUrl(`${base}/ignores-range`, { idleTimeoutMs: 10_000 });
    await source.read(0, 10);
    state.version = 1;
    state.switchAfter = 0;
    // the first answer declared a small size: the whole file is kept, so later reads are the first version's
    expect(Array.from(await source.read(versions[0]!.length - 4, 4))).toEqual(Array.from(versions[0]!.subarray(-4)));
  });

  it("no validators at all: reads as before (nothing to compare)", async () => {
    reset();
    expect(await firstFloats(`${base}/none`)).toEqual(Array.from({ length: 12 }, (_, i) => 100 + i));
  });
});

describe("fromUrl: a trickling body fails like a stalled one", () => {
  it("one byte every 50 ms is below the least rate: a SourceError after one idle window, the request aborted", async () => {
    reset();
    const source = fromUrl(`${base}/trickle`, { idleTimeoutMs: 400 });
    const error = await source.read(0, 150).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toMatch(/below the least rate of 1024 bytes\/s/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.trickleSent).toBeLessThan(150);
  });

  it("minBytesPerSecond: 0 accepts any progress; a bad value is a TypeError", async () => {
    reset();
    const bytes = await fromUrl(`${base}/trickle`, { idleTimeoutMs: 400, minBytesPerSecond: 0 }).read(0, 12);
    expect(Array.from(bytes)).toEqual(Array.from(versions[0]!.subarray(0, 12)));
    expect(() => fromUrl(`${base}/trickle`, { minBytesPerSecond: -1 })).toThrow(TypeError);
    expect(() => fromUrl(`${base}/trickle`, { minBytesPerSecond: Number.NaN })).toThrow(TypeError);
  });

  it("the CLI: --timeout bounds a trickle too (exit 1, not a wait of the whole body)", async () => {
    reset();
    const r = await cli("inspect", `${base}/trickle`, "--timeout", "0.4");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/below the least rate/);
    expect(r.stderr).not.toMatch(/internal error/);
  });
});
