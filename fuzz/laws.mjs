// The laws every reader keeps for ANY input bytes (issue 14), shared by the property tests (vitest, against
// bindings/) and the Jazzer.js targets (against the built dist/). Pass the library namespace in: `lib` is
// `import * as lib from "tensorfile"` (dist/index.js) or bindings/index.ts.
//
//   read(x) returns or throws a FormatError; when it returns, tensors() (both dtype modes), tensorInfos(),
//   verify(), inspect() and blobs() return too, and the fixpoint holds: write(read(x)) succeeds, read() of it
//   gives the same tensors (names, dtypes, shapes, bytes) and the same inspect(), and writing that again gives
//   the same bytes; readFrom(fromBytes(x)) + loadTensor of every info equals the eager values; x is never
//   modified. The same bytes as a Node Buffer, a plain Uint8Array and a view at an odd offset give the same
//   results (checkInputForms). Every call returns within CALL_LIMIT_MS and allocates at most
//   64 MB + 16 × the input beyond what it returns.
//
// A broken law throws a LawError (any other non-FormatError exception escapes as it is): both are findings.
import { createHash } from "node:crypto";

export const CALL_LIMIT_MS = 1000;
export const MEMORY_ALLOWANCE_BYTES = 64 * 1024 * 1024;
export const MEMORY_INPUT_FACTOR = 16;

export class LawError extends Error {
  constructor(format, law, detail) {
    super(`${format}: law broken: ${law}${detail ? `: ${detail}` : ""}`);
    this.name = "LawError";
    this.law = law;
  }
}

/** The formats the laws know (the five plus the new input formats once their modules exist in `lib`). */
export function lawFormats(lib) {
  return ["bw2l", "april", "tsm", "primitiv", "spraak", "onnx", "safetensors", "npy", "npz", "onnx-tensor"].filter(
    (id) => moduleOf(lib, id) && typeof moduleOf(lib, id).read === "function",
  );
}

/** A format's namespace in `lib`: under its id, camel-cased where the id has a dash (onnx-tensor: lib.onnxTensor). */
export function moduleOf(lib, id) {
  return lib[id] ?? lib[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())];
}

function isFormatError(lib, error) {
  return lib.isFormatError ? lib.isFormatError(error) : error instanceof lib.FormatError;
}

/** Runs `fn` (sync or async) and checks its time and the array-buffer memory it leaves allocated. */
async function measured(format, what, inputSize, fn, context) {
  const before = context.memory ? process.memoryUsage().arrayBuffers : 0;
  const start = performance.now();
  const value = await fn();
  const elapsed = performance.now() - start;
  if (elapsed > context.callLimitMs) {
    throw new LawError(format, "bounded time", `${what} took ${elapsed.toFixed(0)} ms (limit ${context.callLimitMs} ms)`);
  }
  if (context.memory) {
    const grown = process.memoryUsage().arrayBuffers - before;
    const allowed = MEMORY_ALLOWANCE_BYTES + MEMORY_INPUT_FACTOR * inputSize + (context.declaredBytes ?? 0);
    if (grown > allowed) {
      throw new LawError(format, "bounded memory", `${what} left ${grown} array-buffer bytes allocated (allowed ${allowed})`);
    }
  }
  return value;
}

