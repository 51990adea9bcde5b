// SPRAAK .seg segmentations for the speech view (issue 26): the documented example's grammar (`-` = previous
// file, start frame + length), CONTINUOUS times through FSHIFT, choosing the track's file among many.
import { describe, expect, it } from "vitest";
import { fromBytes, readFromAny } from "../../bindings/index.js";
import { segmentsFor } from "../../web/src/model/segments.js";

const docExample = [
  "wsj0/si_tr_s/011/011c0201\t##0\t0\t1",
  "-\t##1\t1\t35",
  "-\t##2\t36\t23",
  "-\tD#0\t59\t2",
  "wsj0/si_tr_s/011/011c0202\t##0\t0\t1",
];

describe("segmentsFor", () => {
  it("reads the spr_dt_seg.html example: the track's file by base name, '-' continuing it", () => {
    const seg = segmentsFor({ DATA: "SEG", TIMEBASE: "DISCRETE", FSHIFT: "0.01" }, docExample, "011c0201.trk");
    expect(seg?.file).toBe("wsj0/si_tr_s/011/011c0201");
    expect(seg?.segments).toEqual([
      { label: "##0", start: 0, frames: 1 },
      { label: "##1", start: 1, frames: 35 },
      { label: "##2", start: 36, frames: 23 },
      { label: "D#0", start: 59, frames: 2 },
    ]);
    expect(seg?.files).toEqual(["wsj0/si_tr_s/011/011c0201", "wsj0/si_tr_s/011/011c0202"]);
    expect(segmentsFor({}, docExample, "other.trk")).toBeUndefined();
  });

  it("CONTINUOUS times are seconds, turned into frames with FSHIFT; one file matches any track", () => {
    const seg = segmentsFor(
      { TIMEBASE: "CONTINUOUS", FSHIFT: "0.02" },
      ["utt a 0.0 0.5", "- b 0.5 0.26", "bad line"],
      "x.trk",
    );
    expect(seg?.segments).toEqual([
      { label: "a", start: 0, frames: 25 },
      { label: "b", start: 25, frames: 13 },
    ]);
  });

  it("works on what the library reads from a .seg file", async () => {
    const text =
      ".spr\nDATA SEG\nDIM1 3\nDIM2 1\nTIMEBASE DISCRETE\nFSHIFT 0.01\n#\nsx313 h# 0 10\n- s 10 25\n- ih 35 20\n";
    const lazy = await readFromAny(fromBytes(new TextEncoder().encode(text)));
    const file = lazy.file as unknown as { keys: Record<string, string>; data: { entries: string[] } };
    expect(segmentsFor(file.keys, file.data.entries, "sx313.trk")?.segments.map((s) => s.label)).toEqual([
      "h#",
      "s",
      "ih",
    ]);
  });
});
