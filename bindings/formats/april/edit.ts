/**
 * Editing an `.april` file: the object read() returns is changed in place and write() stores it (the header and
 * params are always written from the object; a network's ONNX model in `file.onnx` is written with its edits,
 * see onnx/edit.ts for the edits of a network). setField() is the checked form of a header or params change.
 */
import { utf8Bytes } from "../../bytes/byte-writer.js";
import {
  type AprilFile,
  type AprilParams,
  LANGUAGE_BYTES,
  NETWORK_NAMES,
  type NetworkName,
  PARAM_FIELDS,
} from "./model.js";
import type { OnnxModel } from "../onnx/embed.js";

/** The header fields setField() sets; params fields go by their names in the file (batch_size, samplerate, …). */
export const HEADER_FIELDS = ["name", "description", "language"] as const;
/** Every field setField() sets: the header fields, then the params fields but token_count (which follows the tokens). */
export const SETTABLE_FIELDS: readonly string[] = [
  ...HEADER_FIELDS,
  ...PARAM_FIELDS.filter(([key]) => key !== "tokenCount").map(([, label]) => label),
];

function fail(detail: string): never {
  throw new RangeError(`tensorfile: april.setField: ${detail}`);
}

/**
 * Sets a header field (name, description, language: at most 8 UTF-8 bytes, no NUL) or a params field (by its
 * file name, e.g. `segment_step`; an i32; token_count follows the tokens and is not set). A RangeError names a
 * field it does not know or a value that cannot be stored; nothing is changed then.
 */
export function setField(file: AprilFile, field: string, value: string): void {
  if (typeof field !== "string" || typeof value !== "string")
    throw new TypeError("tensorfile: april.setField takes a field name and a value (strings)");
  switch (field) {
    case "name":
      file.name = value;
      return;
    case "description":
      file.description = value;
      return;
    case "language": {
      const bytes = utf8Bytes(value);
      if (bytes.length > LANGUAGE_BYTES)
        fail(`language ${JSON.stringify(value)} is ${bytes.length} bytes (at most ${LANGUAGE_BYTES})`);
      if (bytes.includes(0)) fail("language contains a NUL character");
      file.language = value;
      return;
    }
  }
  const param = PARAM_FIELDS.find(([, label]) => label === field);
  if (!param) fail(`${JSON.stringify(field)} is not a field it sets (${SETTABLE_FIELDS.join(", ")})`);
  const [key] = param;
  if (key === "tokenCount") fail("token_count follows the tokens (it is not set on its own)");
  const n = Number(value);
  if (!/^\s*-?\d+\s*$/.test(value) || !Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff)
    fail(`${field} takes an i32, not ${JSON.stringify(value)}`);
  (file.params as AprilParams)[key] = n;
}

/** The ONNX model of network `name` (encoder, decoder, joiner); a RangeError when it is not a readable ONNX model. */
export function networkModel(file: AprilFile, name: string): OnnxModel {
  if (!(NETWORK_NAMES as readonly string[]).includes(name))
    fail(`${JSON.stringify(name)} is not a network (${NETWORK_NAMES.join(", ")})`);
  const model = file.onnx?.[name as NetworkName];
  if (!model)
    throw new RangeError(
      `tensorfile: april: the ${name} network is not a readable ONNX model${file.onnxErrors?.[name as NetworkName] ? ` (${file.onnxErrors[name as NetworkName]})` : ""}`,
    );
  return model;
}
