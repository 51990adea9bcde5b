# Edits two weights of an april model exported to safetensors, with numpy only (docs/formats/onnx.md, README).
# safetensors is an 8-byte header length, a JSON header and the tensors' bytes.
import json, struct
import numpy as np

raw = open("weights.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = bytearray(raw[8 + n:])
kinds = {"F32": np.float32, "F16": np.float16, "BOOL": np.bool_}

def tensor(name):
    h = header[name]
    begin, end = h["data_offsets"]
    kind = kinds[h["dtype"]]
    return np.frombuffer(data, dtype=kind, count=(end - begin) // np.dtype(kind).itemsize, offset=begin).reshape(h["shape"])

bias = tensor("joiner/bias")
print("joiner/bias before:", bias)
bias += 1.0                                       # shift the joiner's bias by 1
gain = tensor("joiner/If_0/then_branch/gain")
gain *= 0.5                                       # halve a weight inside the If subgraph
print("joiner/bias after: ", bias)
print("then_branch gain:  ", gain)
open("edited.safetensors", "wb").write(raw[:8 + n] + bytes(data))
