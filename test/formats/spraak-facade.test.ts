// spraak.ts is a facade over spraak/ (reader, writer, view, builder, corpus, patch): its runtime exports are the
// public namespace, so a name lost in a move fails here.
import { describe, expect, it } from "vitest";
import * as spraak from "../../bindings/formats/spraak.js";

describe("spraak facade", () => {
  it("exports the public namespace, name for name", () => {
    expect(Object.keys(spraak).sort()).toEqual([
      "KEY_HEADER_RULES", "PROVISIONAL", "asBeginEnd", "asStartLength", "blobs", "channels", "convert", "corpusEntries",
      "corpusEntry", "decodeG711", "detect", "encodeG711", "entryTimes", "extensions", "id", "inspect", "list",
      "listFields", "loadTensor", "mapKeyHeader", "matrix", "read", "readFrom", "replaceTensors", "tensorInfos",
      "tensors", "toKeyHeader", "verify", "write", "writeTo",
    ]);
    expect(spraak.id).toBe("spraak");
  });
});
