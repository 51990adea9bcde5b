/**
 * The inspector's edits as plain data (they cross to the editing worker and replay after a precision change),
 * applied with the library's checked edit functions (onnx.setMetadata, deleteMetadata, setModelField, renameValue,
 * setShape; the format's own fields through its `edit` capability's setField). A refusal is a RangeError naming what is wrong, and nothing is changed. Node names and
 * scalar attributes have no library function: they are plain changes to the model object, which write() stores.
 */
import { capabilitiesOf } from "../../../bindings/formats/registry.js";
import type { FormatEditing, FormatId } from "../../../bindings/formats/types.js";
import { type april, onnx } from "../../../bindings/index.js";

/** The networks an edit of an `.april` file goes to; a plain `.onnx` model has none. */
export type NetworkName = (typeof april.NETWORK_NAMES)[number];

/** One edit. `network`: which network of an `.april` file (ignored for `.onnx`). */
export type EditOp =
  | { op: "set-meta"; network?: NetworkName | undefined; key: string; value: string }
  | { op: "delete-meta"; network?: NetworkName | undefined; key: string }
  | { op: "field"; network?: NetworkName | undefined; field: onnx.OnnxModelField; value: string }
  | { op: "rename"; network?: NetworkName | undefined; from: string; to: string }
  | { op: "shape"; network?: NetworkName | undefined; name: string; dims: string }
  | { op: "node-name"; network?: NetworkName | undefined; node: number; name: string }
  | { op: "attribute"; network?: NetworkName | undefined; node: number; attribute: string; value: string }
  | { op: "april-field"; field: string; value: string };

/** The precision change of the whole model: what `convert --quantize` does. */
export interface PrecisionChoice {
  mode: onnx.QuantizeMode;
  keepIO: boolean;
}

/** The attribute types an edit sets from text. */
export const SCALAR_ATTRIBUTE_TYPES: readonly string[] = ["FLOAT", "INT", "STRING"];

/**
 * The file an edit changes: a file object of a format with the `edit` capability (an `.april` file, an ONNX model),
 * or an ONNX model as it is (`{ format: "onnx", model }`).
 */
export type EditedFile = { format: FormatId; file: unknown } | { format: FormatId; model: onnx.OnnxModel };

function refuse(detail: string): never {
  throw new RangeError(detail);
}

/** The format's `edit` capability and the file object it edits. */
export function editingOf(target: EditedFile): { editing: FormatEditing; file: unknown } {
  const editing = capabilitiesOf(target.format)?.edit;
  if (!editing) refuse(`the editor does not change ${target.format} files`);
  return { editing, file: "model" in target ? target.model : target.file };
}

/** The ONNX model an edit goes to: the file's own, or its named network (the first when none is named). */
export function targetModel(target: EditedFile, network: NetworkName | undefined): onnx.OnnxModel {
  const { editing, file } = editingOf(target);
  return editing.model(file, editing.networks ? (network ?? editing.networks[0]) : undefined);
}

function mainNode(model: onnx.OnnxModel, index: number): onnx.OnnxNode {
  const node = Number.isSafeInteger(index) ? model.graph?.nodes[index] : undefined;
  if (!node) refuse(`the graph has no node #${index}`);
  return node;
}

/** The value an INT attribute takes from text: an integer within ±2^53. */
function integerOf(text: string, what: string): number {
  const trimmed = text.trim();
  const n = Number(trimmed);
  if (!/^-?\d+$/.test(trimmed) || !Number.isSafeInteger(n))
    refuse(`${what} takes an integer, not ${JSON.stringify(text)}`);
  return n;
}

/** The value a FLOAT attribute takes from text: a number (nan, inf and -inf too), stored as float32. */
function floatOf(text: string, what: string): number {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "nan") return NaN;
  if (trimmed === "inf" || trimmed === "+inf" || trimmed === "infinity") return Infinity;
  if (trimmed === "-inf" || trimmed === "-infinity") return -Infinity;
  const n = Number(trimmed);
  if (trimmed === "" || !Number.isFinite(n)) refuse(`${what} takes a number, not ${JSON.stringify(text)}`);
  return Math.fround(n);
}

