// The runtime's own Float16Array (Deno, current Chromium, Node 24+ behind a flag) widens halves to float32 with the
// same bits as kernels.f16ToF32, NaN payloads included: measured, so that the kernels could hand the conversion to
// it where it runs faster. Measured 2026-11-27 in Deno 2.9.5 it ran 2.5-3x slower than the WASM kernel (64K and
// 16M halves), so the kernels do not use it (docs/benchmarks.md). Skips where there is no Float16Array (Node 20).
import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";

const Native = (globalThis as { Float16Array?: new (buffer: ArrayBufferLike) => ArrayLike<number> }).Float16Array;

describe.skipIf(Native === undefined)("the runtime's Float16Array", () => {
  it.each(BACKENDS)("widens all 65,536 halves to the bits of f16ToF32 (%s), NaN payloads included", (backend) => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const want = withBackend(backend, () => kernels.f16ToF32(all));
    const got = new Float32Array(65536);
    got.set(new Native!(all.buffer));
    expect(Buffer.from(got.buffer).equals(Buffer.from(want.buffer))).toBe(true);
  });
});
