/**
 * Differential tests against files numpy itself writes (np.save, np.lib.format.write_array versions 1-3,
 * np.savez, np.savez_compressed) and a safetensors file Python's json and struct modules write. Skipped, with a
 * note, when python3 with numpy is not installed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAny, readFromAny } from "../../bindings/any.js";
import { fromBytes } from "../../bindings/io/source.js";
import { bytesOf } from "../helpers/input-formats.js";

function havePythonNumpy(): boolean {
  try {
    execFileSync("python3", ["-c", "import numpy"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const HAVE_NUMPY = havePythonNumpy();
if (!HAVE_NUMPY) console.log("note: python3 with numpy not found; the numpy differential tests are skipped");

const SCRIPT = String.raw`
import json, os, struct, sys
import numpy as np
out = sys.argv[1]
rng = np.random.default_rng(7)
manifest = []
def expected(name, a):
    c = np.ascontiguousarray(a)
    c = c.astype(c.dtype.newbyteorder('<')) if c.dtype.byteorder == '>' else c
    with open(os.path.join(out, name + '.expected'), 'wb') as f:
        f.write(c.tobytes())
    return {'name': name, 'descr': a.dtype.str, 'shape': list(a.shape)}
arrays = {
    'f32': rng.standard_normal((2, 3)).astype('<f4'),
    'f64_fortran': np.asfortranarray(rng.standard_normal((3, 4, 2))),
    'i4_be': np.arange(-5, 5, dtype='>i4'),
    'f8_be_fortran': np.asfortranarray(rng.standard_normal((5, 7)).astype('>f8')),
    'bool': rng.standard_normal((4, 4)) > 0,
    'i1': np.arange(-128, 128, dtype=np.int8).reshape(16, 16),
    'u8': np.array([0, 1, 2**63, 2**64 - 1], dtype='<u8'),
    'c8_be': (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype('>c8'),
    'c16': rng.standard_normal((2, 2)) + 1j,
    'f2': np.array([1, -2, 65504, 6e-8, np.inf, -0.0], dtype='<f2'),
    'f2_be': np.array([[0.5, 3], [-7, 1e-3]], dtype='>f2'),
    'scalar': np.array(3.25),
    'empty': np.zeros((0, 3), dtype='<i2'),
    'u2_fortran3d': np.asfortranarray(np.arange(60, dtype='<u2').reshape(3, 4, 5)),
    'c16_fortran': np.asfortranarray(rng.standard_normal((3, 4, 2)) + 1j * rng.standard_normal((3, 4, 2))),
    'c8_be_fortran': np.asfortranarray((rng.standard_normal((5, 3)) - 2j).astype('>c8')),
}
for name, a in arrays.items():
    np.save(os.path.join(out, name + '.npy'), a)
    manifest.append(dict(expected(name, a), file=name + '.npy'))
for version in [(1, 0), (2, 0), (3, 0)]:
    name = 'v%d' % version[0]
    a = np.arange(12, dtype='<i8').reshape(3, 4)
    with open(os.path.join(out, name + '.npy'), 'wb') as f:
        np.lib.format.write_array(f, a, version=version)
    manifest.append(dict(expected(name, a), file=name + '.npy'))
np.savez(os.path.join(out, 'stored.npz'), **{k: arrays[k] for k in ['f32', 'f64_fortran', 'i4_be', 'bool', 'scalar', 'empty']})
np.savez_compressed(os.path.join(out, 'deflated.npz'), **{k: arrays[k] for k in ['f8_be_fortran', 'c8_be', 'f2', 'u2_fortran3d']}, big=np.linspace(0, 1, 100000, dtype='<f4'))
manifest.append(dict(expected('big', np.linspace(0, 1, 100000, dtype='<f4')), file='deflated.npz'))
np.savez(os.path.join(out, 'positional.npz'), np.ones(3), np.zeros(2))
np.save(os.path.join(out, 'unicode.npy'), np.array(['abc', 'de']))
np.save(os.path.join(out, 'structured.npy'), np.zeros(2, dtype=[('a', '<f4'), ('b', '<i2')]))
# safetensors from json + struct: BF16 (f32 bits >> 16), F16, I64; expected widened BF16 values
w = rng.standard_normal(10).astype('<f4')
bf = (w.view('<u4') >> 16).astype('<u2')
h = rng.standard_normal((2, 2)).astype('<f2')
ids = np.array([1, -2, 3], dtype='<i8')
blobs = [('w', 'BF16', [2, 5], bf.tobytes()), ('h', 'F16', [2, 2], h.tobytes()), ('ids', 'I64', [3], ids.tobytes())]
header, data = {}, b''
for name, dtype, shape, raw in blobs:
    header[name] = {'dtype': dtype, 'shape': shape, 'data_offsets': [len(data), len(data) + len(raw)]}
    data += raw
header['__metadata__'] = {'format': 'pt'}
text = json.dumps(header).encode()
text += b' ' * ((8 - len(text) % 8) % 8)
with open(os.path.join(out, 'py.safetensors'), 'wb') as f:
    f.write(struct.pack('<Q', len(text)) + text + data)
with open(os.path.join(out, 'w.bf16_widened'), 'wb') as f:
    f.write((bf.astype('<u4') << 16).view('<f4').tobytes())
with open(os.path.join(out, 'h.widened'), 'wb') as f:
    f.write(h.astype('<f4').tobytes())
with open(os.path.join(out, 'manifest.json'), 'w') as f:
    json.dump(manifest, f)
`;

const DTYPE_OF_DESCR: Record<string, string> = {
  "<f4": "float32",
  "<f8": "float64",
  ">f8": "float64",
  ">i4": "int32",
  "|b1": "bool",
  "|i1": "int8",
  "<u8": "uint64",
  ">c8": "complex64",
  "<c16": "complex128",
  "<f2": "float16",
  ">f2": "float16",
  "<i2": "int16",
  "<u2": "uint16",
  "<i8": "int64",
};

describe.skipIf(!HAVE_NUMPY)("numpy-written files read as numpy reads them", () => {
  const dir = HAVE_NUMPY ? mkdtempSync(join(tmpdir(), "tensorfile-numpy-")) : "";
  if (HAVE_NUMPY) execFileSync("python3", ["-c", SCRIPT, dir]);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const manifest: { name: string; descr: string; shape: number[]; file: string }[] = HAVE_NUMPY
    ? JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"))
    : [];
  const read = (file: string) => new Uint8Array(readFileSync(join(dir, file)));

  it.each(manifest.filter((m) => m.file.endsWith(".npy")).map((m) => [m.file, m] as const))("%s", async (_file, m) => {
    const bytes = read(m.file);
    const opened = readAny(bytes);
    expect(opened.format).toBe("npy");
    const [t] = opened.tensors();
    expect(t!.dtype).toBe(DTYPE_OF_DESCR[m.descr]);
    expect(t!.shape).toEqual(m.shape);
    expect(Buffer.from(bytesOf(t!.data)).equals(readFileSync(join(dir, `${m.name}.expected`)))).toBe(true);
    const lazy = await readFromAny(fromBytes(bytes));
    expect(
      Buffer.from(bytesOf((await lazy.loadTensor("array")).data)).equals(readFileSync(join(dir, `${m.name}.expected`))),
    ).toBe(true);
  });

  it.each(["stored.npz", "deflated.npz"])("%s: every member (numpy's zip64 local headers)", async (file) => {
    const bytes = read(file);
    const opened = readAny(bytes);
    expect(opened.format).toBe("npz");
    if (opened.format !== "npz") return;
    expect(opened.file.members.every((m) => m.method === (file === "stored.npz" ? "stored" : "deflated"))).toBe(true);
    const lazy = await readFromAny(fromBytes(bytes));
    for (const t of opened.tensors()) {
      const expected = readFileSync(join(dir, `${t.name}.expected`));
      expect(Buffer.from(bytesOf(t.data)).equals(expected), t.name).toBe(true);
      expect(Buffer.from(bytesOf((await lazy.loadTensor(t.name)).data)).equals(expected), `${t.name} (lazy)`).toBe(
        true,
      );
    }
    const { verify } = await import("../../bindings/formats/npz.js");
    expect(verify(opened.file)).toEqual([]);
  });

  it("positional np.savez arrays are arr_0, arr_1", () => {
    expect(
      readAny(read("positional.npz"))
        .tensors()
        .map((t) => t.name),
    ).toEqual(["arr_0", "arr_1"]);
  });

  it("string and structured dtypes are UNSUPPORTED", () => {
    expect(() => readAny(read("unicode.npy"))).toThrow(/descr '<U3' is not read/);
    expect(() => readAny(read("structured.npy"))).toThrow(expect.objectContaining({ code: "UNSUPPORTED" }));
  });

  it("a safetensors file written with Python's json and struct: BF16 widens to numpy's values", () => {
    const opened = readAny(read("py.safetensors"));
    expect(opened.format).toBe("safetensors");
    const stored = opened.tensors();
    expect(stored.map((t) => [t.name, t.dtype, t.shape])).toEqual([
      ["w", "bfloat16", [2, 5]],
      ["h", "float16", [2, 2]],
      ["ids", "int64", [3]],
    ]);
    const wide = opened.tensors({ dtype: "float32" });
    expect(Buffer.from(bytesOf(wide[0]!.data)).equals(readFileSync(join(dir, "w.bf16_widened")))).toBe(true);
    expect(Buffer.from(bytesOf(wide[1]!.data)).equals(readFileSync(join(dir, "h.widened")))).toBe(true);
    expect(Array.from(wide[2]!.data as Float32Array)).toEqual([1, -2, 3]); // int64 as float32 too
  });
});
