/**
 * The tensor table, the main view: name, dtype, shape, elements, bytes and statistics columns; click a header
 * to sort, type to filter (`/` jumps here), group by dtype with totals, arrows/PageUp/PageDown/Home/End move the
 * selection, Enter opens the tensor. Up to ROWS_RENDERED_WHOLE items are all in the DOM; longer lists render
 * only the rows in view (virtualised).
 */
import { formatBytes, formatCount, formatPercent, formatValue, shapeText } from "../model/format.js";
import {
  DEFAULT_TABLE_OPTIONS,
  type SortKey,
  type TableItem,
  type TableOptions,
  type TensorRow,
  moveSelection,
  tableItems,
  totals,
  visibleSelection,
} from "../model/table.js";
import { AUTO_STATS_BYTES, type InspectorContext } from "./context.js";
import { clear, h } from "./dom.js";

const ROW_HEIGHT = 25;
const ROWS_RENDERED_WHOLE = 1000;

const COLUMNS: { key: SortKey; label: string; numeric?: boolean; title?: string }[] = [
  { key: "index", label: "#", numeric: true },
  { key: "name", label: "name" },
  { key: "dtype", label: "dtype" },
  { key: "shape", label: "shape" },
  { key: "elements", label: "elements", numeric: true },
  { key: "bytes", label: "bytes", numeric: true },
  { key: "min", label: "min", numeric: true },
  { key: "max", label: "max", numeric: true },
  { key: "mean", label: "mean", numeric: true },
  { key: "std", label: "std", numeric: true },
  { key: "nan", label: "NaN", numeric: true },
  { key: "inf", label: "±Inf", numeric: true, title: "+Inf and −Inf" },
  { key: "zeros", label: "zeros", numeric: true, title: "share of elements equal to 0 (sparsity)" },
];

/** Gives a grid row's children the gridcell role (a row of the grid must own cells, not bare spans). */
function cells(row: HTMLElement): HTMLElement {
  for (const child of row.children) child.setAttribute("role", "gridcell");
  return row;
}

export class TableView {
  private options: TableOptions = { ...DEFAULT_TABLE_OPTIONS };
  private items: TableItem[] = [];
  private selected: number | undefined;
  private grid: HTMLElement | undefined;
  private body: HTMLElement | undefined;
  private filterInput: HTMLInputElement | undefined;
  private foot: HTMLElement | undefined;
  private statsButton: HTMLButtonElement | undefined;
  private redrawQueued = false;

  constructor(
    private readonly app: InspectorContext,
    private readonly root: HTMLElement,
  ) {}

  reset(): void {
    this.options = { ...DEFAULT_TABLE_OPTIONS, filter: this.app.state.filter ?? "" };
    this.selected = undefined;
    this.grid = undefined;
    clear(this.root);
  }

  show(): void {
    const file = this.app.current;
    if (!file) return;
    if (!this.grid) this.build();
    const tensor = this.app.rowByName(this.app.state.tensor);
    if (tensor) this.selected = tensor.index;
    this.refresh();
  }

