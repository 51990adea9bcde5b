import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatModule, readAny } from "../bindings/any.js";
import { cli } from "./helpers/cli.js";
import type { FormatId, FormatModule } from "../bindings/formats/types.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { fixturePath, haveFixtures } from "./helpers/fixtures.js";
import { parseNpy, parseSafetensors } from "./helpers/parsers.js";
import { exampleFiles } from "../bindings/examples.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bytesOf(t: NamedTensor): Buffer {
  return Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

const SAFETENSORS_NAME: Record<string, string> = {
  float16: "F16",
  float32: "F32",
  float64: "F64",
  int8: "I8",
  uint8: "U8",
  int16: "I16",
  uint16: "U16",
  int32: "I32",
  uint32: "U32",
  int64: "I64",
  uint64: "U64",
  bool: "BOOL",
};

/** Checks every CLI command on one file of a known format. */
async function checkFile(path: string, format: FormatId) {
  const bytes = new Uint8Array(readFileSync(path));
  const module = formatModule(format) as unknown as FormatModule;
  const file = module.read(bytes);
  const tensors = module.tensors(file);

  const json = await cli("inspect", path, "--json");
  expect(json.code, json.stderr).toBe(0);
  const inspected = JSON.parse(json.stdout);
  expect(inspected.format).toBe(format);
  expect(inspected.tensors.map((t: { name: string }) => t.name)).toEqual(tensors.map((t) => t.name));
  expect(inspected.tensors.map((t: { shape: number[] }) => t.shape)).toEqual(tensors.map((t) => t.shape));

  const human = await cli("inspect", path);
  expect(human.code).toBe(0);
  expect(human.stdout).toContain(`format   ${format}`);
  for (const t of tensors.slice(0, 5)) expect(human.stdout).toContain(t.name);

  const st = join(dir, `${format}-${Math.random().toString(36).slice(2)}.safetensors`);
  const converted = await cli("convert", path, st);
  if (tensors.length === 0) {
    // a conversion that would write no tensors is bad input (exit 1), and leaves no file behind
    expect(converted.code).toBe(1);
    expect(converted.stderr).toMatch(/holds no tensors.*would be empty/);
    expect(() => statSync(st)).toThrow();
  } else {
    expect(converted.code, converted.stderr).toBe(0);
  }
  const { header, data } =
    tensors.length === 0
      ? {
          header: {} as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>,
          data: new Uint8Array(0),
        }
      : parseSafetensors(new Uint8Array(readFileSync(st)));
  for (const t of tensors) {
    const entry = header[t.name]!;
    expect(entry, t.name).toBeDefined();
    if (SAFETENSORS_NAME[t.dtype]) {
      expect(entry.dtype).toBe(SAFETENSORS_NAME[t.dtype]);
      expect(entry.shape).toEqual(t.shape);
    }
    expect(Buffer.from(data.subarray(entry.data_offsets[0], entry.data_offsets[1])).equals(bytesOf(t)), t.name).toBe(
      true,
    );
  }

  const again = join(dir, `${format}-roundtrip-${Math.random().toString(36).slice(2)}${extname(path)}`);
  const own = await cli("convert", path, again);
  expect(own.code, own.stderr).toBe(0);
  expect(Buffer.from(readFileSync(again)).equals(Buffer.from(bytes))).toBe(true);

  const verified = await cli("verify", path);
  expect(verified.code, verified.stderr).toBe(0);
  expect(verified.stdout).toMatch(/\nok/);

  const out = join(dir, `${format}-extract-${Math.random().toString(36).slice(2)}`);
  const extracted = await cli("extract", path, out);
  expect(extracted.code, extracted.stderr).toBe(0);
  const meta = JSON.parse(readFileSync(join(out, "meta.json"), "utf8"));
  expect(meta.format).toBe(format);
  for (const t of tensors) {
    const file = meta.files[t.name] as string;
    if (t.name.length < 100) expect(file).toBe(`${t.name}.npy`);
    const npy = parseNpy(new Uint8Array(readFileSync(join(out, file))));
    expect(npy.shape).toEqual(t.shape);
    expect(Buffer.from(npy.data).equals(bytesOf(t)), t.name).toBe(true);
  }
  for (const blob of module.blobs(file)) {
    const want =
      blob.bytes instanceof Uint8Array
        ? blob.bytes
        : bytes.subarray(blob.bytes.byteOffset, blob.bytes.byteOffset + blob.bytes.byteLength);
    expect(Buffer.from(readFileSync(join(out, meta.files[blob.name]))).equals(Buffer.from(want)), blob.name).toBe(true);
  }
  return { file, tensors };
}

