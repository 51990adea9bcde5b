/**
 * `tensorfile view [FILE…] [--port N] [--open]`: serves the inspector page and the files to a browser, on
 * 127.0.0.1 only, until SIGINT or SIGTERM (exit 0).
 *
 *   GET /                            the inspector page, dist/web/index.html (a placeholder when it is not built)
 *   GET /files.json                  [{ "name", "url", "size" }] for the listed FILEs
 *   GET /files/<i>/<name>            FILE number i, name its encodeURIComponent(basename); HTTP Range: 206 with
 *                                    Content-Range, 416 for a range outside the file; HEAD; Accept-Ranges: bytes
 * Only the listed files are served (no path from the request ever reaches the file system); anything else is
 * 404, a method other than GET/HEAD 405. Requests whose Host is not this server's (DNS rebinding) get 403, and no
 * CORS header is sent, so other web pages cannot read the files. A FILE on disk is served from the descriptor
 * opened at start (its path is never opened again), and only while its path still names that file (same device
 * and inode): a FILE deleted, replaced or swapped for a symlink to another file since is 404 (the body names no
 * path).
 *
 * The first line of stdout is the page's URL, http://127.0.0.1:PORT/ (with #url=/files/0/<name> when exactly
 * one FILE is given: the page opens that deep link; with several it reads files.json). FILE may be "-" (standard
 * input, held in memory) or an http(s) URL (read with Range requests and passed through). A FILE that cannot be
 * opened is exit 1 before anything is served.
 */
import type { Command } from "./command.js";
import { spawn } from "node:child_process";
import { type FileHandle, open, readFile, stat } from "node:fs/promises";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { type ByteSource, sourceSize } from "../io/source.js";
import { type CliIO, UsageError, print } from "./common.js";
import { openSource } from "./inputs.js";

export const VIEW_HELP = `tensorfile view [FILE…] [--port N] [--open]

Serves the inspector page and the FILEs (with HTTP Range) on 127.0.0.1 only, prints the page's URL as the first
line of standard output (with #url= for a single FILE) and serves until Ctrl-C (SIGINT) or SIGTERM. Only the
listed files are served, at /files/<i>/<name>; /files.json lists them as [{ "name", "url", "size" }]. A FILE
is read from the descriptor opened at start: deleted, replaced or swapped for a symlink since, it is 404.
  --port N   the port (default 0: any free port)
  --open     open the page in the default browser (xdg-open, open or start; a failure is only a warning)`;

export const VIEW_OPTIONS = { port: { type: "string" }, open: { type: "boolean" } } as const;

export interface ViewCommandOptions {
  port?: string | undefined;
  open?: boolean | undefined;
}

/** One served file: where its bytes come from and the name in its URL. */
interface ServedFile {
  name: string;
  url: string;
  /** A regular file on disk, its descriptor kept from the start (streamed; its size is read at each request) … */
  path?: string | undefined;
  handle?: FileHandle | undefined;
  /** The device and inode of the file opened at start. */
  identity?: { dev: number; ino: number } | undefined;
  /** … or a source (standard input in memory, an http(s) URL). */
  source?: ByteSource | undefined;
  size: number;
}

/**
 * Where the built inspector page may be: beside the bundled CLI (dist/cli.js -> dist/web), beside the unbundled
 * one (dist/cli/view.js -> dist/web), or from the sources under vitest (bindings/cli -> dist/web). The bundled
 * case comes first: from dist/cli.js, "../web/index.html" is the page's source template, not the built page.
 */
const PAGE_CANDIDATES = ["./web/index.html", "../web/index.html", "../../dist/web/index.html"];

