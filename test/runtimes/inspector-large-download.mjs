// Browser test of the editor's >1 GB "Download" (issue 36: "streaming for files over 1 GB, the page never holds two
// copies of a large model"), in headless Chromium (Debian's /usr/bin/chromium through playwright-core) at 1366×768:
//  - a 1.06 GiB .onnx (17 float32 initializers of 64 MiB, each with values of its own so that pieces out of order
//    show) is written to disk here with onnx.create + onnx.writeTo into a file stream;
//  - the page (dist/web/index.html) opens it twice: from a File (file://, read lazily through Blob.slice), and
//    through `tensorfile view` (HTTP Range requests); each time "Edit" → "Add metadata" (key, value) → "Download",
//    with window.showSaveFilePicker stubbed by a writable that hashes the bytes in the order written (SHA-256 of
//    1 MiB blocks): the save took the streaming path (no <a download>) and wrote exactly onnx.writeTo's bytes for
//    the same edit run here in Node (same length, same hash);
//  - memory: the page's JS heap (performance.memory, precise; the writable stub runs gc() every 32 chunks so that
//    the peak is what is live, not the written chunks' garbage) stays under 1/8 of the file, and the renderer
//    processes' resident memory (/proc, sampled every 100 ms while the page opens, edits and saves; the page and its
//    workers live there) grows by less than 3/4 of the file, and so do all of Chromium's processes (the browser
//    process too, which would hold a Blob of the file: before issue 36 the editor fetched a URL whole, +1,336 MiB):
//    a second copy of the model would be over 1×;
//  - through `tensorfile view`, the page talks to the server through a counting proxy here: the bytes of the file
//    served from "Edit" to the end of the save are about the file once (the editor reads the structure and the
//    small tensors by ranges when it opens, the large payloads as it writes), not twice.
// Skips (exit 0, with a note) when the temporary folder has less than 3 GB free. Takes about a minute.
// Exits 1 on failure. Run with `node test/runtimes/inspector-large-download.mjs` after `npm run build`
// (npm run test:browser-large).
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  statfsSync,
} from "node:fs";
import { request as httpRequest, createServer } from "node:http";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { checkCounter, executablePath, pagePath, requireBuilt, root, startView } from "./browser-setup.mjs";

requireBuilt("inspector large download test");
const free = (() => {
  const s = statfsSync(tmpdir());
  return s.bavail * s.bsize;
})();
if (free < 3e9) {
  console.log(
    `inspector large download test: skipped (${(free / 1e9).toFixed(1)} GB free in ${tmpdir()}, 3 GB needed)`,
  );
  process.exit(0);
}
const tf = await import(pathToFileURL(join(root, "dist/index.js")).href);
const counts = checkCounter();
const { check } = counts;

const TENSORS = 17;
const ELEMENTS = 16 * 1024 * 1024; // 64 MiB of float32 each

// The hash of a byte stream, the same in Node and in the page whatever the chunks: SHA-256 of each 1 MiB block (the last
// one shorter), then SHA-256 of those digests, and the length. The page's crypto.subtle has no streaming digest;
// native SHA-256 per block keeps a 1 GiB check to seconds.
const BLOCK = 1 << 20;
const PAGE_HASHER = `(() => {
  const block = new Uint8Array(${BLOCK});
  const digests = [];
  let fill = 0, length = 0;
  const hex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  return {
    async update(bytes) {
      length += bytes.length;
      for (let at = 0; at < bytes.length; ) {
        const take = Math.min(block.length - fill, bytes.length - at);
        block.set(bytes.subarray(at, at + take), fill);
        fill += take;
        at += take;
        if (fill === block.length) {
          digests.push(new Uint8Array(await crypto.subtle.digest("SHA-256", block)));
          fill = 0;
        }
      }
    },
    async digest() {
      if (fill > 0) digests.push(new Uint8Array(await crypto.subtle.digest("SHA-256", block.subarray(0, fill))));
      const all = new Uint8Array(digests.length * 32);
      digests.forEach((d, i) => all.set(d, i * 32));
      return hex(await crypto.subtle.digest("SHA-256", all)) + "-" + length;
    },
  };
})()`;

/** The same hash in Node. */
function nodeHasher() {
  const block = Buffer.alloc(BLOCK);
  const digests = [];
  let fill = 0;
  let length = 0;
  return {
    update(bytes) {
      length += bytes.length;
      for (let at = 0; at < bytes.length;) {
        const take = Math.min(BLOCK - fill, bytes.length - at);
        block.set(bytes.subarray(at, at + take), fill);
        fill += take;
        at += take;
        if (fill === BLOCK) {
          digests.push(createHash("sha256").update(block).digest());
          fill = 0;
        }
      }
    },
    digest() {
      if (fill > 0) digests.push(createHash("sha256").update(block.subarray(0, fill)).digest());
      return `${createHash("sha256").update(Buffer.concat(digests)).digest("hex")}-${length}`;
    },
  };
}

const work = mkdtempSync(join(tmpdir(), "tensorfile-large-download-"));
const bigPath = join(work, "large.onnx");

