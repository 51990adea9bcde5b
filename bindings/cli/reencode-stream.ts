/**
 * `tensorfile convert IN OUT` where OUT is IN's own format and nothing is changed (no --quantize, no --dtype): for a
 * format that declares the rewritePieces capability (ONNX, .april) that re-encode is write(read(IN)) streamed from
 * IN's source (the checks of read() first, then the bytes in chunks), so a 1 GiB model is converted in about the
 * memory of a chunk instead of twice its size.
 */
import { createWriteStream } from "node:fs";
import { writePiecesTo } from "../export/stream.js";
import { capabilitiesOf } from "../formats/registry.js";
import { type CliIO, print } from "./common.js";
import { openSource } from "./inputs.js";
import { writeAtomically } from "./output.js";

/** True when a re-encode of `format` without options is streamed: the format has the rewritePieces capability. */
export function isStreamedReencode(format: string): boolean {
  return capabilitiesOf(format)?.rewritePieces !== undefined;
}

/** Writes OUT as write(read(IN)) of `format`, streamed; prints "wrote OUT (format, N bytes)". Exit status 0. */
export async function streamReencode(
  io: CliIO,
  input: string,
  output: string,
  format: string,
  force: boolean,
): Promise<number> {
  const rewritePieces = capabilitiesOf(format)?.rewritePieces;
  if (rewritePieces === undefined) throw new TypeError(`tensorfile: ${format} has no streamed re-encode`);
  const source = await openSource(input);
  try {
    // read()'s checks first: the output file is created only for a model that passes them
    const pieces = await rewritePieces(source);
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
