import { seededUniform } from "../../src/stats/random-draws.js";

/** Seeded PRNG so failures reproduce: the product's own generator. */
export const mulberry32: (seed: number) => () => number = seededUniform;

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Scales a vector to unit length. */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  return vector.map((x) => x / norm);
}

/** A unit vector in a uniformly random direction. */
export function randomUnitVector(dims: number, random: () => number): Float32Array {
  return normalize(Float32Array.from({ length: dims }, () => gaussian(random)));
}

/**
 * `count` unit vectors in `clusters` groups: each a random centre plus
 * Gaussian noise of `spread` per component (before normalising), so that
 * near neighbours exist, as they do among chunks of similar code.
 */
export function clusteredUnitVectors(count: number, dims: number, clusters: number, spread: number, random: () => number): Float32Array[] {
  const centres = Array.from({ length: clusters }, () => randomUnitVector(dims, random));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * clusters)] as Float32Array;
    return normalize(centre.map((x) => x + spread * gaussian(random)));
  });
}
