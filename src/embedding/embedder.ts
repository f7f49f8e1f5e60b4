/**
 * What an embedder's vectors know about a text. `spelling`: only its words
 * and their parts (the built-in hashing of trigrams), evidence of the same
 * kind as full text's, so its neighbours beyond full text's hits are mostly
 * noise on a large repository. `meaning`: a trained model, which finds text
 * that says the same thing in other words, evidence full text cannot give.
 */
export type EmbeddingEvidence = "spelling" | "meaning";

/** Turns text into unit-length vectors for the sqlite-vec index. */
export interface Embedder {
  /** Identifies model and dimensions; vectors from different ids never mix. */
  readonly id: string;
  readonly dimensions: number;
  /** How far code search trusts this embedder's neighbours on their own (see `HybridCodeSearcher`). */
  readonly evidence: EmbeddingEvidence;
  /** `query` and `document` may be embedded differently (instruction-tuned models). */
  embed(texts: readonly string[], kind: "document" | "query", signal?: AbortSignal): Promise<Float32Array[]>;
}

export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  // Indexed, not `for…of`: the iterator was a worker's allocation for every chunk's vector.
  for (let index = 0; index < vector.length; index++) sum += (vector[index] as number) * (vector[index] as number);
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] as number) * scale;
  return vector;
}
