import { afterEach, describe, expect, it, vi } from "vitest";
import { Progress, formatBytes } from "../bindings/cli/progress.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("progress bar", () => {
  it("draws nothing when the stream is not a terminal", () => {
    vi.useFakeTimers();
    let out = "";
    const p = new Progress({ isTTY: false, write: (t: string) => (out += t) }, "convert", 100);
    vi.advanceTimersByTime(5000);
    p.advance(50);
    p.finish();
    expect(out).toBe("");
  });

  it("on a terminal, draws only after about a second, then at most ten times a second, and clears itself", () => {
    vi.useFakeTimers();
    let out = "";
    const p = new Progress({ isTTY: true, columns: 120, write: (t: string) => (out += t) }, "convert", 4 * 1024 * 1024);
    p.advance(1024 * 1024);
    expect(out).toBe("");
    vi.advanceTimersByTime(1100);
    p.advance(1024 * 1024, "layers.0.0");
    expect(out).toContain("convert [############------------] 50% 2.0 MiB/4.0 MiB layers.0.0");
    const drawn = out.length;
    p.advance(1);
    expect(out.length).toBe(drawn);
    vi.advanceTimersByTime(150);
    p.advance(1024 * 1024);
    expect(out).toContain("75%");
    p.finish();
    expect(out.endsWith("\r\x1b[K")).toBe(true);
  });

  it("formats byte counts", () => {
    expect([formatBytes(512), formatBytes(2048), formatBytes(5 * 1024 ** 3)]).toEqual(["512 B", "2.0 KiB", "5.0 GiB"]);
  });
});
