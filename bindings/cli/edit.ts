/**
 * `tensorfile edit MODEL OUT [--set-meta KEY=VALUE]… [--delete-meta KEY]… [--rename OLD=NEW]… [--shape NAME=DIMS]…
 * [--set FIELD=VALUE]… [--json] [--force]`: MODEL (.onnx or .april) with the edits applied in that order, written
 * to OUT (a temporary file renamed into place). A thin layer over the format's `edit` capability (onnx, april:
 * FormatEditing in formats/types.ts) and onnx's edit functions (formats/onnx/edit.ts): every message byte that no
 * edit touches is written as read.
 * An unknown name, a rename onto an existing name or a shape of another rank: exit 1, nothing written.
 */
import type { Command } from "./command.js";
import { open } from "node:fs/promises";
import { extname } from "node:path";
import { detectFormat } from "../any.js";
import * as onnx from "../formats/onnx.js";
import type { OnnxModel } from "../formats/onnx.js";
import { capabilitiesOf } from "../formats/registry.js";
import type { FormatEditing } from "../formats/types.js";
import { type CliIO, InputError, UsageError, jsonText, print } from "./common.js";
import { readWhole } from "./inputs.js";
import { OUTPUT_RULES, checkOutput, writeAtomically } from "./output.js";
import { formatBytes } from "./progress.js";

export const EDIT_HELP = `tensorfile edit MODEL OUT [--set-meta KEY=VALUE]… [--delete-meta KEY]… [--rename OLD=NEW]…
                [--shape NAME=DIMS]… [--set FIELD=VALUE]… [--json] [--force]

Writes OUT: MODEL (.onnx or .april) with the edits below, applied in this order (each option may be repeated).
Everything no edit touches is written byte for byte as read (an edit re-encodes only its message and the
lengths around it).
  --set-meta KEY=VALUE  set a metadata_props entry (added when absent)
  --delete-meta KEY     remove the metadata_props entries named KEY
  --rename OLD=NEW      rename a value (graph input or output, node output, initializer) and every use of it,
                        subgraphs included where they use the outer value
  --shape NAME=DIMS     the shape of a graph input, output or value_info, e.g. 1x80x9, Nx80 (a name is a
                        symbolic dim, ? an unknown one; write 1,80,9 when a name holds an "x"); same rank only.
                        The declared shapes of values computed from it (value_info, subgraph outputs) are
                        removed, and listed, so a runtime infers them again from the new shape
  --set FIELD=VALUE     onnx: producer_name, producer_version, domain, doc_string, model_version, graph_name,
                        graph_doc_string; april: name, description, language (at most 8 bytes) or a params
                        field (batch_size, segment_size, segment_step, mel_features, samplerate, …)
  --json                print a JSON summary of the edits on standard output instead of the lines (which go to
                        standard error, with what was written)
  --force               overwrite an existing OUT
For an .april, the ONNX edits name a network first: --set-meta encoder/KEY=VALUE, --rename joiner/OLD=NEW,
--shape encoder/NAME=DIMS, --set decoder/producer_name=VALUE.
Exit 1, writing nothing, for an unknown name, a rename onto a name that exists, a shape of another rank or a
value that cannot be stored; exit 2 for an option that cannot be read or a FIELD not listed. OUT ends in MODEL's
extension.
${OUTPUT_RULES}`;

export const EDIT_OPTIONS = {
  "set-meta": { type: "string", multiple: true },
  "delete-meta": { type: "string", multiple: true },
  rename: { type: "string", multiple: true },
  shape: { type: "string", multiple: true },
  set: { type: "string", multiple: true },
  json: { type: "boolean" },
  force: { type: "boolean" },
} as const;

export interface EditCommandOptions {
  "set-meta"?: string[] | undefined;
  "delete-meta"?: string[] | undefined;
  rename?: string[] | undefined;
  shape?: string[] | undefined;
  set?: string[] | undefined;
  json?: boolean | undefined;
  force?: boolean | undefined;
}

/** One edit as the summary shows it. */
interface EditDone {
  edit: "set-meta" | "delete-meta" | "rename" | "shape" | "set";
  network?: string;
  name: string;
  value?: string | (number | string | null)[];
  /** rename: the places renamed. */
  uses?: number;
  /** shape: the values computed from it whose declared shape was removed (onnx.setShape). */
  droppedShapes?: string[];
}

