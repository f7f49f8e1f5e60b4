// Types of scripts/lib/agents-repository.mjs (plain JS, run by node without a build), for the tests that import it.

/** A documented constant: its file, name, value, and the lines of its comment (start) and itself (end). */
export interface RepositoryFact {
  path: string;
  symbol: string;
  value: number;
  start: number;
  end: number;
}

export interface GeneratedRepository {
  files: Map<string, string>;
  order: string[];
  starts: number[];
  factPosition: number;
  truth: RepositoryFact;
  decoy: RepositoryFact;
}

export const FILES: number;
export const FACT_PATH: string;
export const FACT_NAME: string;
export const FACT_TOPIC: string;
export const DECOY_PATH: string;
export const DECOY_NAME: string;
export const MODULE_FUNCTIONS: number;
export const FACT_LINE: number;
export function mulberry32(seed: number): () => number;
export function moduleText(random: () => number, index: number, functions?: number): string;
export function generateRepository(seed: number): GeneratedRepository;
export function linesOf(text: string, offset: number, limit: number): string;
