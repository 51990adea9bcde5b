/**
 * The page state kept in the URL hash, so a link reopens the same file, view and tensor:
 *   #url=<file URL>&b=<second file URL, for diff>&v=<view>&t=<tensor name>&hl=<histogram log 0|1>&cm=<colour map>
 *    &ax=<row axis>,<col axis>&ix=<index per axis>&sp=<speech mode 0|1>&nz=<per-feature normalisation 0|1>&q=<filter>
 *    &g=<graph index>&sg=<node>:<subgraph> (repeated: the open subgraph's path)&n=<selected graph node name>
 *    &x=<key of a graph node drawn expanded> (repeated)
 *    &cr=<colour range: minmax|percentile|symmetric>
 * Only keys with a value are written; unknown keys are ignored.
 */

export const VIEWS = ["summary", "tensors", "tensor", "graph", "diff", "export"] as const;
export type View = (typeof VIEWS)[number];

export interface PageState {
  url?: string | undefined;
  compareUrl?: string | undefined;
  view?: View | undefined;
  tensor?: string | undefined;
  logCounts?: boolean | undefined;
  colourMap?: string | undefined;
  axes?: [number, number] | undefined;
  indices?: number[] | undefined;
  speech?: boolean | undefined;
  normalize?: boolean | undefined;
  filter?: string | undefined;
  /** Which graph of the file (0 when absent). */
  graph?: number | undefined;
  /** The open subgraph's path from the graph: one `<node name>:<subgraph name>` per level (`If_0:then_branch`). */
  subgraph?: string[] | undefined;
  /** The selected graph node, by name (in the open subgraph when there is one). */
  node?: string | undefined;
  /** Graph nodes whose subgraphs are drawn in place, by key (graph-expand.ts: `If_0`, `If_0:then_branch>If_3`). */
  expand?: string[] | undefined;
  /** The heatmap's colour range mode. */
  colourRange?: "minmax" | "percentile" | "symmetric" | undefined;
}

function flag(value: string | null): boolean | undefined {
  return value === "1" ? true : value === "0" ? false : undefined;
}

function integers(value: string | null): number[] | undefined {
  if (value === null || value === "") return undefined;
  const list = value.split(",").map((s) => Number(s));
  return list.every((n) => Number.isInteger(n)) ? list : undefined;
}

export function parseHash(hash: string): PageState {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const view = params.get("v");
  const axes = integers(params.get("ax"));
  return {
    url: params.get("url") ?? undefined,
    compareUrl: params.get("b") ?? undefined,
    view: (VIEWS as readonly string[]).includes(view ?? "") ? (view as View) : undefined,
    tensor: params.get("t") ?? undefined,
    logCounts: flag(params.get("hl")),
    colourMap: params.get("cm") ?? undefined,
    axes: axes && axes.length === 2 ? [axes[0]!, axes[1]!] : undefined,
    indices: integers(params.get("ix")),
    speech: flag(params.get("sp")),
    normalize: flag(params.get("nz")),
    filter: params.get("q") ?? undefined,
    graph: integers(params.get("g"))?.[0],
    subgraph: params.getAll("sg").length > 0 ? params.getAll("sg") : undefined,
    node: params.get("n") ?? undefined,
    expand: params.getAll("x").length > 0 ? params.getAll("x") : undefined,
    colourRange: ["minmax", "percentile", "symmetric"].includes(params.get("cr") ?? "")
      ? (params.get("cr") as PageState["colourRange"])
      : undefined,
  };
}

export function formatHash(state: PageState): string {
  const params = new URLSearchParams();
  const put = (key: string, value: string | undefined) => {
    if (value !== undefined && value !== "") params.set(key, value);
  };
  put("url", state.url);
  put("b", state.compareUrl);
  put("v", state.view);
  put("t", state.tensor);
  put("hl", state.logCounts === undefined ? undefined : state.logCounts ? "1" : "0");
  put("cm", state.colourMap);
  put("ax", state.axes?.join(","));
  put("ix", state.indices?.join(","));
  put("sp", state.speech === undefined ? undefined : state.speech ? "1" : "0");
  put("nz", state.normalize === undefined ? undefined : state.normalize ? "1" : "0");
  put("q", state.filter);
  put("g", state.graph === undefined ? undefined : String(state.graph));
  for (const step of state.subgraph ?? []) if (step !== "") params.append("sg", step);
  put("n", state.node);
  for (const key of state.expand ?? []) if (key !== "") params.append("x", key);
  put("cr", state.colourRange);
  const text = params.toString().replace(/%2F/g, "/").replace(/%3A/g, ":").replace(/%2C/g, ",");
  return text === "" ? "" : `#${text}`;
}
