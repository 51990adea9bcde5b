// The element-wise kernels stream ordinary arrays through the WASM scratch in chunks placed by the arrays' offsets
// modulo 4 KiB (backend.ts awayFrom): whatever the offsets of source and destination, and across chunk boundaries
// and a ragged tail, the WASM results are the TS twins' bits.
import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { STREAM_BYTES } from "../../bindings/kernels/backend.js";
import { withBackend } from "../helpers/backends.js";
import { randomBytes } from "../helpers/rng.js";

// more than two chunks of the widest kernel (2 + 4 bytes an element), plus a tail that is no multiple of 16
const COUNT = Math.ceil((2.5 * STREAM_BYTES) / 2) + 13;
// byte offsets of the views into their buffers: page-aligned, 4 KiB-aliased with the scratch, and around it
const OFFSETS = [0, 8, 16, 2040, 2048, 4064, 4088];

/** A view of `count` elements of `Ctor` at byte `offset` into a fresh buffer, filled with random bytes. */
function viewAt<T extends ArrayBufferView>(
  Ctor: new (buffer: ArrayBuffer, offset: number, length: number) => T,
  size: number,
  offset: number,
  count: number,
  seed: number,
): T {
  const buffer = new ArrayBuffer(offset + count * size + 64);
  new Uint8Array(buffer).set(randomBytes(seed, buffer.byteLength));
  return new Ctor(buffer, offset, count);
}

function bits(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

const cases: Record<string, (srcOffset: number, dstOffset: number) => [ArrayBufferView, ArrayBufferView]> = {
  f16ToF32: (so, dof) => {
    const src = viewAt(Uint16Array, 2, so, COUNT, 1);
    const run = () => kernels.f16ToF32(src, viewAt(Float32Array, 4, dof, COUNT, 2));
    return [withBackend("wasm", run), withBackend("js", run)];
  },
  bf16ToF32: (so, dof) => {
    const src = viewAt(Uint16Array, 2, so, COUNT, 3);
    const run = () => kernels.bf16ToF32(src, viewAt(Float32Array, 4, dof, COUNT, 4));
    return [withBackend("wasm", run), withBackend("js", run)];
  },
  f32ToF16: (so, dof) => {
    const src = viewAt(Float32Array, 4, so, COUNT, 5);
    const run = () => kernels.f32ToF16(src, viewAt(Uint16Array, 2, dof, COUNT, 6));
    return [withBackend("wasm", run), withBackend("js", run)];
  },
  dequantizeI8: (so, dof) => {
    const src = viewAt(Int8Array, 1, so, COUNT, 7);
    const run = () => kernels.dequantizeI8(src, 0.037, -3, viewAt(Float32Array, 4, dof, COUNT, 8));
    return [withBackend("wasm", run), withBackend("js", run)];
  },
  quantizeI8: (so, dof) => {
    const src = viewAt(Float32Array, 4, so, COUNT, 9);
    const run = () => kernels.quantizeI8(src, 0.5, 3, viewAt(Int8Array, 1, dof, COUNT, 10));
    return [withBackend("wasm", run), withBackend("js", run)];
  },
  byteSwap4: (so) => {
    const run = () => kernels.byteSwap(viewAt(Uint32Array, 4, so, COUNT, 11), 4);
    return [withBackend("wasm", run), withBackend("js", run)];
  },
};

describe.skipIf(!kernels.wasmAvailable())("element-wise kernels streamed through the scratch", () => {
  for (const [name, run] of Object.entries(cases)) {
    it(`${name}: the TS twin's bits for every pair of offsets, over several chunks and a tail`, () => {
      for (const so of OFFSETS) {
        for (const dof of [0, 2048, 4088]) {
          const [wasm, js] = run(so, dof);
          expect(Buffer.from(bits(wasm)).equals(Buffer.from(bits(js))), `${name} src +${so} dst +${dof}`).toBe(true);
        }
      }
    });
  }
});

describe.skipIf(!kernels.wasmAvailable())("stats streamed through the scratch", () => {
  it("gives the TS twin's results for every array type at offsets around the 4 KiB boundaries", () => {
    // 4-byte integers widen to float64 next to their raw chunk: their raw chunk stays in place (no room to move)
    const types = [
      [Float32Array, 4],
      [Float64Array, 8],
      [Int32Array, 4],
      [Int16Array, 2],
      [Int8Array, 1],
    ] as const;
    for (const [Ctor, size] of types) {
      for (const offset of OFFSETS) {
        const count = 65536 * 2 + 77;
        const data = viewAt(
          Ctor as unknown as new (b: ArrayBuffer, o: number, n: number) => Float32Array,
          size,
          offset,
          count,
          offset + size,
        );
        if (Ctor === Float32Array || Ctor === Float64Array) {
          // finite values: random bits hold NaNs and infinities, which stats counts apart (fine) but we want moments
          for (let i = 0; i < count; i++) if (!Number.isFinite(data[i]!)) data[i] = i % 7;
        }
        const wasm = withBackend("wasm", () => kernels.stats(data));
        const js = withBackend("js", () => kernels.stats(data));
        expect(wasm, `${Ctor.name} +${offset}`).toEqual(js);
      }
    }
  });
});
