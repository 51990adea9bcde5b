/**
 * Argument checks shared by the public kernels, and small views over typed arrays.
 */

/** The bytes of a typed array (a view, no copy). */
export function bytesOf(data: ArrayBufferView): Uint8Array {
  checkArgs("bytesOf", "data:view", data);
  return viewBytes(data);
}

/** bytesOf without the check, for arrays the caller has checked already. */
export function viewBytes(data: ArrayBufferView): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

// Argument checks: like the readers, the public kernels refuse what they are not made for (a TypeError for the
// wrong kind of value, a RangeError for an impossible one) instead of returning garbage. Typed arrays are told
// apart by their tag, so that arrays from another realm (a worker, vm) and Node Buffers (Uint8Arrays) pass.

function tagOf(value: unknown): string | undefined {
  return ArrayBuffer.isView(value) ? String(Reflect.get(value, Symbol.toStringTag)) : undefined;
}

/**
 * Checks the arguments of kernel `fn` against `spec`, one "name:kind" per value: kind is a typed array's name
 * (Uint16Array…), "view" (any typed array), "same" (the type of the first value), "number" (any number: a
 * file's NaN scale gives NaN values, as the formula says), "count" (a whole number >= 0) or "shape" (an array
 * of counts); a trailing "?" lets the value be undefined.
 */
export function checkArgs(fn: string, spec: string, ...values: unknown[]): void {
  const entries = parsedSpecs.get(spec) ?? parseSpec(spec);
  for (let i = 0; i < entries.length; i++) {
    const { what, kind, optional, ctor } = entries[i]!;
    const value = values[i];
    if (value === undefined && optional) continue;
    // the common case first: an array of this realm (instanceof costs next to nothing, the tag a getter call)
    if (ctor !== undefined && value instanceof ctor) continue;
    const tag = tagOf(value);
    const want = kind === "same" ? tagOf(values[0]) : kind;
    let ok: boolean;
    if (kind === "number" || kind === "count") ok = typeof value === "number";
    else if (kind === "shape") ok = Array.isArray(value);
    else ok = kind === "view" ? tag !== undefined : tag === want;
    if (!ok) {
      const got =
        value === null
          ? "null"
          : Array.isArray(value)
            ? "an Array"
            : (tag ?? (typeof value === "object" ? "an object" : `a ${typeof value}`));
      throw new TypeError(
        `tensorfile: ${fn}() takes ${kind === "view" ? "a typed array" : kind === "shape" ? "a shape array" : `a ${want}`} as ${what}, not ${got}`,
      );
    }
    if (kind === "count" || kind === "shape") {
      for (const n of kind === "count" ? [value] : (value as unknown[])) {
        if (!Number.isSafeInteger(n) || (n as number) < 0)
          throw new RangeError(`tensorfile: ${fn}() takes whole numbers >= 0 as ${what}, not ${String(n)}`);
      }
    }
  }
}

interface SpecEntry {
  what: string;
  kind: string;
  optional: boolean;
  /** The typed array class of this realm that `kind` names (undefined for the other kinds). */
  ctor: (abstract new (...args: never[]) => unknown) | undefined;
}

/** Specs parsed once (they are literals: one entry per kernel), since the checks run on every call. */
const parsedSpecs = new Map<string, readonly SpecEntry[]>();

function parseSpec(spec: string): readonly SpecEntry[] {
  const entries = spec.split(" ").map((entry) => {
    const [what, kindSpec] = entry.split(":") as [string, string];
    const kind = kindSpec.replace("?", "");
    const named = /^[A-Z]\w*Array$/.test(kind) ? (Reflect.get(globalThis, kind) as unknown) : undefined;
    return {
      what,
      kind,
      optional: kindSpec.endsWith("?"),
      ctor: typeof named === "function" ? (named as SpecEntry["ctor"]) : undefined,
    };
  });
  parsedSpecs.set(spec, entries);
  return entries;
}

/** The length of a default dst, before src is checked (0 for what is not an array: the check names it). */
export function lengthOf(src: unknown): number {
  return ArrayBuffer.isView(src) && "length" in src && typeof src.length === "number" ? src.length : 0;
}

export function checkLength(what: string, actual: number, expected: number): void {
  if (actual !== expected) throw new RangeError(`tensorfile: ${what} has ${actual} elements, expected ${expected}`);
}

/** A Uint32Array over the same bytes (for bit-exact TS twins of float kernels). */
export function wordsOf(data: Float32Array): Uint32Array {
  return new Uint32Array(data.buffer, data.byteOffset, data.length);
}

export function elementSize(data: ArrayBufferView): number {
  return "BYTES_PER_ELEMENT" in data && typeof data.BYTES_PER_ELEMENT === "number" ? data.BYTES_PER_ELEMENT : 1;
}

export function sameType<T extends ArrayBufferView>(src: T, length: number): T {
  const ctor = src.constructor as new (length: number) => T;
  return new ctor(length);
}
