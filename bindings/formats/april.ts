/**
 * april-asr `.april` models (abb128/april-asr, model version 1). Little-endian, no alignment, no checksum.
 *
 *   offset 0   magic          "APRILMDL" (8 bytes)
 *          8   version        u32 (= 1)
 *         12   header_size    u64: header bytes AFTER this 20-byte prelude, through the network table
 *                             (libapril ignores it)
 *         20   language_tag   8 bytes, UTF-8, NUL-padded (all 8 may be used: then no terminator)
 *              name           u64 length + UTF-8 bytes
 *              description    u64 length + UTF-8 bytes
 *              model_type     u32 (1 = LSTM transducer, stateless)
 *              params         u64 offset, u64 size (absolute; size includes the 8-byte "PARAMS\0\0" magic)
 *              network_count  u64 (3)
 *              networks[3]    u64 offset, u64 size each (absolute): encoder, decoder, joiner (ONNX bytes)
 *   reference writer order: header | encoder | decoder | joiner | params, no gaps, nothing after params.
 *
 *   params block: "PARAMS\0\0", 13 × i32 (batch_size, segment_size, segment_step, mel_features, samplerate,
 *   frame_shift_ms, frame_length_ms, round_pow2, mel_low, mel_high, snip_edges, token_count, blank_token_id),
 *   then token_count × { i32 length, bytes } (sentencepiece pieces, "▁" written as a space).
 *
 * Unlike libapril (which reads params from the file position right after the joiner), we read params at
 * `params.offset`; verify() warns when libapril would not find them there. write() always emits the
 * reference layout, which is what libapril can load.
 *
 * The code: april/model.ts (constants, types), reader.ts, writer.ts, builder.ts (create), view.ts, patch.ts,
 * edit.ts (setField; a network's ONNX model is edited with onnx's edits and written by write()).
 */
import { bytesOrUndefined } from "../bytes/input.js";
import { MAGIC } from "./april/model.js";

/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".april"];

/** True when `head` starts with the `APRILMDL` magic. */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head || head.length < MAGIC.length) return false;
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC.charCodeAt(i)) return false;
  return true;
}

export {
  MODEL_TYPE_LSTM_TRANSDUCER_STATELESS,
  NETWORK_NAMES,
  REFERENCE_PARAMS,
  id,
  type AprilCreateOptions,
  type AprilEntry,
  type AprilFile,
  type AprilLayout,
  type AprilNetworkModels,
  type AprilNetworks,
  type AprilParams,
  type AprilRawText,
  type AprilReadOptions,
  type NetworkName,
} from "./april/model.js";
export { loadNetworks, read, readFrom } from "./april/reader.js";
export { encodeHeaderAndParams, write, writeTo } from "./april/writer.js";
export { create } from "./april/builder.js";
export { blobs, inspect, loadTensor, tensorInfos, tensors, verify, verifyErrors } from "./april/view.js";
export { replaceTensors } from "./april/patch.js";
export { HEADER_FIELDS, SETTABLE_FIELDS, networkModel, setField } from "./april/edit.js";
export { quantize, quantizeWithReport } from "./april/quantize.js";
export { type QuantizeToOptions, quantizeTo } from "./april/quantize-stream.js";
