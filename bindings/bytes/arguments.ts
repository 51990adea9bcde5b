/**
 * Argument checks of the writers and builders, as the readers check bytes: the wrong kind of value is a TypeError
 * saying what the function takes (never "Cannot read properties of undefined"). No module-level state, so that a
 * bundle of one format keeps only these few lines.
 */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an Array";
  if (ArrayBuffer.isView(value)) return `a ${String(Reflect.get(value, Symbol.toStringTag))}`;
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * A writer's file argument, checked as the readers check bytes: an object whose listed fields are arrays
 * (`arrays`) or objects (`objects`), else a TypeError saying what `fn` takes.
 */
export function checkWriterInput(
  value: unknown,
  fn: string,
  takes: string,
  fields: { arrays?: readonly string[]; objects?: readonly string[]; strings?: readonly string[] } = {},
): void {
  if (value === null || typeof value !== "object" || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new TypeError(`tensorfile: ${fn}() takes ${takes}, not ${kindOf(value)}`);
  }
  const record = value as Record<string, unknown>;
  for (const f of fields.arrays ?? []) {
    if (!Array.isArray(record[f]))
      throw new TypeError(`tensorfile: ${fn}() takes ${takes}; its "${f}" is ${kindOf(record[f])}, not an array`);
  }
  for (const f of fields.objects ?? []) {
    const v = record[f];
    if (v === null || typeof v !== "object")
      throw new TypeError(`tensorfile: ${fn}() takes ${takes}; its "${f}" is ${kindOf(v)}, not an object`);
  }
  for (const f of fields.strings ?? []) {
    if (typeof record[f] !== "string")
      throw new TypeError(`tensorfile: ${fn}() takes ${takes}; its "${f}" is ${kindOf(record[f])}, not a string`);
  }
}

/** Optional string-to-string metadata (safetensors __metadata__). */
export function checkMetadata(value: unknown, fn: string): void {
  if (value === undefined) return;
  if (value === null || typeof value !== "object" || Array.isArray(value) || ArrayBuffer.isView(value)) {
    throw new TypeError(`tensorfile: ${fn}() takes metadata as an object of strings, not ${kindOf(value)}`);
  }
}
