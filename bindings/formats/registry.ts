/**
 * The one list of formats. A format is its folder (`formats/<id>/`, with `format.ts` declaring its reading functions
 * and its capabilities), its facade `formats/<id>.ts`, and one import line plus its name in each list below. The
 * order is the order detection tries them in: the five model formats with magic bytes first, then ONNX (no magic: its
 * detector checks that the first bytes are ModelProto fields with their wire types and an ir_version), then the
 * input formats safetensors, npy and npz (safetensors has no magic, so its detector is a plausibility check that must
 * never win over a model format), and last onnx-tensor (a bare TensorProto, no magic either: a conservative check of
 * its first fields; a source named `.pb` is opened as one whatever its head).
 *
 * Two lists, not one, so that bundlers can drop what a program does not use: `READINGS` reaches only the readers
 * (detectFormat, readAny and readFromAny use it), `CAPABILITIES` the whole format (writers, patch planners, the
 * graph): esbuild keeps every export of a module namespace used as a value, and Rolldown (Vite) keeps what an unused
 * array reads from a namespace, hence the named imports. test/formats/registry.test.ts checks that the two name the
 * same formats in the same order, and that what derives from them (package.json's subpaths and typedoc.json's entry
 * points, written by scripts/sync-registry.mjs; the CLI usage's format list) is up to date.
 */
import { capabilities as aprilCapabilities, reading as aprilReading } from "./april/format.js";
import { capabilities as bw2lCapabilities, reading as bw2lReading } from "./bw2l/format.js";
import { capabilities as npyCapabilities, reading as npyReading } from "./npy/format.js";
import { capabilities as npzCapabilities, reading as npzReading } from "./npz/format.js";
import { capabilities as onnxCapabilities, reading as onnxReading } from "./onnx/format.js";
import { capabilities as onnxTensorCapabilities, reading as onnxTensorReading } from "./onnx-tensor/format.js";
import { capabilities as primitivCapabilities, reading as primitivReading } from "./primitiv/format.js";
import { capabilities as safetensorsCapabilities, reading as safetensorsReading } from "./safetensors/format.js";
import { capabilities as spraakCapabilities, reading as spraakReading } from "./spraak/format.js";
import { capabilities as tsmCapabilities, reading as tsmReading } from "./tsm/format.js";
import type { FormatCapabilities, FormatId, FormatReading } from "./types.js";

/** Every format's reading functions, in the order detection tries them. */
export const READINGS: readonly FormatReading[] = [
  bw2lReading,
  aprilReading,
  tsmReading,
  primitivReading,
  spraakReading,
  onnxReading,
  safetensorsReading,
  npyReading,
  npzReading,
  onnxTensorReading,
];

/** The built-in formats' capabilities, in the same order (typed per format: FormatModules derives from it). */
const BUILT_IN_CAPABILITIES = [
  bw2lCapabilities,
  aprilCapabilities,
  tsmCapabilities,
  primitivCapabilities,
  spraakCapabilities,
  onnxCapabilities,
  safetensorsCapabilities,
  npyCapabilities,
  npzCapabilities,
  onnxTensorCapabilities,
] as const;

/** Every format's capabilities, in the order of READINGS (the same array: registerFormat adds to it). */
export const CAPABILITIES: readonly FormatCapabilities[] = BUILT_IN_CAPABILITIES;

/** Each built-in format id's module (its facade namespace). */
export type BuiltInModules = { [C in (typeof BUILT_IN_CAPABILITIES)[number] as C["module"]["id"]]: C["module"] };

/** The reading functions of format `id`, or undefined for an id no format has. */
export function readingOf(id: string): FormatReading | undefined {
  return READINGS.find((format) => format.id === id);
}

/** The capabilities of format `id`, or undefined for an id no format has. */
export function capabilitiesOf(id: string): FormatCapabilities | undefined {
  return CAPABILITIES.find((format) => format.id === id);
}

/**
 * Adds a format to the registry, after the others (or before the format `before`): detectFormat, readAny,
 * readFromAny, formatModule, patch and the CLI then know it. For tests and experiments: the built-in formats are
 * the lists above. The id must be new.
 */
export function registerFormat(
  reading: FormatReading,
  capabilities: FormatCapabilities,
  before?: FormatId,
): () => void {
  if (reading.id !== capabilities.id)
    throw new TypeError(
      `tensorfile: registerFormat: the reading is ${reading.id}'s, the capabilities ${capabilities.id}'s`,
    );
  if (readingOf(reading.id)) throw new TypeError(`tensorfile: registerFormat: ${reading.id} is already a format`);
  const readings = READINGS as FormatReading[];
  const all = CAPABILITIES as FormatCapabilities[];
  const at = before === undefined ? -1 : readings.findIndex((format) => format.id === before);
  readings.splice(at < 0 ? readings.length : at, 0, reading);
  all.splice(at < 0 ? all.length : at, 0, capabilities);
  return () => {
    readings.splice(readings.indexOf(reading), 1);
    all.splice(all.indexOf(capabilities), 1);
  };
}
