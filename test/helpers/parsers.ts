/** Independent readers of the formats we export, written from the published specs, not from our writers. */
import { expect } from "vitest";

/** An independent .npy reader: the spec's fields, parsed with nothing from the writer. */
export function parseNpy(bytes: Uint8Array) {
  expect(Array.from(bytes.subarray(0, 6))).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);
  const major = bytes[6]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLength));
  expect((start + headerLength) % 64).toBe(0);
  expect(header.endsWith("\n")).toBe(true);
  const descr = /'descr':\s*'([^']+)'/.exec(header)![1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)![1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)![1]!;
  const shape = shapeText
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  return { major, header, descr, fortran, shape, data: bytes.subarray(start + headerLength) };
}

/** An independent safetensors reader. */
export function parseSafetensors(bytes: Uint8Array) {
  const size = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  expect((8 + size) % 8).toBe(0);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + size)));
  const data = bytes.subarray(8 + size);
  const ranges = Object.entries(header)
    .filter(([k]) => k !== "__metadata__")
    .map(([name, v]) => ({ name, ...(v as { dtype: string; shape: number[]; data_offsets: [number, number] }) }));
  // no holes, no overlaps, everything indexed
  const sorted = ranges.map((r) => r.data_offsets).sort((a, b) => a[0] - b[0] || a[1] - b[1]); // empty tensors first at a tie
  let at = 0;
  for (const [b, e] of sorted) {
    expect(b).toBe(at);
    at = e;
  }
  expect(at).toBe(data.length);
  return {
    header,
    data,
    tensors: ranges.map((r) => ({ ...r, bytes: data.subarray(r.data_offsets[0], r.data_offsets[1]) })),
  };
}
