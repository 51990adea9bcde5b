/** PLACEHOLDER: the tsm module is being written (issue). Every function throws UNSUPPORTED until then. */
import { UnsupportedError } from "../errors.js";
import type { ByteSource } from "../io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";
import type { EmbeddedBlob, InspectResult } from "./types.js";

export const id = "tsm" as const;
export const extensions: readonly string[] = [];
const todo = (): never => {
  throw new UnsupportedError(id, "not implemented yet");
};
export function detect(_head: Uint8Array): boolean {
  return false;
}
export function read(_bytes: Uint8Array, _options?: unknown): unknown {
  return todo();
}
export async function readFrom(_source: ByteSource, _options?: unknown): Promise<unknown> {
  return todo();
}
export function write(_file: unknown, _options?: unknown): Uint8Array {
  return todo();
}
export function tensors(_file: unknown, _options?: DecodeOptions): NamedTensor[] {
  return todo();
}
export function tensorInfos(_file: unknown): TensorInfo[] {
  return todo();
}
export async function loadTensor(_source: ByteSource, _info: TensorInfo, _options?: DecodeOptions): Promise<NamedTensor> {
  return todo();
}
export function inspect(_file: unknown): InspectResult {
  return todo();
}
export function verify(_file: unknown): string[] {
  return todo();
}
export function blobs(_file: unknown): EmbeddedBlob[] {
  return todo();
}
