/**
 * `tensorfile convert IN OUT` where OUT is IN's own format and nothing is changed (no --quantize, no --dtype): for
 * ONNX and .april that re-encode is write(read(IN)), which the formats can stream from IN's source (the checks of
 * read() first, then the bytes in chunks), so a 1 GiB model is converted in about the memory of a chunk instead of
 * twice its size.
 */
import { createWriteStream } from "node:fs";
import { writePiecesTo } from "../export/stream.js";
import { rewritePieces as aprilRewritePieces } from "../formats/april/rewrite-from.js";
import { rewritePieces as onnxRewritePieces } from "../formats/onnx/rewrite-from.js";
import { type CliIO, print } from "./common.js";
import { openSource } from "./inputs.js";
import { writeAtomically } from "./output.js";

const STREAMED = { onnx: onnxRewritePieces, april: aprilRewritePieces } as const;

/** True when a re-encode of `format` without options is streamed (see streamReencode). */
export function isStreamedReencode(format: string): format is keyof typeof STREAMED {
  return Object.hasOwn(STREAMED, format);
}

/** Writes OUT as write(read(IN)) of `format`, streamed; prints "wrote OUT (format, N bytes)". Exit status 0. */
export async function streamReencode(
  io: CliIO,
  input: string,
  output: string,
  format: keyof typeof STREAMED,
  force: boolean,
): Promise<number> {
  const source = await openSource(input);
  try {
    // read()'s checks first: the output file is created only for a model that passes them
    const pieces = await STREAMED[format](source);
    const written = await writeAtomically(
      output,
      (temp) => writePiecesTo(createWriteStream(temp), pieces, { caller: "convert" }),
      { force },
    );
    print(io.stderr, `wrote ${output} (${format}, ${written} bytes)`);
    return 0;
  } finally {
    await source.close?.();
  }
}
