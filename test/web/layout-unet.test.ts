// The layered layout keeps a U-Net narrow (issue 36, ISNet medium: 2.09× dagre's fit-view area, 3,072 px against
// 1,435). ISNet's decoders upsample with a Resize whose size comes from a side branch (Shape → Slice → Concat) next
// to a Cast of the data: the Cast reaches the Resize by a long edge (dummy points), the side branch by short ones.
// A box that followed only its short-edge neighbours went half a box sideways at every upsampling, block after
// block; it follows the box at the far end of a long edge now, as dagre's layout does in effect.
import { describe, expect, it } from "vitest";
import { layeredLayout } from "../../web/src/model/layered-layout.js";
import { dagreLayout, type LayoutInput } from "../../web/src/model/layout.js";

/** RSU-like blocks in a row: an encoder of Conv/Relu/MaxPool stages, then decoders that upsample and concat the skip. */
function unetLike(blocks: number, depth: number): LayoutInput {
  const nodes: LayoutInput["nodes"] = [];
  const edges: LayoutInput["edges"] = [];
  const box = (width: number, ...inputs: number[]) => {
    const id = nodes.length;
    nodes.push({ id, width, height: 40 });
    for (const from of inputs) edges.push({ from, to: id });
    return id;
  };
  const conv = (x: number) => box(80, box(171, x));
  let x = box(80);
  for (let b = 0; b < blocks; b++) {
    const skips: number[] = [];
    for (let level = 0; level < depth; level++) {
      x = conv(x);
      skips.push(x);
      if (level < depth - 1) x = box(171, x);
    }
    x = conv(box(80, conv(x), x));
    for (let level = depth - 2; level >= 0; level--) {
      const size = box(80, box(94, box(80, x)));
      const resized = box(108, box(320, box(94, x), size));
      x = conv(box(80, resized, skips[level]!));
    }
    x = box(80, x, skips[0]!);
  }
  return { nodes, edges };
}

const area = (layout: { width: number; height: number }) => layout.width * layout.height;

describe("layered layout: U-Net-like graphs", () => {
  for (const [blocks, depth] of [
    [1, 6],
    [4, 6],
    [6, 4],
  ] as const) {
    it(`fits ${blocks} block(s) of depth ${depth} in no more than 1.5× dagre's box area and width`, () => {
      const input = unetLike(blocks, depth);
      const ours = layeredLayout(input.nodes, input.edges);
      const dagre = dagreLayout(input);
      expect(ours.width).toBeLessThanOrEqual(1.5 * dagre.width);
      expect(area(ours)).toBeLessThanOrEqual(1.5 * area(dagre));
    });
  }
});
