/** Reference implementations written from definitions, independent of the kernels they check. */

/** Column-major data of `dims` in row-major order: out[i0][i1]… = values[i0 + d0 * (i1 + d1 * …)]. */
export function columnToRowOracle<T>(values: ArrayLike<T>, dims: readonly number[]): T[] {
  const count = dims.reduce((a, b) => a * b, 1);
  const out: T[] = new Array(count);
  const index = new Array<number>(dims.length).fill(0);
  for (let row = 0; row < count; row++) {
    let col = 0;
    for (let k = dims.length - 1; k >= 0; k--) col = col * dims[k]! + index[k]!;
    out[row] = values[col]!;
    for (let k = dims.length - 1; k >= 0; k--) {
      if (++index[k]! < dims[k]!) break;
      index[k] = 0;
    }
  }
  return out;
}

/** Row-major data of `dims` in column-major order (the inverse of columnToRowOracle). */
export function rowToColumnOracle<T>(values: ArrayLike<T>, dims: readonly number[]): T[] {
  const rowOrder = columnToRowOracle(
    Array.from({ length: values.length }, (_, i) => i),
    dims,
  );
  const out: T[] = new Array(values.length);
  rowOrder.forEach((col, row) => (out[col] = values[row]!));
  return out;
}
