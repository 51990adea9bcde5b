/** An ONNX model's small constants decoded by the library, as the inspector page decodes them from the opened file. */
import { fromBytes, onnx } from "../../bindings/index.js";
import { type ConstantValues, loadConstantValues } from "../../web/src/model/graph-onnx.js";

/** The model's small constants, decoded by the library (as the page does through the opened file). */
export async function decodedConstants(bytes: Uint8Array): Promise<{ model: onnx.OnnxModel; values: ConstantValues }> {
  const model = onnx.read(bytes);
  const infos = onnx.tensorInfos(model);
  const byTensor = new Map(onnx.weights(model).map((w, k) => [w.tensor, infos[k]!]));
  const source = fromBytes(bytes);
  const values = await loadConstantValues(model, async (t, options) => {
    const info = byTensor.get(t);
    return info ? onnx.loadTensor(source, info, options) : undefined;
  });
  return { model, values };
}
