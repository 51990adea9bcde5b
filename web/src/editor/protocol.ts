/** The editing worker's requests (one "edit" request kind of the page's worker protocol, with an action). */
import type { EditOp, NetworkName, PrecisionChoice } from "./operations.js";
import type { SessionSummary } from "./session.js";

export type EditAction =
  /** A File is read through Blob.slice, a URL with Range requests. */
  | { action: "open"; input: { blob: Blob; name: string } | { url: string; name: string } }
  | { action: "apply"; edit: EditOp }
  | { action: "network"; network: NetworkName }
  | { action: "convert"; choice: PrecisionChoice | undefined }
  | { action: "reset" }
  /** The edited file as a Blob. */
  | { action: "write" }
  /** Starts streaming the edited file: answers with its length; "next" then gives it chunk by chunk. */
  | { action: "stream" }
  | { action: "next" };

export type EditRequest = { kind: "edit" } & EditAction;

/**
 * Every action but "next" answers with the session's summary; "apply" adds the edit's line, "write" the edited
 * file, "stream" its length; "next" gives the next chunk of the stream (none at its end).
 */
export interface EditResult {
  summary?: SessionSummary | undefined;
  line?: string | undefined;
  blob?: Blob | undefined;
  length?: number | undefined;
  chunk?: Uint8Array | undefined;
}
