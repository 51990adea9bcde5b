/**
 * april builder: create() a model from ONNX networks and sentencepiece pieces.
 */

import {
  type AprilCreateOptions,
  type AprilFile,
  type AprilNetworks,
  type AprilParams,
  MODEL_TYPE_LSTM_TRANSDUCER_STATELESS,
  REFERENCE_PARAMS,
} from "./model.js";
import { modelsOfNetworks } from "./weights.js";
import { encodeFields, networkBytes, referenceLayout } from "./writer.js";
import { checkWriterInput } from "../../bytes/arguments.js";

/**
 * A new model from your own ONNX networks and sentencepiece pieces, with export-april.py's defaults
 * (REFERENCE_PARAMS, name "Untitled", description "No description", language "en-us", blank = the id of
 * "<blk>", or 0 when there is none). `write(create(...))` gives the bytes.
 */
export function create(options: AprilCreateOptions): AprilFile & {
  /** The three networks' bytes, loaded. */
  networks: AprilNetworks<Uint8Array>;
} {
  checkWriterInput(options, "april.create", "the model's options ({ tokens, networks, … })", {
    arrays: ["tokens"],
    objects: ["networks"],
  });
  const tokens = options.tokens.map((t) => (options.keepSpaceMarker ? t : t.replaceAll("\u2581", " ")));
  const blank = options.tokens.indexOf("<blk>");
  const params: AprilParams = {
    ...REFERENCE_PARAMS,
    blankTokenId: blank >= 0 ? blank : 0,
    ...options.params,
    tokenCount: tokens.length,
  };
  const networks = {
    encoder: options.networks.encoder,
    decoder: options.networks.decoder,
    joiner: options.networks.joiner,
  };
  const file = {
    version: 1,
    headerSize: 0,
    language: options.language ?? "en-us",
    name: options.name ?? "Untitled",
    description: options.description ?? "No description",
    modelType: MODEL_TYPE_LSTM_TRANSDUCER_STATELESS,
    params,
    tokens,
    networks,
  };
  const bytes = networkBytes(file);
  const encoded = encodeFields(file);
  const { models, errors } = modelsOfNetworks(networks);
  return {
    ...file,
    headerSize: encoded.headerSize,
    layout: referenceLayout(
      encoded,
      bytes.map((n) => n.length),
    ),
    onnx: models,
    onnxErrors: errors,
  };
}
