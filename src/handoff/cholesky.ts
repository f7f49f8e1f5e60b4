/**
 * Dense Cholesky factorisation and triangular solves for the small (≤ 32×32)
 * symmetric positive-definite matrices of the handoff GP. Row-major
 * Float64Array, lower triangle; plain loops, as a matrix this size costs
 * microseconds and a dependency would cost more.
 */

/** Factors `matrix` (n×n, row-major) into L with L Lᵀ = matrix; undefined if it is not positive definite. */
export function cholesky(matrix: Float64Array, n: number): Float64Array | undefined {
  const lower = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = matrix[i * n + j] as number;
      for (let k = 0; k < j; k++) sum -= (lower[i * n + k] as number) * (lower[j * n + k] as number);
      if (i === j) {
        if (!(sum > 0)) return undefined;
        lower[i * n + i] = Math.sqrt(sum);
      } else {
        lower[i * n + j] = sum / (lower[j * n + j] as number);
      }
    }
  }
  return lower;
}

/** Solves L z = b by forward substitution. */
export function solveLower(lower: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i] as number;
    for (let k = 0; k < i; k++) sum -= (lower[i * n + k] as number) * (z[k] as number);
    z[i] = sum / (lower[i * n + i] as number);
  }
  return z;
}

/** Solves Lᵀ z = b by back substitution. */
export function solveUpper(lower: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const z = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let sum = b[i] as number;
    for (let k = i + 1; k < n; k++) sum -= (lower[k * n + i] as number) * (z[k] as number);
    z[i] = sum / (lower[i * n + i] as number);
  }
  return z;
}

/** log det(L Lᵀ) = 2 Σ log Lᵢᵢ. */
export function logDeterminant(lower: Float64Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.log(lower[i * n + i] as number);
  return 2 * sum;
}
