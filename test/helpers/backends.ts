import * as kernels from "../../bindings/kernels/index.js";

export const BACKENDS = ["js", "wasm"] as const;

/** Runs `fn` with the backend forced, restoring "auto" afterwards. */
export function withBackend<T>(backend: "js" | "wasm" | "auto", fn: () => T): T {
  kernels.setBackend(backend);
  try {
    return fn();
  } finally {
    kernels.setBackend("auto");
  }
}
