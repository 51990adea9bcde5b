/**
 * The page: opening files (picker, drop, URL field, #url= deep links, files.json from `tensorfile view`), the
 * opened file's model (tensorInfos, inspect, verify through the format module), statistics from the worker, the
 * tabs and their views, the URL-hash state, the theme and the keyboard. Views draw; this object owns the state.
 */
import { capabilitiesOf } from "../../../bindings/formats/registry.js";
import { formatModule, fromBlob, fromUrl, readFromAny } from "../../../bindings/index.js";
import type { TensorStats } from "../compute.js";
import { formatBytes } from "../model/format.js";
import { formatList } from "../model/format-list.js";
import { type PageState, type View, formatHash, parseHash } from "../model/state.js";
import { type Segmentation, segmentsFor } from "../model/segments.js";
import { errorModel, summaryModel } from "../model/summary.js";
import { type TensorRow, rowsFromInfos } from "../model/table.js";
import { CancelledError } from "../model/tensor-data.js";
import { WorkerClient } from "../worker/client.js";
import type { OpenInput } from "../worker/protocol.js";
import { download, h, inTextField } from "./dom.js";
import { ProgressStrip, type Task } from "./progress.js";
import {
  AUTO_STATS_BYTES,
  type AnyModule,
  type FailedFile,
  type InspectorContext,
  type OpenedFile,
  type ViewController,
} from "./context.js";
import { DiffView } from "./diff-view.js";
import { EditorPanel } from "../editor/editor-view.js";
import { ExportView } from "./export-view.js";
import { GraphView, hasGraph } from "./graph-view.js";
import { SummaryView } from "./summary-view.js";
import { TableView } from "./table-view.js";
import { TensorView } from "./tensor-view.js";

const THEME_KEY = "tensorfile-inspector-theme";

export class App implements InspectorContext {
  readonly worker: WorkerClient;
  readonly layoutWorker: WorkerClient;
  readonly progress: ProgressStrip;
  current: OpenedFile | undefined;
  failed: FailedFile | undefined;
  state: PageState;
  view: View | "empty" = "empty";
  private readonly views: Record<View, ViewController>;
  private readonly sections: Record<View | "empty", HTMLElement>;
  private statsRun: Promise<void> | undefined;
  private openToken = 0;
  private readonly rowIndexes = new WeakMap<TensorRow[], { length: number; byName: Map<string, TensorRow> }>();
  private opens = 0;
  readonly tableView: TableView;
  readonly tensorView: TensorView;
  private readonly editor: EditorPanel;

  constructor(scriptUrl: string) {
    const fatal = (message: string) => this.setStatus(`worker failed: ${message}`, true);
    this.worker = new WorkerClient(scriptUrl, fatal);
    this.layoutWorker = new WorkerClient(scriptUrl, fatal);
    this.progress = new ProgressStrip(
      byId("progress"),
      byId("progress-label"),
      byId("progress-bar") as HTMLProgressElement,
      byId("progress-cancel") as HTMLButtonElement,
    );
    this.state = parseHash(location.hash);
    this.sections = {
      empty: byId("view-empty"),
      summary: byId("view-summary"),
      tensors: byId("view-tensors"),
      tensor: byId("view-tensor"),
      graph: byId("view-graph"),
      diff: byId("view-diff"),
      export: byId("view-export"),
    };
    listFormats(this.sections.empty.querySelector(".formats"));
    this.tableView = new TableView(this, this.sections.tensors);
    this.tensorView = new TensorView(this, this.sections.tensor);
    this.views = {
      summary: new SummaryView(this, this.sections.summary),
      tensors: this.tableView,
      tensor: this.tensorView,
      graph: new GraphView(this, this.sections.graph),
      diff: new DiffView(this, this.sections.diff),
      export: new ExportView(this, this.sections.export),
    };
    this.editor = new EditorPanel(this, scriptUrl);
    this.wireOpening();
    this.wireTabs();
    this.wireTheme();
    this.wireKeys();
    this.updateTabs();
  }

