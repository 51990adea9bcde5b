/**
 * `tensorfile verify FILE… [--strict] [--json]`: each FILE read with every check on and every tensor decoded (a
 * regular file lazily, tensor by tensor: flat memory), then the format's warnings.
 */
import type { Command } from "./command.js";
import { stat } from "node:fs/promises";
import { formatModule, readFromAny } from "../any.js";
import { decodeInChunks } from "../export/stream.js";
import { capabilitiesOf } from "../formats/registry.js";
import { openFileAccess } from "../io/file-access.js";
import { inheritExternalData } from "../io/external-data.js";
import { type ByteSource, fromBytes } from "../io/source.js";
import {
  type CliIO,
  UsageError,
  errorJson,
  errorLine,
  isInputError,
  jsonText,
  plural,
  print,
  versionText,
} from "./common.js";
import { type AnyModule, isUrl, readWhole, readWholeAny, withCliExternalData } from "./inputs.js";
import { formatBytes } from "./progress.js";
import { summarizeWarnings } from "./warnings.js";

export const VERIFY_HELP = `tensorfile verify FILE… [--strict] [--json]

Reads the whole file with every check on and decodes every tensor; prints what it found and warns about what a
reference runtime would refuse (for example an .april file whose params do not follow the joiner). A part of the
file that cannot be read (an .april network that is not a readable ONNX model) is an error: exit 1.
For ONNX (.onnx and each .april network) it checks the protobuf structure (every field's wire type, lengths inside
their message, subgraph depth), every weight's data against its dims and data type (raw_data sizes, typed-field
entry counts, external data: the file, its offset and length, read from beside a model opened by path), and it
warns about a missing ir_version or opset_import, unknown fields, a node input nothing defines (in scope, subgraphs
included) and a graph output nothing produces. It does not infer types or shapes, nor check operators against
their schemas (what onnx.checker's full check does): a model that verifies may still be refused by a runtime.
  --strict  exit 1 on warnings too
  --json    one JSON line per file: { "file", "ok", "format", "version", "tensors", "warnings", "errors", "error": { "code", "offset", "field", "message" } }`;

export const VERIFY_OPTIONS = { strict: { type: "boolean" }, json: { type: "boolean" } } as const;

/**
 * Every tensor of FILE decoded once and let go (verify needs their count and size, not their values), with the
 * file's object and its module. A regular file is opened lazily: headers first, then each tensor read and decoded
 * on its own (a plainly stored one 16 MiB at a time, a large deflated npz member as it inflates), so memory stays
 * flat whatever the file size; the checks of verify and inspect give the same results on this header-level
 * object as on read()'s (npz: its stored members' CRC-32s read in chunks). Anything that is not a regular file is
 * read whole.
 */
async function readAndDecode(path: string): Promise<{
  module: AnyModule;
  file: unknown;
  tensors: { count: number; bytes: number };
  size: number;
  read: number;
  warnings?: string[];
}> {
  if (
    path !== "-" &&
    !isUrl(path) &&
    (await stat(path).then(
      (s) => s.isFile(),
      () => false,
    ))
  ) {
    const access = await openFileAccess(path, "tensorfile");
    try {
      // the bytes actually read are counted: what verify says it checked (an april file's networks, for
      // example, are not read: they are opaque blobs)
      const source = countingSource(access.source());
      // the counted source reads the same regular file: it finds external data where access.source() does
      inheritExternalData(source, withCliExternalData(access.source()));
      const opened = { ...(await readFromAny(source)), source };
      let bytes = 0;
      const infos = opened.tensorInfos();
      for (const info of infos) {
        for await (const piece of decodeInChunks(opened, info, {})) bytes += piece.byteLength;
      }
      // npz: the CRC-32s of stored members, read in chunks (deflated ones were checked as they inflated)
      const warnings = await capabilitiesOf(opened.format)?.verifyFrom?.(source, opened.file);
      const module = formatModule(opened.format) as AnyModule;
      return {
        module,
        file: opened.file,
        tensors: { count: infos.length, bytes },
        size: source.size,
        read: Math.min(source.size, source.bytesRead),
        warnings,
      };
    } finally {
      access.close();
    }
  }
  const bytes = await readWhole(path);
  const { module, file } = readWholeAny(bytes, path);
  if (capabilitiesOf(module.id)?.externalFileOf) {
    // external weights are read where --external-dir says (standard input, a pipe or a URL has no folder), in pieces
    const source = withCliExternalData(fromBytes(bytes, path));
    const opened = { ...(await readFromAny(source)), source };
    let total = 0;
    const infos = opened.tensorInfos();
    for (const info of infos) for await (const piece of decodeInChunks(opened, info, {})) total += piece.byteLength;
    return { module, file, tensors: { count: infos.length, bytes: total }, size: bytes.length, read: bytes.length };
  }
  const all = module.tensors(file);
  return {
    module,
    file,
    tensors: { count: all.length, bytes: all.reduce((a, t) => a + t.data.byteLength, 0) },
    size: bytes.length,
    read: bytes.length,
  };
}