async function inspectorPage(): Promise<Buffer | undefined> {
  for (const candidate of PAGE_CANDIDATES) {
    try {
      return await readFile(fileURLToPath(new URL(candidate, import.meta.url)));
    } catch {
      // try the next place
    }
  }
  return undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page served while the inspector is not built: it says so and links the files. */
function placeholderPage(files: readonly ServedFile[]): string {
  const items = files
    .map((f) => `<li><a href="${escapeHtml(f.url)}">${escapeHtml(f.name)}</a> (${f.size} bytes)</li>`)
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>tensorfile inspector</title></head>
<body>
<h1>tensorfile inspector</h1>
<p>The inspector page is not built: dist/web/index.html is missing (run <code>npm run build</code> in the tensorfile
package). The files are served below and listed in <a href="/files.json">files.json</a>.</p>
<ul>
${items}
</ul>
</body>
</html>
`;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d+$/.test(text) || Number(text) > 65535)
    throw new UsageError(`--port takes a port number from 0 to 65535 (0: any free port), not ${text}`);
  return Number(text);
}

/** A name for a FILE in its URL: the path's last part ("stdin" for "-", the URL path's last part for a URL). */
function fileName(path: string): string {
  if (path === "-") return "stdin";
  if (/^https?:\/\//i.test(path)) {
    const last = new URL(path).pathname.split("/").filter(Boolean).pop();
    return last ? (decodeURIComponentSafe(last) ?? last) : "download";
  }
  return basename(path) || "file";
}

function decodeURIComponentSafe(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

async function openServed(path: string, index: number): Promise<ServedFile> {
  const name = fileName(path);
  const url = `/files/${index}/${encodeURIComponent(name)}`;
  if (path !== "-" && !/^https?:\/\//i.test(path) && (await stat(path).catch(() => undefined))?.isFile()) {
    // a regular file (stat first: opening a FIFO would wait for a writer) is served from this descriptor for as
    // long as the server runs
    const handle = await open(path, "r").catch(() => undefined);
    const info = await handle?.stat();
    if (handle && info?.isFile())
      return { name, url, path, handle, identity: { dev: info.dev, ino: info.ino }, size: info.size };
    await handle?.close();
  }
  const source = await openSource(path, { anyBytes: true }); // throws a SourceError (exit 1) when FILE cannot be opened
  const { size } = await sourceSize(source);
  return { name, url, source, size };
}

type Range = { start: number; end: number } | "unsatisfiable" | undefined;

/**
 * The one byte range a Range header asks for, inclusive; undefined to send the whole file (no header, another
 * unit, or several ranges, which a server may answer in full); "unsatisfiable" for 416.
 */
export function parseRange(header: string | undefined, size: number): Range {
  if (header === undefined) return undefined;
  const match = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!match) return undefined;
  const spec = match[1]!.trim();
  if (spec.includes(",")) return undefined;
  const parts = /^(\d*)\s*-\s*(\d*)$/.exec(spec);
  if (!parts || (parts[1] === "" && parts[2] === "")) return "unsatisfiable";
  if (parts[1] === "") {
    // suffix: the last N bytes
    const length = Number(parts[2]);
    if (length === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(parts[1]);
  const end = parts[2] === "" ? size - 1 : Math.min(Number(parts[2]), size - 1);
  if (start >= size || (parts[2] !== "" && Number(parts[2]) < start)) return "unsatisfiable";
  return { start, end };
}

const CHUNK_BYTES = 1 << 20;

/** Writes bytes [start, end] of a source to the response, a chunk at a time, waiting for the socket to drain. */
async function pipeSource(source: ByteSource, start: number, end: number, res: ServerResponse): Promise<void> {
  for (let at = start; at <= end && !res.destroyed; at += CHUNK_BYTES) {
    const bytes = await source.read(at, Math.min(CHUNK_BYTES, end + 1 - at));
    if (bytes.length === 0) break;
    if (!res.write(bytes))
      await new Promise<void>((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
  }
  res.end();
}

/**
 * The size of a FILE now, or undefined when its path no longer names the file opened at start (deleted, replaced,
 * or swapped for a symlink to another file). The bytes always come from the descriptor opened at start: a path
 * is never opened again, so a symlink put there later is never followed.
 */
async function currentSize(file: ServedFile): Promise<number | undefined> {
  if (!file.handle) return file.size;
  const now = await stat(file.path!).catch(() => undefined);
  if (!now || now.dev !== file.identity!.dev || now.ino !== file.identity!.ino) return undefined;
  return (await file.handle.stat()).size;
}

const GONE = "not found: this FILE is no longer the file opened when the server started\n";

async function serveFile(file: ServedFile, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const size = await currentSize(file);
  if (size === undefined) {
    sendText(res, 404, GONE);
    return;
  }
  const range = parseRange(req.headers.range, size);
  const headers: Record<string, string | number> = {
    "accept-ranges": "bytes",
    "content-type": "application/octet-stream",
    "cache-control": "no-store",
  };
  if (range === "unsatisfiable") {
    res.writeHead(416, { ...headers, "content-range": `bytes */${size}`, "content-length": 0 }).end();
    return;
  }
  const start = range ? range.start : 0;
  const end = range ? range.end : size - 1;
  const length = Math.max(0, end - start + 1);
  if (range) headers["content-range"] = `bytes ${start}-${end}/${size}`;
  res.writeHead(range ? 206 : 200, { ...headers, "content-length": length });
  if (req.method === "HEAD" || length === 0) {
    res.end();
    return;
  }
  if (file.handle) {
    // positioned reads of the descriptor opened at start (several requests may read it at once)
    const stream = file.handle.createReadStream({ start, end, autoClose: false, emitClose: false });
    stream.on("error", () => res.destroy());
    stream.pipe(res);
  } else {
    await pipeSource(file.source!, start, end, res);
  }
}

function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  type = "text/plain; charset=utf-8",
  extra: Record<string, string> = {},
): void {
  const body = Buffer.from(text);
  res.writeHead(status, { "content-type": type, "content-length": body.length, "cache-control": "no-store", ...extra });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

/**
 * Whether a request's Host header names this server: 127.0.0.1 or localhost with its port, or without one when
 * the port is 80 (HTTP's default, which browsers leave out). A page from another site reaching us through a DNS
 * name bound to 127.0.0.1 (DNS rebinding) carries its own name instead.
 */
export function hostAllowed(host: string | undefined, port: number): boolean {
  const match = /^(127\.0\.0\.1|localhost)(?::(\d{1,5}))?$/.exec((host ?? "").trim().toLowerCase());
  if (!match) return false;
  return match[2] === undefined ? port === 80 : Number(match[2]) === port;
}

function handler(files: readonly ServedFile[], page: () => Promise<Buffer | undefined>, port: () => number) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader("x-content-type-options", "nosniff");
    if (!hostAllowed(req.headers.host, port())) {
      sendText(res, 403, "forbidden: this server answers requests for 127.0.0.1 only\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      sendText(res, 405, "method not allowed\n", undefined, { allow: "GET, HEAD" });
      return;
    }
    const path = (req.url ?? "/").split("?")[0]!;
    if (path === "/" || path === "/index.html") {
      const html = await page();
      sendText(res, 200, html ? html.toString("utf8") : placeholderPage(files), "text/html; charset=utf-8");
      return;
    }
    if (path === "/files.json") {
      // (a FILE that is gone keeps the size it had at start; its URL is 404)
      const list = await Promise.all(
        files.map(async (f) => ({ name: f.name, url: f.url, size: (await currentSize(f)) ?? f.size })),
      );
      sendText(res, 200, `${JSON.stringify(list)}\n`, "application/json");
      return;
    }
    const match = /^\/files\/(0|[1-9]\d{0,8})\/([^/]+)$/.exec(path);
    const file = match ? files[Number(match[1])] : undefined;
    if (!file || decodeURIComponentSafe(match![2]!) !== file.name) {
      sendText(res, 404, "not found\n");
      return;
    }
    await serveFile(file, req, res);
  };
}

/** Opens `url` in the default browser; a failure is a warning. */
function openBrowser(io: CliIO, url: string): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  const warn = (why: string) =>
    print(io.stderr, `tensorfile: warning: could not open a browser (${why}); open ${url} yourself`);
  try {
    const child = spawn(command as string, args as string[], { stdio: "ignore", detached: true });
    child.on("error", (error) => warn(error.message));
    child.on("exit", (code) => {
      if (code !== 0 && code !== null) warn(`${command as string} exited with ${code}`);
    });
    child.unref();
  } catch (error) {
    warn((error as Error).message);
  }
}

export async function viewCommand(io: CliIO, paths: string[], options: ViewCommandOptions): Promise<number> {
  const wantedPort = parsePort(options.port);
  const files: ServedFile[] = [];
  try {
    for (const [i, path] of paths.entries()) files.push(await openServed(path, i));
  } catch (error) {
    await closeAll(files);
    throw error;
  }
  const server: Server = createServer();
  let port = 0;
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    handler(
      files,
      inspectorPage,
      () => port,
    )(req, res).catch((error: unknown) => {
      // the details (which may name paths) go to the terminal, not to the browser
      print(
        io.stderr,
        `tensorfile: warning: ${req.method ?? "?"} ${req.url ?? "?"} failed: ${(error as Error)?.message ?? String(error)}`,
      );
      if (!res.headersSent) sendText(res, 500, "internal error (see the terminal running tensorfile view)\n");
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(wantedPort, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `cannot listen on 127.0.0.1:${wantedPort}: ${error.code === "EADDRINUSE" ? "the port is in use (--port 0 picks a free one)" : error.message}`,
    );
  });
  port = (server.address() as AddressInfo).port;
  const pageUrl = `http://127.0.0.1:${port}/${files.length === 1 ? `#url=${files[0]!.url}` : ""}`;
  print(io.stdout, pageUrl);
  print(
    io.stderr,
    `serving ${files.length === 0 ? "the inspector" : files.map((f) => f.name).join(", ")} on 127.0.0.1:${port}; Ctrl-C to stop`,
  );
  if (options.open) openBrowser(io, pageUrl);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await closeAll(files);
  return 0;
}

async function closeAll(files: readonly ServedFile[]): Promise<void> {
  await Promise.all(files.map(async (f) => (f.handle ? f.handle.close() : f.source?.close?.())));
}

/** The `view` command, as run.ts lists it. */
export const VIEW_COMMAND: Command = {
  name: "view",
  synopsis: "tensorfile view [FILE…] [--port N] [--open]",
  help: VIEW_HELP,
  options: VIEW_OPTIONS,
  inputs: "all",
  inputOptions: "stdin",
  run: (io, positionals, values) => viewCommand(io, positionals, values as ViewCommandOptions),
};
