// Types of scripts/lib/mcp-conformance-client-scenarios.mjs (plain JS, run by node without a build), for the test that imports it.

/** One check as the conformance suite writes it in a scenario's checks.json. */
export interface ConformanceCheck {
  id: string;
  name: string;
  description?: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: Record<string, unknown>;
}

export interface ScenarioCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** What the model must read of the answer, where the server's answer is known. */
  answers?: RegExp;
}

export interface ScenarioRow {
  scenario: string;
  result: "pass" | "n/a" | "FAIL";
  passed: number;
  failed: number;
  note: string;
}

export const SERVER_NAME: string;
export const REPORT_PREFIX: string;
export function callFor(scenario: string): ScenarioCall | undefined;
export function parseReport(clientOutput: string): Record<string, unknown> | undefined;
export function classify(result: { scenario: string; checks: ConformanceCheck[]; clientOutput: string }): ScenarioRow;