  /** Opens what the hash names, or the files `tensorfile view` serves. */
  async start(): Promise<void> {
    const served = await this.servedFiles();
    if (this.state.url) {
      const compare = this.state.compareUrl;
      await this.openUrl(this.state.url, { keepState: true });
      if (compare && this.current) {
        // #b=<URL>: the diff's second file
        this.showView("diff");
        const absolute = new URL(compare, location.href).href;
        await (this.views.diff as DiffView).openCompare(
          { url: absolute, name: decodeURIComponent(new URL(absolute).pathname.split("/").pop() || absolute) },
          compare,
        );
      }
    } else if (served.length > 0) {
      await this.openUrl(served[0]!.url);
    }
  }

  // ---- opening ----

  private wireOpening(): void {
    const fileInput = byId("open-file") as HTMLInputElement;
    // a real button (reachable by Tab from page load) opens the hidden file input's dialog
    byId("open-file-button").addEventListener("click", () => fileInput.click());
    fileInput.addEventListener("change", () => {
      const files = [...(fileInput.files ?? [])];
      fileInput.value = "";
      void this.openFiles(files);
    });
    byId("url-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const url = (byId("url") as HTMLInputElement).value.trim();
      if (url) void this.openUrl(url);
    });
    const hint = byId("drop-hint");
    let depth = 0;
    const hasFiles = (event: DragEvent) => [...(event.dataTransfer?.types ?? [])].includes("Files");
    document.addEventListener("dragenter", (event) => {
      if (!hasFiles(event)) return;
      depth++;
      hint.hidden = false;
    });
    document.addEventListener("dragleave", () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) hint.hidden = true;
    });
    document.addEventListener("dragover", (event) => {
      if (hasFiles(event)) event.preventDefault();
    });
    document.addEventListener("drop", (event) => {
      depth = 0;
      hint.hidden = true;
      const files = [...(event.dataTransfer?.files ?? [])];
      if (files.length === 0) return;
      event.preventDefault();
      void this.openFiles(files);
    });
    window.addEventListener("hashchange", () => {
      const next = parseHash(location.hash);
      const previous = this.state;
      this.state = next;
      if (next.url && next.url !== this.current?.url && next.url !== this.failed?.url)
        void this.openUrl(next.url, { keepState: true });
      else if (next.view && (next.view !== previous.view || next.tensor !== previous.tensor)) this.applyStateView();
    });
  }

  segments: Segmentation | undefined;

  /**
   * The first file opens; a second one is compared with it in the Diff view, except a SPRAAK `.seg` (either
   * one), whose segments are drawn under the other file's track.
   */
  async openFiles(files: File[]): Promise<void> {
    const seg = files.length === 2 ? files.find((f) => /\.seg$/i.test(f.name)) : undefined;
    if (seg) {
      const track = files.find((f) => f !== seg)!;
      await this.openInput({ blob: track, name: track.name }, undefined, track.size);
      await this.openSegments(seg);
      return;
    }
    const [first, second] = files;
    if (!first) return;
    await this.openInput({ blob: first, name: first.name }, undefined, first.size);
    if (second && this.current) {
      this.showView("diff");
      await (this.views.diff as DiffView).openCompare({ blob: second, name: second.name });
    }
  }

  private async openSegments(seg: File): Promise<void> {
    const current = this.current;
    if (!current) return;
    try {
      const lazy = await readFromAny(fromBlob(seg, seg.name));
      const list = capabilitiesOf(lazy.format)?.segmentList?.(lazy.file);
      if (!list) throw new Error("not a SPRAAK LIST file");
      const found = segmentsFor(list.keys, list.entries, current.name);
      if (!found) throw new Error(`it has no segments of ${current.name}`);
      this.segments = found;
      this.setStatus(`${seg.name}: ${found.segments.length} segments of ${found.file} under the track`);
      if (this.view !== "empty") this.showView(this.view);
    } catch (error) {
      this.setStatus(`${seg.name}: ${(error as Error).message}`, true);
    }
  }

  async openUrl(url: string, options: { keepState?: boolean } = {}): Promise<void> {
    let absolute: string;
    try {
      absolute = new URL(url, location.href).href;
    } catch {
      this.setStatus(`not a URL: ${url}`, true);
      return;
    }
    const name = decodeURIComponent(new URL(absolute).pathname.split("/").pop() || absolute);
    await this.openInput({ url: absolute, name }, url, undefined, options.keepState);
  }

  private async openInput(
    input: OpenInput,
    url: string | undefined,
    knownSize?: number,
    keepState = false,
  ): Promise<void> {
    const token = ++this.openToken;
    this.worker.cancel();
    this.layoutWorker.cancel();
    this.statsRun = undefined;
    const task = this.progress.begin(`opening ${input.name}…`, () => {
      this.openToken++;
      task.end();
      this.setStatus("opening cancelled");
    });
    const source = "blob" in input ? fromBlob(input.blob, input.name) : fromUrl(input.url);
    this.setStatus(`opening ${input.name}…`);
    this.mark("opening", input.name);
    document.body.dataset.stats = "none";
    try {
      const lazy = await readFromAny(source);
      if (token !== this.openToken) return;
      const module: AnyModule = formatModule(lazy.format);
      const infos = lazy.tensorInfos();
      const inspected = module.inspect(lazy.file);
      let warnings: string[];
      try {
        warnings = module.verify(lazy.file);
      } catch (error) {
        warnings = [`verify could not finish on the headers: ${(error as Error).message}`];
      }
      const size = source.size ?? knownSize ?? 0;
      const tensorBytes = infos.reduce((a, i) => a + i.byteLength, 0);
      this.current = {
        name: input.name,
        size,
        input,
        url,
        source,
        lazy,
        module,
        infos,
        rows: rowsFromInfos(infos),
        inspected,
        summary: summaryModel(input.name, size, inspected, warnings, tensorBytes),
      };
      this.failed = undefined;
      this.segments = undefined;
      this.worker.forget("b");
      this.worker.setInput("a", input);
      this.afterOpen(keepState);
      this.setStatus(
        `${input.name}: ${lazy.format}, ${infos.length} tensor${infos.length === 1 ? "" : "s"} (${formatBytes(tensorBytes)}), ${formatBytes(size)}${warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? "" : "s"}` : ""}`,
      );
      if (tensorBytes <= AUTO_STATS_BYTES && infos.length > 0) void this.computeStats();
    } catch (error) {
      if (token !== this.openToken) return;
      this.current = undefined;
      this.failed = { name: input.name, size: source.size ?? knownSize ?? 0, url, source, error: errorModel(error) };
      this.afterOpen(false);
      this.setStatus(`${input.name}: ${this.failed.error.message}`, true);
    } finally {
      task.end();
    }
  }

  /** State markers on <body> for people's scripts and the browser test: data-state, data-file, data-stats. */
  private mark(state: "opening" | "ready" | "error", file: string): void {
    document.body.dataset.state = state;
    document.body.dataset.file = file;
    if (state !== "opening") document.body.dataset.opens = String(++this.opens);
  }

  private afterOpen(keepState: boolean): void {
    this.mark(this.current ? "ready" : "error", this.current?.name ?? this.failed?.name ?? "");
    const url = this.current?.url ?? this.failed?.url;
    byId("file-name").textContent = this.current
      ? `${this.current.name} · ${this.current.lazy.format} · ${formatBytes(this.current.size)}`
      : this.failed
        ? `${this.failed.name} · not readable`
        : "";
    document.title = `${this.current?.name ?? this.failed?.name ?? ""} — tensorfile inspector`;
    for (const v of Object.values(this.views)) v.reset();
    this.editor.fileChanged();
    const list = byId("file-list") as HTMLSelectElement;
    if (!list.hidden && url) list.value = url;
    // a file of one tensor opens on it, unless it is big: the tensor view reads all of it at once, the table waits
    // for "compute statistics"
    // (a model with a graph opens on its graph instead, however many tensors it has)
    const only =
      this.current?.infos.length === 1 &&
      this.current.infos[0]!.byteLength <= AUTO_STATS_BYTES &&
      !hasGraph(this.current.lazy.format)
        ? this.current.infos[0]!.name
        : undefined;
    if (keepState) {
      this.state = { ...this.state, url };
      // a link that names no view: a one-tensor file still opens on its tensor
      if (!this.state.view && only !== undefined) this.state = { ...this.state, view: "tensor", tensor: only };
      else if (!this.state.view && hasGraph(this.current?.lazy.format)) this.state = { ...this.state, view: "graph" };
    } else {
      // a file of one tensor (a SPRAAK track, an .npy) opens on that tensor, not on a one-row table
      // a model with a graph (.onnx, .april, TenniS) opens on its graph, with its Properties beside it
      this.state =
        only !== undefined
          ? { url, view: "tensor", tensor: only }
          : {
              url,
              view: this.failed
                ? "summary"
                : hasGraph(this.current?.lazy.format)
                  ? "graph"
                  : this.current && this.current.infos.length > 0
                    ? "tensors"
                    : "summary",
            };
    }
    this.updateTabs();
    this.applyStateView();
  }

  private applyStateView(): void {
    if (!this.current && !this.failed) {
      this.showView("empty");
      return;
    }
    let view = this.state.view ?? (this.failed ? "summary" : "tensors");
    if (this.failed) view = "summary";
    if (view === "tensor" && !this.rowByName(this.state.tensor)) view = "tensors";
    if (view === "graph" && !hasGraph(this.current?.lazy.format)) view = "tensors";
    this.showView(view);
  }

  /** [{ name, url, size }] from files.json beside the page (what `tensorfile view` serves), shown in a list. */
  private async servedFiles(): Promise<{ name: string; url: string; size: number }[]> {
    if (!/^https?:$/.test(location.protocol)) return [];
    let list: { name: string; url: string; size: number }[];
    try {
      const response = await fetch(new URL("files.json", location.href), { cache: "no-store" });
      if (!response.ok) return [];
      const parsed = (await response.json()) as unknown;
      if (!Array.isArray(parsed)) return [];
      list = parsed.filter(
        (f): f is { name: string; url: string; size: number } =>
          typeof (f as { name?: unknown } | null)?.name === "string" &&
          typeof (f as { url?: unknown } | null)?.url === "string",
      );
    } catch {
      return [];
    }
    if (list.length === 0) return list;
    const select = byId("file-list") as HTMLSelectElement;
    select.replaceChildren(...list.map((f) => h("option", { value: f.url }, `${f.name} (${formatBytes(f.size)})`)));
    select.hidden = list.length < 2;
    select.addEventListener("change", () => void this.openUrl(select.value));
    const served = byId("served-files");
    served.replaceChildren(
      ...list.map((f) =>
        h(
          "li",
          {},
          h("button", { class: "linkish", type: "button", onclick: () => void this.openUrl(f.url) }, f.name),
          ` ${formatBytes(f.size)}`,
        ),
      ),
    );
    return list;
  }

  // ---- statistics ----

  /** Statistics for every tensor, streamed from the worker into the table; progress with cancel. */
  computeStats(): Promise<void> {
    if (this.statsRun) return this.statsRun;
    const file = this.current;
    if (!file) return Promise.resolve();
    const names = file.rows.filter((r) => !r.stats && !r.statsNote).map((r) => r.name);
    if (names.length === 0) return Promise.resolve();
    const task = this.progress.begin("statistics", () => this.worker.cancel(), true);
    const token = this.openToken;
    document.body.dataset.stats = "running";
    const run = this.worker
      .request(
        { kind: "stats", slot: "a", names },
        {
          onProgress: (done, total, label) => task.update(done, total, `statistics: ${label}`),
          onPartial: (partial) => {
            if (this.current !== file) return;
            const row = this.rowByName(partial.name);
            if (!row) return;
            row.stats = partial.stats;
            row.statsNote = partial.note;
            this.tableView.statsArrived();
          },
        },
      )
      .then(() => {
        this.setStatus(`statistics of ${names.length} tensor${names.length === 1 ? "" : "s"} done`);
      })
      .catch((error: unknown) => {
        this.setStatus(
          error instanceof CancelledError ? "statistics cancelled" : `statistics failed: ${(error as Error).message}`,
          !(error instanceof CancelledError),
        );
      })
      .finally(() => {
        task.end();
        if (this.statsRun === run) this.statsRun = undefined;
        if (this.current === file && token === this.openToken) {
          this.tableView.flush();
          document.body.dataset.stats = file.rows.every((r) => r.stats || r.statsNote) ? "done" : "partial";
        }
      });
    this.statsRun = run;
    return run;
  }

  get statsRunning(): boolean {
    return this.statsRun !== undefined;
  }

  rowByName(name: string | undefined): TensorRow | undefined {
    if (name === undefined || !this.current) return undefined;
    const rows = this.current.rows;
    // an index per rows array (a linear search made the Properties panel's parameter count quadratic: ~0.1 s on a
    // 7,534-node model); rebuilt if rows were added; the first row of a name wins, as find() did
    let index = this.rowIndexes.get(rows);
    if (!index || index.length !== rows.length) {
      const byName = new Map<string, TensorRow>();
      for (const row of rows) if (!byName.has(row.name)) byName.set(row.name, row);
      index = { length: rows.length, byName };
      this.rowIndexes.set(rows, index);
    }
    return index.byName.get(name);
  }

  /** Records statistics computed elsewhere (the tensor view's detail request). */
  rememberStats(name: string, stats: TensorStats): void {
    const row = this.rowByName(name);
    if (row && !row.stats) {
      row.stats = stats;
      this.tableView.statsArrived();
    }
  }

  // ---- views, tabs, state ----

  private wireTabs(): void {
    for (const tab of document.querySelectorAll<HTMLButtonElement>("#tabs [data-view]")) {
      tab.addEventListener("click", () => this.showView(tab.dataset.view as View));
    }
  }

  updateTabs(): void {
    const has = (view: View): boolean => {
      if (!this.current) return view === "summary" && this.failed !== undefined;
      if (view === "graph") return hasGraph(this.current.lazy.format);
      if (view === "tensor") return this.rowByName(this.state.tensor) !== undefined;
      return true;
    };
    for (const tab of document.querySelectorAll<HTMLButtonElement>("#tabs [data-view]")) {
      const view = tab.dataset.view as View;
      tab.disabled = !has(view);
      tab.setAttribute("aria-selected", String(view === this.view));
    }
  }

  editButton(): HTMLButtonElement | undefined {
    return this.editor.panelButton();
  }

  showView(view: View | "empty"): void {
    this.view = view;
    for (const [name, section] of Object.entries(this.sections)) section.hidden = name !== view;
    if (view !== "empty") {
      this.setState({ view });
      this.views[view].show();
    }
    this.editor.viewChanged(view);
    this.updateTabs();
  }

  /** Opens `input` (the editor's edited file) as B of the Diff view and compares it with the open file. */
  async compareWith(input: OpenInput): Promise<void> {
    this.showView("diff");
    await (this.views.diff as DiffView).openCompare(input);
  }

  /** Opens a tensor's statistics, histogram and heatmap. */
  openTensor(name: string): void {
    if (!this.rowByName(name)) return;
    this.setState({ tensor: name });
    this.showView("tensor");
  }

  /** Merges into the state and writes the hash (replaceState: no history entry per click). */
  setState(patch: Partial<PageState>): void {
    this.state = { ...this.state, ...patch };
    const hash = formatHash(this.state);
    if (hash !== location.hash && !(hash === "" && location.hash === "")) {
      history.replaceState(null, "", hash === "" ? location.pathname + location.search : hash);
    }
  }

  setStatus(text: string, isError = false): void {
    const status = byId("status");
    status.textContent = text;
    status.classList.toggle("error", isError);
  }

  /** Runs work with the progress strip; a cancel terminates the worker. */
  task<T>(label: string, run: (task: Task) => Promise<T>, bytes = false): Promise<T> {
    const task = this.progress.begin(label, () => this.worker.cancel(), bytes);
    return run(task).finally(() => task.end());
  }

  /**
   * Saves a download written piece by piece by `write` (a streaming exporter): each piece goes into the browser's
   * blob store at once, so JS holds one piece at a time, never the file; progress against `total` bytes, cancel.
   */
  async saveStreamed(
    label: string,
    name: string,
    total: number,
    write: (sink: (chunk: Uint8Array) => void) => Promise<unknown>,
  ): Promise<void> {
    let cancelled = false;
    const task = this.progress.begin(
      label,
      () => {
        cancelled = true;
      },
      true,
    );
    let blob = new Blob([]);
    try {
      await write((chunk) => {
        if (cancelled) throw new Error("cancelled");
        blob = new Blob([blob, chunk as BlobPart]);
        task.update(blob.size, total);
      });
      download(blob, name);
      this.setStatus(`saved ${name} (${formatBytes(blob.size)})`);
    } catch (error) {
      this.setStatus(cancelled ? `${label}: cancelled` : `${label} failed: ${(error as Error).message}`, !cancelled);
    } finally {
      task.end();
    }
  }

  // ---- theme and keys ----

  private wireTheme(): void {
    let stored: string | null = null;
    try {
      stored = localStorage.getItem(THEME_KEY);
    } catch {
      // storage can be off (file:// in some browsers, privacy modes): the OS decides
    }
    if (stored === "dark" || stored === "light") document.documentElement.dataset.theme = stored;
    byId("theme").addEventListener("click", () => {
      const dark = document.documentElement.dataset.theme
        ? document.documentElement.dataset.theme === "dark"
        : matchMedia("(prefers-color-scheme: dark)").matches;
      const next = dark ? "light" : "dark";
      document.documentElement.dataset.theme = next;
      try {
        localStorage.setItem(THEME_KEY, next);
      } catch {
        // not kept: fine
      }
      this.themeChanged();
    });
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => this.themeChanged());
  }

  private themeChanged(): void {
    if (this.view !== "empty") this.views[this.view].show();
  }

  private wireKeys(): void {
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "/" && !inTextField(event) && this.current) {
        event.preventDefault();
        if (this.view !== "tensors") this.showView("tensors");
        this.tableView.focusFilter();
        return;
      }
      if (event.key === "Escape" && this.view === "tensor" && !inTextField(event)) {
        this.showView("tensors");
        this.tableView.focusTable();
        return;
      }
      if (this.view === "tensors" && !inTextField(event)) this.tableView.key(event);
    });
  }
}

/** Fills the welcome page's list of formats from the registry: `wav2letter .b2l .bw2l · april-asr .april · …`. */
function listFormats(element: Element | null): void {
  if (!element) return;
  const items = formatList().map(({ name, extensions }) =>
    h("span", {}, ...(name ? [name, " "] : []), ...extensions.flatMap((e, k) => [k > 0 ? " " : "", h("code", {}, e)])),
  );
  element.replaceChildren(...items.flatMap((item, k) => (k > 0 ? [" · ", item] : [item])));
}

export function byId(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
}
