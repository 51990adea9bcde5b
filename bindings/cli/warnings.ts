/**
 * Warnings as a person reads them: a file with a million repeated sections must not print a million lines. The
 * warnings are grouped by their wording with numbers and quoted names taken out ("sections[N] repeats the name
 * S of sections[N]…"); the first few of each group are shown in order, and one line per group says how many more.
 */

/** The wording of a warning without its numbers and quoted strings (the group it belongs to). */
export function warningKind(warning: string): string {
  return warning.replace(/"(?:[^"\\]|\\.)*"/g, "S").replace(/\d+/g, "N");
}

/** The first `keep` warnings of each kind (in their order) and, per kind with more, how many were left out. */
export function summarizeWarnings(
  warnings: readonly string[],
  keep = 5,
): { shown: string[]; more: { count: number; like: string }[] } {
  const counts = new Map<string, { count: number; like: string }>();
  const shown: string[] = [];
  for (const w of warnings) {
    const kind = warningKind(w);
    const entry = counts.get(kind);
    if (!entry) {
      counts.set(kind, { count: 1, like: w });
      shown.push(w);
    } else if (++entry.count <= keep) {
      shown.push(w);
    }
  }
  const more: { count: number; like: string }[] = [];
  for (const { count, like } of counts.values()) if (count > keep) more.push({ count: count - keep, like });
  return { shown, more };
}
