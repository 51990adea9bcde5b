// Editing an ONNX model: change the object read() returns, write() stores the change (docs/formats/onnx.md#editing).
import { onnx } from "tensorfile";

const bytes = onnx.write(onnx.create({
  graph: {
    name: "main",
    nodes: [{ name: "add", opType: "Add", inputs: ["input", "bias"], outputs: ["y"] }],
    initializers: [{ name: "bias", dtype: "float32", dims: [512], data: new Float32Array(512) }],
    inputs: [{ name: "input", dtype: "float32", shape: ["N", 512] }],
    outputs: [{ name: "y", dtype: "float32", shape: ["N", 512] }],
  },
}));
// #region edit
const model = onnx.read(bytes);
onnx.setMetadata(model, "source", "fine-tune 3");   // or push to model.metadataProps
onnx.renameValue(model, "input", "audio");          // every use, subgraphs too unless they shadow it
onnx.setShape(model, "audio", ["batch", 512]);      // same rank; a RangeError otherwise (nothing changed)
model.graph.initializers.push(onnx.makeTensor({ name: "scale", dtype: "float32", dims: [1], data: [2] }));
model.graph.nodes.push({ name: "rescale", opType: "Mul", domain: "", inputs: ["y", "scale"], outputs: ["z"], attributes: [], docString: "" });
model.graph.outputs[0].name = "z";
const edited = onnx.write(model);
// #endregion edit
const again = onnx.read(edited);
console.log(again.metadataProps, again.graph.inputs.map((v) => [v.name, v.type.shape]), again.graph.nodes.map((n) => n.opType));
console.log(onnx.write(onnx.read(bytes)).length === bytes.length); // an unchanged model writes back as read
