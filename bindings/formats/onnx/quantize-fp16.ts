/** ONNX precision changes, fp16: weights to float16 and the graph rewritten to compute in float16 where it may. */
import type { OnnxNode } from "./model.js";
import { FLOAT, FLOAT16, type QuantizeReport } from "./quantize-types.js";
import { Analysis, DATA_MOVEMENT, FP16_OPS, INDEX_ARITHMETIC, elemTypeOf, isDefault } from "./quantize-analysis.js";
import {
  type WeightAccess,
  asBytes,
  castNode,
  convertedTensor,
  elementCount,
  replaceSource,
  toFloat16,
  unreadable,
  withElemType,
} from "./quantize-tensors.js";

// ---------------------------------------------------------------------------------------------- fp16

export function fp16(a: Analysis, keepIO: boolean, report: QuantizeReport, access: WeightAccess): void {
  const model = a.model;
  const opset = report.opset;
  const main = model.graph!;
  const mainOutputs = new Set(main.outputs.map((o) => o.name));
  const isFloat = (name: string) => name !== "" && a.typeOf(name) === FLOAT;
  const kept = new Map<string, { opType: string; count: number; reason: string }>();
  const keep = (opType: string, reason: string) => {
    const key = `${opType}\u0000${reason}`;
    const entry = kept.get(key) ?? kept.set(key, { opType, count: 0, reason }).get(key)!;
    entry.count++;
  };

  // 1. the nodes that compute in float16
  const half = new Set<OnnxNode>();
  for (const { node } of a.order) {
    const outputsFloat = node.outputs.some(isFloat);
    const inputsFloat = node.inputs.some(isFloat);
    if (!outputsFloat && !inputsFloat) continue;
    if (!isDefault(node)) {
      keep(`${node.domain}.${node.opType}`, "not an ai.onnx op");
      continue;
    }
    if (["Cast", "Constant", "If", "Loop", "Scan", "Shape", "Size"].includes(node.opType)) continue;
    const op = FP16_OPS[node.opType];
    if (!op) {
      keep(node.opType, "no float16 in the allowlist");
      continue;
    }
    if (opset < op.minOpset) {
      keep(node.opType, `float16 from opset ${op.minOpset}`);
      continue;
    }
    if (!node.inputs.some((n) => a.tainted.has(n)) && !DATA_MOVEMENT.has(node.opType)) {
      keep(node.opType, "constant or shape arithmetic");
      continue;
    }
    if (INDEX_ARITHMETIC.has(node.opType) && node.outputs.some((o) => isFloat(o) && a.indexLike.has(o))) {
      keep(node.opType, "sizes or indices computed in float");
      continue;
    }
    const tIn = (op.tInputs ?? node.inputs.map((_, i) => i)).filter((i) => (node.inputs[i] ?? "") !== "");
    if (tIn.some((i) => a.typeOf(node.inputs[i]!) !== FLOAT) || !isFloat(node.outputs[0] ?? "")) {
      keep(node.opType, "not float32 (or its type is unknown)");
      continue;
    }
    if (
      node.opType === "LayerNormalization" &&
      node.outputs.slice(1).some((o) => o !== "" && ((a.uses.get(o)?.length ?? 0) > 0 || mainOutputs.has(o)))
    ) {
      keep(node.opType, "its mean/inverse-deviation outputs are used");
      continue;
    }
    half.add(node);
  }
  report.opsFloat16 = half.size;
  const isTInput = (node: OnnxNode, index: number) => {
    const t = FP16_OPS[node.opType]?.tInputs;
    return t === undefined || t.includes(index);
  };

  // 2. the precision of every float32 value
  const precision = new Map<string, "fp16" | "fp32">();
  const is16 = (name: string) => precision.get(name) === "fp16";
  const pinned = (name: string) => keepIO && mainOutputs.has(name);
  const renamedOutputs = new Set<string>();
  for (const node of half) {
    for (const o of node.outputs) {
      if (!isFloat(o)) continue;
      if (pinned(o)) renamedOutputs.add(o);
      else precision.set(o, "fp16");
    }
  }
  if (!keepIO)
    for (const v of main.inputs)
      if (isFloat(v.name) && !a.sources.has(v.name) && !main.initializers.some((t) => t.name === v.name))
        precision.set(v.name, "fp16");
  // sources: weights, Cast(to=FLOAT), If outputs: float16 when a float16 computation reads them
  const candidates: string[] = [];
  for (const [name, s] of a.sources) if (!unreadable(s.tensor)) candidates.push(name);
  for (const { node } of a.order) {
    if (!isDefault(node)) continue;
    if (node.opType === "Cast" && node.attributes.find((x) => x.name === "to")?.i === FLOAT && node.outputs[0])
      candidates.push(node.outputs[0]);
    if (node.opType === "If") candidates.push(...node.outputs.filter(isFloat));
  }
  const wants16 = (name: string): boolean => {
    if ((a.uses.get(name) ?? []).some((u) => half.has(u.ref.node) && isTInput(u.ref.node, u.index))) return true;
    for (const { ctx, k } of a.branchOutputs.get(name) ?? []) {
      if (ctx.owner?.opType === "If" && is16(ctx.owner.outputs[k] ?? "")) return true;
    }
    return false;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const name of candidates) {
      if (is16(name) || pinned(name) || a.indexLike.has(name) || a.graphInputs.has(name) || !wants16(name)) continue;
      precision.set(name, "fp16");
      changed = true;
    }
  }

  // 3. weights and Casts
  for (const [name, s] of a.sources) {
    if (is16(name)) {
      const read = { name: s.name, tensor: s.tensor, kind: s.kind };
      replaceSource(
        s,
        convertedTensor(
          access,
          { name: s.tensor.name, dataType: FLOAT16, dims: s.tensor.dims, docString: s.tensor.docString },
          elementCount(s.tensor) * 2,
          function* () {
            for (const piece of access.pieces(read)) yield asBytes(toFloat16(piece, report));
          },
        ),
      );
      report.tensorsConverted++;
    } else {
      const why =
        unreadable(s.tensor) ??
        (pinned(name)
          ? "a graph output"
          : a.indexLike.has(name)
            ? "sizes or scales"
            : "no float16 computation reads it");
      report.tensorsKept.push({ name, reason: why });
    }
  }
  for (const { node } of a.order) {
    if (isDefault(node) && node.opType === "Cast" && is16(node.outputs[0] ?? "")) {
      const to = node.attributes.find((x) => x.name === "to")!;
      const i = node.attributes.indexOf(to);
      node.attributes[i] = { ...to, i: FLOAT16 };
      report.castsRetargeted++;
    }
  }

  // 4. Casts where a value's precision is not the one its user needs
  for (const ctx of a.contexts) {
    const casts = new Map<string, string>();
    const nodes: OnnxNode[] = [];
    const castOf = (name: string, to: "fp16" | "fp32"): string => {
      const key = `${to}\u0000${name}`;
      let out = casts.get(key);
      if (out === undefined) {
        out = a.freshName(`${name}_${to}`);
        casts.set(key, out);
        nodes.push(castNode(a.freshName(`${out}_cast`), name, out, to === "fp16" ? FLOAT16 : FLOAT));
        report.nodesAdded++;
      }
      return out;
    };
    for (const node of ctx.graph.nodes) {
      const passThrough = isDefault(node) && ["Cast", "Shape", "Size"].includes(node.opType);
      node.inputs.forEach((name, i) => {
        if (!isFloat(name) || passThrough) return;
        const need = half.has(node) && isTInput(node, i) ? "fp16" : "fp32";
        const have = is16(name) ? "fp16" : "fp32";
        if (need !== have) node.inputs[i] = castOf(name, need);
      });
      nodes.push(node);
      if (half.has(node)) {
        node.outputs.forEach((o, k) => {
          if (!renamedOutputs.has(o)) return;
          const inner = a.freshName(`${o}_fp16`);
          node.outputs[k] = inner;
          nodes.push(castNode(a.freshName(`${o}_cast`), inner, o, FLOAT));
          report.nodesAdded++;
        });
      }
    }
    // subgraph outputs: an If branch gives what its If gives; Loop/Scan bodies keep their declared types
    if (!ctx.isMain) {
      ctx.graph.outputs.forEach((v, k) => {
        if (!isFloat(v.name) && elemTypeOf(v) !== FLOAT) return;
        const ownerOut = ctx.owner?.opType === "If" ? (ctx.owner.outputs[k] ?? "") : "";
        const need = ownerOut !== "" && is16(ownerOut) ? "fp16" : "fp32";
        const have = is16(v.name) ? "fp16" : "fp32";
        let out = v;
        if (need !== have) out = { ...v, name: castOf(v.name, need) };
        ctx.graph.outputs[k] = need === "fp16" ? withElemType(out, FLOAT16) : out;
      });
    }
    ctx.graph.nodes.splice(0, ctx.graph.nodes.length, ...nodes);
    ctx.graph.valueInfo.forEach((v, k) => {
      if (is16(v.name) && v.type.kind === "tensor") ctx.graph.valueInfo[k] = withElemType(v, FLOAT16);
    });
  }
  if (!keepIO) {
    main.inputs.forEach((v, k) => {
      if (is16(v.name)) main.inputs[k] = withElemType(v, FLOAT16);
    });
    main.outputs.forEach((v, k) => {
      if (is16(v.name)) main.outputs[k] = withElemType(v, FLOAT16);
    });
  }
  report.opsKeptFloat32 = [...kept.values()].sort((x, y) => y.count - x.count);
}
