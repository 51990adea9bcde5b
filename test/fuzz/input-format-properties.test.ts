/**
 * Property tests for the input formats (safetensors, npy, npz), as test/fuzz/properties.test.ts does for the
 * five: files built from random tensors through our writers (and, for npy, hand-made big-endian / Fortran
 * headers), then mutated. Every file keeps the laws of fuzz/laws.mjs, on every input form for the valid ones.
 */
import fc from "fast-check";
import { deflateSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import * as lib from "../../bindings/index.js";
import { type DType, type NamedTensor, allocateArray, bytesOf } from "../../bindings/tensor.js";
import { checkAnyLaws, checkFormatLaws, checkInputForms } from "../../fuzz/laws.mjs";
import { npyFile, zipFile } from "../helpers/input-formats.js";

const UNTIMED = { callLimitMs: Number.POSITIVE_INFINITY };
const SEED = Number(process.env.TENSORFILE_PROPERTY_SEED ?? 1515);
const SCALE = Number(process.env.TENSORFILE_PROPERTY_SCALE ?? 1);
const VALID_RUNS = 60 * SCALE;
const MUTATED_RUNS = 250 * SCALE;

type Mutation =
  | { kind: "truncate"; at: number }
  | { kind: "flip"; at: number; bit: number }
  | { kind: "byte"; at: number; value: number };
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant("byte" as const),
    at: fc.nat(),
    value: fc.constantFrom(0, 0x20, 0x22, 0x2c, 0x30, 0x39, 0x5b, 0x7b, 0x7d, 0xff),
  }),
);

function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  if (bytes.length === 0) return bytes;
  const at = m.at % bytes.length;
  if (m.kind === "truncate") return bytes.slice(0, at);
  const out = bytes.slice();
  if (m.kind === "flip") out[at]! ^= 1 << m.bit;
  else out[at] = m.value;
  return out;
}

const DTYPES: DType[] = [
  "float16",
  "float32",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
  "complex64",
  "complex128",
  "char8",
  "bfloat16",
  "float8_e4m3",
  "float8_e5m2",
];

const tensorArb: fc.Arbitrary<NamedTensor> = fc
  .record({
    name: fc.string({ minLength: 1, maxLength: 10 }).filter((s) => s !== "__metadata__" && !/[\uD800-\uDFFF]/.test(s)),
    dtype: fc.constantFrom(...DTYPES),
    shape: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
    seed: fc.nat(255),
  })
  .map(({ name, dtype, shape, seed }) => {
    const data = allocateArray(
      dtype,
      shape.reduce((a, b) => a * b, 1),
    );
    const bytes = bytesOf(data);
    for (let i = 0; i < bytes.length; i++) bytes[i] = dtype === "bool" ? (i + seed) & 1 : (i * 31 + seed) & 0xff;
    return { name, dtype, shape, data } as NamedTensor;
  });

const uniqueTensors = fc.uniqueArray(tensorArb, { selector: (t) => t.name, maxLength: 5 });

const safetensorsArb = uniqueTensors.map((tensors) => lib.writeSafetensors(tensors, { note: "property" }));

const npyArb = fc.oneof(
  tensorArb.map((t) => lib.writeNpy(t)),
  fc
    .record({
      descr: fc.constantFrom(">f4", ">i8", "<f2", ">c8", "|b1", "<u2"),
      fortran: fc.boolean(),
      shape: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
      version: fc.constantFrom(1 as const, 2 as const, 3 as const),
    })
    .map(({ descr, fortran, shape, version }) => {
      const size = Number(descr.slice(2));
      const n = shape.reduce((a, b) => a * b, 1) * size;
      const tuple = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
      return npyFile(
        `{'descr': '${descr}', 'fortran_order': ${fortran ? "True" : "False"}, 'shape': ${tuple}, }`,
        Uint8Array.from({ length: n }, (_, i) => (i * 7) & 0xff),
        { version },
      );
    }),
);

const npzArb = fc
  .record({
    tensors: uniqueTensors,
    level: fc.constantFrom(0 as const, 6 as const),
    handWritten: fc.boolean(),
    zip64: fc.boolean(),
  })
  .map(({ tensors, level, handWritten, zip64 }) => {
    const members = tensors
      .filter((t) => !t.name.includes("/") && !t.name.includes("\\"))
      .map((t) => [`${t.name}.npy`, lib.writeNpy(t)] as const);
    if (!handWritten) return zipSync(Object.fromEntries(members), { level });
    return zipFile(
      members.map(([name, content]) => ({ name, content, method: level === 0 ? 0 : 8, zip64 }) as const),
      { zip64End: zip64, deflate: (b) => deflateSync(b) },
    );
  });

const FORMATS: [string, fc.Arbitrary<Uint8Array>][] = [
  ["safetensors", safetensorsArb],
  ["npy", npyArb],
  ["npz", npzArb],
];

describe.each(FORMATS)("%s: the laws on built and mutated files", (format, arb) => {
  it("every built file is accepted, keeps the laws on every input form and is detected as itself", async () => {
    await fc.assert(
      fc.asyncProperty(arb, async (bytes) => {
        expect(await checkInputForms((input) => checkFormatLaws(lib, format, input, UNTIMED), bytes, format)).toMatch(
          /^accepted/,
        );
        expect(await checkAnyLaws(lib, bytes, UNTIMED)).toMatch(new RegExp(`^${format} accepted`));
      }),
      { seed: SEED, numRuns: VALID_RUNS },
    );
  });

  it("every mutation of a built file gives a value or a FormatError and keeps the laws", async () => {
    await fc.assert(
      fc.asyncProperty(arb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), async (bytes, mutations) => {
        const mutated = mutations.reduce(mutate, bytes);
        expect(await checkFormatLaws(lib, format, mutated, UNTIMED)).toMatch(/^(accepted|rejected)/);
        await checkAnyLaws(lib, mutated, UNTIMED);
      }),
      { seed: SEED, numRuns: MUTATED_RUNS },
    );
  });
});
