/**
 * The CLI as a careful Unix tool: safe outputs (temporary file + rename, --force, never over the input),
 * OUT extensions that mean what they say, stdin/pipes/URLs as FILE, closed pipes, many files, --strict/--json,
 * "did you mean", and hints. Runs the built CLI (dist/cli.js) as a child process where pipes and signals matter.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { exampleFiles } from "../bindings/examples.js";
import { BUILT_CLI, cli } from "./helpers/cli.js";
import { fixturePath, haveFixtures } from "./helpers/fixtures.js";
import { parseNpy, parseSafetensors } from "./helpers/parsers.js";

const CLI = BUILT_CLI;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-unix-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const examples = Object.fromEntries(exampleFiles().map((e) => [e.format, e]));
function example(format: string): string {
  const e = examples[format]!;
  const path = join(dir, `in-${Math.random().toString(36).slice(2)}-${e.name}`);
  writeFileSync(path, e.bytes);
  return path;
}

function run(args: string[], input?: Uint8Array) {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

function leftovers(folder: string): string[] {
  return readdirSync(folder).filter((n) => n.includes(".tensorfile-") && n.endsWith(".partial"));
}

describe("never lose or fake data", () => {
  it("an existing output needs --force; the message says so; nothing is touched without it", async () => {
    const input = example("bw2l");
    const out = join(dir, "exists.safetensors");
    writeFileSync(out, "precious");
    const refused = await cli("convert", input, out);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/exists \(use --force to overwrite it\)/);
    expect(readFileSync(out, "utf8")).toBe("precious");
    const forced = await cli("convert", input, out, "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(Object.keys(parseSafetensors(new Uint8Array(readFileSync(out))).header)).toContain("layers.0.0");
  });

  it("writing over the input is refused, also through a symlink, even with --force", async () => {
    const input = example("spraak");
    const before = readFileSync(input);
    for (const out of [
      input,
      (() => {
        const link = join(dir, "link.trk");
        symlinkSync(input, link);
        return link;
      })(),
    ]) {
      const r = await cli("convert", input, out, "--force");
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/is the input/);
    }
    expect(readFileSync(input).equals(before)).toBe(true);
  });

  it("a non-empty extract folder needs --force; an empty one is fine; missing parents are created by both commands", async () => {
    const input = example("bw2l");
    const full = join(dir, "full");
    mkdirSync(full);
    writeFileSync(join(full, "keep"), "x");
    expect((await cli("extract", input, full)).code).toBe(2);
    expect(existsSync(join(full, "keep"))).toBe(true);
    const forced = await cli("extract", input, full, "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(join(full, "keep"))).toBe(false);
    expect(existsSync(join(full, "meta.json"))).toBe(true);
    const empty = join(dir, "empty");
    mkdirSync(empty);
    expect((await cli("extract", input, empty)).code).toBe(0);
    const nested = await cli("convert", input, join(dir, "a/b/c/x.npy"), "--tensor", "layers.0.0");
    expect(nested.code, nested.stderr).toBe(0);
    expect(parseNpy(new Uint8Array(readFileSync(join(dir, "a/b/c/x.npy")))).shape.length).toBeGreaterThan(0);
    expect((await cli("extract", input, join(dir, "p/q/r"))).code).toBe(0);
    expect(leftovers(dir)).toEqual([]);
  });

  it("a failed conversion leaves nothing under the output name and no temporary file", async () => {
    const input = join(dir, "truncated.b2l");
    writeFileSync(input, examples.bw2l!.bytes.subarray(0, examples.bw2l!.bytes.length - 3));
    const out = join(dir, "failed.safetensors");
    const r = await cli("convert", input, out);
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(leftovers(dir)).toEqual([]);
  });

  it("SIGTERM and SIGINT in the middle of a conversion leave no partial output", async () => {
    // the input comes over HTTP; the server answers header reads at once and holds back the tensor data, so the
    // conversion is certainly under way (its temporary file exists) when the signal comes
    const values = new Float32Array(1 << 20).map((_, i) => i % 1000);
    const bytes = lib.spraak.write(lib.spraak.matrix(values, { cols: 64 }) as never);
    const server = createServer((req, res) => {
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? "")!;
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), bytes.length - 1);
      if (end - start > 1 << 18) return; // never answered: the child is killed while waiting
      res.writeHead(206, {
        "content-range": `bytes ${start}-${end}/${bytes.length}`,
        "content-length": end - start + 1,
      });
      res.end(Buffer.from(bytes.subarray(start, end + 1)));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big.trk`;
    try {
      for (const signal of ["SIGTERM", "SIGINT"] as const) {
        const outDir = join(dir, `killed-${signal}`);
        mkdirSync(outDir);
        const out = join(outDir, "out.safetensors");
        const child = spawn(process.execPath, [CLI, "convert", url, out], { stdio: "ignore" });
        // until the temporary appears (up to a minute: a loaded machine is slow to start node; 5 s was the limit)
        for (let i = 0; i < 2400 && leftovers(outDir).length === 0 && child.exitCode === null; i++)
          await new Promise((r) => setTimeout(r, 25));
        expect(leftovers(outDir), "the temporary file exists while converting").toHaveLength(1);
        child.kill(signal);
        const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
        expect(code).toBe(signal === "SIGINT" ? 130 : 143);
        expect(readdirSync(outDir)).toEqual([]);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("OUT's extension means what it says", () => {
  it("an unknown extension or another format's is a usage error listing what OUT may end in", async () => {
    const input = example("tsm");
    for (const out of ["out.safetensor", "lm.b2l", "x.april"]) {
      const r = await cli("convert", input, join(dir, out));
      expect(r.code, out).toBe(2);
      expect(r.stderr).toMatch(/OUT may end in \.safetensors, \.npy, \.json, \.tsm, \.csta/);
      expect(existsSync(join(dir, out))).toBe(false);
    }
  });

  it.skipIf(!haveFixtures())(
    ".csta -> .tsm writes the plain module (as extract's module.tsm); .csta re-encodes the container",
    async () => {
      const csta = fixturePath("tennis", "seetaface6_face_landmarker_pts5.csta");
      const tsm = join(dir, "landmarker.tsm");
      expect((await cli("convert", csta, tsm)).code).toBe(0);
      const plain = lib.tsm.read(readFileSync(tsm));
      expect(plain.container).toBeUndefined();
      expect(readFileSync(tsm).equals(readFileSync(fixturePath("tennis", "seetaface6_face_landmarker_pts5.tsm")))).toBe(
        true,
      );
      const again = join(dir, "again.csta");
      expect((await cli("convert", csta, again)).code).toBe(0);
      expect(readFileSync(again).equals(readFileSync(csta))).toBe(true);
    },
  );

  it("--quantize fp16 re-encodes a bw2l model; options that do nothing for an output are refused", async () => {
    const input = example("bw2l");
    const out = join(dir, "half.b2l");
    const r = await cli("convert", input, out, "--quantize", "fp16");
    expect(r.code, r.stderr).toBe(0);
    const dtypes = new Set(lib.bw2l.tensors(lib.bw2l.read(readFileSync(out))).map((t) => t.dtype));
    expect(dtypes.has("float16")).toBe(true);
    expect((await cli("convert", input, join(dir, "x.json"), "--dtype", "float32")).code).toBe(2);
    expect((await cli("convert", input, join(dir, "x.safetensors"), "--quantize", "i8")).code).toBe(2);
    // a TenniS module quantizes only into ONNX (convert --quantize composes TenniS -> ONNX with onnx.quantize)
    const tsmToTsm = await cli("convert", example("tsm"), join(dir, "x.tsm"), "--quantize", "fp16");
    expect(tsmToTsm.code).toBe(2);
    expect(tsmToTsm.stderr).toMatch(/--quantize writes an ONNX model: OUT must end in \.onnx/);
    expect((await cli("convert", example("primitiv"), join(dir, "x.model"), "--quantize", "fp16")).stderr).toMatch(
      /applies to bw2l/,
    );
  });

  it("--tensor with an unknown name is exit 1 with the closest names", async () => {
    const r = await cli("convert", example("bw2l"), join(dir, "t.npy"), "--tensor", "layers.0.O");
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/no tensor named "layers\.0\.O"; the closest: layers\.0\.0/);
  });
});

describe("pipes, stdin, many files", () => {
  it("'-' as FILE reads stdin, /dev/stdin works, '-' as OUT writes .npy/.json to stdout", () => {
    const bytes = examples.spraak!.bytes;
    const viaDash = run(["inspect", "-", "--json"], bytes);
    expect(viaDash.code, viaDash.stderr).toBe(0);
    expect(JSON.parse(viaDash.stdout.toString()).format).toBe("spraak");
    // a shell pipe: /dev/stdin is a FIFO there (a Node child's stdin is a socket, which /dev/stdin cannot open)
    const path = join(dir, "piped.trk");
    writeFileSync(path, bytes);
    const shell = spawnSync("sh", ["-c", `cat "${path}" | "${process.execPath}" "${CLI}" inspect /dev/stdin --json`]);
    const viaDev = { code: shell.status, stdout: shell.stdout, stderr: shell.stderr.toString() };
    expect(viaDev.code, viaDev.stderr).toBe(0);
    expect(JSON.parse(viaDev.stdout.toString()).tensors).toEqual(JSON.parse(viaDash.stdout.toString()).tensors);
    const npy = run(["convert", "-", "-", "--to", "npy"], bytes);
    expect(npy.code, npy.stderr).toBe(0);
    const parsed = parseNpy(new Uint8Array(npy.stdout));
    const expected = lib.readAny(bytes).tensors()[0]!;
    expect(parsed.shape).toEqual(expected.shape);
    expect(run(["convert", "-", "-"], bytes).code).toBe(2);
  });

  it("output into a closed pipe ends quietly with exit 0", async () => {
    const input = example("tsm");
    const child = spawn(process.execPath, [CLI, "inspect", input, input, input, input, "--full"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.once("data", () => child.stdout.destroy());
    // "close": stderr is read below, and it is drained only when the child's streams have closed
    const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error/);
  });

  it("an http URL as FILE opens lazily with Range requests; a refused connection names its cause", async () => {
    const bytes = examples.bw2l!.bytes;
    let served = 0;
    const server = createServer((req, res) => {
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? "");
      const start = m ? Number(m[1]) : 0;
      const end = m ? Math.min(Number(m[2]), bytes.length - 1) : bytes.length - 1;
      served += end - start + 1;
      res.writeHead(m ? 206 : 200, {
        "content-range": `bytes ${start}-${end}/${bytes.length}`,
        "content-length": end - start + 1,
      });
      res.end(Buffer.from(bytes.subarray(start, end + 1)));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    try {
      const r = await cli("inspect", `http://127.0.0.1:${port}/demo.b2l`, "--json");
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).format).toBe("bw2l");
      expect(served).toBeGreaterThan(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await cli("inspect", `http://127.0.0.1:${closedPort}/gone.b2l`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ECONNREFUSED/);
  });

  it("inspect and verify take many files: one result each, errors name their file, a summary, exit 1 if any failed", async () => {
    const good = [example("bw2l"), example("tsm"), example("primitiv")];
    const bad = join(dir, "bad.b2l");
    writeFileSync(bad, "BW2L\x02 this is not a model");
    const inspected = await cli("inspect", ...good, bad);
    expect(inspected.code).toBe(1);
    for (const f of good) expect(inspected.stdout).toContain(`file     ${f}`);
    expect(inspected.stderr).toContain(`tensorfile: ${bad}: bw2l:`);
    expect(inspected.stdout).toMatch(/3 of 4 files read, 1 failed/);
    const verified = await cli("verify", ...good);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/3 of 3 files ok/);
    const json = await cli("verify", ...good, bad, "--json");
    expect(json.code).toBe(1);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.ok)).toEqual([true, true, true, false]);
    expect(lines[3].error.code).toMatch(/TRUNCATED|CORRUPT|BAD_MAGIC|UNSUPPORTED_VERSION/);
    expect(typeof lines[3].error.offset).toBe("number");
  });

  it.skipIf(!haveFixtures())(
    "verify --strict exits 1 on warnings; a CRLF-damaged binary file gets a hint",
    async () => {
      const warned = readdirSync(fixturePath("april"))
        .map((f) => fixturePath("april", f))
        .filter((f) => f.endsWith(".april"));
      const results = await Promise.all(warned.map((f) => cli("verify", f)));
      const withWarnings = warned.filter((_, i) => /warning:/.test(results[i]!.stdout));
      if (withWarnings.length > 0) {
        expect((await cli("verify", withWarnings[0]!)).code).toBe(0);
        expect((await cli("verify", withWarnings[0]!, "--strict")).code).toBe(1);
      }
      const crlf = await cli("verify", fixturePath("spraak", "sx313.crlf-damaged.trk"));
      expect(crlf.code).toBe(1);
      expect(crlf.stderr).toMatch(/1 byte short.*hint: .*copied as text.*CRLF/);
    },
  );
});

describe("reads as a person would expect", () => {
  it("SPRAAK's version, tsm's reserved bytes, file counts", async () => {
    const spr = await cli("inspect", example("spraak"));
    expect(spr.stdout).toMatch(/format {3}spraak \(\.spr header\)/);
    const tsm = await cli("inspect", example("tsm"));
    expect(tsm.stdout).toMatch(/reserved +(all zero|[0-9a-f]{2}( [0-9a-f]{2})* \(then zeros\))/);
    const one = await cli("extract", example("spraak"), join(dir, "one"));
    expect(one.stderr).toMatch(/extracted 1 file and meta.json/);
  });
});