describe("tensorfile CLI", () => {
  it("prints usage and per-command help; usage errors exit 2", async () => {
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Usage:");
    for (const command of ["inspect", "convert", "extract", "verify"]) {
      const help = await cli(command, "--help");
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`tensorfile ${command}`);
    }
    expect((await cli("frobnicate")).code).toBe(2);
    expect((await cli("inspect")).code).toBe(2);
    const typo = await cli("inspect", "x", "--jsn");
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim().split("\n")).toHaveLength(1);
    expect(typo.stderr).toMatch(/^tensorfile: inspect does not take --jsn: did you mean --json\?/);
    expect((await cli("inspect", "x", "--bogus")).code).toBe(2);
    expect((await cli("verify", "x", "--full")).code).toBe(2);
    expect((await cli("inpsect", "x")).stderr).toMatch(/did you mean "inspect"/);
    const dtype = await cli("convert", "a", "b.safetensors", "--dtype", "int4");
    expect(dtype.code).toBe(2);
    expect(dtype.stderr).toContain("--dtype takes float32");
  });

  it("bad input exits 1 with one tensorfile: line and no stack trace", async () => {
    const junk = join(dir, "junk.bin");
    writeFileSync(junk, "this is not a model file at all");
    for (const command of [
      ["inspect", junk],
      ["verify", junk],
      ["convert", junk, join(dir, "x.safetensors")],
      ["convert", junk, join(dir, "x.bin")],
    ]) {
      const r = await cli(...command);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^tensorfile: unknown format: the first bytes \[74 68 69 73/);
      expect(r.stderr).toContain("bw2l, april, tsm, primitiv, spraak");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const missing = await cli("inspect", join(dir, "does-not-exist.b2l"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^tensorfile: cannot open/);
  });

  it.each(exampleFiles().map((f) => [f.format, f.name, f] as const))(
    "every command on a generated %s file (%s)",
    async (format, name, demo) => {
      const path = join(dir, name);
      writeFileSync(path, demo.bytes);
      await checkFile(path, format);
      const truncated = join(dir, `truncated-${name}`);
      writeFileSync(truncated, demo.bytes.subarray(0, demo.bytes.length - 1));
      const bad = await cli("verify", truncated);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(new RegExp(`^tensorfile: ${format}: `));
    },
  );

  it("convert --dtype float32 widens float16 tensors; .npy needs --tensor when there are several", async () => {
    const demo = exampleFiles().find((f) => f.hasFloat16)!;
    const path = join(dir, demo.name);
    writeFileSync(path, demo.bytes);
    const { format, file } = (() => {
      const any = readAny(demo.bytes);
      return { format: any.format, file: any.file };
    })();
    const module = formatModule(format) as unknown as FormatModule;
    const wide = module.tensors(file, { dtype: "float32" });
    const half = module.tensors(file).find((t) => t.dtype === "float16")!;
    const st = join(dir, "wide.safetensors");
    expect((await cli("convert", path, st, "--dtype", "float32")).code).toBe(0);
    const { header, data } = parseSafetensors(new Uint8Array(readFileSync(st)));
    expect(header[half.name]!.dtype).toBe("F32");
    const w = wide.find((t) => t.name === half.name)!;
    expect(Buffer.from(data.subarray(...header[half.name]!.data_offsets)).equals(bytesOf(w))).toBe(true);
    const ambiguous = await cli("convert", path, join(dir, "one.npy"));
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("--tensor");
    const one = join(dir, "one.npy");
    expect((await cli("convert", path, one, "--tensor", half.name, "--dtype", "float32")).code).toBe(0);
    const npy = parseNpy(new Uint8Array(readFileSync(one)));
    expect(npy.header).toContain("'<f4'");
    expect(Buffer.from(npy.data).equals(bytesOf(w))).toBe(true);
    const json = join(dir, "out.json");
    expect((await cli("convert", path, json)).code).toBe(0);
    expect(JSON.parse(readFileSync(json, "utf8")).format).toBe(format);
  });
});

describe("convert plans each output dtype the way the format decodes it", () => {
  it("SPRAAK u-law samples with --dtype float32 become float32 in .safetensors and .npy", async () => {
    const { spraak } = await import("../bindings/index.js");
    const codes = Uint8Array.from({ length: 60 }, (_, i) => (i * 37) & 255);
    const path = join(dir, "ulaw.sam");
    writeFileSync(path, spraak.write(spraak.matrix(codes, { cols: 1, type: "ULAW", data: "SAMPLE" })));
    const want = spraak.tensors(spraak.read(new Uint8Array(readFileSync(path))), { dtype: "float32" })[0]!;
    expect(want.dtype).toBe("float32");
    const st = join(dir, "ulaw.safetensors");
    const r = await cli("convert", path, st, "--dtype", "float32");
    expect(r.code, r.stderr).toBe(0);
    const { header, data } = parseSafetensors(new Uint8Array(readFileSync(st)));
    expect(header.data!.dtype).toBe("F32");
    expect(Buffer.from(data.subarray(...header.data!.data_offsets)).equals(bytesOf(want))).toBe(true);
    const npy = join(dir, "ulaw.npy");
    expect((await cli("convert", path, npy, "--dtype", "float32")).code).toBe(0);
    expect(Buffer.from(parseNpy(new Uint8Array(readFileSync(npy))).data).equals(bytesOf(want))).toBe(true);
  });
});