  private build(): void {
    const file = this.app.current!;
    clear(this.root);
    this.filterInput = h("input", {
      type: "search",
      id: "filter",
      placeholder: "filter: name, dtype or shape  ( / )",
      value: this.options.filter,
      "aria-label": "Filter tensors",
    });
    this.filterInput.addEventListener("input", () => {
      this.options.filter = this.filterInput!.value;
      this.app.setState({ filter: this.options.filter || undefined });
      this.refresh();
    });
    this.filterInput.addEventListener("keydown", (event) => {
      if (event.key === "Escape" || event.key === "Enter" || event.key === "ArrowDown") {
        event.preventDefault();
        this.focusTable();
      }
    });
    const group = h("input", { type: "checkbox", id: "group-dtype", checked: this.options.groupByDtype });
    const byLayer = h("input", { type: "checkbox", id: "group-layer", checked: this.options.groupByLayer ?? false });
    group.addEventListener("change", () => {
      this.options.groupByDtype = group.checked;
      if (group.checked) byLayer.checked = this.options.groupByLayer = false;
      this.refresh();
    });
    byLayer.addEventListener("change", () => {
      this.options.groupByLayer = byLayer.checked;
      if (byLayer.checked) group.checked = this.options.groupByDtype = false;
      this.refresh();
    });
    const tensorBytes = file.infos.reduce((a, i) => a + i.byteLength, 0);
    this.statsButton = h(
      "button",
      { type: "button", id: "compute-stats", title: "Read every tensor once in a worker (streamed; cancel any time)" },
      `Compute statistics (${formatBytes(tensorBytes)})`,
    );
    this.statsButton.addEventListener("click", () => void this.app.computeStats());
    this.statsButton.hidden = tensorBytes <= AUTO_STATS_BYTES;
    const head = h("div", { class: "grid-head", role: "row" });
    for (const column of COLUMNS) {
      const cell = h(
        "span",
        {
          role: "columnheader",
          class: column.numeric ? "num" : "",
          "data-sort": column.key,
          title: column.title ?? `sort by ${column.label}`,
        },
        column.label,
      );
      cell.addEventListener("click", () => {
        if (this.options.sort === column.key) this.options.descending = !this.options.descending;
        else {
          this.options.sort = column.key;
          this.options.descending = ["nan", "inf", "zeros", "bytes", "elements", "std"].includes(column.key);
        }
        this.refresh();
      });
      head.append(cell);
    }
    this.body = h("div", { class: "grid-body", role: "rowgroup" });
    this.grid = h(
      "div",
      { class: "grid", id: "tensor-table", role: "grid", tabindex: 0, "aria-label": "Tensors" },
      head,
      this.body,
    );
    this.grid.addEventListener("scroll", () => this.drawRows());
    // a double-click by row index and time, not the browser's dblclick: rows are redrawn (statistics arriving,
    // scrolling) between the two clicks, and Chromium fires no dblclick when the element under the pointer changed
    let lastClick = { index: -1, time: 0 };
    this.grid.addEventListener("click", (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>(".grid-row");
      if (!row) return;
      const index = Number(row.dataset.index);
      const now = performance.now();
      const double = lastClick.index === index && now - lastClick.time < 500;
      lastClick = { index, time: double ? 0 : now };
      if (double) this.app.openTensor(row.dataset.name!);
      else this.select(index);
    });
    this.foot = h("div", { class: "table-foot", id: "table-foot" });
    this.root.append(
      h(
        "div",
        { class: "table-tools" },
        this.filterInput,
        h("label", {}, group, " group by dtype"),
        h("label", {}, byLayer, " group by layer"),
        this.statsButton,
        h("span", { class: "muted" }, "Enter or double-click opens a tensor"),
      ),
      this.grid,
      this.foot,
    );
  }

  /** Recomputes the shown items and redraws. */
  private refresh(): void {
    const file = this.app.current;
    if (!file || !this.grid) return;
    this.items = tableItems(file.rows, this.options);
    this.selected = visibleSelection(this.items, this.selected);
    for (const cell of this.grid.querySelectorAll<HTMLElement>(".grid-head [data-sort]")) {
      if (cell.dataset.sort === this.options.sort)
        cell.setAttribute("aria-sort", this.options.descending ? "descending" : "ascending");
      else cell.removeAttribute("aria-sort");
    }
    this.body!.style.height = `${this.items.length * ROW_HEIGHT}px`;
    this.drawRows();
    const shown = this.items.filter((i) => i.kind === "row").map((i) => (i as { row: TensorRow }).row);
    const all = totals(file.rows);
    const t = totals(shown);
    const withStats = file.rows.filter((r) => r.stats).length;
    this.foot!.textContent =
      `${t.count === all.count ? `${all.count} tensors` : `${t.count} of ${all.count} tensors`} · ${formatCount(t.elements)} elements · ${formatBytes(t.bytes)}` +
      (withStats > 0 ? ` · statistics for ${withStats}` : "");
    if (this.statsButton) this.statsButton.disabled = this.app.statsRunning || withStats === file.rows.length;
  }

  /** Redraws now (the statistics run ended: the page's "done" marker must not come before the numbers). */
  flush(): void {
    if (this.grid && this.app.view === "tensors") this.refresh();
  }

  /** Statistics arrived for some rows: redraw once per frame. */
  statsArrived(): void {
    if (this.redrawQueued || !this.grid) return;
    this.redrawQueued = true;
    requestAnimationFrame(() => {
      this.redrawQueued = false;
      if (this.grid && this.app.view === "tensors") this.refresh();
    });
  }

  private drawRows(): void {
    if (!this.grid || !this.body) return;
    let first = 0;
    let last = this.items.length;
    if (this.items.length > ROWS_RENDERED_WHOLE) {
      const top = this.grid.scrollTop;
      const height = this.grid.clientHeight || 600;
      first = Math.max(0, Math.floor(top / ROW_HEIGHT) - 20);
      last = Math.min(this.items.length, Math.ceil((top + height) / ROW_HEIGHT) + 20);
    }
    const fragment = document.createDocumentFragment();
    for (let i = first; i < last; i++) {
      const item = this.items[i]!;
      const element = item.kind === "group" ? this.groupElement(item) : this.rowElement(item.row);
      element.style.position = "absolute";
      element.style.top = `${i * ROW_HEIGHT}px`;
      element.style.left = "0";
      element.style.right = "0";
      fragment.append(element);
    }
    this.body.replaceChildren(fragment);
  }