/**
 * Applies one edit to the file object (in place); returns a line saying what was done. Throws a RangeError (or the
 * library's TypeError) with nothing changed when the edit is refused.
 */
export function applyEdit(target: EditedFile, edit: EditOp): string {
  const { editing, file } = editingOf(target);
  if (edit.op === "april-field") {
    // the fields of a file that holds networks (an .april's header); a one-model file's are its model's ("field")
    if (!editing.networks) refuse("header fields are edits of an .april file");
    editing.setField(file, edit.field, edit.value);
    return `${edit.field} = ${JSON.stringify(edit.value)}`;
  }
  const model = targetModel(target, edit.network);
  const where = editing.networks ? `${edit.network ?? editing.networks[0]}: ` : "";
  switch (edit.op) {
    case "set-meta":
      if (edit.key === "") refuse("a metadata key cannot be empty");
      onnx.setMetadata(model, edit.key, edit.value);
      return `${where}metadata ${edit.key} = ${JSON.stringify(edit.value)}`;
    case "delete-meta":
      onnx.deleteMetadata(model, edit.key);
      return `${where}metadata ${edit.key} deleted`;
    case "field":
      onnx.setModelField(model, edit.field, edit.value);
      return `${where}${edit.field} = ${JSON.stringify(edit.value)}`;
    case "rename": {
      const places = onnx.renameValue(model, edit.from, edit.to);
      return `${where}renamed ${edit.from} -> ${edit.to} (${places} place${places === 1 ? "" : "s"})`;
    }
    case "shape": {
      const dims = onnx.parseShape(edit.dims);
      onnx.setShape(model, edit.name, dims);
      return `${where}shape of ${edit.name} = [${dims.map((d) => d ?? "?").join(", ")}]`;
    }
    case "node-name": {
      const node = mainNode(model, edit.node);
      node.name = edit.name;
      return `${where}node #${edit.node} (${node.opType}) named ${JSON.stringify(edit.name)}`;
    }
    case "attribute": {
      const node = mainNode(model, edit.node);
      const attribute = node.attributes.find((a) => a.name === edit.attribute);
      if (!attribute) refuse(`node #${edit.node} (${node.opType}) has no attribute ${JSON.stringify(edit.attribute)}`);
      const what = `${edit.attribute} of node #${edit.node}`;
      switch (attribute.type) {
        case "FLOAT":
          attribute.f = floatOf(edit.value, what);
          break;
        case "INT":
          attribute.i = integerOf(edit.value, what);
          break;
        case "STRING":
          attribute.s = edit.value;
          break;
        default:
          refuse(`${what} is a ${attribute.type} attribute: only FLOAT, INT and STRING ones are edited here`);
      }
      return `${where}${what} (${node.opType}) = ${edit.value}`;
    }
  }
}

/**
 * A shape as the editor shows it and parseShape reads it back: `1x?x64`, with commas when a name holds an "x";
 * `[]` for a scalar, nothing for an unknown rank.
 */
export function shapeText(shape: readonly (number | string | null)[] | undefined): string {
  if (shape === undefined) return "";
  if (shape.length === 0) return "[]";
  const dims = shape.map((d) => (d === null ? "?" : String(d)));
  return dims.some((d) => d.includes("x")) ? dims.join(",") : dims.join("x");
}

/** A scalar attribute's value as text (what the editor shows and applyEdit reads back). */
export function attributeText(attribute: onnx.OnnxAttribute): string | undefined {
  switch (attribute.type) {
    case "FLOAT": {
      const f = attribute.f ?? 0;
      return Number.isNaN(f) ? "nan" : f === Infinity ? "inf" : f === -Infinity ? "-inf" : String(f);
    }
    case "INT":
      return String(attribute.i ?? 0);
    case "STRING":
      return attribute.s ?? "";
    default:
      return undefined;
  }
}