function bytesOfData(data) {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function sameBytes(a, b) {
  return a.byteLength === b.byteLength && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

/**
 * Keys of inspect() that say where things are: write() may normalise the layout (april always writes the
 * reference order: its header_size field, which libapril ignores, and the params block's extent then follow
 * that layout, and bytes past the tokens inside the block are not kept).
 */
const LAYOUT_KEYS = new Set(["offset", "byteOffset", "headerSize", "paramsBlock"]);

/** JSON with bigints, typed arrays and byte ranges spelled out deterministically (without layout keys if asked). */
export function stableJson(value, { withoutLayout = false } = {}) {
  return JSON.stringify(value, (key, v) => {
    if (withoutLayout && LAYOUT_KEYS.has(key)) return undefined;
    if (typeof v === "bigint") return `${v}n`;
    if (ArrayBuffer.isView(v)) return { bytes: v.byteLength, sha1: digestBytes(bytesOfData(v)) };
    if (v instanceof Map) return { map: [...v.entries()] };
    return v;
  });
}

function digestBytes(bytes) {
  return createHash("sha1").update(bytes).digest("hex");
}

/** One line per tensor: name, dtype, shape, sha1 of the bytes (so results can be compared across reads). */
export function tensorDigest(tensors) {
  return tensors.map((t) => `${t.name}|${t.dtype}|${t.shape.join("x")}|${t.data.constructor.name}|${digestBytes(bytesOfData(t.data))}`);
}

function sameTensors(format, law, a, b) {
  if (a.length !== b.length) throw new LawError(format, law, `${a.length} tensors vs ${b.length}`);
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i], b[i]];
    if (x.name !== y.name || x.dtype !== y.dtype || x.shape.join(",") !== y.shape.join(",")) {
      throw new LawError(format, law, `tensor ${i}: ${x.name} ${x.dtype} [${x.shape}] vs ${y.name} ${y.dtype} [${y.shape}]`);
    }
    if (!sameBytes(bytesOfData(x.data), bytesOfData(y.data))) throw new LawError(format, law, `tensor ${i} (${x.name}): different bytes`);
  }
}

/** A fresh plain Uint8Array (not a Buffer: slice() on a Buffer keeps its species) at offset 0. */
function copyOf(bytes) {
  return new Uint8Array(bytes);
}

/**
 * Options: callLimitMs, memory (check array-buffer growth), lazy (check readFrom + loadTensor),
 * copyingSource (the lazy source hands out fresh aligned copies instead of fromBytes's views: only for
 * campaigns run while a known alignment bug is being fixed elsewhere).
 */
const DEFAULT_CONTEXT = { callLimitMs: CALL_LIMIT_MS, memory: true, lazy: true, copyingSource: false };

function sourceOf(lib, input, context) {
  if (!context.copyingSource) return lib.fromBytes(input);
  return {
    size: input.byteLength,
    read: async (offset, length) => new Uint8Array(input.subarray(Math.min(offset, input.length), Math.min(offset + length, input.length))),
  };
}

/**
 * Checks every law for one format on `input` (whatever form it comes in: Buffer, Uint8Array, view).
 * Returns a summary string (the error for rejected bytes, tensor and inspect digests for accepted ones) that
 * checkInputForms compares across forms.
 */
