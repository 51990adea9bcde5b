// Exports every family module has (see scripts/wasm-families.mjs).

/** First byte after this module's static data (its data segments start at its memoryBase). */
export function staticEnd(): usize {
  return __heap_base;
}
