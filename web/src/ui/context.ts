/**
 * What the views get from the page (the App implements it): the opened file, the URL-hash state, the workers and
 * a few actions. Views depend on this interface only, never on app.ts, so app.ts can import the views without an
 * import cycle.
 */
import type { AnyLazyFile, ByteSource, FormatModule, InspectResult, TensorInfo } from "../../../bindings/index.js";
import type { TensorStats } from "../compute.js";
import type { Segmentation } from "../model/segments.js";
import type { PageState, View } from "../model/state.js";
import type { ErrorModel, SummaryModel } from "../model/summary.js";
import type { TensorRow } from "../model/table.js";
import type { WorkerClient } from "../worker/client.js";
import type { OpenInput } from "../worker/protocol.js";
import type { Task } from "./progress.js";

/** Statistics are computed at once when all tensors together are at most this big; else on request. */
export const AUTO_STATS_BYTES = 64 * 1024 * 1024;

/** Any format's module, as the registry holds it (read and write options unknown: never passed here). */
export type AnyModule = FormatModule<unknown, never, never>;

export interface OpenedFile {
  name: string;
  size: number;
  input: OpenInput;
  /** The URL as the user gave it (for the hash), when opened from a URL. */
  url?: string | undefined;
  source: ByteSource;
  lazy: AnyLazyFile;
  module: AnyModule;
  infos: TensorInfo[];
  rows: TensorRow[];
  inspected: InspectResult;
  summary: SummaryModel;
}

export interface FailedFile {
  name: string;
  size: number;
  url?: string | undefined;
  source?: ByteSource | undefined;
  error: ErrorModel;
}

export interface ViewController {
  /** The view became visible (or its file changed while visible): draw it. */
  show(): void;
  /** The file changed; forget what was drawn. */
  reset(): void;
}

export interface InspectorContext {
  readonly worker: WorkerClient;
  readonly layoutWorker: WorkerClient;
  readonly current: OpenedFile | undefined;
  readonly failed: FailedFile | undefined;
  readonly state: PageState;
  readonly view: View | "empty";
  readonly statsRunning: boolean;
  /** A SPRAAK .seg opened beside the track (segments drawn under its heatmap in speech mode). */
  readonly segments: Segmentation | undefined;
  computeStats(): Promise<void>;
  rowByName(name: string | undefined): TensorRow | undefined;
  /** Records statistics computed elsewhere (the tensor view's detail request). */
  rememberStats(name: string, stats: TensorStats): void;
  updateTabs(): void;
  /** The editor's "Edit" button for a panel's actions row (undefined when the open file cannot be edited). */
  editButton(): HTMLButtonElement | undefined;
  showView(view: View | "empty"): void;
  /** Opens a tensor's statistics, histogram and heatmap. */
  openTensor(name: string): void;
  /** Merges into the state and writes the hash. */
  setState(patch: Partial<PageState>): void;
  setStatus(text: string, isError?: boolean): void;
  /** Runs work with the progress strip; a cancel terminates the worker. */
  task<T>(label: string, run: (task: Task) => Promise<T>, bytes?: boolean): Promise<T>;
  /** Saves a download written piece by piece. */
  saveStreamed(
    label: string,
    name: string,
    total: number,
    write: (sink: (chunk: Uint8Array) => void) => Promise<unknown>,
  ): Promise<void>;
}
