/**
 * The one error family of tensorfile. Every reader throws only `FormatError`s (or subclasses) for bad
 * input bytes; `code` is a string so it survives duplicate package copies and realms (fflate style),
 * `offset` is the absolute byte offset in the file and `field` the path of the field being read.
 *
 * Message shape: `tsm: truncated: need 4 bytes, 1 available at offset 130 (0x82) [node[3].inputs.count]`.
 */

export type FormatErrorCode = "TRUNCATED" | "BAD_MAGIC" | "UNSUPPORTED_VERSION" | "CORRUPT" | "LIMIT" | "UNSUPPORTED";

/** Every {@link FormatErrorCode}, in the order the docs list them. */
export const FORMAT_ERROR_CODES: readonly FormatErrorCode[] = [
  "TRUNCATED",
  "BAD_MAGIC",
  "UNSUPPORTED_VERSION",
  "CORRUPT",
  "LIMIT",
  "UNSUPPORTED",
];

function formatMessage(format: string, detail: string, offset: number | undefined, field: string | undefined): string {
  const at = offset === undefined ? "" : ` at offset ${offset} (0x${offset.toString(16)})`;
  const path = field ? ` [${field}]` : "";
  return `${format}: ${detail}${at}${path}`;
}

/**
 * The base class of every error a reader throws for bad input bytes: what went wrong (`code`), in which format, at
 * which absolute byte offset and in which field. Subclasses add the details of their code.
 */
export class FormatError extends Error {
  /** The class's name, as `Error.prototype.name` (`"TruncatedError"` for a subclass). */
  override name = "FormatError";
  /** What went wrong: one of {@link FORMAT_ERROR_CODES}. */
  readonly code: FormatErrorCode;
  /** The format being read (`"bw2l"`, `"tsm"`, …), the prefix of the message. */
  readonly format: string;
  /** The absolute byte offset in the file where the problem is, when there is one. */
  readonly offset: number | undefined;
  /** The path of the field being read (`node[3].inputs.count`), when known. */
  readonly field: string | undefined;
  /** The message without the format prefix, offset and field. */
  readonly detail: string;

  /** Builds the error and its message (`<format>: <detail> at offset <n> (0x<hex>) [<field>]`). */
  constructor(
    code: FormatErrorCode,
    format: string,
    detail: string,
    offset?: number,
    field?: string,
    options?: { cause?: unknown },
  ) {
    super(formatMessage(format, detail, offset, field), options);
    this.code = code;
    this.format = format;
    this.offset = offset;
    this.field = field;
    this.detail = detail;
  }
}

/** The input ends before a field or payload it declares. */
export class TruncatedError extends FormatError {
  override name = "TruncatedError";
  constructor(
    format: string,
    offset: number,
    field: string | undefined,
    /** Bytes the field or payload needs. */
    readonly needed: number,
    /** Bytes that are there. */
    readonly available: number,
  ) {
    super("TRUNCATED", format, `truncated: need ${needed} bytes, ${available} available`, offset, field);
  }
}

const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\" };

/**
 * Latin-1 text in quotes with every control character visible: C0 and C1 controls (0x89 of "\x89PNG" included,
 * which a terminal would swallow) as \xNN, and \n \r \t \" \\.
 */
function quoted(text: string): string {
  return `"${text.replace(/[\u0000-\u001f\u007f-\u009f"\\]/g, (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)}"`;
}

function show(value: string | number | Uint8Array): string {
  if (typeof value === "number") return `0x${value.toString(16)}`;
  if (typeof value === "string") return quoted(value);
  return `[${Array.from(value, (b) => b.toString(16).padStart(2, "0")).join(" ")}]`;
}

/** The file does not start with (or a block does not carry) the expected signature. */
export class BadMagicError extends FormatError {
  override name = "BadMagicError";
  constructor(
    format: string,
    offset: number | undefined,
    field: string | undefined,
    /** The signature the format requires. */
    readonly expected: string | number | Uint8Array,
    /** What the file holds there. */
    readonly actual: string | number | Uint8Array,
  ) {
    super("BAD_MAGIC", format, `bad magic: expected ${show(expected)}, got ${show(actual)}`, offset, field);
  }
}

/** A version of the format that this library does not read. */
export class UnsupportedVersionError extends FormatError {
  override name = "UnsupportedVersionError";
  constructor(
    format: string,
    offset: number | undefined,
    field: string | undefined,
    /** The version the file declares. */
    readonly version: number | string,
    /** The versions this library reads. */
    readonly supported: readonly (number | string)[],
  ) {
    super(
      "UNSUPPORTED_VERSION",
      format,
      `unsupported version ${version} (supported: ${supported.join(", ")})`,
      offset,
      field,
    );
  }
}

/** The bytes are there but make no sense: a value out of range, sizes that disagree, a bad reference. */
export class CorruptDataError extends FormatError {
  override name = "CorruptDataError";
  constructor(format: string, detail: string, offset?: number, field?: string, options?: { cause?: unknown }) {
    super("CORRUPT", format, detail, offset, field, options);
  }
}

/** A declared size or count is beyond what this library (or the platform) will allocate. */
export class LimitError extends FormatError {
  override name = "LimitError";
  constructor(
    format: string,
    detail: string,
    offset?: number,
    field?: string,
    /** The declared value, when there is one. */
    readonly value?: number | bigint,
    /** The largest value allowed, when there is one. */
    readonly max?: number | bigint,
  ) {
    super("LIMIT", format, detail, offset, field);
  }
}

