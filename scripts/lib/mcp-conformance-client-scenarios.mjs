// What Sylk's MCP client does in each of the conformance suite's client
// scenarios, and how a scenario's outcome is judged: passed, not applicable
// (it needs something Sylk's client does not do, and failed the way a
// missing capability fails), or failed. Plain data and pure functions, so
// that a test reads them without the suite.

/** The name the harness gives the suite's test server in its `mcpServers`. */
export const SERVER_NAME = "conformance";

/** The line the harness's client prints what it did on, for the judge to read back from the suite's stdout.txt. */
export const REPORT_PREFIX = "sylk-conformance-client: ";

/**
 * The tool each scenario's test server expects to be called, as a model would
 * call it (`mcp__conformance__<tool>`), with the arguments it needs, and what
 * the model must then read (`answers`), where the server's answer is known. A
 * scenario not listed is connected to and its tools listed, nothing more:
 * `initialize` asks only that.
 */
const SCENARIO_CALLS = [
  [/^tools_call$/, { tool: "add_numbers", arguments: { a: 5, b: 3 }, answers: /^The sum of 5 and 3 is 8$/ }],
  // The answer comes on the GET stream the client opens again after the server closed the call's stream.
  [/^sse-retry$/, { tool: "test_reconnection", arguments: {}, answers: /^Reconnection test completed successfully$/ }],
  [/^elicitation-sep1034-client-defaults$/, { tool: "test_client_elicitation_defaults", arguments: {} }],
  // Every authorization scenario's server offers one tool once the client is authorized.
  [/^auth\//, { tool: "test-tool", arguments: {} }],
];

/** The tool call a scenario asks for, if any. */
export function callFor(scenario) {
  return SCENARIO_CALLS.find(([pattern]) => pattern.test(scenario))?.[1];
}

/** What a check says: its error, else its details' message, else its description. */
const said = (check) => check.errorMessage ?? check.details?.message ?? check.description ?? "";

/**
 * Scenarios that need a capability Sylk's client does not have. Each counts
 * as not applicable only when the client's own report shows that capability
 * missing (`shows`) and every failed check is one that capability would have
 * passed (`failedChecks`); any other failure is a failure.
 */
const NOT_APPLICABLE = [
  {
    scenario: /^auth\//,
    // The server refuses the client with 401, and Sylk's client, which runs no OAuth flow, says so and stops.
    shows: (report) =>
      report.state === "failed" && /asks for authorization \(HTTP 401\)/.test(report.error ?? "") && /no OAuth/.test(report.error ?? ""),
    // A step of the flow never taken: metadata discovery, registration, authorization, token, the flow's parameters.
    failedChecks: (check) =>
      check.name.startsWith("Expected Check Missing") ||
      /^Client did not (make|complete|perform)/.test(said(check)) ||
      (/resource parameter/.test(said(check)) && check.details?.resource === "not provided"),
    reason:
      "OAuth: Sylk's client sends the headers configured for a server (a token the user gives it) and runs no authorization flow; it stopped at the server's 401 and said so",
  },
  {
    scenario: /^elicitation-/,
    // The tool was called; the server's elicitation/create was answered "Method not found", as by any client without the capability.
    shows: (report) => /Method not found/.test(report.call?.output ?? ""),
    // The request that failed, and the suite's placeholders for the defaults it could not check after it.
    failedChecks: (check) =>
      /^Elicitation failed: .*Method not found/.test(said(check)) || /^Tool was not called by client$/.test(said(check)),
    reason:
      "elicitation: Sylk's client declares no elicitation capability (a server cannot ask the user for input in the middle of a tool call)",
  },
];

/** The report the harness's client printed, from the client's stdout; undefined if it printed none (it crashed or hung). */
export function parseReport(clientOutput) {
  const line = clientOutput
    .split("\n")
    .reverse()
    .find((candidate) => candidate.startsWith(REPORT_PREFIX));
  return line ? JSON.parse(line.slice(REPORT_PREFIX.length)) : undefined;
}

/**
 * What went wrong on the client's side, if anything: it must connect and,
 * where the scenario asks, call the tool without an error and read its answer.
 */
function clientProblem(scenario, report) {
  if (!report) return "the client printed no report (it crashed or was ended at the suite's timeout)";
  if (report.state !== "connected") return `the client: ${report.state}, ${report.error ?? ""}`;
  if (report.call?.error) return `the client's call of ${report.call.tool}: ${report.call.error}`;
  if (report.call?.isError) return `${report.call.tool} answered an error: ${report.call.output}`;
  const answers = callFor(scenario)?.answers;
  if (answers && !answers.test(report.call?.output ?? ""))
    return `the model would have read ${JSON.stringify(report.call?.output ?? null)}`;
  return undefined;
}

/**
 * A scenario's row: pass (no check failed, and the client connected and made
 * its call), n/a with the reason, or FAIL with each failed check and what the
 * client said.
 */
export function classify({ scenario, checks, clientOutput }) {
  const failed = checks.filter((check) => check.status === "FAILURE");
  const passed = checks.filter((check) => check.status === "SUCCESS").length;
  const warnings = checks.filter((check) => check.status === "WARNING").map((check) => `warning ${check.id}: ${check.errorMessage ?? ""}`);
  const report = parseReport(clientOutput);
  const problem = clientProblem(scenario, report);
  const row = { scenario, passed, failed: failed.length };
  if (failed.length === 0 && !problem) return { ...row, result: "pass", note: warnings.join("; ") };
  const rule = NOT_APPLICABLE.find((candidate) => candidate.scenario.test(scenario));
  if (rule && report && rule.shows(report) && failed.every(rule.failedChecks)) return { ...row, result: "n/a", note: rule.reason };
  const why = failed.map((check) => `${check.id}: ${said(check)}`);
  return { ...row, result: "FAIL", note: [...why, ...(problem ? [problem] : []), ...warnings].join("; ") };
}