  private groupElement(item: Extract<TableItem, { kind: "group" }>): HTMLElement {
    const layer = item.layer !== undefined;
    return cells(
      h(
        "div",
        {
          class: "group-row",
          role: "row",
          "data-dtype": item.dtype,
          "data-layer": item.layer,
          "data-params": layer ? item.elements : undefined,
        },
        h("span", { class: layer ? "mono" : "" }, layer ? item.layer || "(no prefix)" : item.dtype),
        h("span", { class: "muted" }, `${item.count} tensor${item.count === 1 ? "" : "s"}`),
        h("span", { class: "muted" }, `${formatCount(item.elements)} ${layer ? "parameters" : "elements"}`),
        h("span", { class: "muted" }, formatBytes(item.bytes)),
      ),
    );
  }

  private rowElement(row: TensorRow): HTMLElement {
    const s = row.stats;
    const num = (key: string, value: number | undefined, text: string, bad = false) =>
      h(
        "span",
        {
          class: `num${bad ? " bad" : ""}`,
          "data-col": key,
          "data-value": value === undefined ? undefined : String(value),
          title: value === undefined ? undefined : String(value),
        },
        text,
      );
    const infs = s ? s.posInf + s.negInf : undefined;
    return cells(
      h(
        "div",
        {
          class: "grid-row",
          role: "row",
          "data-index": row.index,
          "data-name": row.name,
          "aria-selected": String(row.index === this.selected),
          title: row.statsNote ?? undefined,
        },
        h("span", { class: "num muted" }, row.index),
        h("span", { class: "name", title: row.name, "data-col": "name" }, row.name),
        h("span", { "data-col": "dtype" }, row.dtype),
        h("span", { "data-col": "shape" }, shapeText(row.shape)),
        num("elements", row.elements, formatCount(row.elements)),
        num("bytes", row.bytes, formatBytes(row.bytes)),
        num("min", s?.min, s ? formatValue(s.min) : row.statsNote ? "–" : ""),
        num("max", s?.max, s ? formatValue(s.max) : ""),
        num("mean", s?.mean, s ? formatValue(s.mean) : ""),
        num("std", s?.std, s ? formatValue(s.std) : ""),
        num("nan", s?.nan, s ? formatCount(s.nan) : "", (s?.nan ?? 0) > 0),
        h(
          "span",
          {
            class: `num${(infs ?? 0) > 0 ? " bad" : ""}`,
            "data-col": "inf",
            "data-pos": s?.posInf,
            "data-neg": s?.negInf,
            "data-value": infs,
          },
          s ? formatCount(infs!) : "",
        ),
        num("zeros", s?.zeros, s ? formatPercent(s.zeros, s.count) : ""),
      ),
    );
  }

  private select(index: number | undefined): void {
    if (index === undefined) return;
    this.selected = index;
    const row = this.app.current?.rows[index];
    if (row) this.app.setState({ tensor: row.name });
    for (const element of this.body?.querySelectorAll<HTMLElement>(".grid-row") ?? []) {
      element.setAttribute("aria-selected", String(Number(element.dataset.index) === index));
    }
    this.app.updateTabs();
    this.scrollToSelected();
  }

  private scrollToSelected(): void {
    if (!this.grid || this.selected === undefined) return;
    const at = this.items.findIndex((i) => i.kind === "row" && i.row.index === this.selected);
    if (at < 0) return;
    const top = at * ROW_HEIGHT;
    const header = 28;
    const before = this.grid.scrollTop;
    if (top < this.grid.scrollTop) this.grid.scrollTop = top;
    else if (top + ROW_HEIGHT + header > this.grid.scrollTop + this.grid.clientHeight)
      this.grid.scrollTop = top + ROW_HEIGHT + header - this.grid.clientHeight;
    // redraw only when the visible rows changed (a redraw under the pointer would eat a double-click)
    if (this.grid.scrollTop !== before) this.drawRows();
  }

  /** Keys while the table view is shown (outside text fields). */
  key(event: KeyboardEvent): void {
    if (event.key === "Enter") {
      const selected = visibleSelection(this.items, this.selected);
      const row = selected !== undefined ? this.app.current?.rows[selected] : undefined;
      if (row) {
        event.preventDefault();
        this.app.openTensor(row.name);
      }
      return;
    }
    const page = this.grid ? Math.max(1, Math.floor(this.grid.clientHeight / ROW_HEIGHT) - 1) : 20;
    const next = moveSelection(this.items, this.selected, event.key, page);
    if (next !== undefined) {
      event.preventDefault();
      this.select(next);
    }
  }

  focusFilter(): void {
    this.filterInput?.focus();
    this.filterInput?.select();
  }

  focusTable(): void {
    this.grid?.focus();
    if (this.selected === undefined) {
      const first = this.items.find((i) => i.kind === "row");
      if (first && first.kind === "row") this.select(first.row.index);
    }
  }
}
