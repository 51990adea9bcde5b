/**
 * The package's version, as `tensorfile --version` prints it. test/version.test.ts checks that it equals
 * package.json's `version` and the newest released section of CHANGELOG.md (bump all three together).
 */
export const VERSION = "0.1.0";