/** The large model, written through onnx.writeTo into a file stream. */
async function generate() {
  const initializers = [];
  const nodes = [];
  let x = "input";
  for (let t = 0; t < TENSORS; t++) {
    const data = new Float32Array(ELEMENTS);
    for (let i = 0; i < ELEMENTS; i += 1024) data[i] = t + i / ELEMENTS;
    initializers.push({ name: `weight_${t}`, dtype: "float32", dims: [ELEMENTS], data });
    nodes.push({ name: `add_${t}`, opType: "Add", inputs: [x, `weight_${t}`], outputs: [`sum_${t}`] });
    x = `sum_${t}`;
  }
  const model = tf.onnx.create({
    producerName: "inspector-large-download",
    graph: {
      name: "large",
      inputs: [{ name: "input", dtype: "float32", shape: [ELEMENTS] }],
      outputs: [{ name: x, dtype: "float32", shape: [ELEMENTS] }],
      initializers,
      nodes,
    },
  });
  const out = createWriteStream(bigPath);
  await tf.onnx.writeTo(model, out);
}

/** onnx.writeTo of the page's edit, run here: its hash. */
async function expectedDownload() {
  const model = tf.onnx.read(new Uint8Array(readFileSync(bigPath)));
  tf.onnx.setMetadata(model, "source", "large-download-test");
  const hasher = nodeHasher();
  await tf.onnx.writeTo(model, (chunk) => hasher.update(chunk));
  return hasher.digest();
}

/**
 * Resident memory (bytes) of the processes below `browserPid`: the Chromium renderers' (the page and its workers
 * live there), and all of them (the browser process too, which holds the Blobs a page fetches).
 */
function chromiumRss(browserPid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone
    }
  }
  const total = { renderers: 0, all: 0 };
  const visit = (pid) => {
    for (const child of children.get(pid) ?? []) {
      try {
        const cmdline = readFileSync(`/proc/${child}/cmdline`, "utf8");
        const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child}/status`, "utf8"));
        const bytes = rss && cmdline.includes("chromium") ? Number(rss[1]) * 1024 : 0;
        total.all += bytes;
        if (cmdline.includes("--type=renderer")) total.renderers += bytes;
      } catch {
        // gone
      }
      visit(child);
    }
  };
  visit(browserPid);
  return total;
}

/**
 * A proxy in front of `tensorfile view` at `target` (its page URL) that counts the bytes of the files it serves
 * (/files/…): the page's URL through the proxy, and the counter.
 */
async function countingProxy(target) {
  const upstream = new URL(target);
  const counter = { served: 0 };
  const server = createServer((req, res) => {
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if ((req.url ?? "").startsWith("/files/")) answer.on("data", (chunk) => (counter.served += chunk.length));
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const url = new URL(target);
  url.port = String(server.address().port);
  return { url: url.href, counter, close: () => server.close() };
}

/** Opens the large model (from a File, or through `tensorfile view`), edits, downloads, and checks. */
async function scenario(context, how, size, expected, browserPid) {
  const where = how === "file" ? "from a File" : "through tensorfile view";
  const server = how === "view" ? await startView(bigPath) : undefined;
  const proxy = server ? await countingProxy(server.url) : undefined;
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  let browserDownloads = 0;
  page.on("download", () => browserDownloads++);
  if (!server) await page.goto(pathToFileURL(pagePath).href);

  const heap = () => page.evaluate(() => performance.memory.usedJSHeapSize);
  const rssBefore = chromiumRss(browserPid);
  const heapBefore = await heap();
  const rssPeak = { ...rssBefore };
  let heapPeak = heapBefore;
  let clicked = 0;
  let servedBeforeEdit = 0;
  const sampler = setInterval(() => {
    const now = chromiumRss(browserPid);
    rssPeak.renderers = Math.max(rssPeak.renderers, now.renderers);
    rssPeak.all = Math.max(rssPeak.all, now.all);
    page
      .evaluate(() => performance.memory.usedJSHeapSize)
      .then(
        (h) => (heapPeak = Math.max(heapPeak, h)),
        () => undefined,
      );
  }, 100);
  try {
    if (proxy) await page.goto(proxy.url);
    else await page.setInputFiles("#open-file", bigPath);
    await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: 60_000 });
    servedBeforeEdit = proxy?.counter.served ?? 0;
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    await page.waitForFunction(() => document.querySelector("#editor")?.dataset.state === "ready", null, {
      timeout: 60_000,
    });
    await page.getByRole("button", { name: "Add metadata" }).click();
    await page.getByLabel("key", { exact: true }).last().fill("source");
    await page.getByLabel("value", { exact: true }).last().fill("large-download-test");
    await page.getByLabel("value", { exact: true }).last().press("Enter");
    await page.waitForFunction(() => document.querySelector("#editor")?.dataset.edits === "1", null, {
      timeout: 60_000,
    });
    // a click that does not wait for the page to settle: the hashing writable keeps its main thread busy
    clicked = Date.now();
    await page.getByRole("button", { name: "Download", exact: true }).dispatchEvent("click");
    // done when the status says so (after the writable closed), or the editor failed
    await page.waitForFunction(
      () =>
        /^saved /.test(document.querySelector("#status")?.textContent ?? "") ||
        document.querySelector("#editor")?.dataset.state === "error",
      null,
      { timeout: 120_000, polling: 500 },
    );
  } finally {
    clearInterval(sampler);
    proxy?.close();
    server?.child.kill();
  }
  const seconds = ((Date.now() - clicked) / 1000).toFixed(1);
  heapPeak = Math.max(heapPeak, await heap());
  const saved = await page.evaluate(() => window.__saved);
  check(
    saved.state === "closed",
    `${where}: the save went through showSaveFilePicker and closed its writable (${saved.state})`,
  );
  check(saved.name === "large-edited.onnx", `${where}: the suggested name is large-edited.onnx (${saved.name})`);
  check(browserDownloads === 0, `${where}: no browser download alongside (${browserDownloads})`);
  check(
    saved.digest === expected,
    `${where}: the written bytes are onnx.writeTo's for the same edit (page ${saved.digest}, Node ${expected})`,
  );
  const status = await page.evaluate(() => document.querySelector("#status")?.textContent ?? "");
  const expectedSize = expected.split("-")[1];
  check(status.includes(`${expectedSize} bytes`), `${where}: the status line gives the size saved (${status})`);
  const heapGrowth = heapPeak - heapBefore;
  const rssGrowth = rssPeak.renderers - rssBefore.renderers;
  const allGrowth = rssPeak.all - rssBefore.all;
  const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    `  ${where}: ${mib(size)} file, saved in ${seconds} s from the click (${saved.chunks} chunks); page JS heap peak +${mib(heapGrowth)}; renderers' RSS peak +${mib(rssGrowth)}; all Chromium processes' RSS peak +${mib(allGrowth)}${proxy ? `; served ${mib(servedBeforeEdit)} to open, ${mib(proxy.counter.served - servedBeforeEdit)} to edit and save` : ""}`,
  );
  check(
    heapGrowth < size / 8,
    `${where}: the page's JS heap grows by less than 1/8 of the file (+${heapGrowth} bytes)`,
  );
  check(rssBefore.renderers > 0, `${where}: the renderer processes are found in /proc (${rssBefore.renderers} bytes)`);
  check(
    rssGrowth < (size * 3) / 4,
    `${where}: the renderers' resident memory grows by less than 3/4 of the file (+${rssGrowth} bytes)`,
  );
  check(
    allGrowth < (size * 3) / 4,
    `${where}: all of Chromium's processes' resident memory grows by less than 3/4 of the file (+${allGrowth} bytes)`,
  );
  if (proxy) {
    const served = proxy.counter.served - servedBeforeEdit;
    check(
      served >= size * 0.9 && served < size * 1.25,
      `${where}: the edit and the save read the file about once from the server (${served} bytes, file ${size})`,
    );
  }
  check(problems.length === 0, `${where}: no uncaught errors (${problems.join("; ")})`);
  await page.close();
}

