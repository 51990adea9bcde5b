// cli/folder-names.ts: the file names extract gives tensors (and patch reads back). Properties over names drawn
// from a hostile alphabet: each path is a valid relative path everywhere, the escaping decodes back, and the
// paths of one folder are distinct even where a file system ignores case and Unicode normalization.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodePart, decodePath, encodePart, encodePath, folderPaths } from "../bindings/cli/folder-names.js";

/** Characters that break file names somewhere, plus letters that differ only in case or normalization. */
const HOSTILE_ALPHABET = [
  "/",
  "\\",
  ".",
  "%",
  "\u0000",
  "\n",
  ":",
  "*",
  "?",
  "<",
  ">",
  "|",
  '"',
  " ",
  "~",
  "#",
  "W",
  "w",
  "a",
  "é",
  "e\u0301",
  "ß",
  "\uD800",
  "😀",
  "_",
];
const hostileName = fc.array(fc.constantFrom(...HOSTILE_ALPHABET), { maxLength: 12 }).map((cs) => cs.join(""));
const utf8 = (text: string) => Buffer.byteLength(text);
const folded = (path: string) => path.normalize("NFD").toLowerCase();
const WINDOWS_BAD = /[\u0000-\u001f\u007f<>:"|?*\\]/;

function checkPath(path: string): void {
  expect(path.startsWith("/")).toBe(false);
  for (const part of path.split("/")) {
    expect(part).not.toBe("");
    expect(part).not.toBe(".");
    expect(part).not.toBe("..");
    expect(part).not.toMatch(WINDOWS_BAD);
    expect(part).not.toMatch(/[. ]$/);
    expect(utf8(part)).toBeLessThanOrEqual(255);
    expect(part).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  }
}

describe("extract's file names", () => {
  it("the examples the documentation gives", () => {
    expect(encodePath("layers.0.0", ".npy")).toBe("layers.0.0.npy");
    expect(encodePath("encoder/W", ".npy")).toBe("encoder/W.npy");
    expect(encodePath("", ".npy")).toBe("%.npy");
    expect(encodePath("..", ".npy")).toBe("%2E%2E.npy");
    expect(encodePath("/abs", ".npy")).toBe("%/abs.npy");
    expect(encodePath("a\\b", ".npy")).toBe("a%5Cb.npy");
    expect(encodePath("x\u0000y", ".npy")).toBe("x%00y.npy");
    expect(encodePath("100%", ".npy")).toBe("100%25.npy");
    expect(encodePath("con", ".npy")).toBe("%63on.npy");
    expect(encodePath("a.", "")).toBe("a%2E");
    expect(decodePart("%")).toBe("");
    expect(decodePart("50%off")).toBe("50%off"); // a % that is no escape is kept
  });

  it("property: every part is a file name on Linux, macOS and Windows, and decodes back (short names)", () => {
    fc.assert(
      fc.property(hostileName, (name) => {
        const path = encodePath(name, ".npy");
        checkPath(path);
        expect(decodePath(path, ".npy")).toBe(name);
        for (const part of name.split("/")) expect(decodePart(encodePart(part))).toBe(part);
      }),
      { numRuns: 500 },
    );
  });

  it("a part over 200 bytes is cut with a hash; a path over 1000 bytes is one file", () => {
    const long = "é".repeat(300);
    const [cut, other] = folderPaths([
      { name: `a/${long}`, suffix: ".npy" },
      { name: `a/${long}x`, suffix: ".npy" },
    ]);
    expect(cut).toMatch(/^a\/é+~[0-9a-f]{8}\.npy$/);
    expect(utf8(cut!.split("/")[1]!)).toBeLessThanOrEqual(200);
    expect(other).not.toBe(cut);
    const deep = Array.from({ length: 300 }, () => "abcd").join("/");
    const [flat] = folderPaths([{ name: deep, suffix: ".npy" }]);
    expect(flat).not.toContain("/");
    checkPath(flat!);
  });

  it("W and w, é and e + combining accent, meta.json, a file where a folder is needed: all distinct", () => {
    const entries = ["W", "w", "\u00e9", "e\u0301", "meta", "x", "x.npy/y", "meta.json"].map((name) => ({
      name,
      suffix: ".npy",
    }));
    entries.push({ name: "meta.json", suffix: "" }, { name: "x.npy", suffix: "" });
    const paths = folderPaths(entries);
    expect(paths.slice(0, 2)).toEqual(["W.npy", "w~2.npy"]);
    expect(new Set(paths.map(folded)).size).toBe(paths.length);
    expect(paths.map(folded)).not.toContain("meta.json");
  });

  it("property: any multiset of names gets distinct paths, none a folder of another, none meta.json", () => {
    const entry = fc.record({ name: hostileName, suffix: fc.constantFrom(".npy", "") });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), (entries) => {
        const paths = folderPaths(entries);
        expect(paths).toHaveLength(entries.length);
        const keys = paths.map(folded);
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys).not.toContain("meta.json");
        const files = new Set(keys);
        for (const key of keys) {
          const parts = key.split("/");
          for (let i = 1; i < parts.length; i++) expect(files.has(parts.slice(0, i).join("/"))).toBe(false);
        }
        paths.forEach((path, i) => {
          checkPath(path);
          expect(path.endsWith(entries[i]!.suffix)).toBe(true);
        });
        expect(folderPaths(entries)).toEqual(paths); // the same names, the same files
      }),
      { numRuns: 300 },
    );
  });
});
