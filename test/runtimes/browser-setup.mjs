// What the inspector's browser tests (inspector.mjs, inspector-graph.mjs, inspector-rough-edges.mjs) share: the
// paths of the repository, Debian's Chromium and the built page, the check that they exist, and a check counter.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const pagePath = join(root, "dist/web/index.html");
export const fixturesRoot = process.env.TENSORFILE_FIXTURES ?? resolve(root, "../shared/fixtures");

/** Exits 1, saying what to run, when Chromium, the built page or dist/index.js is missing. */
export function requireBuilt(label) {
  for (const [path, hint] of [[executablePath, "apt-get install chromium"], [pagePath, "npm run build"], [join(root, "dist/index.js"), "npm run build"]]) {
    if (!existsSync(path)) {
      console.error(`${label}: ${path} not found (${hint})`);
      process.exit(1);
    }
  }
}

/** `check(condition, message)` counts a pass, or prints and keeps a failure; returns the condition. */
export function checkCounter() {
  const counter = { passed: 0, failures: [] };
  counter.check = (condition, message) => {
    if (condition) counter.passed++;
    else {
      counter.failures.push(message);
      console.error(`  FAIL ${message}`);
    }
    return condition;
  };
  return counter;
}
