/** Turns text into unit-length vectors for the sqlite-vec index. */
export interface Embedder {
  /** Identifies model and dimensions; vectors from different ids never mix. */
  readonly id: string;
  readonly dimensions: number;
  /** `query` and `document` may be embedded differently (instruction-tuned models). */
  embed(texts: readonly string[], kind: "document" | "query", signal?: AbortSignal): Promise<Float32Array[]>;
}

export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) * scale;
  return vector;
}
