/** Writing TenniS modules and SeetaFace6 .csta containers: write, writeTo, writeCsta. */
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { checkWriterInput } from "../../bytes/arguments.js";
import { ByteWriter } from "../../bytes/byte-writer.js";
import { type CstaContainer, defaultContainer, writeCstaBytes } from "./csta.js";
import type { TsmFile } from "./model.js";
import { type TsmModule, moduleByteLength, writeModule } from "./module.js";

/** The module's bytes (a plain .tsm). */
export function moduleBytes(module: TsmModule): Uint8Array {
  const w = new ByteWriter(moduleByteLength(module));
  writeModule(w, module);
  return w.finish();
}

/**
 * write() into a sink (a function, a WritableStream or a Node Writable). A .tsm goes out piece by piece with the
 * `<const>` payloads as they are (no second copy); a .csta is obfuscated as a whole first, so it is written
 * whole. Resolves to the byte count.
 */
export async function writeTo(
  file: TsmFile,
  sink: ByteSink,
  options: { end?: boolean | undefined } = {},
): Promise<number> {
  checkWriterInput(file, "tsm.writeTo", "a TenniS module (from read() or built: { nodes, inputs, outputs, … })", {
    arrays: ["nodes", "inputs", "outputs"],
  });
  let pieces: Uint8Array[];
  if (file.container) {
    pieces = [write(file)];
  } else {
    const w = new ByteWriter(moduleByteLength(file), true, { passThrough: true });
    writeModule(w, file);
    pieces = w.segments();
  }
  return writePiecesTo(sink, pieces, { end: options.end, caller: "tsm.writeTo" });
}

/** The file's bytes: a .tsm, or a .csta when `file.container` is set (as read() gives for a .csta). */
export function write(file: TsmFile, _options?: unknown): Uint8Array {
  checkWriterInput(file, "tsm.write", "a TenniS module (from read() or built: { nodes, inputs, outputs, … })", {
    arrays: ["nodes", "inputs", "outputs"],
  });
  const bytes = moduleBytes(file);
  return file.container ? writeCstaBytes(file.container, bytes) : bytes;
}

/** Options of {@link writeCsta}. */
export interface WriteCstaOptions {
  /** The tree to put the module in (default: file.container, else { backbone: { tsm } } with PKCS#7 padding). */
  container?: CstaContainer | undefined;
}

/** Packs the module into a SeetaFace6 .csta container. */
export function writeCsta(file: TsmFile, options: WriteCstaOptions = {}): Uint8Array {
  checkWriterInput(file, "tsm.writeCsta", "a TenniS module (from read() or built: { nodes, inputs, outputs, … })", {
    arrays: ["nodes", "inputs", "outputs"],
  });
  return writeCstaBytes(options.container ?? file.container ?? defaultContainer(), moduleBytes(file));
}
