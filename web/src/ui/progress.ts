/**
 * The progress strip in the tab bar: shown only for work that lasts over half a second, with a bar, a label and
 * a Cancel button. Several tasks may overlap; the strip shows the latest and hides when all have ended.
 */
import { formatBytes } from "../model/format.js";

export interface Task {
  update(done: number, total: number, label?: string): void;
  end(): void;
}

const SHOW_AFTER_MS = 500;

export class ProgressStrip {
  private readonly tasks: {
    label: string;
    done: number;
    total: number;
    bytes: boolean;
    cancel?: (() => void) | undefined;
    shown: boolean;
  }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly box: HTMLElement,
    private readonly label: HTMLElement,
    private readonly bar: HTMLProgressElement,
    private readonly cancelButton: HTMLButtonElement,
  ) {
    cancelButton.addEventListener("click", () => this.tasks.at(-1)?.cancel?.());
  }

  /** Starts a task; `bytes`: totals are byte counts (the label shows sizes). */
  begin(label: string, cancel?: () => void, bytes = false): Task {
    const task = { label, done: 0, total: 0, bytes, cancel, shown: false };
    this.tasks.push(task);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      for (const t of this.tasks) t.shown = true;
      this.draw();
    }, SHOW_AFTER_MS);
    return {
      update: (done, total, text) => {
        task.done = done;
        task.total = total;
        if (text !== undefined) task.label = text;
        if (task.shown) this.draw();
      },
      end: () => {
        const at = this.tasks.indexOf(task);
        if (at >= 0) this.tasks.splice(at, 1);
        this.draw();
      },
    };
  }

  get active(): boolean {
    return this.tasks.length > 0;
  }

  private draw(): void {
    const task = this.tasks.at(-1);
    if (!task || !task.shown) {
      this.box.hidden = true;
      if (!task && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      return;
    }
    this.box.hidden = false;
    const fraction = task.total > 0 ? Math.min(1, task.done / task.total) : 0;
    if (task.total > 0) this.bar.value = fraction;
    else this.bar.removeAttribute("value");
    const amount =
      task.total > 0
        ? task.bytes
          ? ` ${formatBytes(task.done)} of ${formatBytes(task.total)}`
          : ` ${Math.round(fraction * 100)}%`
        : "";
    this.label.textContent = `${task.label}${amount}`;
    this.cancelButton.hidden = !task.cancel;
  }
}
