/** Reading TenniS modules and SeetaFace6 .csta containers: detect, read, readFrom (the layout: ../tsm.ts). */
import { asBytes, asSource, bytesOrUndefined } from "../../bytes/input.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import type { ByteBacking } from "../../bytes/byte-reader.js";
import * as lazy from "../../io/lazy.js";
import type { ByteSource } from "../../io/source.js";
import { DecodedCstaBacking, decodeCsta, isCstaHead, readCstaContainer } from "./csta.js";
import { id, type TsmFile } from "./model.js";
import { MODULE_CODE, readModule } from "./module.js";

function u32At(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** "fast" at 0 and no module code at 4: a .csta (a .tsm whose `fake` happens to spell "fast" still reads as .tsm). */
function looksLikeCsta(head: Uint8Array): boolean {
  if (head.length < 4 || head[0] !== 0x66 || head[1] !== 0x61 || head[2] !== 0x73 || head[3] !== 0x74) return false;
  return head.length < 8 || u32At(head, 4) !== MODULE_CODE;
}

/** A .tsm (code 0x19910929 at offset 4) or a .csta ("fast" whose payload decodes to the STA code). */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head) return false;
  try {
    if (head.length < 8) return false;
    return u32At(head, 4) === MODULE_CODE || isCstaHead(head);
  } catch {
    return false;
  }
}

function readCsta(decoded: ByteReader, lazyPayloads: boolean): TsmFile {
  const { container, module: range } = readCstaContainer(decoded, lazyPayloads);
  const module = readModule(decoded.slice(range.byteOffset, range.byteOffset + range.byteLength), lazyPayloads);
  return { ...module, container };
}

/**
 * Reads a .tsm module or a .csta container (then `container` holds the STA tree). Payloads are typed-array
 * views of `bytes` where aligned (copies otherwise; .csta payloads view a decoded copy of the file).
 */
export function read(input: Uint8Array, _options?: unknown): TsmFile {
  const bytes = asBytes(input, "tsm.read");
  if (looksLikeCsta(bytes)) return readCsta(new ByteReader(decodeCsta(bytes), id), false);
  return readModule(new ByteReader(bytes, id), false);
}

/**
 * The same object as read(), reading only what is needed: node headers and attributes, not the `value`
 * payloads (nor attribute payloads over LAZY_ATTRIBUTE_BYTES), which stay ByteRanges. Works on .csta too:
 * loaded ranges are decoded as they arrive, so a .csta is not read whole either.
 */
export async function readFrom(source: ByteSource, _options?: unknown): Promise<TsmFile> {
  let decoded: DecodedCstaBacking | undefined;
  return lazy.parseFrom(asSource(source, "tsm.readFrom"), id, (backing: ByteBacking) => {
    const r = new ByteReader(backing, id);
    if (looksLikeCsta(r.peek(8))) {
      decoded ??= new DecodedCstaBacking(backing);
      return readCsta(new ByteReader(decoded, id), true);
    }
    return readModule(r, true);
  });
}
