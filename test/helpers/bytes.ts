/** Small helpers the format tests share: joining bytes, comparing them, catching FormatErrors. */
import { expect } from "vitest";
import { type FormatError, type FormatErrorCode, isFormatError } from "../../bindings/bytes/errors.js";

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.length === b.length &&
    Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0
  );
}

/** The FormatError `fn` throws; fails the test when it throws something else or nothing. */
export function caughtFormatError(fn: () => unknown): FormatError {
  try {
    fn();
  } catch (error) {
    if (isFormatError(error)) return error;
    throw new Error(`expected a FormatError, got ${String(error)}`, { cause: error });
  }
  throw new Error("expected a FormatError, but nothing was thrown");
}

/** Asserts `fn` throws a FormatError with `code` (and format, offset, field when given); returns it. */
export function expectFormatError(
  fn: () => unknown,
  code: FormatErrorCode,
  where: { format?: string; offset?: number; field?: string | RegExp } = {},
): FormatError {
  const error = caughtFormatError(fn);
  expect(error.code, error.message).toBe(code);
  if (where.format !== undefined) expect(error.format).toBe(where.format);
  if (where.offset !== undefined) expect(error.offset, error.message).toBe(where.offset);
  if (typeof where.field === "string") expect(error.field, error.message).toBe(where.field);
  else if (where.field) expect(error.field, error.message).toMatch(where.field);
  return error;
}

/** The bytes of a protobuf varint (any 64-bit pattern: a negative number is its two's complement, ten bytes). */
export function varintArray(value: bigint | number): number[] {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(value));
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return out;
}
