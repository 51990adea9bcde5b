/**
 * A layered (Sugiyama-style) layout without recursion, linear-ish in nodes + edges, for graphs too big for
 * dagre (its recursive passes overflow the stack near 2,000 nodes) and elkjs (472 KB gzip alone, over the
 * page's 250 KB budget; 7–8 s for 10,000 nodes with a raised stack, a stack overflow at the default one):
 *  1. ranks: longest path from the sources (Kahn's order; edges closing a cycle are drawn upwards), then every
 *     node without inputs moves down to just above its first consumer;
 *  2. edges spanning several ranks get a chain of dummy points, so they run between boxes, not through them;
 *  3. order within each rank: barycentre sweeps down and up;
 *  4. x: alternating passes move each node to the mean of its neighbours above (then below), boxes with more
 *     edges first and dummy points last, keeping the order and the gaps (Sugiyama's priority method; a box sees
 *     a long edge's far box, not its dummy point beside it); then each run of nodes pressed against each other
 *     moves as one to the mean of its boxes' wishes (siblings centred under their parent: no diagonal drift on
 *     transformer exports);
 *  5. y: each rank as tall as its tallest box.
 */
import type { Positioned } from "./graph.js";

export interface LayoutNodeSize {
  id: number;
  width: number;
  height: number;
}

export interface LayeredOptions {
  rankGap?: number;
  nodeGap?: number;
  dummyGap?: number;
  sweeps?: number;
}

