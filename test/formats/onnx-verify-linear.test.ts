/**
 * onnx.verify is linear in subgraphs × value names: it checked each subgraph against a copy of every enclosing
 * graph's names, so a model with 8,000 `If` nodes (a 1.2 MB file) took 54 s. Measured by counting the set and
 * map operations verify performs (every element a Set copy adds counts: the copy calls `add` per element), not by
 * time: four times the nodes must cost about four times the operations, not sixteen.
 */
import { describe, expect, it } from "vitest";
import * as onnx from "../../bindings/formats/onnx.js";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";

/** A model of `n` If nodes, each with two one-node branches reading the main graph's input. */
function ifChain(n: number): Uint8Array {
  const w = new ProtoWriter().uintField(1, 8).messageField(8, (o) => o.uintField(2, 17));
  w.messageField(7, (g) => {
    g.stringField(2, "main");
    g.messageField(11, (v) => v.stringField(1, "x"));
    g.messageField(11, (v) => v.stringField(1, "c"));
    for (let i = 0; i < n; i++) {
      g.messageField(1, (node) => {
        node.stringField(1, "c").stringField(2, `y${i}`).stringField(3, `if${i}`).stringField(4, "If");
        for (const branch of ["then_branch", "else_branch"]) {
          node.messageField(5, (a) =>
            a
              .stringField(1, branch)
              .uintField(20, 5)
              .messageField(6, (sub) => {
                sub.stringField(2, `${branch}${i}`);
                sub.messageField(1, (id) =>
                  id.stringField(1, "x").stringField(2, `${branch}_out${i}`).stringField(4, "Identity"),
                );
                sub.messageField(12, (v) => v.stringField(1, `${branch}_out${i}`));
              }),
          );
        }
      });
    }
    g.messageField(12, (v) => v.stringField(1, `y${n - 1}`));
  });
  return w.finish();
}

/** The Set and Map operations `run` performs (add/has/delete/set/get, a Set copy's adds included). */
function countOperations(run: () => void): number {
  let count = 0;
  const patched: [object, string, (...args: unknown[]) => unknown][] = [];
  for (const [proto, names] of [
    [Set.prototype, ["add", "has", "delete"]],
    [Map.prototype, ["set", "get", "has", "delete"]],
  ] as const) {
    for (const name of names) {
      const original = (proto as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
      patched.push([proto, name, original]);
      (proto as unknown as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
        count++;
        return original.apply(this, args);
      };
    }
  }
  try {
    run();
  } finally {
    for (const [proto, name, original] of patched) (proto as Record<string, unknown>)[name] = original;
  }
  return count;
}

describe("onnx.verify is linear in subgraphs × value names", () => {
  it("1,000 vs 4,000 If nodes: about 4× the operations (quadratic was 16×)", () => {
    const small = onnx.read(ifChain(1000));
    const large = onnx.read(ifChain(4000));
    let warnings: string[] = [];
    const a = countOperations(() => onnx.verify(small));
    const b = countOperations(() => (warnings = onnx.verify(large)));
    expect(warnings).toEqual([]);
    expect(b / a).toBeLessThan(5);
    expect(b).toBeLessThan(200 * 4000); // a few dozen per node, not thousands
  });

  it("8,000 If nodes (a 1.2 MB model): verified, and an undefined name inside a branch is still found", () => {
    const bytes = ifChain(8000);
    expect(bytes.length).toBeGreaterThan(800_000);
    const model = onnx.read(bytes);
    expect(onnx.verify(model)).toEqual([]);
    // a branch reading a name that only a sibling branch defines: not in scope
    const sibling = model.graph!.nodes[10]!.attributes[1]!.g!;
    sibling.nodes[0]!.inputs[0] = "then_branch_out10";
    expect(onnx.verify(model)).toEqual([
      'if10/else_branch: node Identity#0 (Identity) reads "then_branch_out10", which nothing defines',
    ]);
  });
});
