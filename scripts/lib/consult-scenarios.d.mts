// Types of scripts/lib/consult-scenarios.mjs (plain JS, run by node without a build), for the tests that import it.
import type { GeneratedRepository, RepositoryFact } from "./agents-repository.mjs";

export type Outcome = "correct" | "partial" | "wrong";
export type Policy = "trust" | "verify";

export interface Profile {
  name: string;
  rates: Partial<Record<Outcome, number>>;
}

export type Scenario = { reads: number; mode: "self" } | { reads: number; mode: "consult"; policy: Policy; outcome: Outcome };

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

export interface Score {
  file: boolean;
  symbol: boolean;
  value: boolean;
  correct: boolean;
}

export interface Claim {
  path: string;
  symbol?: string;
  value?: number;
  start?: number;
  end?: number;
}

/** One scenario's measured run, as scripts/lib/consult-runs.mjs reports it. */
export type MeasuredRun = Scenario & {
  windowFirst: number;
  windowFinal: number;
  windowAdded: number;
  engineerCalls: number;
  librarianCalls: number;
  engineerInput: number;
  librarianInput: number;
  totalInput: number;
  librarianFirst: number;
  cachedInput: number;
  answer: string;
  score: Score;
  /** Why earlier attempts of this run were thrown away (a model call that failed in transport). */
  discarded?: string[];
};

export interface TableRow {
  reads: number;
  engineer: string;
  librarian: string;
  accuracy: number;
  windowAdded: number;
  totalInput: number;
  cachedInput: number;
  windowRatio: number;
  totalRatio: number;
  cachedRatio: number;
}

export interface ShareInput {
  answer: string;
  sources: { path: string; start_line: number; end_line: number }[];
  confidence: number;
  completeness: number;
}

export const READ_COUNTS: number[];
export const READ_LINES: number;
export const READS_PER_SEARCH: number;
export const OUTCOMES: Outcome[];
export const POLICIES: Policy[];
export const PROFILES: Profile[];
export function scenarioRuns(readCounts?: readonly number[]): Scenario[];
export function explorationCalls(repository: GeneratedRepository, reads: number): ToolCall[];
export function claimText(fact: RepositoryFact): string;
export function librarianShare(outcome: Outcome, repository: GeneratedRepository): ShareInput;
export function claimIn(text: string): Claim | undefined;
export function afterConsultation(
  handedBack: string,
  policy: Policy,
  repository: GeneratedRepository,
  exploration: ToolCall[],
): { calls: ToolCall[]; answer: string };
export const CACHE_WRITE: number;
export const CACHE_READ: number;
/** The base input tokens one agent's requests cost when each reads the cache the one before it wrote. */
export function cachedInputCost(bodies: readonly { tools?: unknown; system?: unknown; messages?: unknown }[]): number;
export function scoreAnswer(text: string, truth: RepositoryFact): Score;
export function mixture(
  outcomeRuns: Partial<Record<Outcome, MeasuredRun>>,
  profile: Profile,
): { accuracy: number; windowAdded: number; totalInput: number; cachedInput: number; engineerCalls: number; librarianCalls: number };
export function scenarioTable(measured: readonly MeasuredRun[], readCounts?: readonly number[], profiles?: readonly Profile[]): TableRow[];
export function consultationReport(report: {
  seed: number;
  via: string;
  readCounts: readonly number[];
  runs: readonly MeasuredRun[];
  table: readonly TableRow[];
}): string;
