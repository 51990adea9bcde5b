/**
 * The objects tsm's read()/readFrom() give (a module, plus its .csta container when it came from one), kept apart
 * from the facade (tsm.ts) so that the modules under tsm/ can use them without importing the facade.
 */
import type { TensorInfo } from "../../tensor.js";
import type { CstaContainer } from "./csta.js";
import type { TsmModule } from "./module.js";

/** The format's id. */
export const id = "tsm" as const;
/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".tsm", ".csta"];

/** A TenniS module; `container` is set when it came out of (and will be written back into) a .csta file. */
export interface TsmFile extends TsmModule {
  /** The SeetaFace6 container the module came in (a `.csta`); written back around it. */
  container?: CstaContainer | undefined;
}

/** A TensorInfo of a tensor inside a .csta file: its bytes are obfuscated and loadTensor undoes that. */
export interface TsmTensorInfo extends TensorInfo {
  /** Set when the tensor's bytes are inside a `.csta`'s obfuscated region. */
  obfuscated?: "csta" | undefined;
}