export async function checkFormatLaws(lib, format, input, options = {}) {
  const context = { ...DEFAULT_CONTEXT, ...options };
  const module = moduleOf(lib, format);
  const size = input.byteLength;
  const original = copyOf(input);
  const call = (what, fn) => measured(format, what, size, fn, context);

  let file;
  try {
    file = await call("read", () => module.read(input));
  } catch (error) {
    if (!isFormatError(lib, error)) throw error;
    if (!sameBytes(input, original)) throw new LawError(format, "input never modified", "read (rejected) changed its input");
    return `rejected ${error.code} at ${error.offset} [${error.field ?? ""}]`;
  }
  // The file declares (and contains) its payloads: let tensors() return that much.
  const eager = await call("tensors", () => module.tensors(file));
  const declared = eager.reduce((n, t) => n + t.data.byteLength, 0);
  const widened = await measured(format, "tensors(float32)", size, () => module.tensors(file, { dtype: "float32" }), { ...context, declaredBytes: 8 * declared });
  if (widened.length !== eager.length) throw new LawError(format, "tensors both modes", `${eager.length} vs ${widened.length} tensors`);
  for (let i = 0; i < eager.length; i++) {
    if (widened[i].name !== eager[i].name || widened[i].shape.join(",") !== eager[i].shape.join(",")) {
      throw new LawError(format, "tensors both modes", `tensor ${i}: ${eager[i].name} [${eager[i].shape}] vs ${widened[i].name} [${widened[i].shape}]`);
    }
  }
  const infos = await call("tensorInfos", () => module.tensorInfos(file));
  if (infos.length !== eager.length) throw new LawError(format, "tensorInfos", `${infos.length} infos for ${eager.length} tensors`);
  if (module.verify) await call("verify", () => module.verify(file));
  const inspected = module.inspect ? stableJson(await call("inspect", () => module.inspect(file)), { withoutLayout: true }) : "";
  if (module.blobs) await call("blobs", () => module.blobs(file));
  // tsm -> ONNX (issue 25): converts or refuses with a FormatError, never anything else
  if (format === "tsm" && typeof module.onnxSupport === "function") {
    try {
      await call("onnxSupport", () => module.onnxSupport(file));
    } catch (error) {
      if (!isFormatError(lib, error)) throw new LawError(format, "onnx conversion", `onnxSupport threw ${error?.name}: ${error?.message}`);
    }
  }

  // the fixpoint (input-only formats such as safetensors, npy and npz have no write)
  if (typeof module.write === "function") await checkFixpoint(format, module, file, eager, inspected, declared, size, context);

  // lazy reading gives the eager values
  if (context.lazy) {
    const source = sourceOf(lib, input, context);
    let lazyFile;
    try {
      lazyFile = await call("readFrom", () => module.readFrom(source));
    } catch (error) {
      throw new LawError(format, "lazy read", `readFrom threw ${error?.name} where read returned: ${error?.message}`);
    }
    const lazyInfos = await call("tensorInfos(lazy)", () => module.tensorInfos(lazyFile));
    if (stableJson(lazyInfos) !== stableJson(infos)) throw new LawError(format, "lazy infos", firstDifference(stableJson(infos), stableJson(lazyInfos)));
    const loaded = [];
    for (const info of lazyInfos) loaded.push(await call(`loadTensor(${info.name})`, () => module.loadTensor(source, info)));
    sameTensors(format, "lazy values", eager, loaded);
    await checkStreamedExport(lib, format, source, module, lazyInfos, eager, declared, size, context);
  }

  if (!sameBytes(input, original)) throw new LawError(format, "input never modified", "the input bytes changed");
  return `accepted ${inspected.length}:${digestBytes(Buffer.from(inspected))} ${tensorDigest(eager).join(";")}`;
}

/**
 * The streamed export (what convert/extract/verify and writeSafetensorsTo do with a file: each tensor in pieces,
 * chunks or bands read from the source) ends and gives the bytes writeSafetensors gives for the eager tensors, or
 * the same usage error. (A void tensor of 10^18 elements once made it loop over empty chunks.)
 */
async function checkStreamedExport(lib, format, source, module, infos, eager, declared, size, context) {
  const outcome = async (fn) => {
    try {
      return { bytes: await fn() };
    } catch (error) {
      if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
      return { error: `${error.name}: ${error.message}` };
    }
  };
  const wanted = await outcome(() => lib.writeSafetensors(eager));
  const lazy = { tensorInfos: () => infos, loadTensor: (info, options) => module.loadTensor(source, info, options), source };
  const got = await measured(format, "writeSafetensorsTo(lazy)", size, () => outcome(async () => {
    const pieces = [];
    await lib.writeSafetensorsTo((chunk) => void pieces.push(copyOf(chunk)), lazy);
    return Buffer.concat(pieces);
  }), { ...context, declaredBytes: 3 * declared });
  if ((wanted.error ?? "") !== (got.error ?? "")) throw new LawError(format, "streamed export", `writeSafetensors: ${wanted.error ?? "ok"}; writeSafetensorsTo(lazy file): ${got.error ?? "ok"}`);
  if (wanted.bytes && !sameBytes(got.bytes, wanted.bytes)) throw new LawError(format, "streamed export", `writeSafetensorsTo(lazy file) wrote ${got.bytes.byteLength} bytes that differ from writeSafetensors' ${wanted.bytes.byteLength}`);
}

