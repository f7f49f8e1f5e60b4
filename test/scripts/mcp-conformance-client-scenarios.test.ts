import { describe, expect, it } from "vitest";
import { type ConformanceCheck, callFor, classify, REPORT_PREFIX } from "../../scripts/lib/mcp-conformance-client-scenarios.mjs";

/** What the harness's client prints, as the suite keeps it in stdout.txt. */
const printed = (report: Record<string, unknown>) => `some log line\n${REPORT_PREFIX}${JSON.stringify(report)}\n`;

const UNAUTHORIZED =
  'cannot start: the server asks for authorization (HTTP 401); Sylk runs no OAuth sign-in: give it a token in its "headers" ("Authorization": "Bearer <token>"). It said: Streamable HTTP error: Error POSTing to endpoint: {"error":"invalid_token"}';

const check = (id: string, status: ConformanceCheck["status"], fields: Partial<ConformanceCheck> = {}): ConformanceCheck => ({
  id,
  name: id,
  status,
  ...fields,
});

// The checks of an OAuth scenario whose client never started the flow, as the suite reported them.
const flowNotTaken = [
  check("incoming-request", "INFO"),
  check("authorization-server-metadata", "FAILURE", { name: "Expected Check Missing: authorization-server-metadata" }),
  check("token-endpoint-auth-method", "FAILURE", { description: "Client did not make a token request" }),
  check("resource-parameter-in-token", "FAILURE", {
    description: "Client MUST include resource parameter in token request per RFC 8707",
    details: { resource: "not provided" },
  }),
];

describe("the conformance harness's client scenarios", () => {
  it("calls the tool each scenario's server expects, and only connects where none is expected", () => {
    expect(callFor("tools_call")).toMatchObject({ tool: "add_numbers", arguments: { a: 5, b: 3 } });
    expect(callFor("sse-retry")?.tool).toBe("test_reconnection");
    expect(callFor("elicitation-sep1034-client-defaults")?.tool).toBe("test_client_elicitation_defaults");
    expect(callFor("auth/metadata-default")?.tool).toBe("test-tool");
    expect(callFor("initialize")).toBeUndefined();
  });

  it("passes a scenario only when no check failed and the client connected, made its call and read the answer", () => {
    const checks = [check("tool-add-numbers", "SUCCESS")];
    const connected = { state: "connected", call: { tool: "add_numbers", output: "The sum of 5 and 3 is 8" } };
    expect(classify({ scenario: "tools_call", checks, clientOutput: printed(connected) })).toMatchObject({ result: "pass", passed: 1 });
    const failedCall = { state: "connected", call: { tool: "add_numbers", error: "mcp__conformance__add_numbers failed: timed out" } };
    expect(classify({ scenario: "tools_call", checks, clientOutput: printed(failedCall) })).toMatchObject({
      result: "FAIL",
      note: expect.stringContaining("timed out"),
    });
    const misread = { state: "connected", call: { tool: "add_numbers", output: "(the tool returned nothing)" } };
    expect(classify({ scenario: "tools_call", checks, clientOutput: printed(misread) })).toMatchObject({
      result: "FAIL",
      note: expect.stringContaining("the model would have read"),
    });
    expect(classify({ scenario: "tools_call", checks, clientOutput: "" })).toMatchObject({
      result: "FAIL",
      note: expect.stringContaining("printed no report"),
    });
  });

  it("counts an OAuth scenario as not applicable only when the client stopped at the 401 and every failed check is a step never taken", () => {
    const stopped = printed({ state: "failed", error: UNAUTHORIZED });
    expect(classify({ scenario: "auth/token-endpoint-auth-basic", checks: flowNotTaken, clientOutput: stopped })).toMatchObject({
      result: "n/a",
      failed: 3,
      note: expect.stringContaining("runs no authorization flow"),
    });
    const timedOut = printed({ state: "failed", error: "cannot start: it did not answer within 10 s" });
    expect(classify({ scenario: "auth/token-endpoint-auth-basic", checks: flowNotTaken, clientOutput: timedOut }).result).toBe("FAIL");
    const wrongStep = [
      ...flowNotTaken,
      check("prm-priority-order", "FAILURE", {
        description: "Client requested PRM metadata at root location on a server with path-based PRM",
      }),
    ];
    expect(classify({ scenario: "auth/metadata-default", checks: wrongStep, clientOutput: stopped })).toMatchObject({
      result: "FAIL",
      note: expect.stringContaining("prm-priority-order"),
    });
  });

  it("counts the elicitation scenario as not applicable only when the server's request was refused as an unknown method", () => {
    const checks = [
      check("client-elicitation-sep1034-general", "FAILURE", { errorMessage: "Elicitation failed: MCP error -32601: Method not found" }),
      check("client-elicitation-sep1034-string-default", "FAILURE", { details: { message: "Tool was not called by client" } }),
    ];
    const refused = {
      state: "connected",
      call: { tool: "test_client_elicitation_defaults", output: "Elicitation error: MCP error -32601: Method not found" },
    };
    expect(classify({ scenario: "elicitation-sep1034-client-defaults", checks, clientOutput: printed(refused) }).result).toBe("n/a");
    const notCalled = { state: "connected", call: { tool: "test_client_elicitation_defaults", error: "the server listed no tool" } };
    expect(classify({ scenario: "elicitation-sep1034-client-defaults", checks, clientOutput: printed(notCalled) }).result).toBe("FAIL");
  });
});
