/**
 * The reference-written fixtures live in ../shared/fixtures (never copied into this repo). When that folder
 * is missing, fixture tests are skipped with a one-line note.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = process.env.TENSORFILE_FIXTURES ?? resolve(here, "../../../shared/fixtures");
export const HAVE_FIXTURES = existsSync(FIXTURES);

let noted = false;
/** True when fixtures exist; prints the skip note once otherwise. */
export function haveFixtures(): boolean {
  if (!HAVE_FIXTURES && !noted) {
    noted = true;
    console.log(`note: ${FIXTURES} not found; reference-fixture tests are skipped`);
  }
  return HAVE_FIXTURES;
}

export function fixturePath(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}

/**
 * A fixture's bytes. Without the fixtures folder it returns an empty array, so that describe blocks that read
 * fixtures while being collected still load (their tests are skipped with haveFixtures()).
 */
export function readFixture(...parts: string[]): Uint8Array {
  if (!HAVE_FIXTURES) return new Uint8Array(0);
  return new Uint8Array(readFileSync(fixturePath(...parts)));
}

/** Files of a fixture folder (not recursive), filtered by extension when given. */
export function listFixtures(folder: string, extension?: string): string[] {
  const dir = fixturePath(folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && (!extension || e.name.endsWith(extension)))
    .map((e) => e.name)
    .sort();
}