/** Valid by the format's grammar, but a feature we do not decode (an unknown dtype, a codec). */
export class UnsupportedError extends FormatError {
  override name = "UnsupportedError";
  constructor(format: string, detail: string, offset?: number, field?: string) {
    super("UNSUPPORTED", format, detail, offset, field);
  }
}

/**
 * True for a {@link FormatError} of this or another copy of the package (checked by `code` and `format`, so it
 * works across realms and duplicate installs).
 */
export function isFormatError(value: unknown): value is FormatError {
  return (
    value instanceof FormatError ||
    (value instanceof Error &&
      typeof (value as FormatError).code === "string" &&
      FORMAT_ERROR_CODES.includes((value as FormatError).code) &&
      typeof (value as FormatError).format === "string")
  );
}

/**
 * What a {@link PatchError} is about: `"unknown-name"` (the file holds no tensor of that name), `"dtype"` (a dtype
 * that cannot replace the stored one), `"shape"` (another shape than the stored logical shape), `"not-a-tensor"`
 * (a replacement that is not a NamedTensor, or raw bytes where a tensor is stored), `"conflict"` (two replacements
 * for one name, data of another size than its shape, a changed april network given with one of its weights) and
 * `"value"` (a value the stored type cannot hold, such as NaN for bw2l int8).
 */
export type PatchProblem = "unknown-name" | "dtype" | "shape" | "not-a-tensor" | "conflict" | "value";

/** The details a {@link PatchError} carries besides its message. */
export interface PatchErrorDetails {
  /** The tensor (or april network) the problem is about, when there is one. */
  tensor?: string | undefined;
  /** With "unknown-name": every name given that the file does not hold. */
  names?: readonly string[] | undefined;
  /** The dtype stored in the file (what a replacement must match or convert to). */
  expectedDtype?: string | undefined;
  /** The dtype of the replacement. */
  actualDtype?: string | undefined;
  /** The logical shape stored in the file. */
  expectedShape?: readonly number[] | undefined;
  /** The shape of the replacement. */
  actualShape?: readonly number[] | undefined;
}

/** What every PatchError carries: its code, what was wrong, and the details of the tensor concerned. */
export interface PatchErrorFields extends PatchErrorDetails {
  /** Always "PATCH": how isPatchError knows one, from this or another copy of the package. */
  readonly code: "PATCH";
  /** What was wrong with the weights given. */
  readonly problem: PatchProblem;
}

const PATCH_TYPE_PROBLEMS: ReadonlySet<PatchProblem> = new Set(["dtype", "not-a-tensor"]);

/** A dtype or a replacement of the wrong kind: a TypeError, as patch has always thrown. */
class PatchTypeError extends TypeError implements PatchErrorFields {
  override name = "PatchError";
  readonly code = "PATCH" as const;
  constructor(
    readonly problem: PatchProblem,
    message: string,
    details: PatchErrorDetails,
  ) {
    super(message);
    Object.assign(this, details);
  }
}

/** An unknown name, a shape, a size or a value: a RangeError, as patch has always thrown. */
class PatchRangeError extends RangeError implements PatchErrorFields {
  override name = "PatchError";
  readonly code = "PATCH" as const;
  constructor(
    readonly problem: PatchProblem,
    message: string,
    details: PatchErrorDetails,
  ) {
    super(message);
    Object.assign(this, details);
  }
}

/**
 * Why `patch`, `patchFrom` or `patchTo` (or a format's `replaceTensors`) refused the weights given: `problem`
 * says what, `tensor` which tensor, and for a mismatch the stored (`expected…`) and given (`actual…`) dtype or
 * shape. Every check runs before a byte is written. For compatibility a dtype or kind problem is also a
 * `TypeError` and the others a `RangeError`; `error instanceof PatchError` is true for both (and for a PatchError
 * of another copy of the package: it checks `code === "PATCH"`).
 */
export abstract class PatchError extends Error implements PatchErrorFields {
  /** Always "PATCH". */
  declare readonly code: "PATCH";
  /** What was wrong with the weights given. */
  declare readonly problem: PatchProblem;
  declare readonly tensor?: string | undefined;
  declare readonly names?: readonly string[] | undefined;
  declare readonly expectedDtype?: string | undefined;
  declare readonly actualDtype?: string | undefined;
  declare readonly expectedShape?: readonly number[] | undefined;
  declare readonly actualShape?: readonly number[] | undefined;

  /** `error instanceof PatchError`: the same test as {@link isPatchError}. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isPatchError(value);
  }
}

/** True for a {@link PatchError} (of this or another copy of the package). */
export function isPatchError(value: unknown): value is PatchError {
  return (
    value instanceof Error &&
    (value as Partial<PatchErrorFields>).code === "PATCH" &&
    typeof (value as Partial<PatchErrorFields>).problem === "string"
  );
}

/** A {@link PatchError}: a TypeError for "dtype" and "not-a-tensor", a RangeError for the other problems. */
export function patchError(
  problem: PatchProblem,
  message: string,
  details: PatchErrorDetails = {},
): PatchError & (TypeError | RangeError) {
  return PATCH_TYPE_PROBLEMS.has(problem)
    ? new PatchTypeError(problem, message, details)
    : new PatchRangeError(problem, message, details);
}
