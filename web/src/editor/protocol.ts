/** The editing worker's requests (one "edit" request kind of the page's worker protocol, with an action). */
import type { EditOp, NetworkName, PrecisionChoice } from "./operations.js";
import type { SessionSummary } from "./session.js";

export type EditAction =
  | { action: "open"; blob: Blob; name: string }
  | { action: "apply"; edit: EditOp }
  | { action: "network"; network: NetworkName }
  | { action: "convert"; choice: PrecisionChoice | undefined }
  | { action: "reset" }
  | { action: "write" };

export type EditRequest = { kind: "edit" } & EditAction;

/** Every action answers with the session's summary; "apply" adds the edit's line, "write" the edited file. */
export interface EditResult {
  summary: SessionSummary;
  line?: string | undefined;
  blob?: Blob | undefined;
}
