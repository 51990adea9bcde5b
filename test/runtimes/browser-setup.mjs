// What the inspector's browser tests (inspector*.mjs) share: the paths of the repository, Debian's Chromium and the
// built page, the check that they exist, a check counter, and an HTTP server of the page and files as `tensorfile
// view` serves them.
import { spawn } from "node:child_process";
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const pagePath = join(root, "dist/web/index.html");
export const fixturesRoot = process.env.TENSORFILE_FIXTURES ?? resolve(root, "../shared/fixtures");

/** Exits 1, saying what to run, when Chromium, the built page or dist/index.js is missing. */
export function requireBuilt(label) {
  for (const [path, hint] of [[executablePath, "apt-get install chromium"], [pagePath, "npm run build"], [join(root, "dist/index.js"), "npm run build"]]) {
    if (!existsSync(path)) {
      console.error(`${label}: ${path} not found (${hint})`);
      process.exit(1);
    }
  }
}

/** `check(condition, message)` counts a pass, or prints and keeps a failure; returns the condition. */
export function checkCounter() {
  const counter = { passed: 0, failures: [] };
  counter.check = (condition, message) => {
    if (condition) counter.passed++;
    else {
      counter.failures.push(message);
      console.error(`  FAIL ${message}`);
    }
    return condition;
  };
  return counter;
}

/**
 * Serves the built page as `tensorfile view` does, on 127.0.0.1 and a free port: the page at `/` and `/index.html`,
 * `/files.json` (the entries `listing()` returns, none by default), `/favicon.ico` empty, and the file
 * `fileAt(pathname)` names (a path on disk, or undefined for a 404) with Range requests (`bytes=a-b`, `a-`, `-n`;
 * 416 outside the file) and HEAD. Every file byte read for a response is counted by `onBytes(n)`.
 * Resolves to `{ base, close }`: `base` is the page's URL (ending in `/`).
 */
export async function startPageServer({ fileAt = () => undefined, listing = () => [], onBytes = () => {} } = {}) {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/" || url.pathname === "/index.html") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(readFileSync(pagePath));
      return;
    }
    if (url.pathname === "/files.json") {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(listing()));
      return;
    }
    if (url.pathname === "/favicon.ico") {
      response.writeHead(204).end();
      return;
    }
    const path = fileAt(url.pathname);
    if (!path) {
      response.writeHead(404).end();
      return;
    }
    const size = statSync(path).size;
    const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? "");
    let start = 0;
    let end = size - 1;
    if (range) {
      if (range[1] === "") start = Math.max(0, size - Number(range[2]));
      else {
        start = Number(range[1]);
        if (range[2] !== "") end = Math.min(end, Number(range[2]));
      }
      if (start >= size || start > end) {
        response.writeHead(416, { "content-range": `bytes */${size}` }).end();
        return;
      }
    }
    response.writeHead(range ? 206 : 200, {
      "content-type": "application/octet-stream",
      "accept-ranges": "bytes",
      "content-length": end - start + 1,
      ...(range ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
    });
    if (request.method === "HEAD" || size === 0) {
      response.end();
      return;
    }
    const stream = createReadStream(path, { start, end, highWaterMark: 1 << 20 });
    stream.on("data", (chunk) => onBytes(chunk.length));
    stream.pipe(response);
  });
  await new Promise((listening) => server.listen(0, "127.0.0.1", listening));
  return {
    base: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((closed) => server.close(closed)),
  };
}

/**
 * `tensorfile view FILE` (the built CLI) started in a child process: resolves to the page's URL (the first line it
 * prints) and the process, which the caller kills; rejects when the process exits first.
 */
export async function startView(path) {
  const child = spawn(process.execPath, [join(root, "dist/cli.js"), "view", path], { stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise((resolveUrl, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolveUrl(out.split("\n")[0]);
    });
    child.once("exit", (code) => reject(new Error(`tensorfile view exited ${code}`)));
  });
  return { url, child };
}