export function layeredLayout(
  nodes: readonly LayoutNodeSize[],
  edges: readonly { from: number; to: number }[],
  options: LayeredOptions = {},
): Positioned {
  const rankGap = options.rankGap ?? 36;
  const nodeGap = options.nodeGap ?? 24;
  const dummyGap = options.dummyGap ?? 10;
  const sweeps = options.sweeps ?? 4;
  const n = nodes.length;
  const slot = new Map<number, number>();
  nodes.forEach((node, i) => slot.set(node.id, i));
  const out: number[][] = Array.from({ length: n }, () => []);
  const ins: number[][] = Array.from({ length: n }, () => []);
  const pairs = new Set<number>();
  for (const e of edges) {
    const a = slot.get(e.from);
    const b = slot.get(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    const key = a * n + b;
    if (pairs.has(key)) continue;
    pairs.add(key);
    out[a]!.push(b);
    ins[b]!.push(a);
  }

  // 1. ranks
  const indegree = ins.map((list) => list.length);
  const rank = new Int32Array(n);
  const order: number[] = [];
  const seen = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (indegree[i] === 0) order.push(i);
  for (let head = 0; head < order.length; head++) {
    const a = order[head]!;
    seen[a] = 1;
    for (const b of out[a]!) {
      if (rank[b]! < rank[a]! + 1) rank[b] = rank[a]! + 1;
      if (--indegree[b]! === 0) order.push(b);
    }
  }
  for (let i = 0; i < n; i++) {
    if (seen[i]) continue;
    // in a cycle: below the inputs placed so far, in file order
    let r = 0;
    for (const a of ins[i]!) if (seen[a] && rank[a]! + 1 > r) r = rank[a]! + 1;
    rank[i] = r;
    seen[i] = 1;
    order.push(i);
  }
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k]!;
    if (ins[i]!.length > 0 || out[i]!.length === 0) continue;
    let first = Infinity;
    for (const b of out[i]!) if (rank[b]! < first) first = rank[b]!;
    if (first !== Infinity && first - 1 > rank[i]!) rank[i] = first - 1;
  }
  let ranks = 0;
  for (let i = 0; i < n; i++) if (rank[i]! + 1 > ranks) ranks = rank[i]! + 1;

  // 2. virtual nodes: real ones (0 … n−1), then dummies on long edges
  const vRank: number[] = Array.from(rank);
  const vWidth: number[] = nodes.map((node) => node.width);
  const up: number[][] = Array.from({ length: n }, () => []);
  const down: number[][] = Array.from({ length: n }, () => []);
  const topoIndex = new Float64Array(n);
  order.forEach((i, k) => (topoIndex[i] = k));
  const vKey: number[] = Array.from(topoIndex);
  const chains: { from: number; to: number; points: number[] }[] = [];
  // each dummy point's real ends: the box at the top of its chain and the one at the bottom
  const chainTop: number[] = [];
  const chainBottom: number[] = [];
  const chainSpan: number[] = [];
  for (const e of edges) {
    const a = slot.get(e.from);
    const b = slot.get(e.to);
    if (a === undefined || b === undefined) continue;
    const points: number[] = [];
    if (a !== b) {
      const top = Math.min(rank[a]!, rank[b]!);
      const bottom = Math.max(rank[a]!, rank[b]!);
      const [upper, lower] = rank[a]! <= rank[b]! ? [a, b] : [b, a];
      let previous = upper;
      for (let r = top + 1; r < bottom; r++) {
        const d = vRank.length;
        vRank.push(r);
        vWidth.push(0);
        up.push([previous]);
        down.push([]);
        down[previous]!.push(d);
        vKey.push(topoIndex[upper]! + 0.5);
        chainTop[d - n] = upper;
        chainBottom[d - n] = lower;
        chainSpan[d - n] = bottom - top;
        points.push(d);
        previous = d;
      }
      if (bottom > top) {
        down[previous]!.push(lower);
        up[lower]!.push(previous);
      }
      if (upper !== a) points.reverse();
    }
    chains.push({ from: e.from, to: e.to, points });
  }
  const total = vRank.length;
  const layers: number[][] = Array.from({ length: ranks }, () => []);
  for (let v = 0; v < total; v++) layers[vRank[v]!]!.push(v);
  for (const layer of layers) layer.sort((p, q) => vKey[p]! - vKey[q]!);

  // 3. order within ranks
  const position = new Float64Array(total);
  const setPositions = (layer: number[]) => layer.forEach((v, k) => (position[v] = k));
  layers.forEach(setPositions);
  const barycentre = (neighbours: number[][], v: number) => {
    const list = neighbours[v]!;
    if (list.length === 0) return position[v]!;
    let sum = 0;
    for (const u of list) sum += position[u]!;
    return sum / list.length;
  };
  const key = new Float64Array(total);
  const sortLayer = (layer: number[], neighbours: number[][]) => {
    for (const v of layer) key[v] = barycentre(neighbours, v);
    layer.sort((p, q) => key[p]! - key[q]! || position[p]! - position[q]!);
    setPositions(layer);
  };
  for (let s = 0; s < sweeps; s++) {
    for (let r = 1; r < ranks; r++) sortLayer(layers[r]!, up);
    for (let r = ranks - 2; r >= 0; r--) sortLayer(layers[r]!, down);
  }

  // 4. x
  const x = new Float64Array(total);
  const gapAfter = (v: number, w: number) =>
    vWidth[v]! / 2 + vWidth[w]! / 2 + (vWidth[v]! === 0 || vWidth[w]! === 0 ? dummyGap : nodeGap);
  for (const layer of layers) {
    let cursor = 0;
    layer.forEach((v, k) => {
      if (k > 0) cursor += gapAfter(layer[k - 1]!, v);
      x[v] = cursor;
    });
  }
  // priority placement: boxes with more edges first, dummy points last; each moves to the mean of its
  // neighbours as far as the nodes of higher priority (fixed already) and the order allow
  /** A neighbour as a box sees it: itself, or for a dummy point the real box at that end of its chain. */
  const realEnd = (u: number, neighbours: number[][]) =>
    u < n ? u : neighbours === up ? chainTop[u - n]! : chainBottom[u - n]!;
  const priority = (v: number) => (v < n ? 1000 + up[v]!.length + down[v]!.length : 0);
  const fixed = new Uint8Array(total);
  const place = (layer: number[], neighbours: number[][]) => {
    if (layer.length === 0) return;
    const byPriority = layer.map((v, k) => k).sort((a, b) => priority(layer[b]!) - priority(layer[a]!) || a - b);
    for (const v of layer) fixed[v] = 0;
    for (const k of byPriority) {
      const v = layer[k]!;
      const list = neighbours[v]!;
      if (list.length > 0) {
        // a box follows its neighbouring boxes and, for an edge over more than two ranks, the box at the chain's
        // far end, never the dummy point beside it: dummy points stand aside, so following them makes a chain with
        // skip connections drift sideways block after block; ignoring those edges made a box follow only its
        // short inputs (ISNet: a Resize fed by a Cast over three ranks and by a Shape → Slice → Concat side branch
        // went half a box sideways at every upsampling, 2.1× dagre's width). Edges over two ranks stay ignored:
        // their far end is a sibling's parent already (LayerNorm's x → Sub beside x → ReduceMean → Sub), and
        // counting it twice drifts whisper-like encoders by half a box per block
        let sum = 0;
        let count = 0;
        for (const u of list) {
          if (v >= n) sum += x[u]!;
          else if (u < n) sum += x[u]!;
          else if (chainSpan[u - n]! > 2) sum += x[realEnd(u, neighbours)]!;
          else continue;
          count++;
        }
        if (count === 0)
          for (const u of list) {
            sum += x[u]!;
            count++;
          }
        let target = sum / count;
        // the room between the nearest fixed nodes on either side
        let low = -Infinity;
        let need = 0;
        for (let j = k - 1; j >= 0; j--) {
          need += gapAfter(layer[j]!, layer[j + 1]!);
          if (fixed[layer[j]!]) {
            low = x[layer[j]!]! + need;
            break;
          }
        }
        let high = Infinity;
        need = 0;
        for (let j = k + 1; j < layer.length; j++) {
          need += gapAfter(layer[j - 1]!, layer[j]!);
          if (fixed[layer[j]!]) {
            high = x[layer[j]!]! - need;
            break;
          }
        }
        target = Math.min(Math.max(target, low), high);
        x[v] = target;
        // push the free nodes on either side out of the way
        for (let j = k + 1; j < layer.length && !fixed[layer[j]!]; j++) {
          const min = x[layer[j - 1]!]! + gapAfter(layer[j - 1]!, layer[j]!);
          if (x[layer[j]!]! < min) x[layer[j]!] = min;
        }
        for (let j = k - 1; j >= 0 && !fixed[layer[j]!]; j--) {
          const max = x[layer[j + 1]!]! - gapAfter(layer[j]!, layer[j + 1]!);
          if (x[layer[j]!]! > max) x[layer[j]!] = max;
        }
      }
      fixed[v] = 1;
    }
  };
  // balancing: a run of nodes pushed against each other (siblings that all want their parent's x: q, k, v of an
  // attention block) moves as one to the mean of its boxes' wishes, so the first sibling does not keep the
  // parent's x and push the others to one side (a drift that adds up block after block, diagonally)
  const balance = (layer: number[], neighbours: number[][]) => {
    let start = 0;
    while (start < layer.length) {
      let end = start;
      while (
        end + 1 < layer.length &&
        x[layer[end + 1]!]! - x[layer[end]!]! <= gapAfter(layer[end]!, layer[end + 1]!) + 1e-6
      )
        end++;
      if (end > start) {
        let sum = 0;
        let count = 0;
        for (let j = start; j <= end; j++) {
          const v = layer[j]!;
          if (v >= n) continue;
          let s2 = 0;
          let c2 = 0;
          for (const u of neighbours[v]!)
            if (u < n) {
              s2 += x[u]!;
              c2++;
            }
          if (c2 === 0) continue;
          sum += s2 / c2 - x[v]!;
          count++;
        }
        if (count > 0) {
          let shift = sum / count;
          if (start > 0)
            shift = Math.max(
              shift,
              x[layer[start - 1]!]! + gapAfter(layer[start - 1]!, layer[start]!) - x[layer[start]!]!,
            );
          if (end + 1 < layer.length)
            shift = Math.min(shift, x[layer[end + 1]!]! - gapAfter(layer[end]!, layer[end + 1]!) - x[layer[end]!]!);
          for (let j = start; j <= end; j++) x[layer[j]!] = x[layer[j]!]! + shift;
        }
      }
      start = end + 1;
    }
  };
  for (let s = 0; s < sweeps; s++) {
    for (let r = 1; r < ranks; r++) {
      place(layers[r]!, up);
      balance(layers[r]!, up);
    }
    for (let r = ranks - 2; r >= 0; r--) {
      place(layers[r]!, down);
      balance(layers[r]!, down);
    }
  }
  let minX = Infinity;
  let maxX = -Infinity;
  for (let v = 0; v < total; v++) {
    minX = Math.min(minX, x[v]! - vWidth[v]! / 2);
    maxX = Math.max(maxX, x[v]! + vWidth[v]! / 2);
  }
  if (total === 0) minX = maxX = 0;
  const margin = 16;

  // 5. y
  const rankTop = new Float64Array(ranks + 1);
  const rankHeight = new Float64Array(ranks);
  for (let i = 0; i < n; i++) rankHeight[rank[i]!] = Math.max(rankHeight[rank[i]!]!, nodes[i]!.height);
  let cursor = margin;
  for (let r = 0; r < ranks; r++) {
    rankTop[r] = cursor;
    cursor += (rankHeight[r] || 8) + rankGap;
  }
  const vy = (v: number) => rankTop[vRank[v]!]! + (rankHeight[vRank[v]!] || 8) / 2;

  const maxId = nodes.reduce((m, node) => Math.max(m, node.id), -1);
  const outX = new Array<number>(maxId + 1).fill(0);
  const outY = new Array<number>(maxId + 1).fill(0);
  nodes.forEach((node, i) => {
    outX[node.id] = x[i]! - minX + margin;
    outY[node.id] = vy(i);
  });
  const placedEdges = chains.map((chain) => {
    const a = slot.get(chain.from)!;
    const b = slot.get(chain.to)!;
    const downward = rank[a]! < rank[b]!;
    const ha = nodes[a]!.height / 2;
    const hb = nodes[b]!.height / 2;
    const points = [{ x: outX[chain.from]!, y: outY[chain.from]! + (downward ? ha : rank[a] === rank[b] ? 0 : -ha) }];
    for (const d of chain.points) points.push({ x: x[d]! - minX + margin, y: vy(d) });
    points.push({ x: outX[chain.to]!, y: outY[chain.to]! + (downward ? -hb : rank[a] === rank[b] ? 0 : hb) });
    return { from: chain.from, to: chain.to, points };
  });
  return {
    x: outX,
    y: outY,
    width: maxX - minX + 2 * margin,
    height: cursor - rankGap + margin,
    edges: placedEdges,
    engine: "layered",
  };
}
