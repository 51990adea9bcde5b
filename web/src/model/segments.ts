/**
 * SPRAAK segmentations (`.seg`, `DATA SEG`, a LIST file) shown under a track's heatmap: each entry line is
 * `FILENAME LABEL F1 F2 [more]`, `-` meaning the previous line's file. With `TIMEBASE DISCRETE` (the default)
 * F1 F2 are the start frame and the length in frames; with `TIMEBASE CONTINUOUS` they are seconds (start and
 * duration, as pyspch reads them), turned into frames with the header's FSHIFT (0.01 s by default).
 */

export interface Segment {
  label: string;
  /** First frame and number of frames. */
  start: number;
  frames: number;
}

export interface Segmentation {
  /** The file the segments belong to (the entries' FILENAME). */
  file: string;
  segments: Segment[];
  /** Files the .seg holds (a segmentation of a whole corpus has many). */
  files: string[];
}

function stem(path: string): string {
  const base = path.replace(/\\/g, "/").split("/").pop() ?? path;
  return base.replace(/\.[^.]*$/, "");
}

/**
 * The segments of `trackName`'s file (matched by base name without extension), or of the only file when the
 * .seg holds one; undefined when no file matches. Lines that do not parse are skipped.
 */
export function segmentsFor(
  keys: Record<string, string>,
  entries: readonly string[],
  trackName: string,
): Segmentation | undefined {
  const continuous = (keys.TIMEBASE ?? "DISCRETE").toUpperCase() === "CONTINUOUS";
  const shift = Number(keys.FSHIFT ?? "0.01") || 0.01;
  const byFile = new Map<string, Segment[]>();
  let file = "";
  for (const line of entries) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4) continue;
    if (fields[0] !== "-") file = fields[0]!;
    if (file === "") continue;
    const f1 = Number(fields[2]);
    const f2 = Number(fields[3]);
    if (!Number.isFinite(f1) || !Number.isFinite(f2)) continue;
    const start = continuous ? Math.round(f1 / shift) : f1;
    const frames = continuous ? Math.round(f2 / shift) : f2;
    const list = byFile.get(file) ?? [];
    list.push({ label: fields[1]!, start, frames: Math.max(0, frames) });
    byFile.set(file, list);
  }
  const files = [...byFile.keys()];
  const wanted = stem(trackName);
  const match = files.find((f) => stem(f) === wanted) ?? (files.length === 1 ? files[0] : undefined);
  if (match === undefined) return undefined;
  return { file: match, segments: byFile.get(match)!, files };
}
