#!/usr/bin/env node
// The docs link check (npm run check:links; CI runs it after npm test): every relative link and image in README.md
// and docs/**/*.md (docs/api/, TypeDoc's output, excluded) must name a file or folder that exists, and every
// #anchor must name a heading of the page it points to (GitHub's slugs: lower case, punctuation dropped, spaces to
// hyphens, "-1", "-2" for repeats) or an explicit <a id="…"> / <a name="…">. Links with a scheme (https:, mailto:)
// are not fetched. Code blocks and `code spans` are skipped.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const rel = (p) => path.relative(root, p).split(path.sep).join("/");

function markdownFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return rel(full) === "docs/api" ? [] : markdownFiles(full);
    return entry.name.endsWith(".md") ? [full] : [];
  });
}

/** The text of a markdown file with fenced code blocks and code spans blanked (line numbers kept). */
function prose(text) {
  const lines = text.split("\n");
  let fence = null;
  return lines
    .map((line) => {
      const open = line.match(/^\s*(`{3,}|~{3,})/);
      if (fence) {
        if (open && line.trim().startsWith(fence)) fence = null;
        return "";
      }
      if (open) {
        fence = open[1];
        return "";
      }
      return line.replace(/(`+)(?:(?!\1).)+?\1/g, (m) => " ".repeat(m.length));
    })
    .join("\n");
}

/** GitHub's heading anchors of a markdown file, and explicit <a id/name> anchors. */
const anchorCache = new Map();
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const anchors = new Set();
  const seen = new Map();
  for (const line of prose(readFileSync(file, "utf8")).split("\n")) {
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  // headings from the raw text (code spans in a heading keep their words in the anchor)
  const raw = readFileSync(file, "utf8").split("\n");
  let inFence = false;
  for (const line of raw) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!heading) continue;
    const plain = heading[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(plain) ?? 0;
    seen.set(plain, count + 1);
    anchors.add(count === 0 ? plain : `${plain}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

const files = [path.join(root, "README.md"), ...markdownFiles(path.join(root, "docs"))];
const problems = [];
let links = 0;

for (const file of files) {
  const lines = prose(readFileSync(file, "utf8")).split("\n");
  lines.forEach((line, index) => {
    const targets = [
      ...[...line.matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)].map((m) => m[1]),
      ...[...line.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      links++;
      const where = `${rel(file)}:${index + 1}`;
      const [pathPart, anchor] = target.split("#");
      const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
      const name = rel(resolved);
      if (!resolved.startsWith(root)) {
        problems.push(`${where}: ${target} points outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        problems.push(`${where}: ${target}: no such file or folder (${name})`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) {
        problems.push(`${where}: ${target}: an anchor into something that is not a markdown page`);
        continue;
      }
      if (!anchorsOf(resolved).has(decodeURIComponent(anchor))) {
        problems.push(`${where}: ${target}: ${name} has no heading with the anchor #${anchor}`);
      }
    }
  });
}

for (const problem of problems) console.log(`FAIL ${problem}`);
console.log(
  problems.length === 0
    ? `check-links: ${links} relative links in ${files.length} markdown files, all resolve`
    : `check-links: ${problems.length} broken of ${links} relative links in ${files.length} markdown files`,
);
process.exit(problems.length === 0 ? 0 : 1);
