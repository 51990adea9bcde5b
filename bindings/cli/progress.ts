/**
 * A one-line progress bar on a terminal for work that takes over about a second; nothing at all when the
 * stream is not a TTY (pipes, CI, tests).
 */

export interface ProgressStream {
  isTTY?: boolean | undefined;
  columns?: number | undefined;
  write(text: string): unknown;
}

const DELAY_MS = 1000;
const REDRAW_MS = 100;

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export { formatBytes };

export class Progress {
  private readonly started = Date.now();
  private lastDraw = 0;
  private drawn = false;
  private done = 0;

  constructor(
    private readonly stream: ProgressStream,
    private readonly label: string,
    private readonly total: number,
  ) {}

  /** Adds `bytes` of completed work and redraws at most 10 times a second, after the first second. */
  advance(bytes: number, detail = ""): void {
    this.done += bytes;
    if (!this.stream.isTTY) return;
    const now = Date.now();
    if (now - this.started < DELAY_MS || now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    const fraction = this.total > 0 ? Math.min(1, this.done / this.total) : 0;
    const width = 24;
    const filled = Math.round(fraction * width);
    const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
    const text = `${this.label} [${bar}] ${Math.round(fraction * 100)}% ${formatBytes(this.done)}/${formatBytes(this.total)} ${detail}`;
    const columns = this.stream.columns ?? 80;
    this.stream.write(`\r${text.slice(0, columns - 1).padEnd(Math.min(columns - 1, text.length))}\x1b[K`);
    this.drawn = true;
  }

  /** Clears the bar (if one was drawn). */
  finish(): void {
    if (this.drawn) this.stream.write("\r\x1b[K");
    this.drawn = false;
  }
}