function pair(option: string, text: string): [string, string] {
  const at = text.indexOf("=");
  const form =
    { "set-meta": "KEY=VALUE", rename: "OLD=NEW", shape: "NAME=DIMS", set: "FIELD=VALUE" }[option] ?? "NAME=VALUE";
  if (at <= 0) throw new UsageError(`--${option} takes ${form}, not ${JSON.stringify(text)}`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/** The network a name starts with in a file of several ONNX models (`encoder/x`), and the rest. */
function networkOf(networks: readonly string[], option: string, text: string): [string, string] {
  const slash = text.indexOf("/");
  const network = slash > 0 ? text.slice(0, slash) : "";
  if (!networks.includes(network)) {
    throw new UsageError(
      `--${option} on an .april names a network first: ${networks
        .map((name) => `${name}/…`)
        .join(", ")
        .replace(/, ([^,]*)$/, " or $1")}, not ${JSON.stringify(text)}`,
    );
  }
  return [network, text.slice(slash + 1)];
}

/** Applies the edits to the model read from MODEL; the edit functions' refusals propagate (exit 1, see below). */
function applyEdits(editing: FormatEditing, file: unknown, options: EditCommandOptions): EditDone[] {
  const done: EditDone[] = [];
  const { networks } = editing;
  const target = (option: string, text: string): [OnnxModel, string | undefined, string] => {
    if (!networks) return [editing.model(file, undefined), undefined, text];
    const [network, rest] = networkOf(networks, option, text);
    return [editing.model(file, network), network, rest];
  };
  const withNetwork = (entry: EditDone, network: string | undefined): EditDone =>
    network === undefined ? entry : { ...entry, network };
  for (const text of options["set-meta"] ?? []) {
    const [where, value] = pair("set-meta", text);
    const [model, network, key] = target("set-meta", where);
    onnx.setMetadata(model, key, value);
    done.push(withNetwork({ edit: "set-meta", name: key, value }, network));
  }
  for (const text of options["delete-meta"] ?? []) {
    const [model, network, key] = target("delete-meta", text);
    onnx.deleteMetadata(model, key);
    done.push(withNetwork({ edit: "delete-meta", name: key }, network));
  }
  for (const text of options.rename ?? []) {
    const [where, to] = pair("rename", text);
    const [model, network, from] = target("rename", where);
    const uses = onnx.renameValue(model, from, to);
    done.push(withNetwork({ edit: "rename", name: from, value: to, uses }, network));
  }
  for (const text of options.shape ?? []) {
    const [where, dimsText] = pair("shape", text);
    const [model, network, name] = target("shape", where);
    const dims = onnx.parseShape(dimsText);
    const { droppedShapes } = onnx.setShape(model, name, dims);
    done.push(withNetwork({ edit: "shape", name, value: dims, droppedShapes }, network));
  }
  for (const text of options.set ?? []) {
    const [where, value] = pair("set", text);
    // a field name outside the fixed lists is a usage error, as an unknown option is
    const ofNetwork = networks !== undefined && where.includes("/");
    const field = ofNetwork ? where.slice(where.indexOf("/") + 1) : where;
    const known: readonly string[] = ofNetwork ? onnx.MODEL_FIELDS : editing.fields;
    if (!known.includes(field))
      throw new UsageError(
        `--set takes ${known.join(", ")}${networks ? " (or NETWORK/FIELD for a network's ModelProto field)" : ""}, not ${JSON.stringify(field)}`,
      );
    if (!ofNetwork) {
      editing.setField(file, where, value);
      done.push({ edit: "set", name: where, value });
      continue;
    }
    const [model, network, name] = target("set", where);
    onnx.setModelField(model, name, value);
    done.push(withNetwork({ edit: "set", name, value }, network));
  }
  return done;
}

/**
 * True for a refusal of the edit functions (onnx's and april's: a RangeError or TypeError whose message starts
 * with "tensorfile: ", naming the function and what is wrong): the input's fault, exit 1. Any other RangeError or
 * TypeError is a bug and reports as an internal error.
 */
function isEditRefusal(error: unknown): error is RangeError | TypeError {
  return (error instanceof RangeError || error instanceof TypeError) && error.message.startsWith("tensorfile: ");
}

/** The declared shapes a --shape removed downstream, named (the first ten) on the summary line. */
function droppedText(names: readonly string[]): string {
  if (names.length === 0) return "";
  const shown = names.slice(0, 10).join(", ") + (names.length > 10 ? `, … ${names.length - 10} more` : "");
  return `; declared shape removed from ${names.length} value${names.length === 1 ? "" : "s"} computed from it (${shown})`;
}

function editText(e: EditDone): string {
  const where = e.network ? `${e.network}: ` : "";
  switch (e.edit) {
    case "set-meta":
      return `${where}metadata ${e.name} = ${JSON.stringify(e.value)}`;
    case "delete-meta":
      return `${where}metadata ${e.name} deleted`;
    case "rename":
      return `${where}renamed ${e.name} -> ${String(e.value)} (${e.uses} place${e.uses === 1 ? "" : "s"})`;
    case "shape":
      return (
        `${where}shape of ${e.name} = [${(e.value as (number | string | null)[]).map((d) => d ?? "?").join(", ")}]` +
        droppedText(e.droppedShapes ?? [])
      );
    case "set":
      return `${where}${e.name} = ${JSON.stringify(e.value)}`;
  }
}

/** Runs `tensorfile edit`; returns the exit status. */
export async function editCommand(io: CliIO, args: string[], options: EditCommandOptions): Promise<number> {
  if (args.length !== 2) throw new UsageError("edit takes MODEL and OUT");
  const [modelPath, output] = args as [string, string];
  if (output === "-")
    throw new UsageError("OUT must be a file (the edited model is written to a temporary file and renamed)");
  const count = ["set-meta", "delete-meta", "rename", "shape", "set"].reduce(
    (n, k) => n + ((options[k as keyof EditCommandOptions] as string[] | undefined) ?? []).length,
    0,
  );
  if (count === 0)
    throw new UsageError("edit needs at least one of --set-meta, --delete-meta, --rename, --shape, --set");
  await checkOutput(output, [modelPath], { force: options.force ?? false });
  const bytes = await readWhole(modelPath);
  const format = detectFormat(bytes.subarray(0, 64));
  const capabilities = format ? capabilitiesOf(format) : undefined;
  const editing = capabilities?.edit;
  if (!format || !capabilities || !editing)
    throw new InputError(
      `${modelPath} is ${format ? `a ${format} file` : "not a format tensorfile reads"}: edit changes .onnx and .april models`,
    );
  const ext = extname(output).toLowerCase();
  const own = capabilities.module.extensions;
  if (!own.includes(ext))
    throw new UsageError(
      `OUT ${output} ends in "${ext || "(nothing)"}": an edited ${format} model is written as ${own.join(" or ")}`,
    );
  const file = capabilities.module.read(bytes);
  let done: EditDone[];
  try {
    done = applyEdits(editing, file, options);
  } catch (error) {
    if (isEditRefusal(error)) throw new InputError(error.message.replace(/^tensorfile: /, ""));
    throw error;
  }
  const written = await writeAtomically(
    output,
    async (temp) => {
      const handle = await open(temp, "w");
      try {
        const sink = async (chunk: Uint8Array) => {
          for (let at = 0; at < chunk.length;) at += (await handle.write(chunk, at, chunk.length - at)).bytesWritten;
        };
        return await editing.writeTo(file, sink);
      } finally {
        await handle.close();
      }
    },
    { force: options.force ?? false },
  );
  if (options.json) print(io.stdout, jsonText({ file: modelPath, output, format, byteLength: written, edits: done }));
  else {
    // the report on one stream, standard error (as convert, extract and patch report)
    for (const e of done) print(io.stderr, editText(e));
    io.stderr.write(`wrote ${output} (${format}, ${formatBytes(written)})\n`);
  }
  return 0;
}

/** The `edit` command, as run.ts lists it. */
export const EDIT_COMMAND: Command = {
  name: "edit",
  synopsis: `tensorfile edit MODEL OUT [--set-meta KEY=VALUE]… [--delete-meta KEY]… [--rename OLD=NEW]… [--shape NAME=DIMS]…
                [--set FIELD=VALUE]… [--json] [--force]`,
  help: EDIT_HELP,
  options: EDIT_OPTIONS,
  inputs: "first",
  inputOptions: "all",
  run: (io, positionals, values) => editCommand(io, positionals, values as EditCommandOptions),
};