/** `source`, counting the bytes its reads return (`bytesRead`). */
function countingSource(source: ByteSource & { size: number }): ByteSource & { size: number; bytesRead: number } {
  const counted = {
    size: source.size,
    name: source.name,
    bytesRead: 0,
    read: async (offset: number, length: number) => {
      const bytes = await source.read(offset, length);
      counted.bytesRead += bytes.length;
      return bytes;
    },
    ...(source.readSync && {
      readSync: (offset: number, length: number) => {
        const bytes = source.readSync!(offset, length);
        counted.bytesRead += bytes.length;
        return bytes;
      },
    }),
    ...(source.readInto && {
      readInto: async (target: Uint8Array, offset: number) => {
        const n = await source.readInto!(target, offset);
        counted.bytesRead += n;
        return n;
      },
    }),
  };
  return counted;
}

export async function verifyCommand(
  io: CliIO,
  paths: string[],
  options: { strict?: boolean; json?: boolean },
): Promise<number> {
  if (paths.length === 0) throw new UsageError("verify takes one or more FILEs");
  const many = paths.length > 1;
  let failed = 0;
  let warned = 0;
  for (const path of paths) {
    try {
      const { module, file, tensors: decoded, size, read, warnings: checked } = await readAndDecode(path);
      const info = module.inspect(file);
      const warnings = checked ?? module.verify(file);
      const errors = module.verifyErrors?.(file) ?? [];
      const total = decoded.bytes;
      if (warnings.length > 0) warned++;
      const ok = errors.length === 0 && !(options.strict && warnings.length > 0);
      if (!ok) failed++;
      if (options.json) {
        print(
          io.stdout,
          jsonText(
            {
              file: path,
              ok,
              format: module.id,
              version: info.version,
              tensors: decoded.count,
              warnings,
              errors,
              error: null,
            },
            0,
          ),
        );
        continue;
      }
      print(
        io.stdout,
        `${path}: ${module.id}${versionText(info)}, ${plural(decoded.count, "tensor")} (${formatBytes(total)}), ${read === size ? `${size} bytes read and checked` : `${read} of its ${size} bytes read and checked (the headers and tensors; the rest, such as embedded blobs, is not read)`}`,
      );
      const { shown, more } = summarizeWarnings(warnings);
      for (const w of shown) print(io.stdout, `${many ? `${path}: ` : ""}warning: ${w}`);
      for (const m of more)
        print(
          io.stdout,
          `${many ? `${path}: ` : ""}warning: … and ${m.count} more like: ${m.like} (--json lists every warning)`,
        );
      for (const e of errors) print(io.stderr, `tensorfile: ${many ? `${path}: ` : ""}error: ${e}`);
      if (errors.length > 0)
        print(
          io.stdout,
          `failed with ${plural(errors.length, "error")}${warnings.length > 0 ? ` and ${plural(warnings.length, "warning")}` : ""}`,
        );
      else
        print(
          io.stdout,
          warnings.length === 0
            ? "ok"
            : `${ok ? "ok" : "failed (--strict)"} with ${plural(warnings.length, "warning")}`,
        );
    } catch (error) {
      if (!isInputError(error)) throw error;
      failed++;
      if (options.json) print(io.stdout, jsonText({ file: path, ok: false, warnings: [], error: errorJson(error) }, 0));
      print(io.stderr, `tensorfile: ${many ? `${path}: ` : ""}${errorLine(error)}`);
    }
  }
  if (many) {
    print(
      options.json ? io.stderr : io.stdout,
      `${paths.length - failed} of ${plural(paths.length, "file")} ok${warned > 0 ? `, ${warned} with warnings` : ""}${failed > 0 ? `, ${failed} failed` : ""}`,
    );
  }
  return failed > 0 ? 1 : 0;
}

/** The `verify` command, as run.ts lists it. */
export const VERIFY_COMMAND: Command = {
  name: "verify",
  synopsis: "tensorfile verify FILE… [--strict] [--json]",
  help: VERIFY_HELP,
  options: VERIFY_OPTIONS,
  inputs: "all",
  inputOptions: "all",
  run: (io, positionals, values) => verifyCommand(io, positionals, values as { strict?: boolean; json?: boolean }),
};