/** write(read(x)) succeeds, reads back to the same tensors and inspect(), and writes again to the same bytes. */
async function checkFixpoint(format, module, file, eager, inspected, declared, size, context) {
  const call = (what, fn) => measured(format, what, size, fn, context);
  const written = await measured(format, "write", size, () => module.write(file), { ...context, declaredBytes: 2 * declared });
  let again;
  try {
    again = await call("read(write(read(x)))", () => module.read(written));
  } catch (error) {
    throw new LawError(format, "fixpoint", `read(write(read(x))) threw ${error?.name}: ${error?.message}`);
  }
  sameTensors(format, "fixpoint tensors", eager, await call("tensors(again)", () => module.tensors(again)));
  const inspectedAgain = module.inspect ? stableJson(await call("inspect(again)", () => module.inspect(again)), { withoutLayout: true }) : "";
  if (inspectedAgain !== inspected) throw new LawError(format, "fixpoint inspect", firstDifference(inspected, inspectedAgain));
  const rewritten = await call("write(again)", () => module.write(again));
  if (!sameBytes(rewritten, written)) throw new LawError(format, "fixpoint bytes", `write(read(write(read(x)))) differs from write(read(x)) (${rewritten.byteLength} vs ${written.byteLength} bytes)`);
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `first difference at char ${i}: ${JSON.stringify(a.slice(Math.max(0, i - 60), i + 60))} vs ${JSON.stringify(b.slice(Math.max(0, i - 60), i + 60))}`;
}

/** detectFormat never throws; readAny agrees with it and with the format's own read; readFromAny too. */
export async function checkAnyLaws(lib, input, options = {}) {
  const context = { ...DEFAULT_CONTEXT, ...options };
  const size = input.byteLength;
  const original = copyOf(input);
  const call = (what, fn) => measured("any", what, size, fn, context);
  const detected = await call("detectFormat", () => lib.detectFormat(input));
  const head = await call("detectFormat(head)", () => lib.detectFormat(input.subarray(0, lib.DETECT_BYTES ?? 64)));
  if (detected !== head) throw new LawError("any", "detect looks at the head only", `${detected} vs ${head} on the first bytes`);
  let result;
  try {
    result = await call("readAny", () => lib.readAny(input));
  } catch (error) {
    if (!isFormatError(lib, error)) throw error;
    if (!sameBytes(input, original)) throw new LawError("any", "input never modified", "readAny (rejected) changed its input");
    return `rejected ${error.code}`;
  }
  if (result.format !== detected) throw new LawError("any", "readAny format", `readAny says ${result.format}, detectFormat ${detected}`);
  const tensors = await call("readAny().tensors", () => result.tensors());
  await call("readAny().tensors(float32)", () => result.tensors({ dtype: "float32" }));
  if (context.lazy && lib.readFromAny) {
    const source = sourceOf(lib, input, context);
    const lazy = await call("readFromAny", () => lib.readFromAny(source));
    if (lazy.format !== detected) throw new LawError("any", "readFromAny format", `${lazy.format} vs ${detected}`);
    const loaded = [];
    for (const info of lazy.tensorInfos()) loaded.push(await call(`loadTensor(${info.name})`, () => lazy.loadTensor(info)));
    sameTensors("any", "readFromAny values", tensors, loaded);
  }
  if (!sameBytes(input, original)) throw new LawError("any", "input never modified", "the input bytes changed");
  return `${detected} ${await checkFormatLaws(lib, detected, input, options)}`;
}

/** The three forms users pass: a Node Buffer (pooled, usually at an odd offset), a fresh Uint8Array, a view at an odd offset. */
export function inputForms(bytes) {
  const plain = copyOf(bytes);
  const backing = new Uint8Array(bytes.byteLength + 3);
  backing.set(bytes, 1);
  const oddView = backing.subarray(1, 1 + bytes.byteLength);
  const pooled = Buffer.allocUnsafe(bytes.byteLength); // small Buffers come from the pool at arbitrary offsets
  pooled.set(bytes);
  const oddBuffer = Buffer.from(backing.buffer, 1, bytes.byteLength);
  return [
    ["Uint8Array", plain],
    ["Buffer", pooled],
    ["Buffer at offset 1", oddBuffer],
    ["Uint8Array view at offset 1", oddView],
  ];
}

/** Every law on every input form, and the same summary from each. `check` is checkFormatLaws or checkAnyLaws bound to a format. */
export async function checkInputForms(check, bytes, label = "input") {
  let first;
  for (const [form, input] of inputForms(bytes)) {
    const summary = await check(input);
    if (first === undefined) first = { form, summary };
    else if (summary !== first.summary) {
      throw new LawError(label, "same result for every input form", `${first.form}: ${first.summary.slice(0, 200)} vs ${form}: ${summary.slice(0, 200)}`);
    }
  }
  return first.summary;
}
