/**
 * The files of an extract folder: how `extract` names the file of each tensor and blob, and how openTensorFolder
 * (folder/open.ts, which `patch` uses) reads a folder back. One scheme, so that `extract` then `patch` from the unchanged folder gives every name back:
 *
 * - The folder's `meta.json` has `"files": { name: file }`, every tensor and blob with the "/"-separated path of
 *   its file. It is the authority: `patch` takes a listed file's name from it, whatever the file is called.
 * - A name is cut at each "/" into folders; each part is escaped so that it is a file name on Linux, macOS and
 *   Windows and decodes back: `%` → `%25`, `\`, control characters and `<>:"|?*` → `%XX`; a part that is "." or
 *   ".." has its dots as `%2E`; a trailing "." or space, and the first letter of a Windows device name (CON, NUL,
 *   COM1, …), are escaped too; a lone UTF-16 surrogate is `%uXXXX`; an empty part (a name "", "/abs", "a//b") is
 *   `%` alone. A tensor's file adds ".npy".
 * - A part over 200 UTF-8 bytes is cut and ends in `~` and 8 hex digits of a hash of the whole part; a path over
 *   1000 bytes, or one whose file or folder would be taken (alike ignoring case and Unicode normalization, as on
 *   macOS and Windows: `W` and `w`; a file where another name needs a folder), is the whole name as one file
 *   (its "/" as `%2F`) and, if that is taken too, `~2`, `~3`, … before the extension. Those files need meta.json.
 * - A file that meta.json does not list (added by hand, or a folder without meta.json) is named by decoding its
 *   path: the parts' `%XX` / `%uXXXX` escapes decoded (a `%` followed by anything else is kept), joined with "/",
 *   ".npy" dropped.
 */

/** The file in an extract folder that maps names to files. */
export const MANIFEST = "meta.json";

const MAX_PART_BYTES = 200;
const MAX_PATH_BYTES = 1000;

const encoder = new TextEncoder();
/** Whether `text` is at most `max` UTF-8 bytes (a UTF-16 unit is at most 3 bytes: short text is not encoded). */
const fits = (text: string, max: number): boolean => text.length * 3 <= max || encoder.encode(text).length <= max;

/** FNV-1a of a string, as 8 hex digits (to keep shortened file names distinct). */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

const escapeChar = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;
/** A part that may need an escape: a character escaped, a surrogate, a trailing dot or space, or a device name. */
const NEEDS_CARE = /[%\\\u0000-\u001f\u007f<>:"|?*/\uD800-\uDFFF]|[. ]$|^(con|prn|aux|nul|com|lpt)/i;

/** One part of a name (no "/") as a file or folder name that {@link decodePart} turns back into it. */
export function encodePart(part: string): string {
  if (part === "") return "%";
  if (!NEEDS_CARE.test(part)) return part; // the common case: nothing to escape
  let out = part
    .replace(/[%\\\u0000-\u001f\u007f<>:"|?*/]/g, escapeChar)
    .replace(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      (c) => `%u${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  if (out === "." || out === "..") return out.replace(/\./g, "%2E");
  if (WINDOWS_DEVICE.test(out)) out = escapeChar(out[0]!) + out.slice(1);
  if (out.endsWith(".") || out.endsWith(" ")) out = out.slice(0, -1) + escapeChar(out[out.length - 1]!);
  return out;
}

/** The name part a file or folder name stands for (the inverse of {@link encodePart}). */
export function decodePart(part: string): string {
  if (part === "%") return "";
  return part.replace(/%u([0-9A-Fa-f]{4})|%([0-9A-Fa-f]{2})/g, (_, u: string | undefined, x: string | undefined) =>
    String.fromCharCode(parseInt(u ?? x!, 16)),
  );
}

/** `part` encoded, with `suffix`, in at most 200 UTF-8 bytes (cut with a hash of the whole when longer). */
function boundedPart(part: string, suffix: string): string {
  const whole = encodePart(part) + suffix;
  if (fits(whole, MAX_PART_BYTES)) return whole;
  const tail = `~${shortHash(part)}${suffix}`;
  const points = Array.from(part).slice(0, MAX_PART_BYTES);
  while (points.length > 0 && !fits(encodePart(points.join("")) + tail, MAX_PART_BYTES)) points.pop();
  return (points.length > 0 ? encodePart(points.join("")) : "") + tail;
}

/** The "/"-separated relative path {@link decodePath} reads back as `name` (folders per "/"), before any clash. */
export function encodePath(name: string, suffix = ""): string {
  const parts = name.split("/");
  return parts.map((part, i) => boundedPart(part, i === parts.length - 1 ? suffix : "")).join("/");
}

/** The name of a file not listed in meta.json: its path's parts decoded, without `suffix`. */
export function decodePath(path: string, suffix = ""): string {
  const bare = suffix !== "" && path.endsWith(suffix) ? path.slice(0, -suffix.length) : path;
  return bare.split("/").map(decodePart).join("/");
}

/** How file systems that ignore case and Unicode normalization (macOS, Windows) compare two paths. */
function folded(path: string): string {
  return (/^[\u0000-\u007f]*$/.test(path) ? path : path.normalize("NFD")).toLowerCase();
}

/**
 * A distinct relative path ("/"-separated) for each entry, in order, under the scheme above: no two alike when
 * case and normalization are ignored, none the folder of another, none `meta.json`, each part a valid file
 * name of at most 200 UTF-8 bytes and each path at most 1000 bytes (plus "~k" on a clash).
 */
export function folderPaths(entries: readonly { name: string; suffix: string }[]): string[] {
  const files = new Set<string>([folded(MANIFEST)]);
  const folders = new Set<string>();
  const free = (path: string): boolean => {
    const key = folded(path);
    if (files.has(key) || folders.has(key)) return false;
    const parts = key.split("/");
    for (let i = 1; i < parts.length; i++) if (files.has(parts.slice(0, i).join("/"))) return false;
    return true;
  };
  const take = (path: string): string => {
    const parts = folded(path).split("/");
    files.add(parts.join("/"));
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
    return path;
  };
  return entries.map(({ name, suffix }) => {
    const nested = encodePath(name, suffix);
    if (fits(nested, MAX_PATH_BYTES) && free(nested)) return take(nested);
    // one file for the whole name ("/" escaped), then ~2, ~3, … until free
    const flat = boundedPart(name, suffix);
    if (free(flat)) return take(flat);
    const stem = flat.slice(0, flat.length - suffix.length);
    for (let k = 2; ; k++) {
      const numbered = `${stem}~${k}${suffix}`;
      if (free(numbered)) return take(numbered);
    }
  });
}
