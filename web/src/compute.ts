/**
 * The page's numeric reductions, in one place: per-tensor statistics and their merge (chunked tensors) and
 * histograms, by the library's WASM SIMD kernels (kernels.stats / mergeStats / histogram, with TS twins where
 * WebAssembly is off), and the diff of two files (diffTensors, one tensor pair in memory at a time).
 */
import { kernels } from "../../bindings/index.js";

export type TensorStats = kernels.TensorStats;
export type StatsData = kernels.StatsData;
export type StatsOptions = kernels.StatsOptions;
export type Histogram = kernels.Histogram;

export const stats = kernels.stats;
export const mergeStats = kernels.mergeStats;
export const histogram = kernels.histogram;

export { diffTensors } from "../../bindings/index.js";
export type { DiffResult, TensorDiff } from "../../bindings/index.js";
