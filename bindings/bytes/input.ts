/**
 * What the byte-taking entry points (`read`, `detect`, `readAny`, `detectFormat`, `fromBytes`) accept, and one
 * place that turns it into the plain `Uint8Array` the readers work on.
 *
 * A Node `Buffer` is a `Uint8Array` whose `slice()` returns a view, not a copy, and which usually sits at an
 * arbitrary offset of a shared pool. Readers therefore never see the caller's Buffer: they get a plain
 * `Uint8Array` view of the same bytes (no copy), whose `slice()` copies as the standard says. Nothing here
 * or behind it writes into the caller's bytes.
 */

/** True for a Uint8Array of any realm or subclass (a Node Buffer included). */
export function isUint8Array(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array || Object.prototype.toString.call(value) === "[object Uint8Array]";
}

function isArrayBuffer(value: unknown): value is ArrayBuffer {
  const tag = Object.prototype.toString.call(value);
  return value instanceof ArrayBuffer || tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]";
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return "a string";
  if (typeof value !== "object") return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor?.name ?? "typed array"}`;
  const name = (value as { constructor?: { name?: string } }).constructor?.name;
  return name ? `a ${name}` : "an object";
}

/**
 * `value` as a plain Uint8Array over the same bytes (no copy). Accepts a Uint8Array (a Node Buffer, any byte
 * offset) or an ArrayBuffer; anything else is a TypeError naming `fn`, the parameter and what to pass.
 */
export function asBytes(value: unknown, fn: string, param = "bytes"): Uint8Array {
  if (isUint8Array(value)) {
    return value.constructor === Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  if (isArrayBuffer(value)) return new Uint8Array(value);
  let hint = "";
  if (typeof value === "string") hint = "; for a path use fromFile() and readFrom(), or read the file's bytes first";
  else if (typeof Blob !== "undefined" && value instanceof Blob)
    hint = "; for a Blob or File use fromBlob() and readFrom()";
  else if (ArrayBuffer.isView(value)) hint = "; wrap it as new Uint8Array(x.buffer, x.byteOffset, x.byteLength)";
  throw new TypeError(
    `tensorfile: ${fn}() takes ${param} (a Uint8Array or an ArrayBuffer), not ${describe(value)}${hint}`,
  );
}

/** `value` as a plain Uint8Array, or undefined when it is not bytes (for detectors, which never throw). */
export function bytesOrUndefined(value: unknown): Uint8Array | undefined {
  if (isUint8Array(value)) {
    return value.constructor === Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  if (isArrayBuffer(value)) return new Uint8Array(value);
  return undefined;
}

/** A fresh copy at offset 0 of its own buffer (`.slice()` on a Buffer would be a view). */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.byteLength);
  out.set(bytes);
  return out;
}

/** `value` if it is a ByteSource (an object with a read(offset, length) method); else a TypeError saying what to pass. */
export function asSource<T extends { read(offset: number, length: number): Promise<Uint8Array> }>(
  value: T,
  fn: string,
): T {
  if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { read?: unknown }).read === "function" &&
    !isUint8Array(value)
  )
    return value;
  let hint = "";
  if (isUint8Array(value) || isArrayBuffer(value))
    hint = `; for bytes in memory use ${fn}(fromBytes(bytes)) or read(bytes)`;
  else if (typeof value === "string")
    hint = `; for a path use ${fn}(await fromFile(path)), for a URL ${fn}(fromUrl(url))`;
  else if (typeof Blob !== "undefined" && value instanceof Blob)
    hint = `; for a Blob or File use ${fn}(fromBlob(blob))`;
  throw new TypeError(
    `tensorfile: ${fn}() takes a ByteSource (fromBytes, fromBlob, fromFile or fromUrl), not ${describe(value)}${hint}`,
  );
}

/** The parts joined into one array (the part itself when there is one). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let total = 0;
  for (const part of parts) total += part.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
