/** The worker's side of the editor: one {@link EditSession} per worker, driven by "edit" requests. */
import type { EditRequest, EditResult } from "./protocol.js";
import { EditSession } from "./session.js";

let session: EditSession | undefined;

export async function handleEdit(request: EditRequest): Promise<EditResult> {
  if (request.action === "open") {
    session = undefined;
    session = await EditSession.open(request.blob, request.name);
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
  }
}
