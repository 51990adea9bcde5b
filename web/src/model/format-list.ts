/**
 * The formats the welcome page lists, from the registry (READINGS, in its order): each format's name and the file
 * extensions it is opened by. A format added to the registry is listed with no change here (under its id, or only
 * its extension when they are the same word, `.safetensors`); FORMAT_NAMES only gives the known ones a better name.
 */
import { READINGS } from "../../../bindings/formats/registry.js";
import type { FormatReading } from "../../../bindings/formats/types.js";

/** What a person calls a format, where that is not its id. */
const FORMAT_NAMES: Readonly<Partial<Record<string, string>>> = {
  bw2l: "wav2letter",
  april: "april-asr",
  tsm: "TenniS / SeetaFace6",
  spraak: "SPRAAK",
  onnx: "ONNX",
  "onnx-tensor": "ONNX test data",
};

/** One format of the welcome page's list: its name (absent when its one extension says it) and extensions. */
export interface ListedFormat {
  name: string | undefined;
  extensions: readonly string[];
}

/** The registry's formats as the welcome page lists them. */
export function formatList(readings: readonly Pick<FormatReading, "id" | "extensions">[] = READINGS): ListedFormat[] {
  return readings.map(({ id, extensions }) => {
    const named = FORMAT_NAMES[id];
    const saysIt = named === undefined && extensions.length === 1 && extensions[0] === `.${id}`;
    return { name: saysIt ? undefined : (named ?? id), extensions };
  });
}
