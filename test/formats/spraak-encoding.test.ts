/**
 * SPRAAK text is bytes in UTF-8 or Latin-1: read as UTF-8 when valid, else Latin-1, reported in meta.encoding;
 * the option forces one; write() gives back the exact bytes either way.
 */
import { describe, expect, it } from "vitest";
import * as spraak from "../../bindings/formats/spraak.js";

const entries = ["één_twee drie", "ça va", "plain ascii"];

describe("SPRAAK text encoding", () => {
  const utf8File = spraak.write(spraak.list(entries, { encoding: "utf-8", header: { COMMENT: "Zürich" } }));
  const latin1File = spraak.write(spraak.list(entries, { encoding: "latin1", header: { COMMENT: "Zürich" } }));

  it("the two files really differ in their bytes (é is 2 bytes in UTF-8, 1 in Latin-1)", () => {
    expect(utf8File.length).toBeGreaterThan(latin1File.length);
  });

  it("valid UTF-8 is read as UTF-8, and says so", () => {
    const file = spraak.read(utf8File);
    expect(spraak.inspect(file).meta.encoding).toBe("utf-8");
    expect(JSON.stringify(spraak.inspect(file))).toContain("één_twee");
    expect(JSON.stringify(spraak.inspect(file))).toContain("Zürich");
    expect(Buffer.from(spraak.write(file)).equals(Buffer.from(utf8File))).toBe(true);
  });

  it("other bytes are read as Latin-1, and say so", () => {
    const file = spraak.read(latin1File);
    expect(spraak.inspect(file).meta.encoding).toBe("latin1");
    expect(JSON.stringify(spraak.inspect(file))).toContain("één_twee");
    expect(Buffer.from(spraak.write(file)).equals(Buffer.from(latin1File))).toBe(true);
  });

  it("the option forces an encoding: Latin-1 shows UTF-8 bytes as mojibake but keeps them; UTF-8 refuses Latin-1 bytes", () => {
    const forced = spraak.read(utf8File, { encoding: "latin1" });
    expect(spraak.inspect(forced).meta.encoding).toBe("latin1");
    expect(JSON.stringify(spraak.inspect(forced))).toContain("Ã©Ã©n_twee");
    expect(Buffer.from(spraak.write(forced)).equals(Buffer.from(utf8File))).toBe(true);
    expect(() => spraak.read(latin1File, { encoding: "utf-8" })).toThrow(/invalid UTF-8/);
  });

  it("readFrom decides the same way", async () => {
    const { fromBytes } = await import("../../bindings/io/source.js");
    expect(spraak.inspect(await spraak.readFrom(fromBytes(utf8File))).meta.encoding).toBe("utf-8");
    expect(spraak.inspect(await spraak.readFrom(fromBytes(latin1File))).meta.encoding).toBe("latin1");
  });
});
