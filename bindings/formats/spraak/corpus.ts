/**
 * SPRAAK LIST helpers: the fields of an entry, corpus entries and their times.
 */
import type { SpraakFile } from "./model.js";
import { PROVISIONAL } from "./provisional.js";
import { trimSpace } from "./text.js";

// ------------------------------------------------------------------------------------------------ LIST helpers

/** The white-space separated fields of a LIST entry. */
export function listFields(entry: string): string[] {
  const trimmed = trimSpace(entry);
  return trimmed === "" ? [] : trimmed.split(/[ \t\r\v\f]+/);
}

/** A corpus / segmentation entry: FILENAME TRANSCRIPTION F1 F2 [OPT…], fields verbatim. */
export interface CorpusEntry {
  /** As written; "-" = the previous entry's file. */
  file: string;
  /** `file` with "-" replaced by the previous entry's file (corpusEntries()). */
  resolvedFile: string;
  /** The second field: the transcription. */
  transcription: string;
  /** The third field: start frame (DISCRETE) or begin time (CONTINUOUS), as written. */
  f1: string;
  /** The fourth field: length in frames or end time, as written ("-1": till the end). */
  f2: string;
  /** Any further fields. */
  extra: string[];
}

/** Splits one corpus/segmentation entry; undefined when it has fewer than 4 fields. */
export function corpusEntry(entry: string, previousFile = ""): CorpusEntry | undefined {
  const fields = listFields(entry);
  if (fields.length < 4) return undefined;
  const [file, transcription, f1, f2, ...extra] = fields as [string, string, string, string, ...string[]];
  return { file, resolvedFile: file === "-" ? previousFile : file, transcription, f1, f2, extra };
}

/** Every entry of a LIST file as a CorpusEntry ("-" resolved); entries with fewer than 4 fields are skipped. */
export function corpusEntries(file: SpraakFile): CorpusEntry[] {
  if (file.data.layout !== "LIST") return [];
  const out: CorpusEntry[] = [];
  let previous = "";
  for (const line of file.data.entries) {
    const entry = corpusEntry(line, previous);
    if (!entry) continue;
    previous = entry.resolvedFile;
    out.push(entry);
  }
  return out;
}

/** F1 F2 read as start frame and length in frames (TIMEBASE DISCRETE, the default); -1 = till the end. */
export function asStartLength(
  entry: CorpusEntry,
  fshift: number = PROVISIONAL.defaultFshift,
): {
  /** F1: the first frame. */
  startFrame: number;
  /** F2: the number of frames (null: till the end of the file). */
  frames: number | null;
  /** Begin, in seconds (startFrame x fshift). */
  begin: number;
  /** End, in seconds (null: till the end of the file). */
  end: number | null;
} {
  const startFrame = Number(entry.f1);
  const frames = entry.f2 === "-1" ? null : Number(entry.f2);
  return {
    startFrame,
    frames,
    begin: startFrame * fshift,
    end: frames === null ? null : (startFrame + frames) * fshift,
  };
}

/** F1 F2 read as begin and end time in seconds (TIMEBASE CONTINUOUS); -1 = till the end. */
export function asBeginEnd(entry: CorpusEntry): {
  /** Begin, in seconds. */
  begin: number;
  /** End, in seconds (null: till the end of the file). */
  end: number | null;
} {
  return { begin: Number(entry.f1), end: entry.f2 === "-1" ? null : Number(entry.f2) };
}

/** Begin and end in seconds by the file's TIMEBASE (DISCRETE: start/length frames x FSHIFT). */
export function entryTimes(
  file: SpraakFile,
  entry: CorpusEntry,
): {
  /** Begin, in seconds. */
  begin: number;
  /** End, in seconds (null: till the end of the file). */
  end: number | null;
} {
  if (file.meta.timebase === "CONTINUOUS") return asBeginEnd(entry);
  const { begin, end } = asStartLength(entry, file.meta.fshift ?? PROVISIONAL.defaultFshift);
  return { begin, end };
}