describe("extract keeps every file inside DIR", () => {
  it("names with .., absolute parts and over-long parts become safe relative paths listed in meta.json", async () => {
    const { tsm } = await import("../bindings/index.js");
    const text = (v: string) => ({
      dtype: "char8" as const,
      shape: [new TextEncoder().encode(v).length],
      data: new TextEncoder().encode(v),
    });
    const names = ["../../escape", "/abs/path", `long/${"y".repeat(400)}`, "a/./b"];
    const nodes = names.map((name, i) => ({
      params: [
        { key: "#op", fields: [text("<const>")] },
        { key: "#name", fields: [text(name)] },
        { key: "value", fields: [{ dtype: "int32" as const, shape: [1], data: new Int32Array([i]) }] },
      ],
      inputs: [],
    }));
    const bytes = tsm.write({
      header: { fake: 0, code: tsm.MODULE_CODE, reserved: new Uint8Array(120) },
      inputs: [],
      outputs: [0],
      nodes,
    });
    const path = join(dir, "names.tsm");
    writeFileSync(path, bytes);
    const out = join(dir, "safe");
    const r = await cli("extract", path, out);
    expect(r.code, r.stderr).toBe(0);
    const meta = JSON.parse(readFileSync(join(out, "meta.json"), "utf8"));
    for (const [i, name] of names.entries()) {
      const file = meta.files[name] as string;
      expect(file.split("/")).not.toContain("..");
      expect(file.startsWith("/")).toBe(false);
      for (const part of file.split("/")) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(200);
      const npy = parseNpy(new Uint8Array(readFileSync(join(out, file))));
      expect(new Int32Array(npy.data.slice().buffer)[0]).toBe(i);
    }
  });
});

const FIXTURE_SETS: [string, FormatId][] = [
  ["bw2l", "bw2l"],
  ["april", "april"],
  ["tennis", "tsm"],
  ["primitiv", "primitiv"],
  ["spraak", "spraak"],
];

describe.skipIf(!haveFixtures())("tensorfile CLI on the reference fixtures", () => {
  const files = !haveFixtures()
    ? []
    : FIXTURE_SETS.flatMap(([folder, format]) =>
        readdirSync(fixturePath(folder))
          .filter(
            (name) =>
              statSync(fixturePath(folder, name)).isFile() &&
              !/\.(md|json|bin)$/.test(name) &&
              !name.includes("damaged"),
          )
          .map((name) => [format, `${folder}/${name}`] as const),
      );

  it.each(files)("%s %s", async (format, name) => {
    await checkFile(fixturePath(name), format);
  });

  it("verify warns about what libapril would refuse", async () => {
    const r = await cli("verify", fixturePath("april/invalid/quirk_params_gap_after_joiner.april"));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/warning: .*joiner/i);
  });

  it("verify refuses an invalid file with exit 1", async () => {
    const r = await cli("verify", fixturePath("bw2l/invalid/truncated_mid.b2l"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tensorfile: bw2l: truncated/);
  });
});

describe("tensorfile help COMMAND", () => {
  it("prints exactly what COMMAND --help prints, for every command in the usage", async () => {
    const usage = (await cli("--help")).stdout;
    const commands = [...new Set([...usage.matchAll(/^ {2}tensorfile (\w+)/gm)].map((m) => m[1]!))];
    expect(commands.length).toBeGreaterThanOrEqual(8);
    for (const command of commands) {
      const viaHelp = await cli("help", command);
      const viaFlag = await cli(command, "--help");
      expect(viaHelp.code, command).toBe(0);
      expect(viaHelp.stdout, command).toBe(viaFlag.stdout);
      expect(viaHelp.stdout.length, command).toBeGreaterThan(40);
    }
  });

  it("an unknown COMMAND is a usage error with a suggestion; help alone is the usage", async () => {
    const wrong = await cli("help", "inspec");
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/unknown command "inspec" \(did you mean "inspect"\?\)/);
    expect((await cli("help")).stdout).toBe((await cli("--help")).stdout);
  });
});

describe("each writing command's help speaks of what it writes", () => {
  it("extract's rules name DIR (never OUT); convert's and edit's name OUT", async () => {
    const extract = (await cli("extract", "--help")).stdout;
    expect(extract).toMatch(/temporary folder beside DIR/);
    expect(extract).not.toMatch(/\bOUT\b/);
    for (const command of ["convert", "edit"]) {
      const help = (await cli(command, "--help")).stdout;
      expect(help, command).toMatch(/temporary file beside OUT/);
      expect(help, command).not.toMatch(/non-empty DIR/);
    }
  });
});
