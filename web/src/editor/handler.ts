/** The worker's side of the editor: one {@link EditSession} per worker, driven by "edit" requests. */
import type { EditRequest, EditResult } from "./protocol.js";
import { fromUrl } from "../../../bindings/index.js";
import { EditSession } from "./session.js";

let session: EditSession | undefined;
/** The edited file being streamed to the page ("stream", then "next" until it ends). */
let stream: AsyncGenerator<Uint8Array> | undefined;
/** Its next chunk, read while the page writes the one before. */
let ahead: Promise<IteratorResult<Uint8Array>> | undefined;

/** Starts reading the stream's next chunk (a failure is reported by the "next" that takes it). */
function readAhead(from: AsyncGenerator<Uint8Array>): Promise<IteratorResult<Uint8Array>> {
  const next = from.next();
  next.catch(() => undefined);
  return next;
}

export async function handleEdit(request: EditRequest): Promise<EditResult> {
  if (request.action === "open") {
    session = undefined;
    stream = undefined;
    ahead = undefined;
    const { input } = request;
    session = await EditSession.open("blob" in input ? input.blob : fromUrl(input.url), input.name);
    return { summary: session.summary() };
  }
  if (!session) throw new Error("no file is open in the editor");
  switch (request.action) {
    case "apply": {
      const line = session.apply(request.edit);
      return { summary: session.summary(), line };
    }
    case "network":
      if (!session.summary().networks.includes(request.network))
        throw new RangeError(`the file has no readable ${request.network} network`);
      session.network = request.network;
      return { summary: session.summary() };
    case "convert":
      await session.convert(request.choice);
      return { summary: session.summary() };
    case "reset":
      session.reset();
      return { summary: session.summary() };
    case "write":
      return { summary: session.summary(), blob: await session.write() };
    case "stream":
      stream = session.chunks();
      ahead = undefined;
      return { summary: session.summary(), length: await session.byteLength() };
    case "next": {
      if (!stream) throw new Error("the edited file is not being streamed");
      const next = await (ahead ?? stream.next());
      ahead = next.done ? undefined : readAhead(stream);
      if (next.done) {
        stream = undefined;
        return { chunk: undefined };
      }
      // a view of a larger buffer would be posted whole: the chunk alone
      const chunk = next.value;
      return { chunk: chunk.byteLength === chunk.buffer.byteLength ? chunk : chunk.slice() };
    }
  }
}