const started = Date.now();
let browser;
try {
  await generate();
  const size = statSync(bigPath).size;
  check(size > 1024 ** 3, `the generated model is over 1 GiB (${size} bytes)`);
  const expected = await expectedDownload();
  check(Number(expected.split("-")[1]) > size, `the edit adds bytes (Node: ${expected})`);
  console.log(`  generated and hashed the expected download in Node: ${((Date.now() - started) / 1000).toFixed(0)} s`);

  browser = await chromium.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--enable-precise-memory-info", "--js-flags=--expose-gc"],
  });
  // the browser process is a child of this one (playwright-core launches it); its renderers are below it
  const browserPid = process.pid;
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, acceptDownloads: true });
  await context.addInitScript(`window.__saved = { state: "none", chunks: 0 };
window.showSaveFilePicker = async (options) => {
  window.__saved = { state: "picked", name: options.suggestedName, chunks: 0 };
  return {
    async createWritable() {
      const hasher = ${PAGE_HASHER};
      return new WritableStream({
        async write(chunk) {
          // the chunks already written are garbage: collected every 32 MiB written (whatever the chunks' size), so
          // the heap's peak is what is live
          window.__saved.chunks++;
          window.__saved.bytes = (window.__saved.bytes ?? 0) + chunk.length;
          if (window.__saved.bytes - (window.__saved.collectedAt ?? 0) >= 32 * 1024 * 1024) {
            window.__saved.collectedAt = window.__saved.bytes;
            gc();
          }
          await hasher.update(chunk);
        },
        async close() {
          window.__saved.digest = await hasher.digest();
          window.__saved.state = "closed";
        },
        abort(reason) {
          window.__saved.state = "aborted: " + reason;
        },
      });
    },
  };
};`);
  for (const how of ["file", "view"]) await scenario(context, how, size, expected, browserPid);
} finally {
  await browser?.close();
  if (existsSync(work)) rmSync(work, { recursive: true, force: true });
}
console.log(
  `inspector large download test: ${counts.passed} passed, ${counts.failures.length} failed (${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
process.exit(counts.failures.length === 0 ? 0 : 1);
